//! Projects one source file into facts with tree-sitter: symbols with kind,
//! visibility, span and signature; raw calls with their enclosing caller;
//! imports; chunks; the first syntax error. Driven by `grammars/<lang>/`.
//! Knows nothing about other files (resolution happens later) or storage.

use std::cell::RefCell;
use std::collections::HashMap;

use nerd_logic::vocab::{SymbolKind, Visibility};
use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator, Tree};

use super::imports::{self, Import};
use super::lang::{GrammarError, Lang};

/// Files longer than this many lines get symbol-aligned chunks.
pub const CHUNK_THRESHOLD_LINES: u32 = 400;
/// Target size of one chunk.
pub const CHUNK_TARGET_LINES: u32 = 200;
const SIGNATURE_MAX_CHARS: usize = 240;

/// A definition found in a file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProjectedSymbol {
    /// `path#Qualified.name`, unique within the repository.
    pub id: String,
    pub name: String,
    pub kind: SymbolKind,
    pub visibility: Visibility,
    pub line: u32,
    pub end_line: u32,
    pub signature: String,
    /// FNV-1a of the symbol's text: tells whether its body changed.
    pub body_hash: u64,
    /// Nesting depth: 0 for a top-level definition.
    pub depth: u32,
}

/// A call as written, before resolution to a symbol.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RawCall {
    /// Id of the innermost enclosing definition, or the file path at module level.
    pub caller: String,
    pub name: String,
    /// `pkg` in `pkg.F()`, `Type` in `Type::new()`, the receiver expression of a method call.
    pub qualifier: Option<String>,
    pub line: u32,
    /// Written in method syntax on a value (`x.f()` in Rust, where only methods answer it).
    pub method: bool,
}

/// Everything one file contributes to the world.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct FileProjection {
    pub symbols: Vec<ProjectedSymbol>,
    pub calls: Vec<RawCall>,
    pub imports: Vec<Import>,
    /// Line and message of the first syntax error, if any.
    pub parse_error: Option<(u32, String)>,
    /// `(start, end, first symbol id)` windows for large files.
    pub chunks: Vec<(u32, u32, String)>,
}

thread_local! {
    static PARSERS: RefCell<HashMap<Lang, Parser>> = RefCell::new(HashMap::new());
}

/// Parses `source` with a per-thread parser for `lang`.
fn parse(lang: Lang, source: &[u8]) -> Result<Option<Tree>, GrammarError> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = match parsers.entry(lang) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut parser = Parser::new();
                parser
                    .set_language(&lang.grammar())
                    .map_err(|err| GrammarError { lang: lang.name(), message: err.to_string() })?;
                e.insert(parser)
            }
        };
        Ok(parser.parse(source, None))
    })
}

/// Which role each capture of a projection query plays.
struct Roles {
    definition: Vec<Option<SymbolKind>>,
    name: Option<u32>,
    receiver: Option<u32>,
    qualifier: Option<u32>,
    scope: Option<u32>,
    call: Option<u32>,
    import: Option<u32>,
}

impl Roles {
    fn of(query: &Query) -> Roles {
        let names = query.capture_names();
        let index = |wanted: &str| names.iter().position(|n| *n == wanted).map(|i| i as u32);
        Roles {
            definition: names
                .iter()
                .map(|n| n.strip_prefix("definition.").and_then(|k| k.parse::<SymbolKind>().ok()))
                .collect(),
            name: index("name"),
            receiver: index("receiver"),
            qualifier: index("qualifier"),
            scope: index("scope"),
            call: index("reference.call"),
            import: index("import"),
        }
    }
}

/// A definition or scope before ids are assigned.
struct Def<'t> {
    node: Node<'t>,
    name: String,
    kind: Option<SymbolKind>, // None for a scope (e.g. a Rust impl block)
    receiver: Option<String>,
    pattern: usize,
}

struct CallSite<'t> {
    node: Node<'t>,
    name: String,
    qualifier: Option<String>,
    method: bool,
}

fn text<'s>(node: Node<'_>, source: &'s [u8]) -> &'s str {
    std::str::from_utf8(&source[node.byte_range()]).unwrap_or("")
}

