//! Deterministic rename over the symbol and call graph, no model involved.
//! A name defined once in its language is renamed at every identifier token
//! of that language's files (comments and strings are not tokens); a name
//! defined several times is renamed only at the target's definition, the
//! call sites resolution attributed to it, and the imports of the files that
//! call it. Documentation follows the code: doc comments (Rust `///` with their
//! doctests, Go comments above a declaration, TypeScript `/** */`) and Python
//! docstrings that name the symbol are renamed with it, all of them when the
//! name is defined once, else those of the target's definition. A new name that
//! is not an identifier, is a keyword, changes Go visibility, or already
//! occurs in any touched file is refused: a rename must never capture or
//! shadow another name. Knows nothing about the router.

use std::collections::BTreeMap;

use tree_sitter::{Node, Parser};

use crate::world::lang::Lang;

/// Why a rename cannot be planned.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RenameError {
    #[error("`{0}` is not an identifier")]
    NotAnIdentifier(String),
    #[error("`{0}` is a keyword in {1}")]
    Keyword(String, &'static str),
    #[error("`{new}` would change whether `{old}` is exported in Go")]
    GoVisibility { old: String, new: String },
    #[error("`{name}` already occurs in {path}:{line}; renaming would capture it")]
    Collision { name: String, path: String, line: u32 },
    #[error("the definition of `{name}` was not found in {path}")]
    DefinitionNotFound { name: String, path: String },
    #[error("{path} cannot be parsed")]
    Unparsable { path: String },
}

/// One file the rename may touch.
pub struct FileInput {
    pub path: String,
    pub lang: Lang,
    pub content: String,
    /// The target's definition span (1-based lines), in the file that defines it.
    pub definition: Option<(u32, u32)>,
    /// Lines of call sites resolved to the target.
    pub call_lines: Vec<u32>,
    /// Lines where a call of the same name resolved outside the project
    /// (`NonNull::new_unchecked` beside the project's `new_unchecked`).
    pub foreign_lines: Vec<u32>,
}

/// How widely the name is renamed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The name is defined once in its language: every token of it, except
    /// on lines where a call of that name reaches outside the project.
    EveryToken,
    /// The name is defined several times: the definition, resolved calls and imports only.
    ResolvedSites,
}

/// A planned rename: per file, old and new content, and the number of sites.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    pub files: Vec<super::patch::Edit>,
    /// Code sites: identifier tokens.
    pub sites: usize,
    /// Mentions in doc comments, doctests and docstrings renamed with the code.
    pub doc_sites: usize,
}

/// Checks the new name for the target's language.
pub fn check_name(lang: Lang, old: &str, new: &str) -> Result<(), RenameError> {
    let mut chars = new.chars();
    let starts = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || (c == '$' && lang.is_ts()));
    if !starts || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (c == '$' && lang.is_ts())) {
        return Err(RenameError::NotAnIdentifier(new.to_string()));
    }
    if lang.keywords().contains(&new) {
        return Err(RenameError::Keyword(new.to_string(), lang.name()));
    }
    let exported = |s: &str| s.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if lang == Lang::Go && exported(old) != exported(new) {
        return Err(RenameError::GoVisibility { old: old.to_string(), new: new.to_string() });
    }
    Ok(())
}

impl Lang {
    fn is_ts(self) -> bool {
        matches!(self, Lang::TypeScript | Lang::Tsx)
    }
}

fn is_identifier(kind: &str) -> bool {
    matches!(
        kind,
        "identifier"
            | "field_identifier"
            | "type_identifier"
            | "property_identifier"
            | "shorthand_property_identifier"
            | "shorthand_property_identifier_pattern"
            | "package_identifier"
    )
}

fn is_call(kind: &str) -> bool {
    matches!(kind, "call_expression" | "call" | "new_expression" | "macro_invocation")
}

fn is_import(kind: &str) -> bool {
    matches!(kind, "use_declaration" | "import_from_statement" | "import_statement" | "export_statement")
}

