//! The JSON report that jest (`--json`) and vitest (`--reporter=json`) share:
//! read once into findings (each failing test at its place, each test file
//! that could not load) and into the run's outcomes (which tests ran, failed
//! and passed), which the runner's summary is made of. A test's id is its
//! file and its describe path, `test/calc.test.ts::calc > nested > multiplies`,
//! the same in both.
//! Knows nothing about running the tools.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

use nerd_logic::vocab::{Severity, TestOutcome};
use regex::Regex;
use serde::Deserialize;

use super::parse::{relative_to, rx, Finding, Found};

/// The separator of a test id's describe path, as vitest prints it.
pub const NESTING: &str = " > ";

#[derive(Deserialize)]
struct Report {
    #[serde(rename = "testResults", default)]
    files: Vec<FileResult>,
}

#[derive(Deserialize)]
struct FileResult {
    /// The test file, absolute.
    name: String,
    #[serde(default)]
    status: String,
    /// Why the file failed as a whole (an import that failed, a hook that threw).
    #[serde(default)]
    message: String,
    #[serde(rename = "assertionResults", default)]
    tests: Vec<TestResult>,
}

#[derive(Deserialize)]
struct TestResult {
    #[serde(rename = "ancestorTitles", default)]
    ancestors: Vec<String>,
    title: String,
    status: String,
    #[serde(default)]
    location: Option<Location>,
    #[serde(rename = "failureMessages", default)]
    failures: Vec<String>,
}

#[derive(Deserialize)]
struct Location {
    line: u32,
}

/// One test's outcome as the report gives it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Passed,
    Failed,
    /// Skipped, pending, todo, disabled: it did not run.
    NotRun,
}

impl TestResult {
    fn status(&self) -> Status {
        match self.status.as_str() {
            "passed" => Status::Passed,
            "failed" => Status::Failed,
            _ => Status::NotRun,
        }
    }
}

/// The report in `stdout`: the first JSON object that reads as one. Anything
/// printed before it (a banner, a warning) is passed over.
fn report(stdout: &str) -> Option<Report> {
    stdout.match_indices('{').find_map(|(at, _)| {
        let mut values = serde_json::Deserializer::from_str(&stdout[at..]).into_iter::<serde_json::Value>();
        let value = values.next()?.ok()?;
        value.get("testResults")?;
        serde_json::from_value(value).ok()
    })
}

/// A test's id: its file (relative to `root`) and its describe path.
fn id(root: &Path, file: &FileResult, test: &TestResult) -> String {
    let mut path: Vec<&str> = test.ancestors.iter().map(String::as_str).collect();
    path.push(&test.title);
    format!("{}::{}", relative_to(root, &file.name), path.join(NESTING))
}

/// Where in its file a failing test failed: the first stack frame in that file,
/// else the line it is declared at, else 0.
fn line(file: &str, test: &TestResult) -> u32 {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let frame = rx(&FRAME, r"(?:file://)?(/[^\s()]+?):(\d+):\d+");
    let in_file = test.failures.iter().flat_map(|m| frame.captures_iter(m)).find(|c| &c[1] == file);
    in_file.and_then(|c| c[2].parse().ok()).or_else(|| test.location.as_ref().map(|l| l.line)).unwrap_or(0)
}

/// Whether a file failed as a whole: it reports failure but no test of it failed.
fn failed_whole(file: &FileResult) -> bool {
    file.status == "failed" && !file.tests.iter().any(|t| t.status() == Status::Failed)
}

/// The first line of why a file failed as a whole, past jest's `●` headers.
fn why(file: &FileResult) -> &str {
    let mut lines = file.message.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('\u{25cf}'));
    lines.next().unwrap_or("the test file failed to run")
}

