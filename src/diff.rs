//! Line diffs between two texts: unified-diff text with counts (for
//! articulation, approval prompts and `--dry-run` plans) and the added lines
//! with their new line numbers (for judging what a change introduces).
//! Knows nothing about where the texts came from.

use crate::articulate::Change;

/// Middle sections longer than this (after trimming the common prefix and
/// suffix) are shown as one replaced block instead of an exact LCS diff.
const MAX_LCS_LINES: usize = 3000;
/// Unchanged lines shown around each change.
const CONTEXT: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Keep,
    Remove,
    Add,
}

/// The unified diff of `old` → `new` for `path`, with added and removed line counts.
pub fn change(path: &str, old: &str, new: &str) -> Change {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = script(&a, &b);
    let added = ops.iter().filter(|(op, _, _)| *op == Op::Add).count() as u32;
    let removed = ops.iter().filter(|(op, _, _)| *op == Op::Remove).count() as u32;
    let mut diff = String::new();
    if added + removed > 0 {
        diff.push_str(&format!("--- a/{path}\n+++ b/{path}\n"));
        for hunk in hunks(&ops) {
            render(&mut diff, &ops[hunk.0..hunk.1], &a, &b);
        }
    }
    Change { path: path.to_string(), added, removed, diff }
}

/// The lines `new` adds to `old`, with their 1-based line numbers in `new`.
pub fn added_lines(old: &str, new: &str) -> Vec<(u32, String)> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    script(&a, &b)
        .into_iter()
        .filter(|(op, _, _)| *op == Op::Add)
        .map(|(_, _, j)| (u32::try_from(j + 1).unwrap_or(u32::MAX), b[j].to_string()))
        .collect()
}

/// The edit script as (op, index in a, index in b).
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops: Vec<(Op, usize, usize)> = (0..prefix).map(|i| (Op::Keep, i, i)).collect();
    if ma.len() > MAX_LCS_LINES || mb.len() > MAX_LCS_LINES {
        ops.extend((0..ma.len()).map(|i| (Op::Remove, prefix + i, prefix)));
        ops.extend((0..mb.len()).map(|j| (Op::Add, prefix + ma.len(), prefix + j)));
    } else {
        // lcs[i][j]: longest common subsequence of ma[i..] and mb[j..].
        let (n, m) = (ma.len(), mb.len());
        let mut lcs = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if ma[i] == mb[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && ma[i] == mb[j] {
                ops.push((Op::Keep, prefix + i, prefix + j));
                i += 1;
                j += 1;
            } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
                // Removals before additions, as diff(1) prints them.
                ops.push((Op::Remove, prefix + i, prefix + j));
                i += 1;
            } else {
                ops.push((Op::Add, prefix + i, prefix + j));
                j += 1;
            }
        }
    }
    let (ta, tb) = (a.len() - suffix, b.len() - suffix);
    ops.extend((0..suffix).map(|k| (Op::Keep, ta + k, tb + k)));
    ops
}

/// Ranges of the script that form hunks: changes with `CONTEXT` lines around, merged when close.
fn hunks(ops: &[(Op, usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (k, (op, _, _)) in ops.iter().enumerate() {
        if *op == Op::Keep {
            continue;
        }
        let start = k.saturating_sub(CONTEXT);
        let end = (k + 1 + CONTEXT).min(ops.len());
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

fn render(out: &mut String, ops: &[(Op, usize, usize)], a: &[&str], b: &[&str]) {
    let (old_len, new_len) = ops.iter().fold((0, 0), |(o, n), (op, _, _)| match op {
        Op::Keep => (o + 1, n + 1),
        Op::Remove => (o + 1, n),
        Op::Add => (o, n + 1),
    });
    let (first_a, first_b) = ops.first().map_or((0, 0), |&(_, i, j)| (i, j));
    let start = |first: usize, len: usize| if len == 0 { first } else { first + 1 };
    out.push_str(&format!("@@ -{},{old_len} +{},{new_len} @@\n", start(first_a, old_len), start(first_b, new_len)));
    for &(op, i, j) in ops {
        match op {
            Op::Keep => out.push_str(&format!(" {}\n", a[i])),
            Op::Remove => out.push_str(&format!("-{}\n", a[i])),
            Op::Add => out.push_str(&format!("+{}\n", b[j])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_line_change_is_one_hunk_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let c = change("x.txt", old, new);
        assert_eq!((c.added, c.removed), (1, 1));
        assert_eq!(c.diff, "--- a/x.txt\n+++ b/x.txt\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n");
    }

    #[test]
    fn identical_texts_have_no_diff_and_far_changes_two_hunks() {
        assert_eq!(change("x", "a\n", "a\n").diff, "");
        let old: String = (0..30).map(|i| format!("{i}\n")).collect();
        let new: String = (0..30)
            .map(|i| match i {
                2 => "two\n".to_string(),
                27 => "twenty-seven\n".to_string(),
                i => format!("{i}\n"),
            })
            .collect();
        let c = change("x", &old, &new);
        assert_eq!(c.diff.matches("@@ -").count(), 2, "{}", c.diff);
        assert_eq!((c.added, c.removed), (2, 2));
    }

    #[test]
    fn added_lines_carry_their_new_numbers() {
        assert_eq!(added_lines("a\nb\nc\n", "a\nx\nb\nc\ny\n"), vec![(2, "x".into()), (5, "y".into())]);
        assert_eq!(added_lines("a\n", "a\n"), vec![]);
        assert_eq!(added_lines("", "z\n"), vec![(1, "z".into())]);
    }

    #[test]
    fn insertion_into_an_empty_file_starts_at_zero() {
        let c = change("new.rs", "", "fn main() {}\n");
        assert!(c.diff.contains("@@ -0,0 +1,1 @@\n+fn main() {}\n"), "{}", c.diff);
    }
}
