//! Parsers from each tool's machine-readable output (or its stable text
//! format where it has none) into findings. Paths come out relative to the
//! checked directory. Knows nothing about running the tools.

use std::path::Path;
use std::sync::OnceLock;

use nerd_logic::vocab::{Severity, TestOutcome};
use regex::Regex;
use serde::{Deserialize, Serialize};

/// What a check found, before it becomes a fact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Found {
    Diagnostic {
        #[serde(with = "crate::words")]
        severity: Severity,
        code: String,
        message: String,
    },
    Test {
        name: String,
        #[serde(with = "crate::words")]
        outcome: TestOutcome,
    },
    Secret {
        kind: String,
    },
    Rule {
        id: String,
    },
}

/// One finding with its place and the check that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub found: Found,
    /// Relative to the repository root; empty when the tool gave no place.
    pub path: String,
    pub line: u32,
    /// The tool, `secrets` or `rule`.
    pub source: String,
}

/// A built-in pattern, compiled once into `cell`.
pub(super) fn rx(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|e| panic!("built-in regex {pattern}: {e}")))
}

/// `root`-relative form of a tool's path (absolute or `./`-prefixed).
pub fn relative_to(root: &Path, path: &str) -> String {
    let p = Path::new(path);
    let rel = p.strip_prefix(root).unwrap_or(p);
    let s = rel.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

fn diagnostic(severity: Severity, code: &str, message: &str, path: String, line: u32, source: &str) -> Finding {
    Finding {
        found: Found::Diagnostic { severity, code: code.to_string(), message: message.to_string() },
        path,
        line,
        source: source.to_string(),
    }
}

fn test(name: &str, outcome: TestOutcome, path: String, line: u32, source: &str) -> Finding {
    Finding { found: Found::Test { name: name.to_string(), outcome }, path, line, source: source.to_string() }
}

#[derive(Deserialize)]
struct CargoLine {
    reason: String,
    message: Option<CargoMessage>,
}

#[derive(Deserialize)]
struct CargoMessage {
    message: String,
    level: String,
    code: Option<CargoCode>,
    #[serde(default)]
    spans: Vec<CargoSpan>,
}

#[derive(Deserialize)]
struct CargoCode {
    code: String,
}

#[derive(Deserialize)]
struct CargoSpan {
    file_name: String,
    line_start: u32,
    is_primary: bool,
}

/// `cargo check|clippy|test --message-format=json`; for `cargo test`, libtest's
/// text lines (`test a::b ... FAILED`, panic locations) are read too.
pub fn cargo(root: &Path, stdout: &str, source: &str) -> Vec<Finding> {
    static PANIC: OnceLock<Regex> = OnceLock::new();
    static RESULT: OnceLock<Regex> = OnceLock::new();
    static HEADER: OnceLock<Regex> = OnceLock::new();
    let header = rx(&HEADER, r"^---- (\S+) stdout ----$");
    let panic = rx(&PANIC, r"^thread '([^']+)' (?:\(\d+\) )?panicked at ([^:]+):(\d+):\d+:?");
    let result = rx(&RESULT, r"^test (\S+)(?: - should panic)? \.\.\. (FAILED|ok|ignored)");
    let mut out = Vec::new();
    let mut panics: Vec<(String, String, u32)> = Vec::new();
    for line in stdout.lines() {
        if line.starts_with('{') {
            let Ok(msg) = serde_json::from_str::<CargoLine>(line) else { continue };
            let Some(m) = msg.message.filter(|_| msg.reason == "compiler-message") else { continue };
            let severity = match m.level.as_str() {
                "error" | "error: internal compiler error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => continue,
            };
            if m.spans.is_empty() && (m.message.starts_with("aborting due to") || m.message.contains("warning emitted"))
            {
                continue;
            }
            let span = m.spans.iter().find(|s| s.is_primary).or(m.spans.first());
            let (path, line) = span.map_or((String::new(), 0), |s| (relative_to(root, &s.file_name), s.line_start));
            let code = m.code.map(|c| c.code).unwrap_or_default();
            out.push(diagnostic(severity, &code, &m.message, path, line, source));
        } else if let Some(c) = panic.captures(line) {
            panics.push((c[1].to_string(), relative_to(root, &c[2]), c[3].parse().unwrap_or(0)));
        } else if let Some(c) = result.captures(line).filter(|c| &c[2] == "FAILED").or_else(|| header.captures(line)) {
            let name = &c[1];
            if !out.iter().any(|f| matches!(&f.found, Found::Test { name: n, .. } if n == name)) {
                let (path, line) =
                    panics.iter().find(|(t, _, _)| t == name).map_or((String::new(), 0), |(_, p, l)| (p.clone(), *l));
                out.push(test(name, TestOutcome::Fail, path, line, source));
            }
        }
    }
    // Failures are listed before their panic output is printed; attach late locations.
    for f in out.iter_mut().filter(|f| f.path.is_empty()) {
        if let Found::Test { name, .. } = &f.found {
            if let Some((_, p, l)) = panics.iter().find(|(t, _, _)| t == name) {
                f.path = p.clone();
                f.line = *l;
            }
        }
    }
    out
}

#[derive(Deserialize)]
struct RuffItem {
    code: Option<String>,
    message: String,
    filename: String,
    location: RuffLocation,
}

#[derive(Deserialize)]
struct RuffLocation {
    row: u32,
}

/// Ruff codes for code that cannot run as written; the rest are warnings.
/// A syntax error is an error whatever ruff calls it (no code before 0.5,
/// `invalid-syntax` since, `E999` in between).
fn ruff_severity(code: Option<&str>) -> Severity {
    match code {
        None => Severity::Error,
        Some(c) if c.contains("syntax") => Severity::Error,
        Some(c) if c.starts_with("E9") || c.starts_with("F63") || c.starts_with("F7") || c.starts_with("F82") => {
            Severity::Error
        }
        Some(_) => Severity::Warning,
    }
}

/// Warnings kept per run; errors are all kept.
pub const KEPT_WARNINGS: usize = 200;

/// `ruff check --output-format json-lines`, read line by line: a line that is
/// not a finding (a truncation mark, a cut-off line) is skipped, never the whole
/// output. Errors are all kept, warnings up to `KEPT_WARNINGS`, and a note
/// counts what was left out.
pub fn ruff(root: &Path, stdout: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let (mut warnings, mut total) = (0usize, 0usize);
    for line in stdout.lines().filter(|l| l.starts_with('{')) {
        let Ok(i) = serde_json::from_str::<RuffItem>(line) else { continue };
        total += 1;
        let severity = ruff_severity(i.code.as_deref());
        if severity != Severity::Error {
            warnings += 1;
            if warnings > KEPT_WARNINGS {
                continue;
            }
        }
        let code = i.code.as_deref().unwrap_or("syntax-error");
        out.push(diagnostic(severity, code, &i.message, relative_to(root, &i.filename), i.location.row, "ruff"));
    }
    if warnings > KEPT_WARNINGS {
        let message = format!("{total} findings in all; the first {KEPT_WARNINGS} of {warnings} warnings are listed");
        out.push(diagnostic(Severity::Note, "ruff-summary", &message, String::new(), 0, "ruff"));
    }
    out
}

/// `go build` / `go vet` text: `./x.go:3:2: message`.
pub fn go_text(root: &Path, text: &str, source: &str) -> Vec<Finding> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    let re = rx(&LINE, r"^(?:vet: )?([^\s:][^:]*\.go):(\d+)(?::\d+)?: (.+)$");
    text.lines()
        .filter_map(|l| re.captures(l))
        .map(|c| {
            diagnostic(Severity::Error, source, &c[3], relative_to(root, &c[1]), c[2].parse().unwrap_or(0), source)
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct GoTestEvent {
    action: String,
    package: Option<String>,
    test: Option<String>,
    output: Option<String>,
}

/// `go test -json`: failing tests, located by the first `file_test.go:N:` line of their
/// output or, when a test panics, by the first frame of its stack in a test file; the
/// panic's own site (the first frame in the workspace's code) is an error diagnostic there.
pub fn go_test(root: &Path, stdout: &str) -> Vec<Finding> {
    static LOC: OnceLock<Regex> = OnceLock::new();
    static FRAME: OnceLock<Regex> = OnceLock::new();
    static PANIC: OnceLock<Regex> = OnceLock::new();
    let loc = rx(&LOC, r"^\s+([\w./-]+_test\.go):(\d+):");
    let frame = rx(&FRAME, r"^\t(/\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$");
    let panic = rx(&PANIC, r"^panic: (.+?)(?: \[recovered\])?$");
    let mut located: std::collections::HashMap<(String, String), (String, u32)> = Default::default();
    let mut panics: std::collections::HashMap<(String, String), String> = Default::default();
    let mut sites: std::collections::HashSet<(String, String)> = Default::default();
    let mut out = Vec::new();
    for line in stdout.lines() {
        let Ok(e) = serde_json::from_str::<GoTestEvent>(line) else { continue };
        let (Some(pkg), Some(name)) = (e.package, e.test) else { continue };
        match e.action.as_str() {
            "output" => {
                let output = e.output.as_deref().unwrap_or("").trim_end_matches('\n');
                let key = (pkg, name);
                if let Some(c) = loc.captures(output) {
                    // The file is relative to the package directory; find it under the root by suffix.
                    let file = c[1].to_string();
                    located.entry(key).or_insert((file, c[2].parse().unwrap_or(0)));
                } else if let Some(c) = panic.captures(output) {
                    panics.entry(key).or_insert_with(|| c[1].to_string());
                } else if let Some(c) = frame.captures(output).filter(|_| panics.contains_key(&key)) {
                    // A frame of the workspace's own code (the toolchain's lie outside it).
                    let Ok(relative) = Path::new(&c[1]).strip_prefix(root) else { continue };
                    let path = relative.to_string_lossy().into_owned();
                    let at = c[2].parse().unwrap_or(0);
                    if path.ends_with("_test.go") {
                        located.entry(key).or_insert((path, at));
                    } else if sites.insert(key.clone()) {
                        let message = format!("{} panicked: {}", key.1, panics[&key]);
                        out.push(diagnostic(Severity::Error, "go-panic", &message, path, at, "go-test"));
                    }
                }
            }
            "fail" => {
                let (file, line) = located.get(&(pkg.clone(), name.clone())).cloned().unwrap_or_default();
                let path = if file.is_empty() { String::new() } else { find_by_suffix(root, &pkg, &file) };
                out.push(test(&name, TestOutcome::Fail, path, line, "go-test"));
            }
            _ => {}
        }
    }
    out
}

/// The repository path of `file` in Go package `pkg` (whose import path ends with its folder).
fn find_by_suffix(root: &Path, pkg: &str, file: &str) -> String {
    let segments: Vec<&str> = pkg.split('/').collect();
    for start in 0..segments.len() {
        let candidate = segments[start..].join("/");
        if root.join(&candidate).join(file).is_file() {
            return format!("{candidate}/{file}");
        }
    }
    if root.join(file).is_file() {
        return file.to_string();
    }
    file.to_string()
}

/// `tsc --noEmit --pretty false`: `src/a.ts(3,7): error TS2322: message`.
pub fn tsc(root: &Path, text: &str) -> Vec<Finding> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    let re = rx(&LINE, r"^(.+?)\((\d+),\d+\): (error|warning) (TS\d+): (.+)$");
    text.lines()
        .filter_map(|l| re.captures(l))
        .map(|c| {
            let severity = if &c[3] == "error" { Severity::Error } else { Severity::Warning };
            diagnostic(severity, &c[4], &c[5], relative_to(root, &c[1]), c[2].parse().unwrap_or(0), "tsc")
        })
        .collect()
}

/// The code of a test file pytest could not collect.
pub const COLLECTION_ERROR: &str = "pytest-collection";

/// Whether `code` says a test file could not be collected or loaded
/// (`pytest-collection`, `vitest-collection`, `jest-collection`): no test of it ran.
pub fn is_collection_error(code: &str) -> bool {
    code.ends_with("-collection")
}

/// `pytest -q -rf --tb=line`: `FAILED path::name - msg`, located by the `path:N:` traceback lines.
pub fn pytest(root: &Path, stdout: &str) -> Vec<Finding> {
    static FAILED: OnceLock<Regex> = OnceLock::new();
    static TB: OnceLock<Regex> = OnceLock::new();
    // `ERROR path` alone: the file could not be collected (an import error, a syntax error).
    let failed = rx(&FAILED, r"^(FAILED|ERROR) ([^:\s]+)(?:::(\S+))?");
    let tb = rx(&TB, r"^(\S+\.py):(\d+): ");
    let mut lines: Vec<(String, u32)> = Vec::new();
    for l in stdout.lines() {
        if let Some(c) = tb.captures(l) {
            lines.push((relative_to(root, &c[1]), c[2].parse().unwrap_or(0)));
        }
    }
    // `--tb=line` prints one line per failure, in the order of the summary's FAILED lines.
    let mut used = vec![false; lines.len()];
    let mut out = Vec::new();
    for (i, (said, c)) in stdout.lines().filter_map(|l| failed.captures(l).map(|c| (l, c))).enumerate() {
        let path = relative_to(root, &c[2]);
        let outcome = if &c[1] == "FAILED" { TestOutcome::Fail } else { TestOutcome::Error };
        let at = match lines.get(i) {
            Some((p, _)) if *p == path && !used[i] => Some(i),
            _ => lines.iter().enumerate().position(|(k, (p, _))| *p == path && !used[k]),
        };
        let line = at.map_or(0, |k| {
            used[k] = true;
            lines[k].1
        });
        match c.get(3) {
            Some(name) => out.push(test(&format!("{path}::{}", name.as_str()), outcome, path, line, "pytest")),
            // The whole file failed to collect: no test of it ran.
            None => {
                let why = said.split_once(" - ").map_or("could not be collected", |(_, w)| w);
                out.push(diagnostic(Severity::Error, COLLECTION_ERROR, why, path, line, "pytest"));
            }
        }
    }
    out
}

/// `node --test --test-reporter=tap`: `not ok N - name` with a `location:` line.
pub fn node_tap(root: &Path, stdout: &str) -> Vec<Finding> {
    static NOT_OK: OnceLock<Regex> = OnceLock::new();
    static LOCATION: OnceLock<Regex> = OnceLock::new();
    let not_ok = rx(&NOT_OK, r"^\s*not ok \d+ - (.+)$");
    let location = rx(&LOCATION, r"^\s*location: '(.+):(\d+):\d+'");
    let mut out: Vec<Finding> = Vec::new();
    let mut pending: Option<usize> = None;
    for l in stdout.lines() {
        if let Some(c) = not_ok.captures(l) {
            out.push(test(c[1].trim(), TestOutcome::Fail, String::new(), 0, "node-test"));
            pending = Some(out.len() - 1);
        } else if let (Some(i), Some(c)) = (pending, location.captures(l)) {
            out[i].path = relative_to(root, &c[1]);
            out[i].line = c[2].parse().unwrap_or(0);
            pending = None;
        }
    }
    // Suites fail when a test inside fails; keep only the located (leaf) failures when any exist.
    if out.iter().any(|f| !f.path.is_empty()) {
        out.retain(|f| !f.path.is_empty());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> &'static Path {
        Path::new("/snap")
    }

    #[test]
    fn cargo_json_and_libtest_text() {
        let out = r#"{"reason":"compiler-artifact","target":{}}
{"reason":"compiler-message","message":{"message":"mismatched types","level":"error","code":{"code":"E0308","explanation":"..."},"spans":[{"file_name":"src/lib.rs","line_start":3,"is_primary":true}],"rendered":"..."}}
{"reason":"compiler-message","message":{"message":"unused variable: `x`","level":"warning","code":{"code":"unused_variables"},"spans":[{"file_name":"/snap/src/main.rs","line_start":9,"is_primary":true}]}}
{"reason":"compiler-message","message":{"message":"aborting due to 1 previous error","level":"error","code":null,"spans":[]}}
test tests::adds ... ok
test tests::breaks ... FAILED
thread 'tests::breaks' panicked at src/lib.rs:20:9:
assertion failed
test tests::must_panic - should panic ... FAILED"#;
        let f = cargo(root(), out, "cargo-test");
        assert_eq!(f.len(), 4);
        assert_eq!(f[3], test("tests::must_panic", TestOutcome::Fail, String::new(), 0, "cargo-test"));
        assert_eq!(
            f[0],
            diagnostic(Severity::Error, "E0308", "mismatched types", "src/lib.rs".into(), 3, "cargo-test")
        );
        assert_eq!(f[1].path, "src/main.rs");
        assert_eq!(f[2], test("tests::breaks", TestOutcome::Fail, "src/lib.rs".into(), 20, "cargo-test"));
        // libtest's terse format names failures only in `---- name stdout ----` headers.
        let terse = "running 2 tests\n.F\nfailures:\n\n---- tests::adds stdout ----\n\nthread 'tests::adds' panicked at src/lib.rs:10:9:\nassertion failed\n";
        assert_eq!(
            cargo(root(), terse, "cargo-test"),
            vec![test("tests::adds", TestOutcome::Fail, "src/lib.rs".into(), 10, "cargo-test")]
        );
    }

    #[test]
    fn ruff_json_lines() {
        let out = r#"{"code":"F821","message":"Undefined name `x`","filename":"/snap/pkg/a.py","location":{"row":4,"column":1}}
{"code":"F401","message":"`os` imported but unused","filename":"/snap/pkg/a.py","location":{"row":1,"column":8}}
{"code":null,"message":"SyntaxError: Expected ')'","filename":"/snap/b.py","location":{"row":2,"column":1}}
{"code":"invalid-syntax","message":"Expected `:`, found newline","filename":"/snap/c.py","location":{"row":1,"column":27}}"#;
        let f = ruff(root(), out);
        let sev: Vec<_> = f
            .iter()
            .map(|x| match &x.found {
                Found::Diagnostic { severity, .. } => *severity,
                _ => Severity::Note,
            })
            .collect();
        assert_eq!(sev, vec![Severity::Error, Severity::Warning, Severity::Error, Severity::Error]);
        assert_eq!((f[0].path.as_str(), f[0].line), ("pkg/a.py", 4));
        assert_eq!(ruff(root(), "not json"), vec![]);
    }

    #[test]
    fn huge_or_cut_ruff_output_keeps_every_error_and_counts_the_rest() {
        let warning = r#"{"code":"F401","message":"unused","filename":"/snap/a.py","location":{"row":1,"column":1}}"#;
        let error =
            r#"{"code":"F821","message":"Undefined name `x`","filename":"/snap/z.py","location":{"row":9,"column":1}}"#;
        let mut out: Vec<&str> = vec![warning; 1000];
        out.push("{\"code\":\"F4");
        out.push("[... output truncated by nerd ...]");
        out.push(error);
        let f = ruff(root(), &out.join("\n"));
        assert_eq!(f.len(), KEPT_WARNINGS + 2, "200 warnings, the error, the note");
        assert!(f.iter().any(|x| x.path == "z.py" && x.line == 9));
        let note = f.last().unwrap();
        assert!(
            matches!(&note.found, Found::Diagnostic { code, message, .. }
            if code == "ruff-summary" && message.starts_with("1001 findings in all")),
            "{note:?}"
        );
    }

    #[test]
    fn go_build_vet_and_test_json() {
        let text = "# example.com/shop/cart\n./cart/cart.go:12:9: undefined: Totl\ncart/cart.go:20:2: fmt.Printf format %d has arg s of wrong type string\n";
        let f = go_text(root(), text, "go-build");
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].path.as_str(), f[0].line), ("cart/cart.go", 12));
        let json = r#"{"Action":"run","Package":"example.com/shop/cart","Test":"TestTotal"}
{"Action":"output","Package":"example.com/shop/cart","Test":"TestTotal","Output":"    cart_test.go:9: want 0\n"}
{"Action":"fail","Package":"example.com/shop/cart","Test":"TestTotal","Elapsed":0}
{"Action":"fail","Package":"example.com/shop/cart","Elapsed":0}"#;
        let f = go_test(root(), json);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].line, 9);
        assert!(f[0].path.ends_with("cart_test.go"));
    }

    #[test]
    fn a_go_test_that_panics_is_located_by_its_stack_and_the_panic_site_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("uuid_test.go"), "package uuid\n").unwrap();
        let at = |file: &str, line: u32| format!("\\t{}/{file}:{line} +0x4f\\n", root.display());
        let event = |output: &str| {
            format!(
                r#"{{"Action":"output","Package":"github.com/google/uuid","Test":"TestClockSeq","Output":"{output}"}}"#
            )
        };
        let json = [
            event("--- FAIL: TestClockSeq (0.00s)\\n"),
            event("panic: runtime error: invalid memory address or nil pointer dereference [recovered]\\n"),
            event("goroutine 13 [running]:\\n"),
            event("\\t/usr/lib/go-1.19/src/runtime/panic.go:884 +0x212\\n"),
            event("github.com/google/uuid.randomBits({0xc00001a620?})\\n"),
            event(&at("util.go", 14)),
            event(&at("time.go", 100)),
            event(&at("uuid_test.go", 233)),
            r#"{"Action":"fail","Package":"github.com/google/uuid","Test":"TestClockSeq","Elapsed":0}"#.to_string(),
        ]
        .join("\n");
        let f = go_test(root, &json);
        let found: Vec<(&str, u32, &str)> = f.iter().map(|f| (f.path.as_str(), f.line, f.source.as_str())).collect();
        assert_eq!(found, [("util.go", 14, "go-test"), ("uuid_test.go", 233, "go-test")], "{f:#?}");
        assert!(
            matches!(&f[0].found, Found::Diagnostic { code, message, .. }
            if code == "go-panic" && message.contains("nil pointer dereference")),
            "{f:#?}"
        );
        assert!(matches!(&f[1].found, Found::Test { name, outcome: TestOutcome::Fail } if name == "TestClockSeq"));
    }

    #[test]
    fn tsc_pytest_and_node_tap() {
        let f = tsc(root(), "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n");
        assert_eq!(
            f[0],
            diagnostic(
                Severity::Error,
                "TS2322",
                "Type 'string' is not assignable to type 'number'.",
                "src/a.ts".into(),
                3,
                "tsc"
            )
        );
        let out = "/snap/tests/test_a.py:4: assert 1 == 2\nFAILED tests/test_a.py::test_bad - assert 1 == 2\n1 failed, 2 passed\n";
        let f = pytest(root(), out);
        assert_eq!(f[0], test("tests/test_a.py::test_bad", TestOutcome::Fail, "tests/test_a.py".into(), 4, "pytest"));
        // A file that could not be collected is an error at that file, with its reason.
        let out = "ERROR tests/test_cli.py - ImportError: cannot import name 'x'\n1 error in 0.05s\n";
        let f = pytest(root(), out);
        let why = "ImportError: cannot import name 'x'";
        assert_eq!(f, [diagnostic(Severity::Error, COLLECTION_ERROR, why, "tests/test_cli.py".into(), 0, "pytest")]);
        let tap = "TAP version 13\n# Subtest: adds\nnot ok 1 - adds\n  ---\n  location: '/snap/test/a.test.js:3:1'\n  ...\n1..1\n";
        let f = node_tap(root(), tap);
        assert_eq!((f[0].path.as_str(), f[0].line), ("test/a.test.js", 3));
    }
}