fn line_of(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

fn end_line_of(node: Node<'_>) -> u32 {
    node.end_position().row as u32 + 1
}

/// Projects one file. Never fails on bad source: syntax errors become
/// `parse_error` and the rest of the file is still projected.
pub fn project_file(lang: Lang, path: &str, source: &[u8]) -> Result<FileProjection, GrammarError> {
    let query = lang.query()?;
    let Some(tree) = parse(lang, source)? else {
        return Ok(FileProjection { parse_error: Some((1, "the parser gave up".into())), ..Default::default() });
    };
    let root = tree.root_node();
    let roles = Roles::of(query);
    let is_test_file = lang.is_test_path(path);

    let mut defs: Vec<Def> = Vec::new();
    let mut calls: Vec<CallSite> = Vec::new();
    let mut import_nodes: Vec<Node> = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, source);
    while let Some(m) = matches.next() {
        let mut def: Option<(Node, Option<SymbolKind>)> = None;
        let (mut name, mut receiver, mut qualifier, mut call) = (None, None, None, None);
        for c in m.captures() {
            let i = c.index;
            if let Some(kind) = roles.definition.get(i as usize).copied().flatten() {
                def = Some((c.node, Some(kind)));
            } else if Some(i) == roles.scope {
                def = Some((c.node, None));
            } else if Some(i) == roles.name {
                name = Some(c.node);
            } else if Some(i) == roles.receiver {
                receiver = Some(c.node);
            } else if Some(i) == roles.qualifier {
                qualifier = Some(c.node);
            } else if Some(i) == roles.call {
                call = Some(c.node);
            } else if Some(i) == roles.import {
                import_nodes.push(c.node);
            }
        }
        if let (Some((node, kind)), Some(name)) = (def, name) {
            let name = clean_name(text(name, source));
            if !name.is_empty() {
                let receiver = receiver.map(|r| text(r, source).to_string());
                defs.push(Def { node, name, kind, receiver, pattern: m.pattern_index });
            }
        } else if let (Some(node), Some(name)) = (call, name) {
            // A call's `@receiver` is the value of a method call: it qualifies the call and makes it a method call.
            let method = receiver.is_some();
            let qualifier = qualifier.or(receiver).map(|q| compact(text(q, source), 80));
            calls.push(CallSite { node, name: text(name, source).to_string(), qualifier, method });
        }
    }

    // The same node can match several patterns; the earliest pattern wins.
    defs.sort_by_key(|d| (d.node.start_byte(), std::cmp::Reverse(d.node.end_byte()), d.pattern));
    defs.dedup_by(|b, a| a.node.id() == b.node.id());

    let mut out = FileProjection::default();
    let symbol_of_def = assign_symbols(lang, path, source, is_test_file, &defs, &mut out.symbols);
    out.calls = attribute_calls(path, &defs, &symbol_of_def, &out.symbols, calls);
    out.imports = import_nodes.into_iter().flat_map(|n| imports::read(lang, n, source)).collect();
    out.parse_error = first_syntax_error(root, source);
    out.chunks = chunks(&out.symbols, end_line_of(root));
    Ok(out)
}

/// Strips quotes from string-named definitions (TS tests, quoted modules).
fn clean_name(raw: &str) -> String {
    compact(raw.trim_matches(|c| c == '"' || c == '\'' || c == '`'), 120)
}

