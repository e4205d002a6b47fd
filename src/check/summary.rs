//! What a test runner's own summary says about one run: how many tests ran,
//! which failed and which passed (by id), and what could not be collected or
//! built. Read from the runner's output only; `None` when the runner printed
//! no summary, which is never taken for a pass. Knows nothing about running
//! tools or about what the agent does with the result.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use super::parse::rx;
use crate::config::Tool;

/// One test run, as its runner summed it up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Tests that ran to an outcome (passed or failed; skipped ones are not counted).
    pub ran: u32,
    /// Ids of the tests that failed or errored.
    pub failed: BTreeSet<String>,
    /// Ids of the tests that passed, where the runner names them.
    pub passed: BTreeSet<String>,
    /// Files or packages the runner could not collect or build, with its reason.
    pub uncollected: Vec<String>,
}

/// The summary of a test runner's output; `None` for tools that are not test
/// runners and for output that holds no summary.
pub fn read(tool: Tool, root: &Path, stdout: &str) -> Option<Summary> {
    match tool {
        Tool::Pytest => pytest(stdout),
        Tool::CargoTest => libtest(stdout),
        Tool::GoTest => go_test(stdout),
        Tool::NodeTest => node_tap(stdout),
        Tool::Vitest | Tool::Jest => jest(root, stdout),
        _ => None,
    }
}

/// `pytest -q -rfEp`: the closing counts line (`2 failed, 5 passed in 0.31s`,
/// `no tests ran in 0.01s`), `FAILED`/`ERROR`/`PASSED` lines for ids. An
/// `ERROR` of a whole file (no `::`) is a collection error.
fn pytest(stdout: &str) -> Option<Summary> {
    static TOTALS: OnceLock<Regex> = OnceLock::new();
    static COUNT: OnceLock<Regex> = OnceLock::new();
    static LINE: OnceLock<Regex> = OnceLock::new();
    let totals = rx(&TOTALS, r"^=*\s*(?:no tests ran|\d+ \w+(?:, \d+ \w+)*) in [\d.]+s(?: \([\d:]+\))?\s*=*\s*$");
    let count = rx(&COUNT, r"(\d+) (\w+)");
    let line = rx(&LINE, r"^(FAILED|ERROR|PASSED) (\S+?)(?: - (.*))?$");
    let closing = stdout.lines().rev().find(|l| totals.is_match(l.trim()))?;
    let mut s = Summary::default();
    for c in count.captures_iter(closing) {
        let n: u32 = c[1].parse().unwrap_or(0);
        if matches!(&c[2], "passed" | "failed" | "xpassed" | "xfailed") {
            s.ran += n;
        }
    }
    for c in stdout.lines().filter_map(|l| line.captures(l.trim_end())) {
        let id = c[2].to_string();
        match &c[1] {
            "PASSED" => {
                s.passed.insert(id);
            }
            "ERROR" if !id.contains("::") => {
                let why = c.get(3).map_or("", |m| m.as_str());
                s.uncollected.push(if why.is_empty() { id } else { format!("{id} ({why})") });
            }
            _ => {
                s.failed.insert(id);
            }
        }
    }
    let stopped = stdout.contains("error during collection") || stdout.contains("errors during collection");
    if stopped && s.uncollected.is_empty() {
        s.uncollected.push("pytest stopped at collection".to_string());
    }
    Some(s)
}

