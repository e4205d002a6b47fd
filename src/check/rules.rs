//! Project rules from `.nerd/config.toml`: structural patterns that must not
//! appear in added code. A `call` rule reuses the language's projection query
//! (`grammars/<lang>/calls.scm`), so it sees calls exactly as the world model
//! does; a `query` rule is a tree-sitter query. Test files and test code are
//! exempt unless a rule includes them. Only added lines are judged.
//! Knows nothing about git or how violations are used.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;
use std::path::Path;

use nerd_logic::vocab::SymbolKind;
use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator};

use super::parse::{Finding, Found};
use crate::config::{Pattern, Rule};
use crate::world::git::FileDiff;
use crate::world::lang::Lang;
use crate::world::project::project_file;

/// Violations of `rules` in the added lines of files under `dir`.
pub fn check(dir: &Path, rules: &[Rule], added: &BTreeMap<String, FileDiff>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (path, diff) in added {
        if diff.added.is_empty() || applicable(rules, path).is_empty() {
            continue;
        }
        let Ok(source) = std::fs::read(dir.join(path)) else { continue };
        let lines: HashSet<u32> = diff.added.iter().map(|(l, _)| *l).collect();
        out.extend(check_source(rules, path, &source, &lines));
    }
    out.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    out.dedup();
    out
}

/// The rules that apply to `path`: its language, its paths, test files only when included.
fn applicable<'r>(rules: &'r [Rule], path: &str) -> Vec<&'r Rule> {
    let Some(lang) = Lang::of_path(path) else { return Vec::new() };
    rules
        .iter()
        .filter(|r| r.lang.family() == lang.family())
        .filter(|r| r.paths.as_ref().is_none_or(|g| g.is_match(path)))
        .filter(|r| r.include_tests || !lang.is_test_path(path))
        .collect()
}

/// Violations of `rules` on the `added` lines of `source`, the content of `path`.
pub fn check_source(rules: &[Rule], path: &str, source: &[u8], added: &HashSet<u32>) -> Vec<Finding> {
    let mut out = Vec::new();
    let applicable = applicable(rules, path);
    let Some(lang) = Lang::of_path(path) else { return out };
    if applicable.is_empty() || added.is_empty() {
        return out;
    }
    let Some(tree) = parse(lang, source) else { return out };
    let tests = test_ranges(lang, path, source, tree.root_node());
    for rule in applicable {
        for line in matches(lang, rule, tree.root_node(), source) {
            let in_test = tests.iter().any(|r| r.contains(&line));
            if added.contains(&line) && (rule.include_tests || !in_test) {
                out.push(Finding {
                    found: Found::Rule { id: rule.id.clone() },
                    path: path.to_string(),
                    line,
                    source: "rule".into(),
                });
            }
        }
    }
    out.sort_by_key(|f| f.line);
    out.dedup();
    out
}

/// The names called on the `added` lines of `source` outside test code.
pub fn added_calls(path: &str, source: &[u8], added: &HashSet<u32>) -> BTreeSet<String> {
    let Some(lang) = Lang::of_path(path) else { return BTreeSet::new() };
    let Some(tree) = parse(lang, source) else { return BTreeSet::new() };
    let tests = test_ranges(lang, path, source, tree.root_node());
    calls(lang, tree.root_node(), source)
        .into_iter()
        .filter(|(line, _)| added.contains(line) && !tests.iter().any(|r| r.contains(line)))
        .map(|(_, name)| name)
        .collect()
}

/// Every call the language's projection query sees, as (line, called name).
fn calls(lang: Lang, root: Node<'_>, source: &[u8]) -> Vec<(u32, String)> {
    crate::world::project::called_names(lang, root, source).unwrap_or_default()
}

fn parse(lang: Lang, source: &[u8]) -> Option<tree_sitter::Tree> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(source, None)
}

/// Lines where `rule` matches.
fn matches(lang: Lang, rule: &Rule, root: Node<'_>, source: &[u8]) -> Vec<u32> {
    let mut lines = Vec::new();
    match &rule.pattern {
        Pattern::Call(name) => {
            lines.extend(calls(lang, root, source).into_iter().filter(|(_, called)| called == name).map(|(l, _)| l));
        }
        Pattern::Query(src) => {
            let Ok(query) = Query::new(&lang.grammar(), src) else { return lines };
            let target = query.capture_names().iter().position(|n| *n == "match");
            let mut cursor = QueryCursor::new();
            let mut it = cursor.matches(&query, root, source);
            while let Some(m) = it.next() {
                let node = m
                    .captures()
                    .iter()
                    .find(|c| Some(c.index as usize) == target)
                    .or(m.captures().first())
                    .map(|c| c.node);
                if let Some(n) = node {
                    lines.push(n.start_position().row as u32 + 1);
                }
            }
        }
    }
    lines
}

/// Line ranges of test code: test symbols, and in Rust items under `#[cfg(test)]`.
fn test_ranges(lang: Lang, path: &str, source: &[u8], root: Node<'_>) -> Vec<Range<u32>> {
    let mut ranges: Vec<Range<u32>> = project_file(lang, path, source)
        .map(|p| p.symbols.into_iter().filter(|s| s.kind == SymbolKind::Test).map(|s| s.line..s.end_line + 1).collect())
        .unwrap_or_default();
    if lang == Lang::Rust {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                let is_cfg_test = child.kind() == "attribute_item"
                    && std::str::from_utf8(&source[child.byte_range()])
                        .is_ok_and(|t| t.replace(' ', "").contains("cfg(test)"));
                if is_cfg_test {
                    if let Some(item) = child.next_named_sibling() {
                        ranges.push(item.start_position().row as u32 + 1..item.end_position().row as u32 + 2);
                    }
                } else if child.named_child_count() > 0 {
                    stack.push(child);
                }
            }
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn run(config: &str, path: &str, source: &str) -> Vec<u32> {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, source).unwrap();
        let rules = Config::parse(config).unwrap().check.rules;
        let all_added = FileDiff {
            ranges: vec![],
            added: source.lines().enumerate().map(|(i, l)| (i as u32 + 1, l.to_string())).collect(),
        };
        let added = BTreeMap::from([(path.to_string(), all_added)]);
        check(dir.path(), &rules, &added).into_iter().map(|f| f.line).collect()
    }

    const NO_UNWRAP: &str = "[[check.rule]]\nid = \"no-unwrap\"\nlang = \"rust\"\ncall = \"unwrap\"\nmessage = \"m\"\n";

    #[test]
    fn a_call_rule_skips_test_code() {
        let src = "fn a() { let x = f().unwrap(); }\n\n#[cfg(test)]\nmod tests {\n    fn helper() { g().unwrap(); }\n    #[test]\n    fn t() { h().unwrap(); }\n}\n";
        assert_eq!(run(NO_UNWRAP, "src/lib.rs", src), vec![1]);
        assert!(run(NO_UNWRAP, "tests/it.rs", src).is_empty(), "test files are exempt");
    }

    #[test]
    fn query_rules_and_path_globs() {
        let config = "[[check.rule]]\nid = \"no-print\"\nlang = \"python\"\nquery = \"(call function: (identifier) @f (#eq? @f \\\"print\\\")) @match\"\nmessage = \"m\"\npaths = [\"pkg/**\"]\n";
        let src = "def f():\n    print('x')\n    log('y')\n";
        assert_eq!(run(config, "pkg/a.py", src), vec![2]);
        assert!(run(config, "scripts/a.py", src).is_empty());
    }
}