/// Every identifier token of the tree, as (byte range, 1-based line, node).
fn tokens<'t>(root: Node<'t>, text: &[u8]) -> Vec<(std::ops::Range<usize>, u32, Node<'t>, String)> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if is_identifier(node.kind()) {
            let name = node.utf8_text(text).unwrap_or_default().to_string();
            out.push((node.byte_range(), node.start_position().row as u32 + 1, node, name));
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

fn has_ancestor(node: Node<'_>, levels: usize, pred: fn(&str) -> bool) -> bool {
    let mut current = node.parent();
    for _ in 0..levels {
        match current {
            Some(n) if pred(n.kind()) => return true,
            Some(n) => current = n.parent(),
            None => return false,
        }
    }
    false
}

/// The name ranges of every definition in the `@overload` group of the
/// Python function whose name token is `name`: the functions of the same name
/// in the same block, when one of them is decorated `@overload`. Empty otherwise.
fn overload_siblings(name: Node<'_>, text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let Some(def) = name.parent().filter(|d| d.kind() == "function_definition") else { return Vec::new() };
    let outer = def.parent().filter(|p| p.kind() == "decorated_definition").unwrap_or(def);
    let Some(block) = outer.parent() else { return Vec::new() };
    let wanted = name.utf8_text(text).unwrap_or_default();
    let mut group = Vec::new();
    let mut overloaded = false;
    let mut cursor = block.walk();
    for child in block.named_children(&mut cursor) {
        let (function, decorated) = match child.kind() {
            "function_definition" => (Some(child), None),
            "decorated_definition" => (child.child_by_field_name("definition"), Some(child)),
            _ => (None, None),
        };
        let Some(function) = function.filter(|f| f.kind() == "function_definition") else { continue };
        let Some(n) = function.child_by_field_name("name") else { continue };
        if n.utf8_text(text).unwrap_or_default() != wanted {
            continue;
        }
        if let Some(d) = decorated {
            let mut c = d.walk();
            overloaded |= d.named_children(&mut c).filter(|x| x.kind() == "decorator").any(|x| {
                let t = x.utf8_text(text).unwrap_or_default().trim_end();
                t == "@overload" || t.ends_with(".overload")
            });
        }
        group.push(n.byte_range());
    }
    if overloaded {
        group
    } else {
        Vec::new()
    }
}

/// A documentation node: its byte range and first and last lines (1-based).
struct Doc {
    range: std::ops::Range<usize>,
    first: u32,
    last: u32,
}

/// Whether a node is documentation in `lang`: a doc comment or a docstring.
fn is_doc(node: Node<'_>, lang: Lang, text: &[u8]) -> bool {
    let body = node.utf8_text(text).unwrap_or_default();
    match (lang, node.kind()) {
        (Lang::Rust, "line_comment" | "block_comment") => {
            (body.starts_with("///") && !body.starts_with("////"))
                || body.starts_with("//!")
                || (body.starts_with("/**") && !body.starts_with("/***") && body != "/**/")
                || body.starts_with("/*!")
        }
        // A Go comment documents the declaration it sits right above (through other comment lines).
        (Lang::Go, "comment") => {
            let mut next = node.next_sibling();
            let mut end = node.end_position().row;
            while let Some(n) = next {
                if n.start_position().row > end + 1 {
                    return false;
                }
                if n.kind() != "comment" {
                    return n.kind().ends_with("declaration") || n.kind() == "package_clause";
                }
                end = n.end_position().row;
                next = n.next_sibling();
            }
            false
        }
        (Lang::Python, "string") => {
            let Some(statement) = node.parent().filter(|p| p.kind() == "expression_statement") else { return false };
            let Some(holder) = statement.parent() else { return false };
            let first = holder.named_child(0).is_some_and(|c| c.id() == statement.id());
            first
                && (holder.kind() == "module"
                    || (holder.kind() == "block"
                        && holder
                            .parent()
                            .is_some_and(|d| matches!(d.kind(), "function_definition" | "class_definition"))))
        }
        (_, "comment") => body.starts_with("/**") && body != "/**/",
        _ => false,
    }
}

/// Every documentation node of the tree.
fn docs(root: Node<'_>, lang: Lang, text: &[u8]) -> Vec<Doc> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if is_doc(node, lang, text) {
            out.push(Doc {
                range: node.byte_range(),
                first: node.start_position().row as u32 + 1,
                last: node.end_position().row as u32 + 1,
            });
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out.sort_by_key(|d| d.range.start);
    out
}

/// The docs that belong to a definition spanning `start..=end`: those inside it
/// (docstrings, inner doc comments) and the run of docs ending right above it,
/// attribute lines (`#[...]`, `@decorator`) allowed in between.
fn attached<'d>(docs: &'d [Doc], content: &str, start: u32, end: u32) -> Vec<&'d Doc> {
    let lines: Vec<&str> = content.lines().collect();
    let mut out: Vec<&Doc> = docs.iter().filter(|d| d.first >= start && d.last <= end).collect();
    let mut above = start.saturating_sub(1);
    while above >= 1 {
        if let Some(d) = docs.iter().find(|d| d.last == above) {
            out.push(d);
            above = d.first.saturating_sub(1);
            continue;
        }
        let line = lines.get(above as usize - 1).map_or("", |l| l.trim_start());
        if line.starts_with("#[") || line.starts_with('@') {
            above -= 1;
            continue;
        }
        break;
    }
    out
}