/// libtest's text (`cargo test`): `test x ... ok|FAILED` lines and one
/// `test result:` line per test binary. Doc-tests count like the others.
fn libtest(stdout: &str) -> Option<Summary> {
    static RESULT: OnceLock<Regex> = OnceLock::new();
    static TEST: OnceLock<Regex> = OnceLock::new();
    let result = rx(&RESULT, r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed;");
    let test = rx(&TEST, r"^test (.+?) \.\.\. (ok|FAILED)$");
    let mut s = Summary::default();
    let mut any = false;
    for l in stdout.lines() {
        let l = l.trim_end();
        if let Some(c) = result.captures(l) {
            any = true;
            s.ran += c[1].parse::<u32>().unwrap_or(0) + c[2].parse::<u32>().unwrap_or(0);
        } else if let Some(c) = test.captures(l) {
            let set = if &c[2] == "ok" { &mut s.passed } else { &mut s.failed };
            set.insert(c[1].to_string());
        }
    }
    any.then_some(s)
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GoEvent {
    action: String,
    package: Option<String>,
    test: Option<String>,
    output: Option<String>,
}

/// `go test -json`: `pass`/`fail` events of tests (ids `package.Test`), and
/// packages that failed without any test outcome (build or setup failures).
fn go_test(stdout: &str) -> Option<Summary> {
    let mut s = Summary::default();
    let mut packages_done = 0;
    let mut with_tests: BTreeSet<String> = BTreeSet::new();
    let mut failed_packages: Vec<(String, String)> = Vec::new();
    let mut last_output: std::collections::HashMap<String, String> = Default::default();
    for line in stdout.lines() {
        let Ok(e) = serde_json::from_str::<GoEvent>(line) else { continue };
        let pkg = e.package.unwrap_or_default();
        match (e.action.as_str(), e.test) {
            ("pass", Some(t)) => {
                s.ran += 1;
                s.passed.insert(format!("{pkg}.{t}"));
                with_tests.insert(pkg);
            }
            ("fail", Some(t)) => {
                s.ran += 1;
                s.failed.insert(format!("{pkg}.{t}"));
                with_tests.insert(pkg);
            }
            ("output", None) => {
                if let Some(o) = e.output.filter(|o| !o.trim().is_empty()) {
                    last_output.insert(pkg, o.trim().to_string());
                }
            }
            ("pass" | "skip", None) => packages_done += 1,
            ("fail", None) => {
                packages_done += 1;
                let why = last_output.get(&pkg).cloned().unwrap_or_default();
                failed_packages.push((pkg, why));
            }
            _ => {}
        }
    }
    // A package that failed with no failing test did not build or set up.
    for (pkg, why) in failed_packages {
        if !with_tests.contains(&pkg) || why.contains("[build failed]") || why.contains("[setup failed]") {
            s.uncollected.push(if why.is_empty() { pkg } else { format!("{pkg} ({why})") });
        }
    }
    (packages_done > 0 || s.ran > 0).then_some(s)
}

/// jest's and vitest's JSON report (`check::jest`): files that failed as a
/// whole could not be collected.
fn jest(root: &Path, stdout: &str) -> Option<Summary> {
    let o = super::jest::outcomes(root, stdout)?;
    Some(Summary { ran: o.ran, failed: o.failed, passed: o.passed, uncollected: o.broken })
}

/// `node --test --test-reporter=tap`: the closing `# pass N` / `# fail N`
/// counts, `ok`/`not ok` lines for names.
fn node_tap(stdout: &str) -> Option<Summary> {
    static COUNT: OnceLock<Regex> = OnceLock::new();
    static POINT: OnceLock<Regex> = OnceLock::new();
    let count = rx(&COUNT, r"^# (tests|pass|fail) (\d+)$");
    let point = rx(&POINT, r"^(\s*)(ok|not ok) \d+ - (.+?)(?: # (SKIP|TODO).*)?$");
    let (mut pass, mut fail, mut any) = (0u32, 0u32, false);
    let mut s = Summary::default();
    for l in stdout.lines() {
        let l = l.trim_end();
        if let Some(c) = count.captures(l) {
            any = true;
            let n = c[2].parse().unwrap_or(0);
            match &c[1] {
                "pass" => pass = n,
                "fail" => fail = n,
                _ => {}
            }
        } else if let Some(c) = point.captures(l) {
            if c.get(4).is_some() {
                continue;
            }
            let set = if &c[2] == "ok" { &mut s.passed } else { &mut s.failed };
            set.insert(c[3].trim().to_string());
        }
    }
    s.ran = pass + fail;
    any.then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pytest_counts_and_ids() {
        let out = "..F.\n\
                   PASSED tests/test_a.py::test_ok\n\
                   FAILED tests/test_a.py::test_bad - assert 1 == 2\n\
                   ERROR tests/test_b.py::test_setup - fixture 'db' not found\n\
                   1 failed, 3 passed, 1 error, 2 skipped in 0.31s\n";
        let s = pytest(out).unwrap();
        assert_eq!(s.ran, 4);
        assert_eq!(s.failed, ids(&["tests/test_a.py::test_bad", "tests/test_b.py::test_setup"]));
        assert_eq!(s.passed, ids(&["tests/test_a.py::test_ok"]));
        assert!(s.uncollected.is_empty());
    }

    #[test]
    fn pytest_collection_error_and_no_tests() {
        let out = "ERROR tests/test_cli.py - ImportError: cannot import name 'x'\n\
                   !!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n\
                   1 error in 0.12s\n";
        let s = pytest(out).unwrap();
        assert_eq!(s.ran, 0);
        assert_eq!(s.uncollected, vec!["tests/test_cli.py (ImportError: cannot import name 'x')".to_string()]);
        let none = pytest("\nno tests ran in 0.01s\n").unwrap();
        assert_eq!(none, Summary::default());
        let banner = pytest("============ 2 passed in 0.02s ============\n").unwrap();
        assert_eq!(banner.ran, 2);
        assert_eq!(pytest("ImportError while loading conftest\n"), None);
    }

    #[test]
    fn libtest_sums_binaries() {
        let out = "running 2 tests\ntest a::one ... ok\ntest a::two ... FAILED\n\n\
                   test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\
                   running 1 test\ntest three ... ok\n\
                   test result: ok. 1 passed; 0 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let s = libtest(out).unwrap();
        assert_eq!(s.ran, 3);
        assert_eq!(s.failed, ids(&["a::two"]));
        assert_eq!(s.passed, ids(&["a::one", "three"]));
        assert_eq!(libtest("error[E0308]: mismatched types\n"), None);
    }

    #[test]
    fn go_tests_and_build_failures() {
        let out = r#"{"Action":"run","Package":"m/a","Test":"TestX"}
{"Action":"pass","Package":"m/a","Test":"TestX"}
{"Action":"fail","Package":"m/a","Test":"TestY"}
{"Action":"fail","Package":"m/a"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b [build failed]\n"}
{"Action":"fail","Package":"m/b"}
{"Action":"skip","Package":"m/c"}
"#;
        let s = go_test(out).unwrap();
        assert_eq!(s.ran, 2);
        assert_eq!(s.failed, ids(&["m/a.TestY"]));
        assert_eq!(s.uncollected, vec!["m/b (FAIL\tm/b [build failed])".to_string()]);
        assert_eq!(go_test("no json here\n"), None);
    }

    #[test]
    fn node_tap_counts() {
        let out =
            "TAP version 13\nok 1 - adds\nnot ok 2 - subtracts\nok 3 - later # SKIP\n# tests 3\n# pass 1\n# fail 1\n";
        let s = node_tap(out).unwrap();
        assert_eq!(s.ran, 2);
        assert_eq!(s.failed, ids(&["subtracts"]));
        assert_eq!(s.passed, ids(&["adds"]));
        let empty = node_tap("TAP version 13\n# tests 0\n# pass 0\n# fail 0\n").unwrap();
        assert_eq!(empty.ran, 0);
    }
}
