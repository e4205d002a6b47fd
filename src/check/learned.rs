//! Learned rules judged against a change: each file's old and new text in,
//! the violations out, each naming its rule's id and the line it sits on.
//! The same judgement serves a model's patch before it is written and the
//! commit gate's staged tree. Also the other direction: the restrictions a
//! change would break, which is what patches a person declined have in
//! common. A manifest whose dependencies cannot be read after the change
//! breaks a no-new-dependency rule (fail closed).
//! Knows nothing about where rules are stored or how they were learned.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use globset::Glob;
use serde::Serialize;

use super::parse::Found;
use super::rules;
use crate::config::restriction::{Indent, Restriction};
use crate::config::{Pattern, Rule};
use crate::world::lang::Lang;

/// One file's change: its text before (empty when new) and after.
#[derive(Clone, Copy, Debug)]
pub struct Change<'a> {
    pub path: &'a str,
    pub old: &'a str,
    pub new: &'a str,
}

/// A rule the change breaks, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub rule: String,
    pub path: String,
    pub line: u32,
    /// What breaks it, in a sentence fragment ("adds `left-pad` to package.json").
    pub what: String,
}

/// Violations of `rules` (id, restriction) by `changes`, in path and line order.
pub fn violations(rules: &[(String, Restriction)], changes: &[Change<'_>]) -> Vec<Violation> {
    // Call rules are judged together, so each changed file is parsed once.
    let call_rules: Vec<Rule> = rules
        .iter()
        .filter_map(|(id, r)| match r {
            Restriction::ForbidCall { lang, name, include_tests, .. } => Some(Rule {
                id: id.clone(),
                lang: *lang,
                pattern: Pattern::Call(name.clone()),
                message: String::new(),
                severity: nerd_logic::vocab::Severity::Error,
                include_tests: *include_tests,
                paths: None,
            }),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for change in changes.iter().filter(|c| c.old != c.new) {
        let added = crate::diff::added_lines(change.old, change.new);
        // A rule for library code does not judge a program, an example, a bench or a script.
        let call_rules: Vec<Rule> = call_rules
            .iter()
            .filter(|rule| {
                let library_only = rules
                    .iter()
                    .any(|(id, r)| *id == rule.id && matches!(r, Restriction::ForbidCall { library_only: true, .. }));
                !library_only || is_library_path(change.path)
            })
            .cloned()
            .collect();
        if !call_rules.is_empty() {
            let lines: HashSet<u32> = added.iter().map(|(l, _)| *l).collect();
            for f in rules::check_source(&call_rules, change.path, change.new.as_bytes(), &lines) {
                let Found::Rule { id } = f.found else { continue };
                let name = rules.iter().find_map(|(rule, r)| match r {
                    Restriction::ForbidCall { name, .. } if *rule == id => Some(name.as_str()),
                    _ => None,
                });
                let what = format!("calls `{}`", name.unwrap_or_default());
                out.push(Violation { rule: id, path: change.path.to_string(), line: f.line, what });
            }
        }
        for (id, restriction) in rules {
            let v = |line: u32, what: String| Violation { rule: id.clone(), path: change.path.to_string(), line, what };
            match restriction {
                Restriction::ForbidCall { .. } | Restriction::Guidance => {}
                Restriction::NoNewDependency => {
                    if let Some((line, what)) = new_dependency(change, &added) {
                        out.push(v(line, what));
                    }
                }
                Restriction::ProtectPaths { glob } => {
                    let matches = Glob::new(glob).map(|g| g.compile_matcher().is_match(change.path)).unwrap_or(true);
                    if matches {
                        out.push(v(first_changed_line(change, &added), format!("changes {}", change.path)));
                    }
                }
                Restriction::ProtectTests => {
                    if is_test_file(change.path) {
                        out.push(v(
                            first_changed_line(change, &added),
                            format!("changes the test file {}", change.path),
                        ));
                    }
                }
                Restriction::OnlyPaths { glob } => {
                    let inside = Glob::new(glob).map(|g| g.compile_matcher().is_match(change.path)).unwrap_or(false);
                    if !inside {
                        out.push(v(
                            first_changed_line(change, &added),
                            format!("changes {}, outside `{glob}`", change.path),
                        ));
                    }
                }
                Restriction::KeepPublicApi => {
                    if let Some((line, what)) = public_api_change(change) {
                        out.push(v(line, what));
                    }
                }
                Restriction::IndentWith { lang, indent } => {
                    if Lang::of_path(change.path).is_some_and(|l| l.family() == lang.family()) {
                        if let Some((line, _)) =
                            added.iter().find(|(_, text)| indented_with(text) == Some(other(*indent)))
                        {
                            let with = if *indent == Indent::Tabs { "spaces" } else { "tabs" };
                            out.push(v(*line, format!("indents with {with}")));
                        }
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| (&a.path, a.line, &a.rule).cmp(&(&b.path, b.line, &b.rule)));
    out.dedup();
    out
}

/// Whether `path` is library code: not a program's entry point (`main.rs`,
/// `src/bin/`, `main.go`, `cmd/`, `__main__.py`), an example, a bench, a
/// build or set-up script, or a folder of scripts or tools.
pub fn is_library_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let file = parts.last().copied().unwrap_or_default();
    let folders = &parts[..parts.len().saturating_sub(1)];
    let program_file = matches!(
        file,
        "main.rs" | "build.rs" | "main.go" | "__main__.py" | "setup.py" | "conftest.py" | "manage.py" | "noxfile.py"
    ) || file.ends_with(".config.ts")
        || file.ends_with(".config.js");
    let program_folder = folders.iter().any(|f| {
        matches!(
            *f,
            "bin" | "cmd" | "examples" | "example" | "benches" | "bench" | "scripts" | "script" | "tools" | "xtask"
        )
    });
    !program_file && !program_folder
}

/// The first public symbol of the old text whose signature the new text no
/// longer has (changed or removed), with the line it was on. A file nerd cannot
/// project, or whose new text does not parse, changes it (fail closed).
fn public_api_change(change: &Change<'_>) -> Option<(u32, String)> {
    let lang = Lang::of_path(change.path)?;
    let project = |text: &str| crate::world::project::project_file(lang, change.path, text.as_bytes()).ok();
    let old = project(change.old)?;
    let public = |p: &crate::world::project::FileProjection| -> Vec<(String, String, u32)> {
        p.symbols
            .iter()
            .filter(|s| s.visibility == nerd_logic::vocab::Visibility::Public)
            .map(|s| (s.id.clone(), s.signature.split_whitespace().collect::<Vec<_>>().join(" "), s.line))
            .collect()
    };
    let before = public(&old);
    if before.is_empty() {
        return None;
    }
    let Some(new) = project(change.new).filter(|p| p.parse_error.is_none()) else {
        return Some((1, format!("leaves {} unparsable, so its public API cannot be kept", change.path)));
    };
    let after = public(&new);
    before.into_iter().find_map(|(id, signature, line)| match after.iter().find(|(other, ..)| *other == id) {
        None => Some((line, format!("removes the public `{}`", id.rsplit('#').next().unwrap_or(&id)))),
        Some((_, now, _)) if *now != signature => {
            Some((line, format!("changes the signature of the public `{}`", id.rsplit('#').next().unwrap_or(&id))))
        }
        Some(_) => None,
    })
}

/// The checked restrictions `changes` break: what a declined patch is made of.
/// Calls count only when the file did not call that name before the change.
pub fn candidates(changes: &[Change<'_>]) -> BTreeSet<Restriction> {
    let mut out = BTreeSet::new();
    for change in changes.iter().filter(|c| c.old != c.new) {
        let added = crate::diff::added_lines(change.old, change.new);
        if new_dependency(change, &added).is_some() {
            out.insert(Restriction::NoNewDependency);
        }
        if is_test_file(change.path) {
            out.insert(Restriction::ProtectTests);
        } else {
            out.insert(Restriction::ProtectPaths { glob: change.path.to_string() });
        }
        let Some(lang) = Lang::of_path(change.path) else { continue };
        let lang = lang.family();
        for (_, text) in &added {
            match indented_with(text) {
                Some(Indent::Tabs) => out.insert(Restriction::IndentWith { lang, indent: Indent::Spaces }),
                Some(Indent::Spaces) => out.insert(Restriction::IndentWith { lang, indent: Indent::Tabs }),
                None => false,
            };
        }
        let lines: HashSet<u32> = added.iter().map(|(l, _)| *l).collect();
        let everything: HashSet<u32> = (1..=u32::try_from(change.old.lines().count()).unwrap_or(u32::MAX)).collect();
        let before = rules::added_calls(change.path, change.old.as_bytes(), &everything);
        for name in rules::added_calls(change.path, change.new.as_bytes(), &lines) {
            if !before.contains(&name) {
                out.insert(Restriction::ForbidCall { lang, name, include_tests: false, library_only: false });
            }
        }
    }
    out
}

fn other(indent: Indent) -> Indent {
    match indent {
        Indent::Tabs => Indent::Spaces,
        Indent::Spaces => Indent::Tabs,
    }
}

/// How a line is indented: tabs, or at least two spaces; `None` for unindented
/// or blank lines and for a single space (a comment continuation's ` *`).
fn indented_with(line: &str) -> Option<Indent> {
    if line.trim().is_empty() {
        return None;
    }
    if line.starts_with('\t') {
        Some(Indent::Tabs)
    } else if line.starts_with("  ") {
        Some(Indent::Spaces)
    } else {
        None
    }
}

/// A test file by its language's conventions.
fn is_test_file(path: &str) -> bool {
    Lang::of_path(path).is_some_and(|l| l.is_test_path(path))
}

fn first_changed_line(change: &Change<'_>, added: &[(u32, String)]) -> u32 {
    added.first().map_or_else(
        || {
            // Only removals: the first line where the texts part.
            let same = change.old.lines().zip(change.new.lines()).take_while(|(a, b)| a == b).count();
            u32::try_from(same + 1).unwrap_or(1)
        },
        |(l, _)| *l,
    )
}

/// The first dependency the change adds to a manifest: (line, what).
fn new_dependency(change: &Change<'_>, added: &[(u32, String)]) -> Option<(u32, String)> {
    let file = change.path.rsplit('/').next().unwrap_or(change.path);
    let after = match dependencies(file, change.new)? {
        Ok(deps) => deps,
        Err(e) => {
            return Some((1, format!("leaves {} unreadable ({e}), so its dependencies cannot be checked", change.path)))
        }
    };
    // A manifest that did not parse before cannot say what was there: everything counts as new.
    let before = dependencies(file, change.old).and_then(Result::ok).unwrap_or_default();
    let name = after.difference(&before).next()?;
    let folded = |t: &str| t.to_lowercase().replace(['_', '.'], "-");
    let line = added.iter().find(|(_, text)| folded(text).contains(&folded(name))).map_or(1, |(l, _)| *l);
    Some((line, format!("adds the dependency `{name}` to {}", change.path)))
}

/// The dependency names a manifest declares; `None` when `file` is no manifest nerd reads.
pub fn dependencies(file: &str, text: &str) -> Option<Result<BTreeSet<String>, String>> {
    Some(match file {
        "Cargo.toml" => cargo(text),
        "package.json" => npm(text),
        "go.mod" => Ok(go_mod(text)),
        "pyproject.toml" => pyproject(text),
        _ if is_requirements(file) => Ok(text.lines().filter_map(requirement).collect()),
        _ => return None,
    })
}

fn is_requirements(file: &str) -> bool {
    (file.starts_with("requirements") || file.ends_with("-requirements.txt"))
        && (file.ends_with(".txt") || file.ends_with(".in"))
}

fn table_keys(value: Option<&toml::Value>, out: &mut BTreeSet<String>) {
    if let Some(table) = value.and_then(toml::Value::as_table) {
        out.extend(table.keys().cloned());
    }
}

fn cargo(text: &str) -> Result<BTreeSet<String>, String> {
    let doc: toml::Table = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let mut out = BTreeSet::new();
    let sections = ["dependencies", "dev-dependencies", "build-dependencies"];
    for s in sections {
        table_keys(doc.get(s), &mut out);
    }
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for target in targets.values() {
            for s in sections {
                table_keys(target.get(s), &mut out);
            }
        }
    }
    table_keys(doc.get("workspace").and_then(|w| w.get("dependencies")), &mut out);
    Ok(out)
}

fn npm(text: &str) -> Result<BTreeSet<String>, String> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let mut out = BTreeSet::new();
    for s in ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] {
        if let Some(map) = doc.get(s).and_then(serde_json::Value::as_object) {
            out.extend(map.keys().cloned());
        }
    }
    Ok(out)
}

fn go_mod(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_block = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_block {
            if line.starts_with(')') {
                in_block = false;
            } else if let Some(module) = line.split_whitespace().next() {
                out.insert(module.to_string());
            }
        } else if let Some(rest) = line.strip_prefix("require") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                in_block = true;
            } else if let Some(module) = rest.split_whitespace().next() {
                out.insert(module.to_string());
            }
        }
    }
    out
}

/// The distribution name of a PEP 508 requirement line, normalised (PEP 503).
fn requirement(line: &str) -> Option<String> {
    let line = line.split('#').next().unwrap_or("").trim();
    if line.is_empty() || line.starts_with('-') {
        return None;
    }
    let name: String = line.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')).collect();
    if name.is_empty() {
        return None;
    }
    Some(name.to_lowercase().replace(['_', '.'], "-"))
}

fn pyproject(text: &str) -> Result<BTreeSet<String>, String> {
    let doc: toml::Table = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let mut out = BTreeSet::new();
    let mut strings = |v: Option<&toml::Value>| {
        for s in v.and_then(toml::Value::as_array).into_iter().flatten().filter_map(toml::Value::as_str) {
            out.extend(requirement(s));
        }
    };
    let project = doc.get("project");
    strings(project.and_then(|p| p.get("dependencies")));
    let mut groups: BTreeMap<String, toml::Value> = BTreeMap::new();
    for key in ["optional-dependencies"] {
        if let Some(t) = project.and_then(|p| p.get(key)).and_then(toml::Value::as_table) {
            groups.extend(t.iter().map(|(k, v)| (format!("{key}.{k}"), v.clone())));
        }
    }
    if let Some(t) = doc.get("dependency-groups").and_then(toml::Value::as_table) {
        groups.extend(t.iter().map(|(k, v)| (format!("dependency-groups.{k}"), v.clone())));
    }
    for v in groups.values() {
        strings(Some(v));
    }
    strings(doc.get("build-system").and_then(|b| b.get("requires")));
    let poetry = doc.get("tool").and_then(|t| t.get("poetry"));
    let mut keys = BTreeSet::new();
    table_keys(poetry.and_then(|p| p.get("dependencies")), &mut keys);
    table_keys(poetry.and_then(|p| p.get("dev-dependencies")), &mut keys);
    if let Some(groups) = poetry.and_then(|p| p.get("group")).and_then(toml::Value::as_table) {
        for g in groups.values() {
            table_keys(g.get("dependencies"), &mut keys);
        }
    }
    out.extend(keys.into_iter().filter(|k| k != "python").map(|k| k.to_lowercase().replace(['_', '.'], "-")));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(rule: Restriction, path: &str, old: &str, new: &str) -> Vec<(u32, String)> {
        violations(&[("L1".into(), rule)], &[Change { path, old, new }]).into_iter().map(|v| (v.line, v.what)).collect()
    }

    #[test]
    fn the_public_api_is_kept_when_only_bodies_and_private_code_change() {
        let old = "def parse(text):\n    return text\n\n\ndef _helper(x):\n    return x\n";
        let body = "def parse(text):\n    return text.strip()\n\n\ndef _helper(x):\n    return x\n";
        let private = "def parse(text):\n    return text\n\n\ndef _helper(x, y=0):\n    return x\n";
        let signature = "def parse(text, strict=False):\n    return text\n\n\ndef _helper(x):\n    return x\n";
        let removed = "def _helper(x):\n    return x\n";
        let broken = "def parse(text:\n";
        assert_eq!(judge(Restriction::KeepPublicApi, "lib/p.py", old, body), vec![]);
        assert_eq!(judge(Restriction::KeepPublicApi, "lib/p.py", old, private), vec![]);
        assert_eq!(
            judge(Restriction::KeepPublicApi, "lib/p.py", old, signature),
            vec![(1, "changes the signature of the public `parse`".to_string())]
        );
        assert_eq!(
            judge(Restriction::KeepPublicApi, "lib/p.py", old, removed),
            vec![(1, "removes the public `parse`".to_string())]
        );
        assert_eq!(judge(Restriction::KeepPublicApi, "lib/p.py", old, broken).len(), 1);
        assert_eq!(judge(Restriction::KeepPublicApi, "notes.txt", "a", "b"), vec![]);
    }

    #[test]
    fn a_rule_for_library_code_leaves_programs_examples_and_scripts_alone() {
        let rule = |library_only| Restriction::ForbidCall {
            lang: Lang::Rust,
            name: "unwrap".into(),
            include_tests: false,
            library_only,
        };
        let (old, new) = ("fn f() {}\n", "fn f() {\n    x().unwrap();\n}\n");
        assert_eq!(judge(rule(true), "src/parse.rs", old, new), vec![(2, "calls `unwrap`".to_string())]);
        for program in ["src/main.rs", "src/bin/tool.rs", "examples/demo.rs", "benches/speed.rs", "build.rs"] {
            assert_eq!(judge(rule(true), program, old, new), vec![], "{program}");
            assert_eq!(judge(rule(false), program, old, new).len(), 1, "{program}");
        }
    }

    #[test]
    fn only_paths_refuses_what_lies_outside_its_glob() {
        let only = || Restriction::OnlyPaths { glob: "src/api/**".into() };
        assert_eq!(judge(only(), "src/api/retry.py", "a\n", "b\n"), vec![]);
        assert_eq!(
            judge(only(), "src/db.py", "a\n", "b\n"),
            vec![(1, "changes src/db.py, outside `src/api/**`".to_string())]
        );
    }

    #[test]
    fn a_new_dependency_is_found_in_every_manifest_and_an_old_one_is_not() {
        let cases = [
            (
                "Cargo.toml",
                "[package]\nname = \"a\"\n[dependencies]\nserde = \"1\"\n",
                "[package]\nname = \"a\"\n[dependencies]\nserde = \"1\"\nrand = \"0.8\"\n",
                "rand",
                5,
            ),
            (
                "package.json",
                "{\"dependencies\": {\"zod\": \"3\"}}\n",
                "{\"dependencies\": {\n\"zod\": \"3\",\n\"left-pad\": \"1\"}}\n",
                "left-pad",
                3,
            ),
            (
                "go.mod",
                "module x\n\nrequire (\n\tgithub.com/a/b v1.0.0\n)\n",
                "module x\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\tgithub.com/c/d v0.1.0\n)\n",
                "github.com/c/d",
                5,
            ),
            (
                "pyproject.toml",
                "[project]\nname = \"p\"\ndependencies = [\"click>=8\"]\n",
                "[project]\nname = \"p\"\ndependencies = [\"click>=8\",\n \"Requests[socks]>=2\"]\n",
                "requests",
                4,
            ),
            ("requirements.txt", "click==8.1\n", "click==8.1\n# a comment\nattrs>=22\n", "attrs", 3),
        ];
        for (path, old, new, name, line) in cases {
            let found = judge(Restriction::NoNewDependency, path, old, new);
            assert_eq!(found.len(), 1, "{path}: {found:?}");
            assert_eq!(found[0].0, line, "{path}");
            assert!(found[0].1.contains(name), "{path}: {found:?}");
            // Removing or reordering dependencies, or changing a version, adds none.
            assert!(judge(Restriction::NoNewDependency, path, new, old).is_empty(), "{path}");
        }
        let bumped = judge(
            Restriction::NoNewDependency,
            "Cargo.toml",
            "[dependencies]\nserde = \"1\"\n",
            "[dependencies]\nserde = \"1.0.200\"\n",
        );
        assert!(bumped.is_empty());
        assert!(judge(Restriction::NoNewDependency, "src/lib.rs", "", "fn a() {}\n").is_empty(), "not a manifest");
        let broken = judge(Restriction::NoNewDependency, "Cargo.toml", "[dependencies]\n", "[dependencies\n");
        assert!(broken[0].1.contains("unreadable"), "fail closed: {broken:?}");
    }

    #[test]
    fn calls_paths_tests_and_indentation() {
        let unwrap = Restriction::ForbidCall {
            lang: Lang::Rust,
            name: "unwrap".into(),
            include_tests: false,
            library_only: false,
        };
        let old = "fn a() -> u8 {\n    1\n}\n";
        let new = "fn a() -> u8 {\n    f().unwrap()\n}\n";
        assert_eq!(judge(unwrap.clone(), "src/lib.rs", old, new), vec![(2, "calls `unwrap`".to_string())]);
        assert!(judge(unwrap.clone(), "src/lib.rs", new, new).is_empty(), "nothing added");
        assert!(judge(unwrap, "tests/it.rs", old, new).is_empty(), "tests exempt");

        let protect = Restriction::ProtectPaths { glob: "migrations/**".into() };
        assert_eq!(
            judge(protect.clone(), "migrations/001.sql", "a\n", "a\nb\n"),
            vec![(2, "changes migrations/001.sql".to_string())]
        );
        assert!(judge(protect, "src/db.rs", "a\n", "b\n").is_empty());
        assert_eq!(
            judge(Restriction::ProtectTests, "pkg/a_test.go", "a\nb\n", "a\n").len(),
            1,
            "a removal is a change"
        );
        assert!(judge(Restriction::ProtectTests, "pkg/a.go", "a\n", "b\n").is_empty());

        let tabs = Restriction::IndentWith { lang: Lang::Go, indent: Indent::Tabs };
        assert_eq!(
            judge(tabs.clone(), "a.go", "func a() {\n}\n", "func a() {\n    x()\n}\n"),
            vec![(2, "indents with spaces".to_string())]
        );
        assert!(judge(tabs.clone(), "a.go", "func a() {\n}\n", "func a() {\n\tx()\n}\n").is_empty());
        assert!(judge(tabs, "a.py", "", "def a():\n    x()\n").is_empty(), "another language");
        assert!(judge(Restriction::Guidance, "a.go", "", "anything\n").is_empty());
    }

    #[test]
    fn every_candidate_of_a_change_is_broken_by_it() {
        let changes = [
            Change { path: "Cargo.toml", old: "[dependencies]\n", new: "[dependencies]\nrand = \"0.8\"\n" },
            Change {
                path: "src/lib.rs",
                old: "fn a() {\n    b();\n}\n",
                new: "fn a() {\n    b();\n    c().expect(\"x\");\n}\n",
            },
            Change { path: "tests/it.rs", old: "", new: "#[test]\nfn t() {}\n" },
        ];
        let found = candidates(&changes);
        assert!(found.contains(&Restriction::NoNewDependency));
        assert!(found.contains(&Restriction::ProtectTests));
        assert!(found.contains(&Restriction::ForbidCall {
            lang: Lang::Rust,
            name: "expect".into(),
            include_tests: false,
            library_only: false
        }));
        assert!(
            !found.contains(&Restriction::ForbidCall {
                lang: Lang::Rust,
                name: "b".into(),
                include_tests: false,
                library_only: false
            }),
            "b was called before"
        );
        for r in &found {
            let v = violations(&[("c".into(), r.clone())], &changes);
            assert!(!v.is_empty(), "{r:?} is a candidate the change does not break");
        }
    }
}