/// The byte ranges of `old` as a whole word inside `within`.
fn mentions(content: &str, within: std::ops::Range<usize>, word: &regex::Regex) -> Vec<std::ops::Range<usize>> {
    let start = within.start;
    word.find_iter(&content[within]).map(|m| start + m.start()..start + m.end()).collect()
}

/// The mentions of a name outside code, in one file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Textual {
    /// Lines (1-based) where the name is still mentioned as a word outside code.
    pub lines: Vec<u32>,
    /// With renaming asked for: the file with its comment and doc mentions renamed.
    pub updated: Option<String>,
    /// How many mentions that renamed.
    pub renamed: usize,
}

/// Finds `old` as a word outside code: everywhere in a file nerd does not
/// parse (`lang` none: Markdown, reStructuredText...), in comments, docs and
/// strings of a parsed one. With `rename`, those in prose (every mention of a
/// document, comments and docs of code) become `new`; strings are only listed,
/// since they may be data.
pub fn textual(old: &str, new: &str, lang: Option<Lang>, content: &str, rename: bool) -> Textual {
    let Ok(word) = regex::Regex::new(&format!(r"\b{}\b", regex::escape(old))) else { return Textual::default() };
    let line_of = |at: usize| content[..at].matches('\n').count() as u32 + 1;
    // (range, renameable) for every mention outside code.
    let mut found: Vec<(std::ops::Range<usize>, bool)> = Vec::new();
    match lang {
        None => found.extend(word.find_iter(content).map(|m| (m.range(), true))),
        Some(lang) => {
            let mut parser = Parser::new();
            if parser.set_language(&lang.grammar()).is_err() {
                return Textual::default();
            }
            let Some(tree) = parser.parse(content, None) else { return Textual::default() };
            let text = content.as_bytes();
            let mut stack = vec![tree.root_node()];
            while let Some(node) = stack.pop() {
                let kind = node.kind();
                let prose = kind.contains("comment") || is_doc(node, lang, text);
                if prose || kind.contains("string") {
                    found.extend(mentions(content, node.byte_range(), &word).into_iter().map(|r| (r, prose)));
                    continue;
                }
                let mut cursor = node.walk();
                stack.extend(node.children(&mut cursor));
            }
        }
    }
    found.sort_by_key(|(r, _)| r.start);
    let mut out = Textual::default();
    let mut updated = String::with_capacity(content.len());
    let mut at = 0;
    for (range, renameable) in found {
        if rename && renameable {
            updated.push_str(&content[at..range.start]);
            updated.push_str(new);
            at = range.end;
            out.renamed += 1;
        } else {
            out.lines.push(line_of(range.start));
        }
    }
    out.lines.dedup();
    if out.renamed > 0 {
        updated.push_str(&content[at..]);
        out.updated = Some(updated);
    }
    out
}

