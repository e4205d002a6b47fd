//! Projects one source file into facts with tree-sitter: symbols with kind,
//! visibility, span and signature; raw calls (calls, functions and members
//! named as values, Rust macro invocations) with their enclosing caller;
//! imports; chunks; the first syntax error. Driven by `grammars/<lang>/`.
//! Knows nothing about other files (resolution happens later) or storage.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use nerd_logic::vocab::{SymbolKind, Visibility};
use tree_sitter::{Node, Parser, QueryCursor, StreamingIterator, Tree};

use super::imports::{self, Import};
use super::lang::{GrammarError, Lang};
use super::locals::Locals;
use hints::{arrow_return, return_hint, HintSite};
pub use hints::{PASSED, PASSED_FIRST, RETURN_VAR};
use outline::{chunks, first_syntax_error};
use placed::Place;
use roles::Roles;

mod callee;
mod expand;
mod hints;
mod macros;
mod outline;
mod placed;
mod rewrite;
mod roles;

/// How the signature of a Rust `macro_rules!` macro starts.
pub const MACRO_RULES: &str = "macro_rules!";

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

#[cfg(test)]
impl ProjectedSymbol {
    /// A public symbol spanning `line..=end_line` at nesting `depth`, for tests.
    pub(crate) fn spanning(id: &str, kind: SymbolKind, line: u32, end_line: u32, depth: u32) -> Self {
        ProjectedSymbol {
            id: id.to_string(),
            name: nerd_logic::symbols::bare_name(id).to_string(),
            kind,
            visibility: Visibility::Public,
            line,
            end_line,
            signature: String::new(),
            body_hash: 0,
            depth,
        }
    }
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
    pub form: CallForm,
}

/// How a function is used where a raw call was read.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CallForm {
    /// A call: `f()`, `pkg.f()`, `Type::f()`.
    Call,
    /// A call in method syntax on a value (`x.f()` in Rust), which only methods answer.
    Method,
    /// A function named as a value and not called there (`map(f)`,
    /// `callback=f`, `Vtable { drop: object_drop::<E> }`): code that hands a
    /// function on may run it, so it depends on it as on a call.
    Reference,
    /// A Rust macro invoked (`ensure!(…)`), which only macros answer.
    Macro,
}

impl CallForm {
    /// The form's code in the index (`raw_call.form`).
    pub fn code(self) -> i64 {
        match self {
            CallForm::Call => 0,
            CallForm::Method => 1,
            CallForm::Reference => 2,
            CallForm::Macro => 3,
        }
    }

    /// The form a stored code names; `None` for a code no version wrote.
    pub fn from_code(code: i64) -> Option<CallForm> {
        match code {
            0 => Some(CallForm::Call),
            1 => Some(CallForm::Method),
            2 => Some(CallForm::Reference),
            3 => Some(CallForm::Macro),
            _ => None,
        }
    }
}

/// What a hint says about the name it binds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum HintKind {
    /// The text is a written type: an annotation, a parameter's type, a literal's type.
    Type,
    /// The text is a callee (`Foo`, `pkg.NewFoo`, `Foo::new`): the name holds its
    /// result; written `callee().N`, element `N` of the tuple it returns (Rust `let (a, b) = f()`).
    Call,
    /// The text is a base type of the enclosing type (a superclass, an embedded
    /// struct, an implemented trait or interface); the hint binds no name.
    Base,
    /// The text is another name the name stands for, referenced and not
    /// called (`const stringType = ZodString.create`, `export { stringType as
    /// string }`, Python `get = session.get`): calling the name calls it.
    Alias,
}

impl HintKind {
    pub fn as_str(self) -> &'static str {
        match self {
            HintKind::Type => "type",
            HintKind::Call => "call",
            HintKind::Base => "base",
            HintKind::Alias => "alias",
        }
    }

    pub fn parse(word: &str) -> Option<HintKind> {
        match word {
            "type" => Some(HintKind::Type),
            "call" => Some(HintKind::Call),
            "base" => Some(HintKind::Base),
            "alias" => Some(HintKind::Alias),
            _ => None,
        }
    }
}

