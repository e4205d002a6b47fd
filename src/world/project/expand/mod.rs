//! Expands Rust macro invocations in item position into Rust source: those of
//! a `macro_rules!` macro the same file defines (`must_use_tests! { name {
//! … } }` becomes `#[test] fn name() { … }`), and those of the test macros of
//! other crates whose expansion is known (`quickcheck! { fn prop(…) … }`: each
//! function is a test). Each expansion carries the file row of every line it
//! copied from the invocation, so what is found in it is placed where the user
//! wrote it. Knows one file's text and Rust's tokens only, never the index.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use matcher::Matcher;
use rules::{rules, Rule};
use tokens::tokenize;
use writer::{RowIndex, Writer};

mod matcher;
mod rules;
pub(super) mod tokens;
mod writer;

/// Macros of other crates that make a test of every function written in
/// their invocation (quickcheck's `quickcheck!`, proptest's `proptest!`).
const TEST_MACROS: &[&str] = &["quickcheck", "proptest"];

/// Whether a macro path names the paste crate's item macro (`paste!`,
/// `paste::paste!`, `paste::item!`), which writes its tokens with each
/// `[< … >]` joined into one identifier.
fn is_paste(path: &[u8]) -> bool {
    let path: Vec<u8> = path.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
    let path = path.strip_prefix(b"::").unwrap_or(&path);
    matches!(path, b"paste" | b"paste::paste" | b"paste::item")
}

/// The least budget, in bytes of expansion, of a file that is no test file.
const MIN_BUDGET: usize = 16 << 10;
/// The largest expansion kept, in bytes.
const MAX_EXPANSION: usize = 4 << 20;
/// The most expansion text one file gets, in bytes, whatever it is.
const MAX_FILE_EXPANSION: usize = 16 << 20;

/// One invocation, expanded.
#[derive(Debug)]
pub(super) struct Expansion {
    /// Rust source of items.
    pub text: Vec<u8>,
    /// The file row (0-based) of each line of `text`, where the line copies the invocation's tokens.
    pub rows: Vec<Option<u32>>,
    /// The invocation's bytes in the file.
    pub invocation: Range<usize>,
    /// The bytes of its token tree, whose calls the expansion now holds.
    pub tokens: Range<usize>,
    /// The invocation's first row (0-based).
    pub row: u32,
    /// Whether its rule writes a test or a macro (or it is a test crate's macro).
    writes_tests_or_macros: bool,
}

impl Expansion {
    /// The file line (1-based) of the expansion's `line` (1-based), if that
    /// line copies the invocation's tokens.
    pub fn file_line(&self, line: u32) -> Option<u32> {
        self.rows.get(line.checked_sub(1)? as usize).copied().flatten().map(|r| r + 1)
    }

    /// The file lines of the expansion's lines `first..=last`: from the
    /// earliest line they copy to the latest (a macro may copy a function's
    /// name, its body, then its arguments again), or the invocation's line
    /// where they copy none.
    pub fn file_span(&self, first: u32, last: u32) -> (u32, u32) {
        let mapped = || (first..=last).filter_map(|l| self.file_line(l));
        match (mapped().min(), mapped().max()) {
            (Some(start), Some(end)) => (start, end),
            _ => (self.row + 1, self.row + 1),
        }
    }
}

/// The expansions of the item-position invocations in `root` (a file, and
/// the `mod` blocks in it) that can be expanded: in a test file every one;
/// elsewhere every one whose rule writes a test or a `macro_rules!` macro,
/// and the others (the impls a crate generates for each integer or tuple
/// size) in the order written while their text fits in a budget of the
/// file's own size: an expansion costs as much to project as the source it
/// writes, and the first few of a macro's expansions already show what its
/// code calls. Those left out stay the macro's own calls.
pub(super) fn item_expansions(root: Node<'_>, source: &[u8], in_test_file: bool) -> Vec<Expansion> {
    let mut invocations = Vec::new();
    let mut definitions: HashMap<&[u8], Vec<Rule>> = HashMap::new();
    collect_items(root, source, &mut invocations, &mut definitions);
    if invocations.is_empty() {
        return Vec::new();
    }
    let rows = RowIndex::new(source);
    let mut budget = source.len().max(MIN_BUDGET);
    let mut total = 0usize;
    let mut out = Vec::new();
    for node in invocations {
        let Some(e) = expand(node, source, &definitions, &rows) else { continue };
        total += e.text.len();
        if total > MAX_FILE_EXPANSION {
            break;
        }
        if in_test_file || e.writes_tests_or_macros {
            out.push(e);
        } else if e.text.len() <= budget {
            budget -= e.text.len();
            out.push(e);
        } else {
            budget = 0;
        }
    }
    out
}

