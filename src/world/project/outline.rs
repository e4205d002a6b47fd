//! What a projection says of a file as a whole: its first syntax error, and
//! the symbol-aligned chunks a large file is read in. Knows one file's tree
//! and symbols only.

use tree_sitter::Node;

use super::{compact, line_of, text, ProjectedSymbol, CHUNK_TARGET_LINES, CHUNK_THRESHOLD_LINES};

pub(super) fn first_syntax_error(root: Node<'_>, source: &[u8]) -> Option<(u32, String)> {
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
pub(super) fn chunks(symbols: &[ProjectedSymbol], total_lines: u32) -> Vec<(u32, u32, String)> {
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
