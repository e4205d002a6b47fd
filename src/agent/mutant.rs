//! Seeded mutants of a function: small, syntactically valid changes to its
//! body (a comparison or arithmetic operator swapped, a boolean flipped, a
//! short-circuit operator turned) and one that makes it fail outright (raise,
//! panic, throw), read from the syntax tree so that strings and comments are
//! never touched. A test that no mutant of its target makes fail cannot fail,
//! and is refused. Knows nothing about tests, runners or the router.

use crate::world::lang::Lang;

/// One mutant: the whole file's text with one change in the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    /// What was changed, e.g. "`<` → `<=`".
    pub change: String,
    /// The 1-based line of the change.
    pub line: u32,
    /// The mutated file.
    pub text: String,
}

/// The operator a mutant puts in place of `op`, when it has one.
fn swapped(op: &str) -> Option<&'static str> {
    Some(match op {
        "<" => "<=",
        "<=" => "<",
        ">" => ">=",
        ">=" => ">",
        "==" => "!=",
        "!=" => "==",
        "===" => "!==",
        "!==" => "===",
        "+" => "-",
        "-" => "+",
        "*" => "/",
        "/" => "*",
        "%" => "*",
        "&&" => "||",
        "||" => "&&",
        "and" => "or",
        "or" => "and",
        _ => return None,
    })
}

/// The other boolean.
fn flipped(literal: &str) -> Option<&'static str> {
    Some(match literal {
        "true" => "false",
        "false" => "true",
        "True" => "False",
        "False" => "True",
        _ => return None,
    })
}

/// Parent node kinds whose operator token a mutant may swap.
fn is_operation(kind: &str) -> bool {
    matches!(kind, "binary_expression" | "binary_operator" | "comparison_operator" | "boolean_operator")
}

/// Node kinds that define a function's body, per language.
fn is_function(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Rust => kind == "function_item",
        Lang::Go => matches!(kind, "function_declaration" | "method_declaration"),
        Lang::Python => kind == "function_definition",
        Lang::TypeScript | Lang::Tsx => matches!(
            kind,
            "function_declaration" | "method_definition" | "function_expression" | "arrow_function" | "function"
        ),
    }
}

/// The statement that makes a function fail as soon as it is called.
fn failing_statement(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => "panic!(\"nerd mutant\");",
        Lang::Go => "panic(\"nerd mutant\")",
        Lang::Python => "raise RuntimeError(\"nerd mutant\")",
        Lang::TypeScript | Lang::Tsx => "throw new Error(\"nerd mutant\");",
    }
}

/// A small deterministic generator (xorshift64*), so that the same target and
/// seed always give the same mutants.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// FNV-1a of `text`: the seed a target's mutants are drawn with.
pub fn seed_of(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)) | 1
}