/// What the file says about the type of a name: the input of receiver-aware resolution.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TypeHint {
    /// The innermost enclosing function's id for locals and parameters, the
    /// enclosing type's id for fields and bases, or the file path at module level.
    pub scope: String,
    /// The variable, parameter or field; empty for a base.
    pub var: String,
    pub kind: HintKind,
    pub text: String,
    /// A field of the enclosing type rather than a local name.
    pub field: bool,
    pub line: u32,
}

/// Everything one file contributes to the world.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct FileProjection {
    pub symbols: Vec<ProjectedSymbol>,
    pub calls: Vec<RawCall>,
    pub imports: Vec<Import>,
    pub hints: Vec<TypeHint>,
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

/// A definition or scope before ids are assigned.
struct Def<'t> {
    node: Node<'t>,
    /// The bytes it spans (`span_of`).
    span: Node<'t>,
    name: String,
    kind: Option<SymbolKind>, // None for a scope (e.g. a Rust impl block)
    receiver: Option<String>,
    pattern: usize,
    /// Rust: a test attribute (`#[test]`, `#[tokio::test]`…) stands right before it.
    test_attribute: bool,
}

/// What a definition spans: a Python function or class with its decorators
/// (`@pytest.mark.parametrize(…)` is part of the test it decorates: a change
/// there changes the test, and what the decorators call, the definition
/// calls), else its node.
fn span_of(lang: Lang, node: Node<'_>) -> Node<'_> {
    if lang != Lang::Python {
        return node;
    }
    match node.parent() {
        Some(p) if lang.kind(p) == "decorated_definition" => p,
        _ => node,
    }
}

struct CallSite {
    /// Where the call starts; a call read inside a macro's arguments starts where the macro does.
    at: usize,
    line: u32,
    /// The call's own node, to tell it from a definition it is (a TypeScript `it(...)` test).
    node_id: Option<usize>,
    name: String,
    qualifier: Option<String>,
    form: CallForm,
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

/// Every call the projection query reads in a parsed file, as (line of the
/// call, name called): for rules that judge calls as the world model sees them.
pub fn called_names(lang: Lang, root: Node<'_>, source: &[u8]) -> Result<Vec<(u32, String)>, GrammarError> {
    let query = lang.query()?;
    let roles = Roles::of(query, lang);
    let mut out = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, source);
    while let Some(m) = matches.next() {
        let found = roles.read(m);
        if let (Some(call), Some(name)) = (found.call, found.name) {
            out.push((call.start_position().row as u32 + 1, text(name, source).to_string()));
        }
    }
    Ok(out)
}

/// Projects one file. Never fails on bad source: syntax errors become
/// `parse_error` and the rest of the file is still projected.
pub fn project_file(lang: Lang, path: &str, source: &[u8]) -> Result<FileProjection, GrammarError> {
    project_source(lang, path, source, MACRO_NESTING)
}

/// How deep item macros are expanded inside expansions (`generic_test!`
/// writing `paste::item! { qc::quickcheck! { … } }` takes three).
const MACRO_NESTING: u32 = 3;

/// Projects `source` as the file `path`, with what its item macros expand
/// to, `nesting` levels deep.
fn project_source(lang: Lang, path: &str, source: &[u8], nesting: u32) -> Result<FileProjection, GrammarError> {
    // Constructs newer than the grammar that parse once their keywords are
    // blanked: the byte offsets, and so every line, stay the same. Those that
    // never parse are blanked first; the others only when the source did not parse.
    let mut rewritten = rewrite::before_parse(lang, source);
    let mut tree = parse(lang, rewritten.as_deref().unwrap_or(source))?;
    if tree.as_ref().is_some_and(|t| t.root_node().has_error()) {
        if let Some(again) = rewrite::after_error(lang, rewritten.as_deref().unwrap_or(source)) {
            if let Some(reparsed) = parse(lang, &again)? {
                tree = Some(reparsed);
                rewritten = Some(again);
            }
        }
    }
    // Signatures and body hashes are read from the source as written.
    let written = source;
    let source = rewritten.as_deref().unwrap_or(source);
    let Some(tree) = tree else {
        return Ok(FileProjection { parse_error: Some((1, "the parser gave up".into())), ..Default::default() });
    };
    let query = lang.query()?;
    let root = tree.root_node();
    let roles = Roles::of(query, lang);
    let is_test_file = lang.is_test_path(path);

    let mut defs: Vec<Def> = Vec::new();
    let mut calls: Vec<CallSite> = Vec::new();
    let mut hints: Vec<HintSite> = Vec::new();
    let mut macros: Vec<Node> = Vec::new();
    let mut bodies: Vec<Node> = Vec::new();
    let mut import_nodes: Vec<Node> = Vec::new();
    let mut functions: Vec<Node> = Vec::new();
    let mut bindings: Vec<Node> = Vec::new();
    let mut attributes: Vec<Node> = Vec::new();
    let mut not_read: HashSet<usize> = HashSet::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, source);
    // The top-level statements and what they export, for patterns that read only those.
    let top_level: HashSet<usize> = match roles.module_item {
        Some(_) => root
            .children(&mut root.walk())
            .flat_map(|n| {
                [Some(n), (lang.kind(n) == "export_statement").then(|| callee::field(n, "declaration")).flatten()]
            })
            .flatten()
            .map(|n| n.id())
            .collect(),
        None => HashSet::new(),
    };
    while let Some(m) = matches.next() {
        let mut found = roles.read(m);
        if found.module_item.is_some_and(|item| !top_level.contains(&item.id()))
            || found.test_callee.is_some_and(|callee| !callee::names_a_test(callee, source))
        {
            continue;
        }
        not_read.extend(found.assigned.and_then(|a| callee::bound_back(a, source)).map(|n| n.id()));
        import_nodes.append(&mut found.imports);
        macros.append(&mut found.macros);
        bodies.append(&mut found.bodies);
        functions.extend(found.function);
        bindings.extend(found.binding);
        attributes.extend(found.attribute);
        not_read.extend(found.not_read.map(|n| n.id()));
        if let (Some((node, kind)), Some(name)) = (found.def, found.name) {
            let name = clean_name(text(name, source));
            if !name.is_empty() {
                let receiver = found.receiver.map(|r| text(r, source).to_string());
                let span = span_of(lang, node);
                defs.push(Def { node, span, name, kind, receiver, pattern: m.pattern_index, test_attribute: false });
            }
        } else if let Some(call) = found.call_site(source, 0) {
            calls.push(call);
        } else if let Some(node) = found.hint_node {
            hints.extend(hints::node_hints(lang, node, source).iter().filter_map(|h| h.site(source)));
        } else if let Some(site) = found.hint.site(source) {
            hints.push(site);
        }
    }
    if !attributes.is_empty() {
        attributes.sort_by_key(|a| a.start_byte());
        for def in &mut defs {
            def.test_attribute = test_attribute_before(def.node.start_byte(), &attributes, source);
        }
    }
    if lang.family() == Lang::TypeScript {
        let functions = defs.iter().filter(|d| d.kind.is_some_and(SymbolKind::is_code));
        hints.extend(functions.filter_map(|d| arrow_return(d.node, source)));
    }
    // A bare name that names no function of the project is dropped before
    // asking whether a function binds it: that walk is the dearer test.
    let imports: Vec<Import> = import_nodes.into_iter().flat_map(|n| imports::read(lang, n, source)).collect();
    keep_resolvable_references(lang, &mut calls, &defs, &imports, &hints);
    // A name the function binds for itself is its own value, not a function
    // of the module; a member called, constructed, decorating or written
    // there is no read of it.
    let mut locals = Locals::new(lang, source, functions, bindings);
    calls.retain(|c| {
        c.form != CallForm::Reference
            || match &c.qualifier {
                None => !locals.binds(c.at, &c.name),
                Some(_) => c.node_id.is_none_or(|id| !not_read.contains(&id)),
            }
    });
    let expansions = if nesting > 0 && lang == Lang::Rust {
        expand::item_expansions(root, source, is_test_file)
    } else {
        Vec::new()
    };
    // An expanded invocation's calls are read from its expansion, in the functions it defines.
    macros.retain(|node| !expansions.iter().any(|e| e.tokens == node.byte_range()));
    let reader = macros::Reader { lang, query, roles: &roles };
    for node in macros {
        reader.calls(macros::Tokens::Arguments, node, source, &mut locals, &mut calls)?;
    }
    for node in bodies {
        reader.calls(macros::Tokens::Transcriber, node, source, &mut locals, &mut calls)?;
    }

    // The same node can match several patterns; the earliest pattern wins.
    defs.sort_by_key(|d| (d.span.start_byte(), std::cmp::Reverse(d.span.end_byte()), d.pattern));
    defs.dedup_by(|b, a| a.node.id() == b.node.id());
    drop_overload_stubs(lang, &mut defs, source, &mut hints);

    let mut out = FileProjection::default();
    let (symbol_of_def, def_ids) =
        assign_symbols(lang, path, (root, source, written), is_test_file, &defs, &mut out.symbols);
    let enclosing =
        Enclosing { path, defs: &defs, symbol_of_def: &symbol_of_def, def_ids: &def_ids, symbols: &out.symbols };
    out.imports = imports;
    // Again for the names read in macro tokens.
    keep_resolvable_references(lang, &mut calls, &defs, &out.imports, &hints);
    out.calls = enclosing.attribute_calls(calls);
    out.hints = enclosing.attribute_hints(hints);
    let places = enclosing.places(expansions.iter().map(|e| e.invocation.start));
    let file_lines: Vec<&[u8]> =
        if expansions.is_empty() { Vec::new() } else { source.split(|&b| b == b'\n').collect() };
    for (expansion, place) in expansions.iter().zip(places) {
        let inner = project_source(lang, path, &expansion.text, nesting - 1)?;
        place.merge(path, expansion, inner, &file_lines, &mut out);
    }
    out.parse_error = first_syntax_error(root, source);
    out.chunks = chunks(&out.symbols, end_line_of(root));
    Ok(out)
}