/// Collapses whitespace runs and truncates to `max` characters.
fn compact(raw: &str, max: usize) -> String {
    let mut out = String::with_capacity(raw.len().min(max));
    let mut count = 0;
    for word in raw.split_whitespace() {
        if count > 0 {
            out.push(' ');
            count += 1;
        }
        for c in word.chars() {
            if count >= max {
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100000001b3))
}

/// Gives each definition its qualified id, final kind, visibility and signature.
/// Returns, per entry of `defs`, the index of its symbol (scopes have none).
fn assign_symbols(
    lang: Lang,
    path: &str,
    source: &[u8],
    is_test_file: bool,
    defs: &[Def],
    symbols: &mut Vec<ProjectedSymbol>,
) -> Vec<Option<usize>> {
    let mut stack: Vec<usize> = Vec::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut symbol_of_def = Vec::with_capacity(defs.len());
    for (i, def) in defs.iter().enumerate() {
        while let Some(&top) = stack.last() {
            if defs[top].node.end_byte() <= def.node.start_byte() {
                stack.pop();
            } else {
                break;
            }
        }
        let container = stack.last().map(|&c| &defs[c]);
        let mut qualified: Vec<&str> = stack.iter().map(|&c| defs[c].name.as_str()).collect();
        if let Some(r) = &def.receiver {
            qualified.push(r);
        }
        qualified.push(&def.name);
        stack.push(i);
        let Some(kind) = def.kind else {
            symbol_of_def.push(None);
            continue;
        };
        let kind = refine_kind(lang, kind, def, container, source, is_test_file);
        let base = format!("{path}#{}", qualified.join("."));
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        let id = if *n == 1 { base } else { format!("{base}~{n}") };
        symbol_of_def.push(Some(symbols.len()));
        symbols.push(ProjectedSymbol {
            id,
            name: def.name.clone(),
            kind,
            visibility: visibility(lang, def, container, source),
            line: line_of(def.node),
            end_line: end_line_of(def.node),
            signature: signature(def.node, source),
            body_hash: fnv1a(&source[def.node.byte_range()]),
            depth: (stack.len() - 1) as u32,
        });
    }
    symbol_of_def
}

fn refine_kind(
    lang: Lang,
    kind: SymbolKind,
    def: &Def,
    container: Option<&Def>,
    source: &[u8],
    is_test_file: bool,
) -> SymbolKind {
    use SymbolKind::*;
    let in_type = container
        .is_some_and(|c| c.kind.is_none() || matches!(c.kind, Some(Struct | Class | Trait | Interface | Enum)));
    let kind = if kind == Function && in_type { Method } else { kind };
    let name = def.name.as_str();
    let is_test = match lang {
        Lang::Rust => matches!(kind, Function | Method) && has_test_attribute(def.node, source),
        Lang::Go => {
            is_test_file
                && kind == Function
                && ["Test", "Benchmark", "Example", "Fuzz"].iter().any(|p| name.starts_with(p))
        }
        Lang::Python => {
            is_test_file
                && matches!(kind, Function | Method)
                && name.starts_with("test")
                && container.is_none_or(|c| c.name.starts_with("Test"))
        }
        Lang::TypeScript | Lang::Tsx => false,
    };
    if is_test {
        return Test;
    }
    if lang == Lang::Python
        && kind == Variable
        && name.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
    {
        return Const;
    }
    kind
}

/// `#[test]`, `#[tokio::test]`, `#[rstest]`… among the attributes before an item.
fn has_test_attribute(node: Node<'_>, source: &[u8]) -> bool {
    let mut prev = node.prev_named_sibling();
    while let Some(p) = prev {
        match p.kind() {
            "attribute_item" => {
                let t = text(p, source);
                if t.contains("test") && !t.contains("cfg(") {
                    return true;
                }
            }
            "line_comment" | "block_comment" => {}
            _ => return false,
        }
        prev = p.prev_named_sibling();
    }
    false
}

fn visibility(lang: Lang, def: &Def, container: Option<&Def>, source: &[u8]) -> Visibility {
    let public = match lang {
        // Trait items are as visible as their trait.
        Lang::Rust if container.is_some_and(|c| c.kind == Some(SymbolKind::Trait)) => {
            container.is_some_and(|c| has_pub_modifier(c.node))
        }
        Lang::Rust => has_pub_modifier(def.node),
        Lang::Go => def.name.starts_with(|c: char| c.is_uppercase()),
        Lang::Python => !def.name.starts_with('_') || (def.name.starts_with("__") && def.name.ends_with("__")),
        Lang::TypeScript | Lang::Tsx => {
            let mut cursor = def.node.walk();
            let private = def
                .node
                .children(&mut cursor)
                .any(|c| c.kind() == "accessibility_modifier" && matches!(text(c, source), "private" | "protected"));
            let exported = std::iter::successors(def.node.parent(), |n| n.parent())
                .take(3)
                .any(|n| n.kind() == "export_statement");
            let member =
                matches!(def.node.kind(), "method_definition" | "method_signature" | "abstract_method_signature");
            !private && !def.name.starts_with('#') && (exported || member)
        }
    };
    if public {
        Visibility::Public
    } else {
        Visibility::Private
    }
}

fn has_pub_modifier(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|c| c.kind() == "visibility_modifier");
    found
}