/// Up to `max` operator mutants of the function spanning lines `start..=end`
/// of `source` (drawn with `seed`), then the one that makes it fail outright.
/// Empty when the file does not parse or no function starts on `start`.
pub fn mutants(lang: Lang, source: &str, (start, end): (u32, u32), seed: u64, max: usize) -> Vec<Mutant> {
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&lang.grammar()).is_err() {
        return vec![];
    }
    let Some(tree) = parser.parse(source, None) else { return vec![] };
    if tree.root_node().has_error() {
        return vec![];
    }
    let (first_row, last_row) = (start.saturating_sub(1) as usize, end.saturating_sub(1) as usize);
    let mut swaps: Vec<(usize, usize, String, &'static str, u32)> = Vec::new();
    let mut function = None;
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let row = node.start_position().row;
        if (first_row..=last_row).contains(&row) {
            if function.is_none() && row == first_row && is_function(lang, node.kind()) {
                function = Some(node);
            }
            let text = &source[node.byte_range()];
            let in_operation = node.parent().is_some_and(|p| is_operation(p.kind()));
            let replacement = if in_operation && !node.is_named() {
                swapped(text)
            } else if node.is_named() && matches!(node.kind(), "true" | "false" | "boolean_literal") {
                flipped(text)
            } else {
                None
            };
            if let Some(new) = replacement {
                swaps.push((node.start_byte(), node.end_byte(), text.to_string(), new, row as u32 + 1));
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    // A seeded shuffle, then the first `max`, in the order they appear.
    let mut draw = Draw(seed.max(1));
    for i in (1..swaps.len()).rev() {
        let j = (draw.next() % (i as u64 + 1)) as usize;
        swaps.swap(i, j);
    }
    swaps.truncate(max);
    swaps.sort_by_key(|s| s.0);
    let mut out: Vec<Mutant> = swaps
        .into_iter()
        .map(|(from, to, old, new, line)| Mutant {
            change: format!("`{old}` → `{new}`"),
            line,
            text: format!("{}{new}{}", &source[..from], &source[to..]),
        })
        .collect();
    if let Some(body) = function.and_then(|f| f.child_by_field_name("body")) {
        out.extend(failing(lang, source, body));
    }
    out
}

/// The mutant that makes the function whose body is `body` fail when called.
fn failing(lang: Lang, source: &str, body: tree_sitter::Node<'_>) -> Option<Mutant> {
    let statement = failing_statement(lang);
    let (at, insert) = match lang {
        Lang::Python => {
            // Before the block's first statement, at its indentation.
            let first = body.named_child(0)?;
            let column = first.start_position().column;
            let line_start = first.start_byte() - column;
            let same_line = first.start_position().row == body.parent()?.start_position().row;
            if same_line {
                // `def f(): return x` on one line: the body follows the colon.
                (first.start_byte(), format!("{statement}; "))
            } else {
                (line_start, format!("{}{statement}\n", " ".repeat(column)))
            }
        }
        // Braced bodies: right after the opening brace. An arrow function's
        // expression body has none and gets no such mutant.
        _ if source[body.byte_range()].starts_with('{') => (body.start_byte() + 1, format!(" {statement} ")),
        _ => return None,
    };
    Some(Mutant {
        change: format!("`{statement}` first"),
        line: body.start_position().row as u32 + 1,
        text: format!("{}{insert}{}", &source[..at], &source[at..]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(lang: Lang, source: &str, span: (u32, u32), max: usize) -> Vec<(String, u32)> {
        mutants(lang, source, span, 7, max).into_iter().map(|m| (m.change, m.line)).collect()
    }

    #[test]
    fn python_operators_and_booleans_are_mutated_and_strings_are_not() {
        let src = "def other(a):\n    return a < 1\n\n\ndef clamp(x, lo, hi):\n    \"\"\"x < lo and True\"\"\"\n    if x < lo and True:\n        return lo\n    return x + 0\n";
        let got = changes(Lang::Python, src, (5, 9), 10);
        let want = [
            ("`<` → `<=`".to_string(), 7),
            ("`and` → `or`".to_string(), 7),
            ("`True` → `False`".to_string(), 7),
            ("`+` → `-`".to_string(), 9),
            ("`raise RuntimeError(\"nerd mutant\")` first".to_string(), 6),
        ];
        assert_eq!(got, want);
        let failing = mutants(Lang::Python, src, (5, 9), 7, 0).pop().unwrap();
        assert!(failing.text.contains("def clamp(x, lo, hi):\n    raise RuntimeError(\"nerd mutant\")\n    \"\"\""));
        // Every mutant still parses.
        for m in mutants(Lang::Python, src, (5, 9), 7, 10) {
            let projected = crate::world::project::project_file(Lang::Python, "m.py", m.text.as_bytes()).unwrap();
            assert_eq!(projected.parse_error, None, "{}", m.text);
        }
    }

    #[test]
    fn each_language_gets_a_failing_mutant_inside_the_body() {
        let rust = "fn f(x: i32) -> bool {\n    x > 0 && true\n}\n";
        let got = changes(Lang::Rust, rust, (1, 3), 10);
        assert_eq!(got.len(), 4, "{got:?}");
        assert!(mutants(Lang::Rust, rust, (1, 3), 7, 0)[0].text.starts_with("fn f(x: i32) -> bool { panic!"));
        let go = "package p\n\nfunc F(x int) bool {\n\treturn x >= 2\n}\n";
        let got = changes(Lang::Go, go, (3, 5), 10);
        assert_eq!(got[0], ("`>=` → `>`".to_string(), 4));
        assert_eq!(got.len(), 2);
        let ts = "export function f(a: number): boolean {\n  return a === 1 || false;\n}\n";
        let got = changes(Lang::TypeScript, ts, (1, 3), 10);
        assert_eq!(got.len(), 4, "{got:?}");
    }

    #[test]
    fn the_draw_is_seeded_and_bounded() {
        let src = "def f(a, b):\n    return (a + b) * (a - b) / (a % 3) < 4\n";
        let a = mutants(Lang::Python, src, (1, 2), 1, 2);
        let b = mutants(Lang::Python, src, (1, 2), 1, 2);
        assert_eq!(a, b);
        assert_eq!(a.len(), 3, "two operators and the failing mutant");
        let other: Vec<_> = (2..20).map(|s| mutants(Lang::Python, src, (1, 2), s, 2)[0].change.clone()).collect();
        assert!(other.iter().any(|c| *c != a[0].change), "the seed changes the draw");
    }

    #[test]
    fn nothing_outside_the_span_and_nothing_from_broken_files() {
        let src = "def f(a):\n    return a < 1\n\ndef g(a):\n    return a\n";
        let got = changes(Lang::Python, src, (4, 5), 10);
        assert_eq!(got.len(), 1, "only the failing mutant of g: {got:?}");
        assert!(mutants(Lang::Python, "def f(:\n  return 1 <\n", (1, 2), 7, 10).is_empty());
    }
}