/// Plans renaming `old` to `new` over `files`.
pub fn plan(old: &str, new: &str, scope: Scope, files: &[FileInput]) -> Result<Plan, RenameError> {
    let mut out = Vec::new();
    let (mut sites, mut doc_sites) = (0, 0);
    let word = regex::Regex::new(&format!(r"\b{}\b", regex::escape(old)))
        .map_err(|_| RenameError::NotAnIdentifier(old.to_string()))?;
    let mut parsers: BTreeMap<&'static str, Parser> = BTreeMap::new();
    for file in files {
        let parser = parsers.entry(file.lang.name()).or_default();
        parser.set_language(&file.lang.grammar()).map_err(|_| RenameError::Unparsable { path: file.path.clone() })?;
        let tree = parser.parse(&file.content, None).ok_or(RenameError::Unparsable { path: file.path.clone() })?;
        let text = file.content.as_bytes();
        let all = tokens(tree.root_node(), text);
        if let Some((_, line, _, _)) = all.iter().find(|t| t.3 == new) {
            return Err(RenameError::Collision { name: new.to_string(), path: file.path.clone(), line: *line });
        }
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        let named: Vec<_> = all.iter().filter(|t| t.3 == old).collect();
        match scope {
            Scope::EveryToken => ranges.extend(
                named
                    .iter()
                    .filter(|t| !file.foreign_lines.contains(&t.1) || file.call_lines.contains(&t.1))
                    .map(|t| t.0.clone()),
            ),
            Scope::ResolvedSites => {
                if let Some((start, end)) = file.definition {
                    let def = named.iter().find(|t| t.1 >= start && t.1 <= end).ok_or_else(|| {
                        RenameError::DefinitionNotFound { name: old.to_string(), path: file.path.clone() }
                    })?;
                    ranges.push(def.0.clone());
                    // A Python `@overload` group is one function: its signatures follow the definition.
                    if file.lang == Lang::Python {
                        ranges.extend(overload_siblings(def.2, text).into_iter().filter(|r| *r != def.0));
                    }
                }
                for t in &named {
                    let call = file.call_lines.contains(&t.1) && has_ancestor(t.2, 4, is_call);
                    let import = !file.call_lines.is_empty() && has_ancestor(t.2, 6, is_import);
                    if (call || import) && !ranges.contains(&t.0) {
                        ranges.push(t.0.clone());
                    }
                }
            }
        }
        sites += ranges.len();
        // Documentation follows: every doc of the file when the name is defined once, else the definition's own.
        let docs = docs(tree.root_node(), file.lang, text);
        let documented: Vec<&Doc> = match (scope, file.definition) {
            (Scope::EveryToken, _) => docs.iter().collect(),
            (Scope::ResolvedSites, Some((start, end))) => attached(&docs, &file.content, start, end),
            (Scope::ResolvedSites, None) => Vec::new(),
        };
        for doc in documented {
            let found = mentions(&file.content, doc.range.clone(), &word);
            doc_sites += found.len();
            ranges.extend(found);
        }
        if ranges.is_empty() {
            continue;
        }
        ranges.sort_by_key(|r| r.start);
        ranges.dedup();
        let mut updated = String::with_capacity(file.content.len());
        let mut at = 0;
        for r in ranges {
            updated.push_str(&file.content[at..r.start]);
            updated.push_str(new);
            at = r.end;
        }
        updated.push_str(&file.content[at..]);
        out.push(super::patch::Edit { path: file.path.clone(), old: file.content.clone(), new: updated });
    }
    Ok(Plan { files: out, sites, doc_sites })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(path: &str, lang: Lang, content: &str, definition: Option<(u32, u32)>, calls: &[u32]) -> FileInput {
        FileInput {
            path: path.into(),
            lang,
            content: content.into(),
            definition,
            call_lines: calls.to_vec(),
            foreign_lines: Vec::new(),
        }
    }

    #[test]
    fn every_token_scope_renames_code_but_not_comments_or_strings() {
        let src = "// helper does things\nfn helper() -> u8 { 1 }\nfn main() { let x = helper(); println!(\"helper {}\", helper()); }\n";
        let plan = plan("helper", "assist", Scope::EveryToken, &[input("a.rs", Lang::Rust, src, None, &[])]).unwrap();
        assert_eq!(
            plan.files[0].new,
            "// helper does things\nfn assist() -> u8 { 1 }\nfn main() { let x = assist(); println!(\"helper {}\", assist()); }\n"
        );
        assert_eq!(plan.sites, 3);
    }

    #[test]
    fn resolved_scope_leaves_other_definitions_of_the_name_alone() {
        let src = "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 2\n\ndef go(a, b):\n    x = a.run()\n    return x + b.run()\n";
        // Only B.run (lines 6-7) and the call resolved to it on line 11.
        let files = [input("m.py", Lang::Python, src, Some((6, 7)), &[11])];
        let plan = plan("run", "execute", Scope::ResolvedSites, &files).unwrap();
        let new = &plan.files[0].new;
        assert!(new.contains("class A:\n    def run(self)"), "{new}");
        assert!(new.contains("class B:\n    def execute(self)"), "{new}");
        assert!(new.contains("x = a.run()\n    return x + b.execute()"), "{new}");
    }

    #[test]
    fn go_doc_comments_that_begin_with_the_name_follow_it() {
        let src = "package geo\n\n// ComputeArea is the area.\n// ComputeAreas is unrelated.\nfunc ComputeArea(w, h float64) float64 {\n\treturn w * h\n}\n";
        let files = [input("geo/area.go", Lang::Go, src, Some((5, 7)), &[])];
        let planned = plan("ComputeArea", "AreaOf", Scope::ResolvedSites, &files).unwrap();
        // The whole doc block is the definition's: the name is renamed where it is a word, not inside another.
        assert_eq!(
            planned.files[0].new,
            src.replace("ComputeArea ", "AreaOf ").replace("func ComputeArea", "func AreaOf")
        );
        assert_eq!(planned.doc_sites, 1);
        let src =
            "package geo\n\n// ComputeArea is the area.\nfunc ComputeArea(w, h float64) float64 {\n\treturn w * h\n}\n";
        let files = [input("geo/area.go", Lang::Go, src, Some((4, 6)), &[])];
        let planned = plan("ComputeArea", "AreaOf", Scope::ResolvedSites, &files).unwrap();
        assert_eq!(planned.files[0].new, src.replace("ComputeArea", "AreaOf"));
    }

    #[test]
    fn names_that_would_capture_or_are_not_identifiers_are_refused() {
        let src = "fn helper() {}\nfn assist() {}\n";
        let err = plan("helper", "assist", Scope::EveryToken, &[input("a.rs", Lang::Rust, src, None, &[])]);
        assert!(matches!(err, Err(RenameError::Collision { line: 2, .. })));
        assert!(matches!(check_name(Lang::Rust, "a", "fn"), Err(RenameError::Keyword(..))));
        assert!(matches!(check_name(Lang::Python, "a", "9lives"), Err(RenameError::NotAnIdentifier(_))));
        assert!(matches!(check_name(Lang::Python, "a", "a-b"), Err(RenameError::NotAnIdentifier(_))));
        assert!(matches!(check_name(Lang::Go, "Parse", "parse"), Err(RenameError::GoVisibility { .. })));
        assert_eq!(check_name(Lang::Go, "Parse", "ParseAll"), Ok(()));
    }

    #[test]
    fn doc_comments_doctests_and_docstrings_follow_the_name_plain_comments_do_not() {
        let src = "/// Adds one: `helper(1)` is 2.\n///\n/// ```\n/// assert_eq!(demo::helper(1), 2);\n/// ```\n\
                   fn helper(x: u8) -> u8 { x + 1 }\n// helper is also named here\n\
                   /// Calls [`helper`] twice; helpers are not it.\nfn twice(x: u8) -> u8 { helper(helper(x)) }\n";
        let planned =
            plan("helper", "assist", Scope::EveryToken, &[input("a.rs", Lang::Rust, src, None, &[])]).unwrap();
        let new = &planned.files[0].new;
        assert!(new.contains("/// Adds one: `assist(1)` is 2."), "{new}");
        assert!(new.contains("/// assert_eq!(demo::assist(1), 2);"), "the doctest: {new}");
        assert!(new.contains("/// Calls [`assist`] twice; helpers are not it."), "{new}");
        assert!(new.contains("// helper is also named here"), "a plain comment is only listed: {new}");
        assert_eq!((planned.sites, planned.doc_sites), (3, 3));

        let src = "def area(w, h):\n    \"\"\"area(w, h) is w * h.\"\"\"\n    return w * h\n\n\
                   def other():\n    \"\"\"Not about area at all.\"\"\"\n    return area(1, 2)\n";
        // Defined several times elsewhere: only the definition's own docstring follows.
        let files = [input("m.py", Lang::Python, src, Some((1, 3)), &[7])];
        let planned = plan("area", "surface", Scope::ResolvedSites, &files).unwrap();
        let new = &planned.files[0].new;
        assert!(new.contains("def surface(w, h):\n    \"\"\"surface(w, h) is w * h.\"\"\""), "{new}");
        assert!(new.contains("\"\"\"Not about area at all.\"\"\""), "{new}");
        assert!(new.contains("return surface(1, 2)"), "{new}");
        assert_eq!(planned.doc_sites, 1);
    }

    #[test]
    fn an_overload_group_renames_together_and_a_plain_redefinition_does_not() {
        let src = "from typing import overload\n\n@overload\ndef conv(x: int) -> int: ...\n@overload\n\
                   def conv(x: str) -> str: ...\ndef conv(x):\n    return x\n\nclass Other:\n    def conv(self):\n        \
                   return 0\n";
        let files = [input("m.py", Lang::Python, src, Some((7, 8)), &[])];
        let planned = plan("conv", "convert", Scope::ResolvedSites, &files).unwrap();
        let new = &planned.files[0].new;
        assert_eq!(new.matches("def convert(").count(), 3, "{new}");
        assert!(new.contains("class Other:\n    def conv(self)"), "{new}");
        let src = "def conv(x):\n    return 1\n\ndef conv(x):\n    return 2\n";
        let files = [input("m.py", Lang::Python, src, Some((4, 5)), &[])];
        let planned = plan("conv", "convert", Scope::ResolvedSites, &files).unwrap();
        assert_eq!(planned.files[0].new, "def conv(x):\n    return 1\n\ndef convert(x):\n    return 2\n");
    }
}
