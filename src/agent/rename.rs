//! Deterministic rename over the symbol and call graph, no model involved.
//! A name defined once in its language is renamed at every identifier token
//! of that language's files (comments and strings are not tokens); a name
//! defined several times is renamed only at the target's definition, the
//! call sites resolution attributed to it, and the imports of the files that
//! call it; and the Go doc comment that opens with the name. A new name that
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
    pub sites: usize,
}

fn keywords(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Rust => &[
            "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false",
            "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
            "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
            "yield", "gen",
        ],
        Lang::Go => &[
            "break",
            "case",
            "chan",
            "const",
            "continue",
            "default",
            "defer",
            "else",
            "fallthrough",
            "for",
            "func",
            "go",
            "goto",
            "if",
            "import",
            "interface",
            "map",
            "package",
            "range",
            "return",
            "select",
            "struct",
            "switch",
            "type",
            "var",
        ],
        Lang::Python => &[
            "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
            "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
            "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
        ],
        Lang::TypeScript | Lang::Tsx => &[
            "break",
            "case",
            "catch",
            "class",
            "const",
            "continue",
            "debugger",
            "default",
            "delete",
            "do",
            "else",
            "enum",
            "export",
            "extends",
            "false",
            "finally",
            "for",
            "function",
            "if",
            "import",
            "in",
            "instanceof",
            "new",
            "null",
            "return",
            "super",
            "switch",
            "this",
            "throw",
            "true",
            "try",
            "typeof",
            "var",
            "void",
            "while",
            "with",
            "let",
            "static",
            "yield",
            "await",
            "interface",
            "type",
        ],
    }
}

/// Checks the new name for the target's language.
pub fn check_name(lang: Lang, old: &str, new: &str) -> Result<(), RenameError> {
    let mut chars = new.chars();
    let starts = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || (c == '$' && lang.is_ts()));
    if !starts || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (c == '$' && lang.is_ts())) {
        return Err(RenameError::NotAnIdentifier(new.to_string()));
    }
    if keywords(lang).contains(&new) {
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

/// The byte range of `old` opening the `// old ...` comment line just above line `line` (1-based).
fn go_doc_name(content: &str, line: u32, old: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    let mut previous: Option<(usize, &str)> = None;
    for (i, text) in content.split_inclusive('\n').enumerate() {
        if i as u32 + 1 == line {
            let (at, comment) = previous?;
            let body = comment.trim_start();
            let lead = comment.len() - body.len();
            let name = body.strip_prefix("// ")?;
            let rest = name.strip_prefix(old)?;
            if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let start = at + lead + 3;
            return Some(start..start + old.len());
        }
        previous = Some((offset, text));
        offset += text.len();
    }
    None
}

/// Plans renaming `old` to `new` over `files`.
pub fn plan(old: &str, new: &str, scope: Scope, files: &[FileInput]) -> Result<Plan, RenameError> {
    let mut out = Vec::new();
    let mut sites = 0;
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
        // Go doc comments begin with the name they document (linters insist); keep them true.
        if let (Lang::Go, Some((start, _))) = (file.lang, file.definition) {
            ranges.extend(go_doc_name(&file.content, start, old));
        }
        if ranges.is_empty() {
            continue;
        }
        ranges.sort_by_key(|r| r.start);
        sites += ranges.len();
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
    Ok(Plan { files: out, sites })
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
        assert_eq!(planned.files[0].new, src.replace("func ComputeArea", "func AreaOf"), "not the line above the def");
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
}