/// Keeps a bare name handed on as a value only where it can name a function
/// of the project: one this file defines, imports or aliases. A Go package's
/// functions are visible from its other files, so Go keeps every such name.
fn keep_resolvable_references(
    lang: Lang,
    calls: &mut Vec<CallSite>,
    defs: &[Def<'_>],
    imports: &[Import],
    hints: &[HintSite],
) {
    if lang.family() == Lang::Go {
        return;
    }
    let known: HashSet<&str> = defs
        .iter()
        .map(|d| d.name.as_str())
        .chain(imports.iter().filter_map(|i| i.binding.as_deref().or(i.name.as_deref())))
        .chain(hints.iter().filter(|h| h.kind == HintKind::Alias).map(|h| h.var.as_str()))
        .collect();
    calls.retain(|c| c.form != CallForm::Reference || c.qualifier.is_some() || known.contains(c.name.as_str()));
}

/// Typing stubs are not definitions: a Python `@overload` stub, and a
/// TypeScript overload signature next to its implementation. The
/// implementation keeps the plain id, so callers and edits reach the code;
/// a TypeScript implementation that declares no return type returns what its
/// first stub declares (a hint on `return`, placed in its body).
fn drop_overload_stubs(lang: Lang, defs: &mut Vec<Def<'_>>, source: &[u8], hints: &mut Vec<HintSite>) {
    match lang {
        Lang::Python => defs.retain(|d| {
            // The decorated definition around it is its span (`span_of`): no second descent for its parent.
            let decorated = (d.span.id() != d.node.id()).then_some(d.span);
            let overload = decorated.is_some_and(|p| {
                let mut cursor = p.walk();
                let found = p.named_children(&mut cursor).any(|c| {
                    lang.kind(c) == "decorator" && {
                        let t = text(c, source).trim_start_matches('@').trim();
                        t == "overload" || t.ends_with(".overload")
                    }
                });
                found
            });
            !overload
        }),
        Lang::TypeScript | Lang::Tsx => {
            let container = |n: Node<'_>| {
                let parent = n.parent();
                match parent {
                    Some(p) if lang.kind(p) == "export_statement" => p.parent().map(|g| g.id()),
                    other => other.map(|p| p.id()),
                }
            };
            let is_stub = |n: Node<'_>| matches!(lang.kind(n), "function_signature" | "method_signature");
            let is_implementation = |n: Node<'_>| matches!(lang.kind(n), "function_declaration" | "method_definition");
            let implemented: std::collections::HashSet<(Option<usize>, String)> = defs
                .iter()
                .filter(|d| is_implementation(d.node))
                .map(|d| (container(d.node), d.name.clone()))
                .collect();
            // The return type the first stub of each name that declares one declares, by container.
            let mut declared: HashMap<(Option<usize>, &str), Node<'_>> = HashMap::new();
            for s in defs.iter().filter(|s| is_stub(s.node)) {
                if let Some(returned) = lang.child(s.node, "return_type").and_then(|r| r.named_child(0)) {
                    declared.entry((container(s.node), s.name.as_str())).or_insert(returned);
                }
            }
            for d in defs.iter().filter(|d| is_implementation(d.node)) {
                let (Some(body), None) = (lang.child(d.node, "body"), lang.child(d.node, "return_type")) else {
                    continue;
                };
                if let Some(returned) = declared.get(&(container(d.node), d.name.as_str())) {
                    hints.push(return_hint(body, HintKind::Type, *returned, source));
                }
            }
            defs.retain(|d| !(is_stub(d.node) && implemented.contains(&(container(d.node), d.name.clone()))));
        }
        Lang::Rust | Lang::Go => {}
    }
}