/// Finds item-position invocations and `macro_rules!` definitions under `node`.
fn collect_items<'t, 's>(
    node: Node<'t>,
    source: &'s [u8],
    invocations: &mut Vec<Node<'t>>,
    definitions: &mut HashMap<&'s [u8], Vec<Rule>>,
) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "macro_invocation" => invocations.push(child),
            "expression_statement" => {
                if let Some(inner) = child.named_child(0).filter(|n| n.kind() == "macro_invocation") {
                    invocations.push(inner);
                }
            }
            "macro_definition" => {
                if let Some(name) = child.child_by_field_name("name") {
                    definitions.insert(&source[name.byte_range()], rules(child, source));
                }
            }
            "mod_item" => {
                if let Some(body) = child.child_by_field_name("body") {
                    collect_items(body, source, invocations, definitions);
                }
            }
            _ => {}
        }
    }
}

/// Expands one invocation, if its macro is known and one of its rules matches.
fn expand(
    node: Node<'_>,
    source: &[u8],
    definitions: &HashMap<&[u8], Vec<Rule>>,
    rows: &RowIndex,
) -> Option<Expansion> {
    let name_node = node.child_by_field_name("macro")?;
    let name = match name_node.kind() {
        "scoped_identifier" => name_node.child_by_field_name("name")?,
        _ => name_node,
    };
    let name = &source[name.byte_range()];
    let tokens_node = node.named_children(&mut node.walk()).find(|n| n.kind() == "token_tree")?;
    let inner = tokens_node.start_byte() + 1..tokens_node.end_byte().saturating_sub(1);
    let tokens = tokenize(source, inner)?;
    let mut writer = Writer::new(source, rows);
    let mut writes_tests_or_macros = true;
    let expanded = match definitions.get(name) {
        Some(rules) if name_node.kind() == "identifier" => rules.iter().any(|rule| {
            let mut matcher = Matcher::new(source);
            let Some(binds) = matcher.whole(&rule.matcher, &tokens) else { return false };
            writer = Writer::new(source, rows);
            writes_tests_or_macros = rule.defines_tests_or_macros;
            writer.transcribe(&rule.transcriber, &binds).is_some()
        }),
        _ if TEST_MACROS.iter().any(|m| m.as_bytes() == name) => {
            writer.tests_of(source, &tokens);
            true
        }
        _ if is_paste(&source[name_node.byte_range()]) => {
            writer.pasted(source, &tokens);
            true
        }
        _ => false,
    };
    (expanded && writer.text.len() <= MAX_EXPANSION).then(|| Expansion {
        text: writer.text,
        rows: writer.rows,
        invocation: node.byte_range(),
        tokens: tokens_node.byte_range(),
        row: node.start_position().row as u32,
        writes_tests_or_macros,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expansions of `source`, parsed as Rust.
    fn expand_source(source: &str, in_test_file: bool) -> Vec<Expansion> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&tree_sitter_rust::LANGUAGE.into()).unwrap();
        let tree = parser.parse(source, None).unwrap();
        item_expansions(tree.root_node(), source.as_bytes(), in_test_file)
    }

    /// Expands every item invocation of `source` and returns the texts with
    /// spaces collapsed.
    fn expansions(source: &str) -> Vec<String> {
        expand_source(source, false)
            .into_iter()
            .map(|e| String::from_utf8(e.text).unwrap().split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[test]
    fn a_local_macro_expands_each_round_of_its_repetition() {
        let source = r#"
macro_rules! must_use_tests {
    ($($(#[$attr:meta])* $name:ident $body:block)*) => {
        $(
            /// A doc comment the expansion drops.
            #[test]
            $(#[$attr])*
            fn $name() $body
        )*
    };
}
must_use_tests! {
    interleave { let _ = a.interleave(b); }
    #[ignore]
    get { let _ = a.get(1..4); }
}
"#;
        assert_eq!(
            expansions(source),
            ["# [ test ] fn interleave ( ) { let _ = a.interleave(b); } # [ test ] # [ ignore ] fn get ( ) { let _ = a.get(1..4); }"]
        );
    }

    #[test]
    fn a_rule_that_does_not_match_falls_to_the_next_and_none_expands_nothing() {
        let source = r#"
macro_rules! case {
    ($name:ident: $input:expr => $want:expr) => { #[test] fn $name() { assert_eq!(run($input), $want); } };
    ($name:ident, $input:expr) => { #[test] fn $name() { run($input); } };
}
case!(plain, "a" + b);
case!(arrow: f(1, 2) => Vec::<u8>::new());
case!(12 13);
"#;
        assert_eq!(
            expansions(source),
            [
                "# [ test ] fn plain ( ) { run ( \"a\" + b ) ; }",
                "# [ test ] fn arrow ( ) { assert_eq ! ( run ( f(1, 2) ) , Vec::<u8>::new() ) ; }",
            ]
        );
    }

    #[test]
    fn a_known_test_macro_marks_each_function_and_an_unknown_macro_is_left() {
        let source = r#"
quickcheck! {
    fn prop_a(xs: Vec<u8>) -> bool { check(&xs) }
    fn prop_b(x: u8) -> () { other(x); }
}
lazy_static! { static ref X: u8 = make(); }
"#;
        assert_eq!(
            expansions(source),
            ["#[test] fn prop_a(xs: Vec<u8>) -> bool { check(&xs) } #[test] fn prop_b(x: u8) -> () { other(x); }"]
        );
    }

    #[test]
    fn paste_joins_each_bracketed_name_and_writes_the_rest_as_it_is() {
        let source = "paste::paste! { #[test] fn [<parses_ U8 :lower>]() { parse([1, 2]); } }\nother::paste! { fn [<no_ x>]() {} }\n";
        assert_eq!(expansions(source), ["#[test] fn parses_u8 () { parse([1, 2]); }"]);
    }

    #[test]
    fn copied_lines_keep_the_rows_they_were_written_on() {
        let source = "macro_rules! t { ($n:ident $b:block) => { #[test] fn $n() $b }; }\n\nt! {\n  first {\n    call();\n  }\n}\n";
        let [expansion] = expand_source(source, false).try_into().unwrap();
        let text = String::from_utf8(expansion.text.clone()).unwrap();
        let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() as u32 + 1;
        assert_eq!(expansion.file_line(line_of("first")), Some(4));
        assert_eq!(expansion.file_line(line_of("call")), Some(5));
        assert_eq!(expansion.file_line(line_of("#")), None);
        assert_eq!(expansion.file_span(1, line_of("call") + 1), (4, 6));
    }

    #[test]
    fn outside_test_files_expansions_that_write_no_test_fit_in_a_budget() {
        let source = r#"
macro_rules! impl_size { ($($t:ident),*) => { $(impl Size for $t { fn size() -> usize { 1 } })* }; }
impl_size!(A, B);
macro_rules! checks { ($($n:ident),*) => { $(#[tokio::test] async fn $n() {})* }; }
checks!(first);
macro_rules! defines { ($n:ident) => { macro_rules! $n { () => {} } }; }
defines!(inner);
"#;
        let expanded = |in_test_file: bool| expand_source(source, in_test_file).len();
        assert_eq!(expanded(false), 3);
        assert_eq!(expanded(true), 3);
        // Past the budget of the file's own size, only what writes tests or macros.
        let big =
            format!("{source}impl_size!({});\n", (0..4000).map(|i| format!("T{i}")).collect::<Vec<_>>().join(", "));
        assert_eq!(expand_source(&big, false).len(), 3);
        assert_eq!(expand_source(&big, true).len(), 4);
    }

    #[test]
    fn large_and_hostile_invocations_end_quickly() {
        let names: String = (0..20_000).map(|i| format!("t{i} {{ f(); }}\n")).collect();
        let many = format!(
            "macro_rules! m {{ ($($n:ident $b:block)*) => {{ $( #[test] fn $n() $b )* }}; }}\nm! {{ {names} }}"
        );
        let started = std::time::Instant::now();
        let [expanded] = expansions(&many).try_into().unwrap();
        assert_eq!(expanded.matches("# [ test ]").count(), 20_000);
        // Two greedy repetitions that must give back tokens for a literal never there.
        let tokens = "a ".repeat(5_000);
        let stuck =
            format!("macro_rules! s {{ ($($a:tt)* $($b:tt)* end) => {{ #[test] fn x() {{}} }}; }}\ns! {{ {tokens} }}");
        assert!(expansions(&stuck).is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    }

    #[test]
    fn tokens_read_strings_chars_lifetimes_and_comments() {
        let source = br##"a /* x /* y */ */ 'b' 'c r#"q"# "s\"" b'\'' 1..2 ::x -> // end"##;
        let tokens = tokenize(source, 0..source.len()).unwrap();
        let words: Vec<&str> = tokens.iter().map(|t| std::str::from_utf8(&source[t.span.clone()]).unwrap()).collect();
        assert_eq!(words, ["a", "'b'", "'c", "r#\"q\"#", "\"s\\\"\"", "b'\\''", "1", "..", "2", "::", "x", "->"]);
        assert!(tokenize(b"(]", 0..2).is_none());
    }
}
