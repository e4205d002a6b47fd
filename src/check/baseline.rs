//! The gate's baseline: which of the staged tree's tool findings HEAD already
//! has, so that a commit is judged by what it introduces. Findings match by
//! tool, path, code or test name and message, never by line (lines move), and
//! by count: a second copy of a finding HEAD has once is new. Secrets, project
//! rules and missing tools are never baselined. Knows nothing about running
//! the tools or materialising trees.

use std::collections::{BTreeMap, HashMap};

use super::parse::{Finding, Found};
use crate::world::git::FileDiff;

/// The code of the finding that says a tool the repository calls for is not installed.
pub const MISSING_TOOL: &str = "missing-tool";

/// The staged findings, split.
#[derive(Debug, Default)]
pub struct Split {
    /// Not on HEAD: these are judged.
    pub new: Vec<Finding>,
    /// Already on HEAD: listed, not blocking.
    pub existing: Vec<Finding>,
}

/// What identifies a finding across trees; `None` for findings that are never baselined.
fn key(f: &Finding) -> Option<(&str, &str, &str, &str)> {
    match &f.found {
        Found::Diagnostic { code, .. } if code == MISSING_TOOL => None,
        Found::Diagnostic { code, message, .. } => Some((&f.source, &f.path, code, message)),
        Found::Test { name, .. } => Some((&f.source, &f.path, name, "")),
        Found::Secret { .. } | Found::Rule { .. } => None,
    }
}

/// Splits `staged` by `head`'s findings. Where a finding occurs more often
/// than on HEAD, the copies on lines the commit added (`added`) are the new ones.
pub fn split(staged: Vec<Finding>, head: &[Finding], added: &BTreeMap<String, FileDiff>) -> Split {
    let mut left: HashMap<(&str, &str, &str, &str), usize> = HashMap::new();
    for f in head {
        if let Some(k) = key(f) {
            *left.entry(k).or_default() += 1;
        }
    }
    let on_added = |f: &Finding| added.get(&f.path).is_some_and(|d| d.added.iter().any(|(l, _)| *l == f.line));
    // Findings off the added lines take HEAD's copies first.
    let mut order: Vec<usize> = (0..staged.len()).collect();
    order.sort_by_key(|&i| on_added(&staged[i]));
    let mut existing = vec![false; staged.len()];
    for i in order {
        if let Some(n) = key(&staged[i]).and_then(|k| left.get_mut(&k)).filter(|n| **n > 0) {
            *n -= 1;
            existing[i] = true;
        }
    }
    let mut out = Split::default();
    for (f, old) in staged.into_iter().zip(existing) {
        if old {
            out.existing.push(f);
        } else {
            out.new.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use nerd_logic::vocab::Severity;

    use super::*;

    fn diag(path: &str, line: u32, code: &str) -> Finding {
        Finding {
            found: Found::Diagnostic { severity: Severity::Error, code: code.into(), message: format!("{code} here") },
            path: path.into(),
            line,
            source: "ruff".into(),
        }
    }

    fn added(path: &str, lines: &[u32]) -> BTreeMap<String, FileDiff> {
        let diff = FileDiff { ranges: vec![], added: lines.iter().map(|&l| (l, String::new())).collect() };
        BTreeMap::from([(path.to_string(), diff)])
    }

    #[test]
    fn a_finding_head_has_is_existing_even_when_its_line_moved() {
        let split = split(vec![diag("a.py", 12, "F821")], &[diag("a.py", 3, "F821")], &BTreeMap::new());
        assert_eq!((split.new.len(), split.existing.len()), (0, 1));
    }

    #[test]
    fn a_second_copy_is_new_and_it_is_the_one_on_an_added_line() {
        let staged = vec![diag("a.py", 5, "F821"), diag("a.py", 9, "F821")];
        let split = split(staged, &[diag("a.py", 9, "F821")], &added("a.py", &[5]));
        assert_eq!(split.new, vec![diag("a.py", 5, "F821")]);
        assert_eq!(split.existing, vec![diag("a.py", 9, "F821")]);
    }

    #[test]
    fn other_files_codes_secrets_and_missing_tools_are_never_existing() {
        let secret = Finding {
            found: Found::Secret { kind: "aws".into() },
            path: "a.py".into(),
            line: 1,
            source: "secrets".into(),
        };
        let staged = vec![diag("b.py", 1, "F821"), diag("a.py", 1, "E999"), secret.clone(), diag("", 0, MISSING_TOOL)];
        let head = vec![diag("a.py", 1, "F821"), secret, diag("", 0, MISSING_TOOL)];
        let split = split(staged, &head, &BTreeMap::new());
        assert_eq!((split.new.len(), split.existing.len()), (4, 0));
    }
}