/// Findings: every failing test at its place, every file that failed as a
/// whole as an error (`<tool>-collection`) at the file.
pub fn findings(root: &Path, stdout: &str, tool: &str) -> Vec<Finding> {
    let Some(report) = report(stdout) else { return vec![] };
    let mut out = Vec::new();
    for file in &report.files {
        let path = relative_to(root, &file.name);
        for test in file.tests.iter().filter(|t| t.status() == Status::Failed) {
            out.push(Finding {
                found: Found::Test { name: id(root, file, test), outcome: TestOutcome::Fail },
                path: path.clone(),
                line: line(&file.name, test),
                source: tool.to_string(),
            });
        }
        if failed_whole(file) {
            out.push(Finding {
                found: Found::Diagnostic {
                    severity: Severity::Error,
                    code: format!("{tool}-collection"),
                    message: why(file).to_string(),
                },
                path,
                line: 0,
                source: tool.to_string(),
            });
        }
    }
    out
}

/// What a report says of the run as a whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// Tests that ran to an outcome (skipped, pending and todo ones did not).
    pub ran: u32,
    pub failed: BTreeSet<String>,
    pub passed: BTreeSet<String>,
    /// Files that failed as a whole: `path (why)`.
    pub broken: Vec<String>,
}

/// The outcomes of the report in `stdout`; `None` when there is no report.
pub fn outcomes(root: &Path, stdout: &str) -> Option<Outcomes> {
    let report = report(stdout)?;
    let mut out = Outcomes::default();
    for file in &report.files {
        for test in &file.tests {
            match test.status() {
                Status::Passed => out.passed.insert(id(root, file, test)),
                Status::Failed => out.failed.insert(id(root, file, test)),
                Status::NotRun => continue,
            };
            out.ran += 1;
        }
        if failed_whole(file) {
            out.broken.push(format!("{} ({})", relative_to(root, &file.name), why(file)));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vitest 3.2's report of three files: one passing and one failing test
    /// (nested in two describes) and one skipped, a file whose import fails, and
    /// a file whose `afterAll` hook throws after its test passed.
    const VITEST: &str = r#"{"numTotalTestSuites":4,"numFailedTests":1,"success":false,"testResults":[{"assertionResults":[],"status":"failed","message":"Cannot find module '../src/missing' imported from '/w/test/broken.test.ts'","name":"/w/test/broken.test.ts"},{"assertionResults":[{"ancestorTitles":["calc"],"fullName":"calc adds","status":"passed","title":"adds","failureMessages":[],"location":{"line":5,"column":3}},{"ancestorTitles":["calc","nested"],"fullName":"calc nested multiplies","status":"failed","title":"multiplies","failureMessages":["AssertionError: expected 7 to be 6 // Object.is equality\n    at /w/test/calc.test.ts:10:25\n    at file:///w/node_modules/@vitest/runner/dist/chunk-hooks.js:155:11"],"location":{"line":9,"column":5}},{"ancestorTitles":[],"fullName":"skipped","status":"skipped","title":"skipped","failureMessages":[],"location":{"line":14,"column":4}}],"status":"failed","message":"","name":"/w/test/calc.test.ts"},{"assertionResults":[{"ancestorTitles":[],"fullName":"ok","status":"passed","title":"ok","failureMessages":[]}],"status":"failed","message":"Error: teardown broke\n    at /w/test/hook.test.ts:3:9","name":"/w/test/hook.test.ts"}]}"#;

    /// jest 29.7's report (`--ci --json --testLocationInResults`), trimmed: a
    /// failing test whose stack names its file through `Object.<anonymous>`, a
    /// passing and a skipped one, and a file whose `require` fails.
    const JEST: &str = r#"{"numFailedTests":1,"numTotalTests":3,"success":false,"testResults":[{"name":"/w/sum.test.js","status":"failed","message":"  \u25cf sum \u203a adds\n\n    expect(received).toBe(expected) // Object.is equality\n","assertionResults":[{"ancestorTitles":["sum"],"title":"adds","fullName":"sum adds","status":"failed","location":{"column":3,"line":3},"failureMessages":["Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 4\n    at Object.toBe (/w/sum.test.js:4:23)\n    at Promise.then.completed (/w/node_modules/jest-circus/build/utils.js:298:28)"]},{"ancestorTitles":[],"title":"other","fullName":"other","status":"passed","location":{"column":1,"line":7},"failureMessages":[]},{"ancestorTitles":[],"title":"later","fullName":"later","status":"pending","location":{"column":6,"line":8},"failureMessages":[]}]},{"name":"/w/broken.test.js","status":"failed","message":"  \u25cf Test suite failed to run\n\n    Cannot find module './missing' from 'broken.test.js'\n","assertionResults":[]}]}"#;

    fn ids(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn root() -> &'static Path {
        Path::new("/w")
    }

    #[test]
    fn vitest_failures_are_placed_at_their_frame_and_broken_files_are_errors() {
        let f = findings(root(), VITEST, "vitest");
        let got: BTreeSet<(String, String, u32)> = f
            .iter()
            .map(|f| match &f.found {
                Found::Test { name, .. } => (format!("test {name}"), f.path.clone(), f.line),
                Found::Diagnostic { code, message, .. } => (format!("{code}: {message}"), f.path.clone(), f.line),
                _ => unreachable!(),
            })
            .collect();
        let want: BTreeSet<(String, String, u32)> = [
            ("test test/calc.test.ts::calc > nested > multiplies", "test/calc.test.ts", 10),
            (
                "vitest-collection: Cannot find module '../src/missing' imported from '/w/test/broken.test.ts'",
                "test/broken.test.ts",
                0,
            ),
            ("vitest-collection: Error: teardown broke", "test/hook.test.ts", 0),
        ]
        .into_iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn vitest_outcomes_count_what_ran() {
        let s = outcomes(root(), VITEST).unwrap();
        assert_eq!(s.ran, 3);
        assert_eq!(s.failed, ids(&["test/calc.test.ts::calc > nested > multiplies"]));
        assert_eq!(s.passed, ids(&["test/calc.test.ts::calc > adds", "test/hook.test.ts::ok"]));
        assert_eq!(s.broken.len(), 2);
        assert!(s.broken[0].starts_with("test/broken.test.ts (Cannot find module"));
    }

    #[test]
    fn jest_reports_read_the_same_way() {
        let f = findings(root(), JEST, "jest");
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].found, Found::Test { name: "sum.test.js::sum > adds".into(), outcome: TestOutcome::Fail });
        assert_eq!((f[0].path.as_str(), f[0].line), ("sum.test.js", 4));
        // jest's header line ("● Test suite failed to run") is not the reason.
        let why = "Cannot find module './missing' from 'broken.test.js'";
        assert_eq!(
            f[1].found,
            Found::Diagnostic { severity: Severity::Error, code: "jest-collection".into(), message: why.into() }
        );
        let s = outcomes(root(), JEST).unwrap();
        assert_eq!(s.ran, 2);
        assert_eq!(s.failed, ids(&["sum.test.js::sum > adds"]));
        assert_eq!(s.passed, ids(&["sum.test.js::other"]));
        assert_eq!(s.broken, vec![format!("broken.test.js ({why})")]);
    }

    #[test]
    fn output_without_a_report_has_no_outcomes() {
        assert!(outcomes(root(), "No test files found, exiting with code 1\n").is_none());
        assert!(outcomes(root(), "{\"unrelated\": true}").is_none());
        assert!(findings(root(), "{ not json", "vitest").is_empty());
        // A banner before the report is passed over.
        let s = outcomes(root(), &format!("RUN v3.2.7 /w {{curly}}\n{VITEST}")).unwrap();
        assert_eq!(s.ran, 3);
    }

    #[test]
    fn a_failure_without_a_frame_in_its_file_is_placed_at_its_declaration() {
        let report = VITEST.replace("at /w/test/calc.test.ts:10:25", "at /w/src/calc.ts:5:10");
        let f = findings(root(), &report, "vitest");
        let failing = f.iter().find(|f| matches!(f.found, Found::Test { .. })).unwrap();
        assert_eq!(failing.line, 9);
    }
}