/// The definition's text up to its body, on one line.
fn signature(node: Node<'_>, source: &[u8]) -> String {
    let end = match node.child_by_field_name("body") {
        Some(body) => body.start_byte(),
        None => {
            let start = node.start_byte();
            let line_end = source[start..node.end_byte()].iter().position(|&b| b == b'\n');
            line_end.map_or(node.end_byte(), |n| start + n)
        }
    };
    let raw = String::from_utf8_lossy(&source[node.start_byte()..end]);
    compact(raw.trim_end_matches([' ', '{', ':', '=', '\n']).trim_end(), SIGNATURE_MAX_CHARS)
}

/// Attributes each call to its innermost enclosing callable definition.
fn attribute_calls(
    path: &str,
    defs: &[Def],
    symbol_of_def: &[Option<usize>],
    symbols: &[ProjectedSymbol],
    mut calls: Vec<CallSite>,
) -> Vec<RawCall> {
    use SymbolKind::*;
    calls.sort_by_key(|c| c.node.start_byte());
    let mut out = Vec::with_capacity(calls.len());
    let mut stack: Vec<usize> = Vec::new(); // indices into defs
    let mut next_def = 0;
    for call in calls {
        let at = call.node.start_byte();
        while next_def < defs.len() && defs[next_def].node.start_byte() <= at {
            while stack.last().is_some_and(|&t| defs[t].node.end_byte() <= defs[next_def].node.start_byte()) {
                stack.pop();
            }
            stack.push(next_def);
            next_def += 1;
        }
        while stack.last().is_some_and(|&t| defs[t].node.end_byte() <= at) {
            stack.pop();
        }
        // Skip a test definition's own `it(...)` call node: it encloses itself.
        let enclosing = stack.iter().rev().filter(|&&d| defs[d].node.id() != call.node.id());
        let mut caller = None;
        let mut fallback = None;
        for &d in enclosing {
            if let Some(s) = symbol_of_def[d] {
                if matches!(symbols[s].kind, Function | Method | Test) {
                    caller = Some(s);
                    break;
                }
                fallback = fallback.or(Some(s));
            }
        }
        let caller = caller.or(fallback).map_or_else(|| path.to_string(), |s| symbols[s].id.clone());
        out.push(RawCall {
            caller,
            name: call.name,
            qualifier: call.qualifier,
            line: line_of(call.node),
            method: call.method,
        });
    }
    out
}

fn first_syntax_error(root: Node<'_>, source: &[u8]) -> Option<(u32, String)> {
    if !root.has_error() {
        return None;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_missing() {
            return Some((line_of(node), format!("syntax error: missing `{}`", node.kind())));
        }
        if node.is_error() {
            let snippet = compact(text(node, source), 40);
            return Some((line_of(node), format!("syntax error near `{snippet}`")));
        }
        // Descend only into subtrees that contain the error.
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Some((1, "syntax error".into()));
            }
        }
    }
}

/// Symbol-aligned windows of about `CHUNK_TARGET_LINES` over a large file.
fn chunks(symbols: &[ProjectedSymbol], total_lines: u32) -> Vec<(u32, u32, String)> {
    if total_lines <= CHUNK_THRESHOLD_LINES {
        return Vec::new();
    }
    let mut top: Vec<&ProjectedSymbol> = symbols.iter().filter(|s| s.depth == 0).collect();
    top.sort_by_key(|s| s.line);
    let mut out = Vec::new();
    let (mut start, mut first): (u32, Option<&str>) = (1, None);
    for s in top {
        if s.line > start && s.end_line.saturating_sub(start) + 1 > CHUNK_TARGET_LINES {
            out.push((start, s.line - 1, first.unwrap_or("").to_string()));
            start = s.line;
            first = None;
        }
        first = first.or(Some(s.id.as_str()));
    }
    out.push((start, total_lines.max(start), first.unwrap_or("").to_string()));
    out
}