/// Strips quotes from string-named definitions (TS tests, quoted modules).
fn clean_name(raw: &str) -> String {
    compact(raw.trim_matches(|c| c == '"' || c == '\'' || c == '`'), 120)
}

/// Collapses whitespace runs and truncates to `max` characters.
fn compact(raw: &str, max: usize) -> String {
    // Most names and qualifiers are compact already: copied whole, not a character at a time.
    if already_compact(raw, max) {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len().min(max));
    let mut count = 0;
    for word in raw.split_whitespace() {
        if count > 0 {
            out.push(' ');
            count += 1;
        }
        // A word that fits whole is copied whole; one that may not, a character at a time.
        if word.is_ascii() && count + word.len() <= max {
            out.push_str(word);
            count += word.len();
            continue;
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

/// Whether `compact` would return `raw` as it is: ASCII, at most `max`
/// bytes, no whitespace but single spaces between words.
fn already_compact(raw: &str, max: usize) -> bool {
    let bytes = raw.as_bytes();
    bytes.len() <= max
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
        && bytes.iter().all(|b| b.is_ascii() && !matches!(b, b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r'))
        && !bytes.windows(2).any(|pair| pair == b"  ")
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100000001b3))
}

/// Gives each definition its qualified id, final kind, visibility and signature
/// (read from `written`, the source as written, where `source` is what was parsed).
/// Returns, per entry of `defs`, the index of its symbol (scopes have none)
/// and its qualified id (a scope's is the id its members are qualified by).
fn assign_symbols(
    lang: Lang,
    path: &str,
    (root, source, written): (Node<'_>, &[u8], &[u8]),
    is_test_file: bool,
    defs: &[Def],
    symbols: &mut Vec<ProjectedSymbol>,
) -> (Vec<Option<usize>>, Vec<String>) {
    let mut stack: Vec<usize> = Vec::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut symbol_of_def = Vec::with_capacity(defs.len());
    let mut ids = Vec::with_capacity(defs.len());
    for (i, def) in defs.iter().enumerate() {
        while let Some(&top) = stack.last() {
            if defs[top].span.end_byte() <= def.span.start_byte() {
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
        let base = format!("{path}#{}", qualified.join("."));
        let Some(kind) = def.kind else {
            symbol_of_def.push(None);
            ids.push(base);
            continue;
        };
        let kind = refine_kind(lang, kind, def, container, is_test_file);
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        let id = if *n == 1 { base } else { format!("{base}~{n}") };
        symbol_of_def.push(Some(symbols.len()));
        ids.push(id.clone());
        symbols.push(ProjectedSymbol {
            id,
            name: def.name.clone(),
            kind,
            visibility: visibility(lang, root, def, container, source),
            line: line_of(def.span),
            end_line: end_line_of(def.span),
            signature: signature(lang, def.node, written),
            body_hash: fnv1a(&written[def.span.byte_range()]),
            depth: (stack.len() - 1) as u32,
        });
    }
    (symbol_of_def, ids)
}

fn refine_kind(lang: Lang, kind: SymbolKind, def: &Def, container: Option<&Def>, is_test_file: bool) -> SymbolKind {
    use SymbolKind::*;
    let in_type = container
        .is_some_and(|c| c.kind.is_none() || matches!(c.kind, Some(Struct | Class | Trait | Interface | Enum)));
    let kind = if kind == Function && in_type { Method } else { kind };
    let name = def.name.as_str();
    let is_test = match lang {
        Lang::Rust => matches!(kind, Function | Method) && def.test_attribute,
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
/// Whether an attribute's text makes a test: `#[test]`, `#[tokio::test]`,
/// `#[rstest]`, `#[test_case(…)]`, `#[proptest]`, quickcheck_macros'
/// `#[quickcheck]`; never `#[cfg(test)]`. Also what a macro's transcriber
/// is asked (`expand/rules.rs`).
fn names_a_test(attribute: &str) -> bool {
    (attribute.contains("test") || attribute.contains("quickcheck")) && !attribute.contains("cfg(")
}

/// Whether the attributes right before byte `start` (`attributes` sorted,
/// with nothing but comments between them and it) name a test. Read off the
/// query's attribute nodes: a node's previous sibling costs a walk over its
/// parent's children.
fn test_attribute_before(start: usize, attributes: &[Node<'_>], source: &[u8]) -> bool {
    let mut next = start;
    let mut i = attributes.partition_point(|a| a.end_byte() <= start);
    while let Some(a) = i.checked_sub(1).map(|j| attributes[j]) {
        if !only_comments(&source[a.end_byte()..next]) {
            return false;
        }
        if names_a_test(text(a, source)) {
            return true;
        }
        next = a.start_byte();
        i -= 1;
    }
    false
}

/// Whether `between` holds nothing but whitespace and comments.
fn only_comments(mut between: &[u8]) -> bool {
    loop {
        between = between.trim_ascii_start();
        if between.is_empty() {
            return true;
        }
        between = if between.starts_with(b"//") {
            between.iter().position(|&b| b == b'\n').map_or(&[][..], |n| &between[n..])
        } else if between.starts_with(b"/*") {
            match between.windows(2).position(|w| w == b"*/") {
                Some(end) => &between[end + 2..],
                None => return false,
            }
        } else {
            return false;
        };
    }
}

fn visibility(lang: Lang, root: Node<'_>, def: &Def, container: Option<&Def>, source: &[u8]) -> Visibility {
    let public = match lang {
        // Trait items are as visible as their trait.
        Lang::Rust if container.is_some_and(|c| c.kind == Some(SymbolKind::Trait)) => {
            container.is_some_and(|c| has_pub_modifier(c.node))
        }
        // An implementation of a trait answers wherever the trait does: its
        // items take no `pub` and are the type's public interface.
        Lang::Rust
            if container.is_some_and(|c| lang.kind(c.node) == "impl_item" && lang.child(c.node, "trait").is_some()) =>
        {
            true
        }
        Lang::Rust => has_pub_modifier(def.node),
        Lang::Go => def.name.starts_with(|c: char| c.is_uppercase()),
        Lang::Python => !def.name.starts_with('_') || (def.name.starts_with("__") && def.name.ends_with("__")),
        Lang::TypeScript | Lang::Tsx => {
            let mut cursor = def.node.walk();
            let private = def.node.children(&mut cursor).any(|c| {
                lang.kind(c) == "accessibility_modifier" && matches!(text(c, source), "private" | "protected")
            });
            // Asked last: the nodes above cost a descent from the root.
            let exported = || ancestors(root, def.node, 3).into_iter().any(|n| lang.kind(n) == "export_statement");
            // Members are public unless marked: a class's methods, an object literal's (`pair`: `name: () => …`).
            let member = matches!(
                lang.kind(def.node),
                "method_definition" | "method_signature" | "abstract_method_signature" | "pair"
            );
            !private && !def.name.starts_with('#') && (member || exported())
        }
    };
    if public {
        Visibility::Public
    } else {
        Visibility::Private
    }
}

/// The `n` nodes above `node`, nearest first, found in one descent from
/// `root` (`Node::parent` descends from the root again for each).
fn ancestors<'t>(root: Node<'t>, node: Node<'t>, n: usize) -> Vec<Node<'t>> {
    let mut path = Vec::new();
    let mut cursor = root.walk();
    while cursor.node().id() != node.id() {
        path.push(cursor.node());
        if cursor.goto_first_child_for_byte(node.start_byte()).is_none() {
            // Not below `root` as its bytes say: ask the tree.
            return std::iter::successors(node.parent(), |p| p.parent()).take(n).collect();
        }
    }
    path.into_iter().rev().take(n).collect()
}

fn has_pub_modifier(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|c| Lang::Rust.kind(c) == "visibility_modifier");
    found
}

/// The definition's text up to its body, on one line. A field or constant
/// holding a function (`static create = (…): T => {…}`) reads up to that
/// function's body, so its parameters and return type stay in it.
fn signature(lang: Lang, node: Node<'_>, source: &[u8]) -> String {
    let function_value = || {
        lang.child(node, "value")
            .filter(|v| matches!(lang.kind(*v), "arrow_function" | "function_expression" | "function" | "lambda"))
            .and_then(|v| lang.child(v, "body").map(|b| (v, b)))
    };
    let end = match lang.child(node, "body").map(|b| (node, b)).or_else(function_value) {
        Some((holder, body)) => before_comments(lang, holder, body, source),
        None => {
            let start = node.start_byte();
            let line_end = source[start..node.end_byte()].iter().position(|&b| b == b'\n');
            line_end.map_or(node.end_byte(), |n| start + n)
        }
    };
    let raw = String::from_utf8_lossy(&source[node.start_byte()..end]);
    let text = raw.trim_end_matches([' ', '{', ':', '=', '\n']).trim_end();
    compact(text.strip_suffix("=>").unwrap_or(text).trim_end(), SIGNATURE_MAX_CHARS)
}

/// Where the text before `body` ends once the comments between it and the
/// last part of `holder` before it are left out (`def f(a):  # why`). Looked
/// for only where that text holds a comment's opening, which is seldom.
fn before_comments(lang: Lang, holder: Node<'_>, body: Node<'_>, source: &[u8]) -> usize {
    let start = body.start_byte();
    let text = &source[holder.start_byte().min(start)..start];
    let opens_comment = |w: &[u8]| w == b"//" || w == b"/*" || w[0] == b'#';
    if !text.windows(2).any(opens_comment) {
        return start;
    }
    let mut cursor = holder.walk();
    let last = holder
        .children(&mut cursor)
        .take_while(|c| c.end_byte() <= start && c.id() != body.id())
        .filter(|c| !lang.kind(*c).ends_with("comment"))
        .last();
    last.map_or(start, |c| c.end_byte())
}

/// The definitions of a file, to find what encloses a position.
struct Enclosing<'d, 't> {
    path: &'d str,
    defs: &'d [Def<'t>],
    symbol_of_def: &'d [Option<usize>],
    def_ids: &'d [String],
    symbols: &'d [ProjectedSymbol],
}

impl Enclosing<'_, '_> {
    /// Visits `positions` (sorted by byte) with the stack of definitions
    /// enclosing each, outermost first.
    fn sweep(&self, positions: impl Iterator<Item = usize>, mut visit: impl FnMut(&[usize])) {
        let defs = self.defs;
        let mut stack: Vec<usize> = Vec::new();
        let mut next_def = 0;
        for at in positions {
            while next_def < defs.len() && defs[next_def].span.start_byte() <= at {
                while stack.last().is_some_and(|&t| defs[t].span.end_byte() <= defs[next_def].span.start_byte()) {
                    stack.pop();
                }
                stack.push(next_def);
                next_def += 1;
            }
            while stack.last().is_some_and(|&t| defs[t].span.end_byte() <= at) {
                stack.pop();
            }
            visit(&stack);
        }
    }

    /// The caller a position belongs to: the innermost enclosing function,
    /// method or test, except that everything inside a test (a nested helper
    /// function included) belongs to the test; else the innermost definition;
    /// else the file.
    fn caller(&self, stack: &[usize], skip_node: Option<usize>) -> String {
        use SymbolKind::*;
        let symbol = |d: usize| self.symbol_of_def[d].map(|s| &self.symbols[s]);
        let enclosing = stack.iter().copied().filter(|&d| Some(self.defs[d].node.id()) != skip_node);
        let mut innermost_callable = None;
        let mut innermost = None;
        for d in enclosing {
            let Some(s) = symbol(d) else { continue };
            if s.kind == Test {
                return s.id.clone();
            }
            if matches!(s.kind, Function | Method) {
                innermost_callable = Some(s);
            }
            innermost = Some(s);
        }
        innermost_callable.or(innermost).map_or_else(|| self.path.to_string(), |s| s.id.clone())
    }

    /// The innermost enclosing type (a scope such as a Rust impl block included).
    fn enclosing_type(&self, stack: &[usize]) -> Option<String> {
        use SymbolKind::*;
        stack.iter().rev().copied().find_map(|d| {
            let is_type = match self.symbol_of_def[d] {
                None => true,
                Some(s) => matches!(self.symbols[s].kind, Struct | Class | Interface | Trait | Enum | Type),
            };
            is_type.then(|| self.def_ids[d].clone())
        })
    }

    /// Where each of `positions` (sorted by byte) stands: its container and caller.
    fn places(&self, positions: impl Iterator<Item = usize>) -> Vec<Place> {
        let mut places = Vec::new();
        self.sweep(positions, |stack| {
            places.push(Place {
                container: stack.last().map(|&d| self.def_ids[d].clone()),
                depth: stack.len() as u32,
                caller: self.caller(stack, None),
            });
        });
        places
    }

    /// Attributes each call to its caller.
    fn attribute_calls(&self, mut calls: Vec<CallSite>) -> Vec<RawCall> {
        calls.sort_by_key(|c| c.at);
        let mut callers = Vec::with_capacity(calls.len());
        let mut skips = calls.iter().map(|c| c.node_id);
        self.sweep(calls.iter().map(|c| c.at), |stack| {
            let skip = skips.next().flatten();
            callers.push(self.caller(stack, skip));
        });
        calls
            .into_iter()
            .zip(callers)
            .map(|(call, caller)| RawCall {
                caller,
                name: call.name,
                qualifier: call.qualifier,
                line: call.line,
                form: call.form,
            })
            .collect()
    }

    /// Gives each hint its scope: the enclosing type for fields and bases,
    /// else the innermost function (or the file at module level).
    fn attribute_hints(&self, mut hints: Vec<HintSite>) -> Vec<TypeHint> {
        hints.sort_by_key(|h| h.at);
        let mut scopes = Vec::with_capacity(hints.len());
        let mut kinds = hints.iter().map(|h| (h.field || h.kind == HintKind::Base, h.decorated.then_some(h.at)));
        self.sweep(hints.iter().map(|h| h.at), |stack| {
            let (of_type, decorated) = kinds.next().unwrap_or((false, None));
            // A decorator lies in the span of the definition it decorates, whose
            // name binds in the scope around it.
            let around: Vec<usize> = match decorated {
                Some(at) => stack.iter().copied().filter(|&d| self.defs[d].node.start_byte() <= at).collect(),
                None => stack.to_vec(),
            };
            let scope = if of_type { self.enclosing_type(&around) } else { Some(self.local_scope(&around)) };
            scopes.push(scope);
        });
        hints
            .into_iter()
            .zip(scopes)
            .filter_map(|(h, scope)| {
                Some(TypeHint { scope: scope?, var: h.var, kind: h.kind, text: h.text, field: h.field, line: h.line })
            })
            .collect()
    }

    /// The scope of a local name: the innermost enclosing function, method or test, or the file.
    fn local_scope(&self, stack: &[usize]) -> String {
        stack
            .iter()
            .rev()
            .find_map(|&d| self.symbol_of_def[d].map(|s| &self.symbols[s]).filter(|s| s.kind.is_code()))
            .map_or_else(|| self.path.to_string(), |s| s.id.clone())
    }
}

#[cfg(test)]
mod tests;
