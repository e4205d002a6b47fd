//! Reads import statements into (module, imported name, local binding)
//! triples, the input of call resolution. One small reader per language over
//! the statement node the `imports.scm` query captured.
//! Knows nothing about which files the modules live in.

use tree_sitter::Node;

use super::lang::Lang;

/// One name an import statement brings into a file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Import {
    /// The module or package as written: `crate::a::b`, `github.com/x/y`, `.models`, `./util`;
    /// a Rust `super` that names the file's own module (inside an inline `mod`) reads `self`.
    pub module: String,
    /// The item imported from the module, if one item is (`b` in `from a import b as c`).
    pub name: Option<String>,
    /// The local name the file uses for it (`c`), if any.
    pub binding: Option<String>,
    pub line: u32,
}

fn text<'s>(node: Node<'_>, source: &'s [u8]) -> &'s str {
    std::str::from_utf8(&source[node.byte_range()]).unwrap_or("")
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`').to_string()
}

/// Reads the imports of one statement node.
pub fn read(lang: Lang, node: Node<'_>, source: &[u8]) -> Vec<Import> {
    let line = node.start_position().row as u32 + 1;
    let mut out = Vec::new();
    match lang {
        Lang::Rust => rust(node, source, line, &mut out),
        Lang::Go => go(node, source, line, &mut out),
        Lang::Python => python(node, source, line, &mut out),
        Lang::TypeScript | Lang::Tsx => typescript(node, source, line, &mut out),
    }
    out
}

fn rust(node: Node<'_>, source: &[u8], line: u32, out: &mut Vec<Import>) {
    if node.kind() == "extern_crate_declaration" {
        if let Some(name) = node.child_by_field_name("name") {
            let name = text(name, source).to_string();
            let binding =
                node.child_by_field_name("alias").map(|a| text(a, source).to_string()).unwrap_or(name.clone());
            out.push(Import { module: name, name: None, binding: Some(binding), line });
        }
        return;
    }
    let Some(arg) = node.child_by_field_name("argument") else {
        return;
    };
    if inactive_by_default(node, source) {
        return;
    }
    let tree = normalize_use_tree(text(arg, source));
    // Inside an inline `mod m { … }`, `super` is the file's own module first:
    // `use super::*` there brings nothing from the parent file into scope.
    let mut inline = 0;
    let mut up = node.parent();
    while let Some(n) = up {
        inline += usize::from(n.kind() == "mod_item");
        up = n.parent();
    }
    let mut rest = tree.as_str();
    while inline > 0 {
        match rest.strip_prefix("super::") {
            Some(r) => rest = r,
            None => break,
        }
        inline -= 1;
    }
    let tree = if rest.len() < tree.len() { format!("self::{rest}") } else { tree };
    expand_use_tree("", &tree, line, out);
}

/// The configuration names that rustc or cargo set, or that a build may turn
/// on without the project's say (`--cfg test`, `debug_assertions`, a target's).
const BUILTIN_CFGS: &[&str] = &[
    "test",
    "debug_assertions",
    "doc",
    "doctest",
    "miri",
    "proc_macro",
    "unix",
    "windows",
    "overflow_checks",
    "ub_checks",
    "panic",
    "fmt_debug",
];

/// Whether an item is compiled out of a default build: an attribute
/// `#[cfg(NAME)]` right before it names a configuration of the project's own
/// (`#[cfg(test_node_semver)]`), which no build sets unless asked to (a
/// build script for an old or a nightly compiler, `RUSTFLAGS=--cfg`). Such a
/// `use` must not shadow what the file imports otherwise (a glob's name of
/// the same spelling). Compound predicates (`all`, `any`, `not`,
/// `feature = …`) are not judged: the item counts.
fn inactive_by_default(node: Node<'_>, source: &[u8]) -> bool {
    // Read upwards from the item, line by line, over its attributes and
    // comments: no walk of the tree (a node's siblings are found from its parent).
    let start = node.start_byte();
    let before = String::from_utf8_lossy(&source[start.saturating_sub(4096)..start]);
    for line in before.lines().rev().map(str::trim) {
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let Some(attribute) = line.strip_prefix("#[").and_then(|l| l.strip_suffix(']')) else { return false };
        let attribute: String = attribute.chars().filter(|c| !c.is_whitespace()).collect();
        let name = attribute.strip_prefix("cfg(").and_then(|r| r.strip_suffix(')'));
        let custom = name.is_some_and(|n| {
            !n.is_empty()
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !BUILTIN_CFGS.contains(&n)
                && !n.starts_with("target_")
        });
        if custom {
            return true;
        }
    }
    false
}

/// Collapses whitespace to single spaces, then drops the spaces next to punctuation,
/// so `a :: { b ,\n c as d }` becomes `a::{b,c as d}`.
fn normalize_use_tree(raw: &str) -> String {
    let spaced = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars: Vec<char> = spaced.chars().collect();
    let punct = |c: Option<&char>| matches!(c, Some(':' | '{' | '}' | ','));
    let mut out = String::with_capacity(spaced.len());
    for (i, c) in chars.iter().enumerate() {
        if *c == ' ' && (punct(i.checked_sub(1).and_then(|j| chars.get(j))) || punct(chars.get(i + 1))) {
            continue;
        }
        out.push(*c);
    }
    out
}

/// Expands `a::{b, c::d as e, f::*}` into one import per leaf.
fn expand_use_tree(prefix: &str, tree: &str, line: u32, out: &mut Vec<Import>) {
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}::{b}")
        }
    };
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches("::");
        let inner = tree[open + 1..].strip_suffix('}').unwrap_or(&tree[open + 1..]);
        let base = join(prefix, head);
        for part in split_top_level(inner, ',').into_iter().filter(|p| !p.is_empty()) {
            expand_use_tree(&base, part, line, out);
        }
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p, Some(a.to_string())),
        None => (tree, None),
    };
    let full = join(prefix, path);
    let (module, last) = full.rsplit_once("::").unwrap_or(("", full.as_str()));
    match last {
        "*" => out.push(Import { module: module.to_string(), name: None, binding: None, line }),
        "self" => {
            let name = module.rsplit("::").next().unwrap_or(module).to_string();
            out.push(Import { module: module.to_string(), name: None, binding: Some(alias.unwrap_or(name)), line })
        }
        "" => {}
        // `use itertools as it;`: a whole crate, bound as a module.
        last if module.is_empty() && !matches!(last, "crate" | "self" | "super") => out.push(Import {
            module: last.to_string(),
            name: None,
            binding: Some(alias.unwrap_or_else(|| last.to_string())),
            line,
        }),
        last => out.push(Import {
            module: module.to_string(),
            name: Some(last.to_string()),
            binding: Some(alias.unwrap_or_else(|| last.to_string())),
            line,
        }),
    }
}

