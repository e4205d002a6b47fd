//! Unit tests of the projection: test attributes, signatures, compact text.

use super::*;

/// A Rust function is a test when a test attribute stands right before it, other
/// attributes and comments between them allowed; `#[cfg(test)]` and an attribute
/// inside the item before it are not its.
#[test]
fn a_test_attribute_right_before_a_function_makes_it_a_test() {
    let source = "#[test]\nfn a() {}\n\n#[test]\n// why\n/// doc\n#[ignore]\nfn b() {}\n\n\
                  #[cfg(test)]\nfn c() {}\n\n#[tokio::test]\nasync fn d() {}\n\n\
                  #[test]\nstruct S {\n    #[serde(default)]\n    x: u8,\n}\nfn e() {}\n";
    let projection = project_file(Lang::Rust, "t.rs", source.as_bytes()).unwrap();
    let mut tests: Vec<&str> = projection
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Test)
        .map(|s| s.id.rsplit('#').next().unwrap_or(""))
        .collect();
    tests.sort_unstable();
    assert_eq!(tests, ["a", "b", "d"]);
}

/// A signature is the definition's text before its body; a comment between the two (a
/// Python comment after the colon, a Rust, Go or TypeScript comment before the brace) is
/// neither.
#[test]
fn a_signature_leaves_out_a_comment_before_the_body() {
    let cases = [
        (Lang::Python, "a.py", "def f(a, b):  # why: reasons\n    return a\n", "def f(a, b)"),
        (Lang::Python, "a.py", "class C(B):\n    # about C\n    x = 1\n", "class C(B)"),
        (Lang::Python, "a.py", "def g(s: str) -> int:\n    return len(s)\n", "def g(s: str) -> int"),
        (Lang::Rust, "a.rs", "fn f(a: u8) -> u8 // why\n{\n    a\n}\n", "fn f(a: u8) -> u8"),
        (Lang::Go, "a.go", "package a\n\nfunc F(a int) int /* why */ {\n\treturn a\n}\n", "func F(a int) int"),
        (
            Lang::TypeScript,
            "a.ts",
            "function f(a: number): number // why\n{\n  return a;\n}\n",
            "function f(a: number): number",
        ),
    ];
    for (lang, path, source, want) in cases {
        let projection = project_file(lang, path, source.as_bytes()).unwrap();
        let got: Vec<&str> = projection.symbols.iter().map(|s| s.signature.as_str()).collect();
        assert!(got.contains(&want), "{source:?}: {got:?}");
    }
}

/// The shortcut for text that is compact already gives what the walk over
/// its characters gives, and is taken only where it may be.
#[test]
fn compact_text_is_copied_as_the_walk_would_write_it() {
    let walked = |raw: &str, max: usize| {
        let mut out = String::new();
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
    };
    let cases = [
        ("", 10, true),
        ("parse", 10, true),
        ("a b c", 5, true),
        ("self.session", 12, true),
        ("self.session", 11, false),
        (" lead", 10, false),
        ("trail ", 10, false),
        ("two  spaces", 20, false),
        ("tab\there", 20, false),
        ("new\nline", 20, false),
        ("vertical\x0Btab", 20, false),
        ("no\u{a0}break", 20, false),
        ("héllo", 20, false),
        ("fn  parse(a,\n  b) -> Result<T>", 14, false),
        ("fn  parse(a,\n  b) -> Result<T>", 15, false),
        ("fn  parse(a,\n  b) -> Result<T>", 40, false),
        ("déjà vu  twice over", 9, false),
    ];
    for (raw, max, shortcut) in cases {
        assert_eq!(already_compact(raw, max), shortcut, "{raw:?}");
        assert_eq!(compact(raw, max), walked(raw, max), "{raw:?}");
    }
}
