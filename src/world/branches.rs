//! Branch points of a source file, by line: each `if`, loop, match arm or
//! case, `catch`/`except`, conditional expression and short-circuit operator
//! that tree-sitter finds. A function's count is its cyclomatic complexity
//! less one. Read from the syntax tree, never from text patterns, so strings
//! and comments that mention `if` count for nothing.
//! Knows nothing about symbols, facts or storage.

use super::lang::Lang;

/// The node kinds that open a branch, per language (named nodes and operator tokens).
fn is_branch(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Rust => matches!(
            kind,
            "if_expression" | "while_expression" | "for_expression" | "loop_expression" | "match_arm" | "&&" | "||"
        ),
        Lang::Go => matches!(
            kind,
            "if_statement" | "for_statement" | "expression_case" | "type_case" | "communication_case" | "&&" | "||"
        ),
        Lang::Python => matches!(
            kind,
            "if_statement"
                | "elif_clause"
                | "for_statement"
                | "while_statement"
                | "except_clause"
                | "conditional_expression"
                | "case_clause"
                | "for_in_clause"
                | "if_clause"
                | "and"
                | "or"
        ),
        Lang::TypeScript | Lang::Tsx => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "for_in_statement"
                | "while_statement"
                | "do_statement"
                | "switch_case"
                | "catch_clause"
                | "ternary_expression"
                | "&&"
                | "||"
                | "??"
        ),
    }
}

/// The 1-based line of every branch point in `source`, in order; `None` when the grammar cannot load.
pub fn lines(lang: Lang, source: &[u8]) -> Option<Vec<u32>> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    let tree = parser.parse(source, None)?;
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if is_branch(lang, node.kind()) {
            out.push(node.start_position().row as u32 + 1);
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
    out.sort_unstable();
    Some(out)
}

/// How many of `lines` (sorted) fall in `start..=end`.
pub fn within(lines: &[u32], start: u32, end: u32) -> u32 {
    let from = lines.partition_point(|&l| l < start);
    let to = lines.partition_point(|&l| l <= end);
    to.saturating_sub(from) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_are_counted_from_the_tree_in_each_language() {
        let rust = "fn f(x: i32) -> i32 {\n    // if this were a branch\n    let s = \"if while\";\n    if x > 0 && x < 9 { 1 } else { match x { 0 => 2, _ => 3 } }\n}\n";
        assert_eq!(lines(Lang::Rust, rust.as_bytes()), Some(vec![4, 4, 4, 4]));
        let python = "def f(x):\n    if x or y:\n        return [a for a in x if a]\n    try:\n        pass\n    except E:\n        pass\n";
        assert_eq!(lines(Lang::Python, python.as_bytes()), Some(vec![2, 2, 3, 3, 6]));
        let go = "package p\nfunc f(x int) int {\n\tfor i := 0; i < x; i++ {\n\t\tswitch {\n\t\tcase i > 2:\n\t\t}\n\t}\n\treturn 0\n}\n";
        assert_eq!(lines(Lang::Go, go.as_bytes()), Some(vec![3, 5]));
        let ts = "function f(x: number) {\n  return x ? (x ?? 1) : 0;\n}\n";
        assert_eq!(lines(Lang::TypeScript, ts.as_bytes()), Some(vec![2, 2]));
    }

    #[test]
    fn a_span_counts_the_branches_inside_it() {
        let l = [2, 2, 5, 9, 12];
        assert_eq!(within(&l, 2, 9), 4);
        assert_eq!(within(&l, 3, 4), 0);
        assert_eq!(within(&l, 12, 12), 1);
    }
}