/// Splits on `sep` outside brackets and quotes: `a, b::{c, d}, e` on commas,
/// `Foo | Bar<A | B>` on bars, `a.f((x) => x.g() > 1).h()` on dots. A `>`
/// closes only a `<`: an arrow (`=>`, `->`) or a comparison closes nothing,
/// and a closing parenthesis drops the `<` comparisons left open inside it.
pub(crate) fn split_top_level(s: &str, sep: char) -> Vec<&str> {
    let (mut open, mut start, mut parts) = (Vec::new(), 0, Vec::new());
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '(' | '[' | '{' | '<' => open.push(c),
            '>' if open.last() == Some(&'<') => {
                open.pop();
            }
            ')' | ']' | '}' => {
                let opener = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                while let Some(o) = open.pop() {
                    if o == opener {
                        break;
                    }
                }
            }
            c if c == sep && open.is_empty() => {
                parts.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn go(node: Node<'_>, source: &[u8], line: u32, out: &mut Vec<Import>) {
    let Some(path) = node.child_by_field_name("path") else {
        return;
    };
    let module = unquote(text(path, source));
    let binding = match node.child_by_field_name("name").map(|n| text(n, source)) {
        Some("_") => None,
        Some(".") => None,
        Some(alias) => Some(alias.to_string()),
        None => go_package_name(&module),
    };
    out.push(Import { module, name: None, binding, line });
}

/// The conventional package name of an import path: its last segment, skipping a `vN` suffix.
pub fn go_package_name(module: &str) -> Option<String> {
    let mut segments = module.rsplit('/');
    let last = segments.next()?;
    let is_version = last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
    let name = if is_version { segments.next()? } else { last };
    Some(name.trim_start_matches("go-").replace(['-', '.'], "_"))
}

fn python(node: Node<'_>, source: &[u8], line: u32, out: &mut Vec<Import>) {
    let mut cursor = node.walk();
    if node.kind() == "import_statement" {
        for name in node.children_by_field_name("name", &mut cursor) {
            let (module, alias) = aliased(name, source);
            if alias.is_none() {
                // `import a.b` binds `a`, the top package, through which `a.b` is reached.
                if let Some((top, _)) = module.split_once('.') {
                    out.push(Import { module: top.to_string(), name: None, binding: Some(top.to_string()), line });
                }
            }
            let binding = alias.unwrap_or_else(|| module.clone());
            out.push(Import { module, name: None, binding: Some(binding), line });
        }
        return;
    }
    let Some(module) = node.child_by_field_name("module_name") else {
        return;
    };
    let module = text(module, source).to_string();
    let mut any = false;
    for name in node.children_by_field_name("name", &mut cursor) {
        let (item, alias) = aliased(name, source);
        let binding = alias.unwrap_or_else(|| item.clone());
        out.push(Import { module: module.clone(), name: Some(item), binding: Some(binding), line });
        any = true;
    }
    if !any {
        // `from m import *`
        out.push(Import { module, name: None, binding: None, line });
    }
}

fn aliased(node: Node<'_>, source: &[u8]) -> (String, Option<String>) {
    if node.kind() == "aliased_import" {
        let name = node.child_by_field_name("name").map(|n| text(n, source).to_string()).unwrap_or_default();
        let alias = node.child_by_field_name("alias").map(|n| text(n, source).to_string());
        (name, alias)
    } else {
        (text(node, source).to_string(), None)
    }
}

fn typescript(node: Node<'_>, source: &[u8], line: u32, out: &mut Vec<Import>) {
    let Some(src) = node.child_by_field_name("source") else {
        return;
    };
    let module = unquote(text(src, source));
    if node.kind() == "export_statement" {
        reexport(node, source, &module, line, out);
        return;
    }
    let mut found = false;
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let mut cursor = n.walk();
        for child in n.named_children(&mut cursor) {
            match child.kind() {
                "import_clause" | "named_imports" => stack.push(child),
                "identifier" if n.kind() == "import_clause" => {
                    let binding = text(child, source).to_string();
                    out.push(Import {
                        module: module.clone(),
                        name: Some("default".into()),
                        binding: Some(binding),
                        line,
                    });
                    found = true;
                }
                "namespace_import" => {
                    let mut c = child.walk();
                    let id = child.named_children(&mut c).find(|x| x.kind() == "identifier");
                    let binding = id.map(|i| text(i, source).to_string());
                    out.push(Import { module: module.clone(), name: None, binding, line });
                    found = true;
                }
                "import_specifier" => {
                    let name = child.child_by_field_name("name").map(|x| unquote(text(x, source)));
                    let alias = child.child_by_field_name("alias").map(|x| text(x, source).to_string());
                    let binding = alias.or_else(|| name.clone());
                    out.push(Import { module: module.clone(), name, binding, line });
                    found = true;
                }
                _ => {}
            }
        }
    }
    if !found {
        // A side-effect import: `import "./polyfill"`.
        out.push(Import { module, name: None, binding: None, line });
    }
}

/// `export { a as b } from "./x"` names `a` of `./x` as `b` of this module;
/// `export * from "./x"` passes every name of `./x` on; `export * as ns from`
/// binds a namespace.
fn reexport(node: Node<'_>, source: &[u8], module: &str, line: u32, out: &mut Vec<Import>) {
    let mut cursor = node.walk();
    let mut named = false;
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "export_clause" => {
                let mut c = child.walk();
                for spec in child.named_children(&mut c).filter(|s| s.kind() == "export_specifier") {
                    let name = spec.child_by_field_name("name").map(|x| unquote(text(x, source)));
                    let alias = spec.child_by_field_name("alias").map(|x| unquote(text(x, source)));
                    let binding = alias.or_else(|| name.clone());
                    out.push(Import { module: module.to_string(), name, binding, line });
                }
                named = true;
            }
            "namespace_export" => {
                let mut c = child.walk();
                let id = child.named_children(&mut c).find(|x| matches!(x.kind(), "identifier" | "string"));
                let binding = id.map(|i| unquote(text(i, source)));
                out.push(Import { module: module.to_string(), name: None, binding, line });
                named = true;
            }
            _ => {}
        }
    }
    if !named {
        out.push(Import { module: module.to_string(), name: None, binding: None, line });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_splits_see_arrows_and_comparisons_as_no_brackets() {
        let cases: [(&str, char, &[&str]); 6] = [
            ("a, b::{c, d}, e", ',', &["a", " b::{c, d}", " e"]),
            ("Foo | Bar<A | B>", '|', &["Foo ", " Bar<A | B>"]),
            (
                "z .string() .transform((val) => val.toUpperCase()) ",
                '.',
                &["z ", "string() ", "transform((val) => val.toUpperCase()) "],
            ),
            ("items.filter((x) => x > 1 && x < 9).map(f)", '.', &["items", "filter((x) => x > 1 && x < 9)", "map(f)"]),
            ("f::<Box<dyn Fn() -> u8>>().g", '.', &["f::<Box<dyn Fn() -> u8>>()", "g"]),
            ("a.b", '.', &["a", "b"]),
        ];
        for (text, sep, want) in cases {
            assert_eq!(split_top_level(text, sep), want, "{text}");
        }
    }

    #[test]
    fn rust_use_trees_expand_to_leaves() {
        let mut out = Vec::new();
        let tree = normalize_use_tree("crate::world::{lang::Lang,\n    project::{self, FileProjection as FP}, * }");
        expand_use_tree("", &tree, 3, &mut out);
        let got: Vec<(String, Option<String>, Option<String>)> =
            out.into_iter().map(|i| (i.module, i.name, i.binding)).collect();
        assert_eq!(
            got,
            vec![
                ("crate::world::lang".into(), Some("Lang".into()), Some("Lang".into())),
                ("crate::world::project".into(), None, Some("project".into())),
                ("crate::world::project".into(), Some("FileProjection".into()), Some("FP".into())),
                ("crate::world".into(), None, None),
            ]
        );
    }

    /// The modules a Rust file imports, read through tree-sitter as the projection does.
    fn rust_modules(source: &str) -> Vec<String> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&Lang::Rust.grammar()).unwrap();
        let tree = parser.parse(source, None).unwrap();
        let root = tree.root_node();
        let mut cursor = root.walk();
        let uses: Vec<Node<'_>> = root.named_children(&mut cursor).filter(|n| n.kind() == "use_declaration").collect();
        uses.into_iter().flat_map(|n| read(Lang::Rust, n, source.as_bytes())).map(|i| i.module).collect()
    }

    #[test]
    fn a_use_under_a_configuration_no_build_sets_imports_nothing() {
        let gated = [
            "#[cfg(test_node_semver)]\nuse node::req;\n",
            "#[cfg( alternate )]\n// the other implementation\n#[allow(unused_imports)]\nuse node::req;\n",
        ];
        for source in gated {
            assert_eq!(rust_modules(source), Vec::<String>::new(), "{source}");
        }
        // Negations, features, the compiler's and cargo's own names, compound
        // predicates and other attributes: not judged, the import counts.
        let counted = [
            "#[cfg(not(test_node_semver))]\nuse node::req;\n",
            "#[cfg(feature = \"std\")]\nuse node::req;\n",
            "#[cfg(test)]\nuse node::req;\n",
            "#[cfg(unix)]\nuse node::req;\n",
            "#[cfg(target_os = \"linux\")]\nuse node::req;\n",
            "#[cfg(any(alternate, test))]\nuse node::req;\n",
            "#[allow(unused_imports)]\nuse node::req;\n",
            "#[cfg(alternate)]\nfn unrelated() {}\nuse node::req;\n",
        ];
        for source in counted {
            assert_eq!(rust_modules(source), vec!["node".to_string()], "{source}");
        }
    }

    #[test]
    fn go_package_names_skip_major_versions() {
        assert_eq!(go_package_name("github.com/spf13/cobra").as_deref(), Some("cobra"));
        assert_eq!(go_package_name("gopkg.in/yaml.v3").as_deref(), Some("yaml_v3"));
        assert_eq!(go_package_name("github.com/x/mod/v2").as_deref(), Some("mod"));
    }
}
