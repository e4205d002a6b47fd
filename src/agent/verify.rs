//! Builds and test runs for the agent loop, through the router: the project's
//! own tools (detected from marker files, as the commit gate detects them)
//! run as permitted, audited, sandboxed execs, and their output is read into
//! findings, into one `test_state`, and into a `Verification`: what was
//! checked and how far, never a guess. A pass needs a test runner's own
//! summary with at least one test run (or, for builds alone, the compiler's
//! exit and diagnostics); a missing tool, a suite that cannot collect, no
//! summary or no test at all is `unverified`, with the reason.
//! Knows nothing about strategies.

use std::collections::BTreeSet;
use std::path::Path;

use nerd_logic::vocab::{Severity, TestOutcome, TestState};
use serde::Serialize;

use crate::check::environment;
use crate::check::parse::{Finding, Found};
use crate::check::summary::{self, Summary};
use crate::check::tools;
use crate::config::{CheckConfig, Tool};
use crate::policy::Action;
use crate::router::{Outcome, Output};
use crate::world::lang::Lang;
use crate::world::project::ProjectedSymbol;

/// What is being verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Compilers and type checkers only.
    Build,
    /// Test runners (which also build).
    Tests,
}

/// One tool's run.
#[derive(Clone, Debug)]
pub struct ToolRun {
    pub tool: Tool,
    pub findings: Vec<Finding>,
    /// Not installed: the hint.
    pub missing: Option<String>,
    /// The router refused it: why.
    pub refused: Option<Vec<String>>,
    /// The last lines of its output, for the patch writer.
    pub tail: String,
    /// How the process ended.
    pub exit: Exit,
    /// The test runner's own summary, when it printed one.
    pub summary: Option<Summary>,
    /// Signs in its output that the sandbox cut a connection beyond loopback.
    pub network: Option<crate::sandbox::NetworkRefusal>,
    /// Dependencies its output says are not installed (not the code's fault).
    pub environment: Vec<String>,
}

/// How a tool's process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It did not run (missing, refused, failed to start).
    NotRun,
    /// Its exit status (`None`: killed by a signal).
    Code(Option<i32>),
    TimedOut,
}

/// The tools of `kind` for the workspace.
pub fn tools_for(root: &Path, check: &CheckConfig, kind: Kind, has_python: bool) -> Vec<Tool> {
    let config = CheckConfig { tests: true, ..check.clone() };
    tools::detect(root, &config, has_python)
        .into_iter()
        .filter(|t| match kind {
            Kind::Tests => t.is_test_runner(),
            Kind::Build => matches!(t, Tool::CargoCheck | Tool::GoBuild | Tool::Tsc),
        })
        .collect()
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.starts_with("{\"reason\"")).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Whether `tool` runs the tests of the language `path` is written in.
pub fn runs_language_of(tool: Tool, path: &str) -> bool {
    match (tool, Lang::of_path(path).map(Lang::family)) {
        (Tool::Pytest, Some(Lang::Python)) | (Tool::CargoTest, Some(Lang::Rust)) | (Tool::GoTest, Some(Lang::Go)) => {
            true
        }
        (Tool::NodeTest | Tool::Vitest | Tool::Jest, Some(Lang::TypeScript)) => true,
        (Tool::NodeTest | Tool::Vitest | Tool::Jest, None) => {
            path.ends_with(".js") || path.ends_with(".mjs") || path.ends_with(".cjs")
        }
        _ => false,
    }
}

/// One test a run is narrowed to: the file that defines it, its name inside
/// the file (`TestSuite.test_case` or `test_case`) and, where known, the line
/// it is declared at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OneTest {
    pub path: String,
    pub name: String,
    pub line: Option<u32>,
}

impl OneTest {
    /// The test a symbol id (`path#Qualified.name`) names.
    pub fn of_symbol(id: &str) -> Option<OneTest> {
        let (path, name) = id.split_once('#')?;
        (!path.is_empty() && !name.is_empty()).then(|| OneTest { path: path.into(), name: name.into(), line: None })
    }

    /// The same test, declared at `line`.
    pub fn at(self, line: u32) -> OneTest {
        OneTest { line: Some(line), ..self }
    }

    /// The test a projected symbol is, with the line it is declared at.
    pub fn of_declared(symbol: &ProjectedSymbol) -> Option<OneTest> {
        OneTest::of_symbol(&symbol.id).map(|t| t.at(symbol.line))
    }

    /// jest's and vitest's name filter for this test, `-t PATTERN`: its title,
    /// escaped, at the end of the full name (the describe path comes before it).
    /// None for a title written as a template (`${…}`) or a `test.each` format
    /// (`%s`, `%i`…), which names other titles at run time: its file runs whole.
    fn title_filter(&self) -> Option<[String; 2]> {
        let each_format =
            self.name.split('%').skip(1).any(|rest| rest.starts_with(|c: char| "sdifjoOpc#%".contains(c)));
        (!self.name.contains("${") && !each_format)
            .then(|| ["-t".to_string(), format!("{}$", regex::escape(&self.name))])
    }

    fn leaf(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// The runner's way of saying "only this test", added to its argv; `None`
    /// when the runner cannot narrow (it then runs whole).
    fn narrow(&self, tool: Tool, argv: &mut Vec<String>) -> Option<()> {
        match tool {
            Tool::Pytest => argv.push(format!("{}::{}", self.path, self.name.replace('.', "::"))),
            // A name filter: every test whose path contains it runs (the count says how many).
            Tool::CargoTest => argv.push(self.leaf().to_string()),
            Tool::GoTest => {
                let dir = self.path.rsplit_once('/').map_or(".".to_string(), |(d, _)| format!("./{d}"));
                let at = argv.iter().position(|a| a == "./...")?;
                argv[at] = dir;
                argv.splice(at..at, ["-run".to_string(), format!("^{}$", self.leaf())]);
            }
            Tool::NodeTest => {
                argv.extend(["--test-name-pattern".to_string(), format!("^{}$", self.leaf()), self.path.clone()])
            }
            // vitest 3 runs the tests declared at a line of a file: exactly
            // this one, whatever its title (computed, a template, a table's
            // rows, shared with a test of another describe). Before 3, by name:
            // a test's full name is its describe path and its title, which the
            // symbol's name is (a title may hold dots): the pattern anchors its end.
            Tool::Vitest => match self.line.filter(|_| tools::vitest_major(&argv[0]).is_some_and(|m| m >= 3)) {
                Some(line) => argv.push(format!("{}:{line}", self.path)),
                None => {
                    argv.push(self.path.clone());
                    argv.extend(self.title_filter().into_iter().flatten());
                }
            },
            Tool::Jest => {
                argv.extend(["--runTestsByPath".to_string(), self.path.clone()]);
                argv.extend(self.title_filter().into_iter().flatten());
            }
            _ => return None,
        }
        Some(())
    }
}

/// The exec action that runs `tool` in the workspace, narrowed to `only`
/// where the runner can be; `Err(hint)` when it is not installed.
pub fn action(tool: Tool, root: &Path, only: Option<&OneTest>) -> Result<Action, String> {
    match tools::argv(tool, root) {
        Some(argv) => {
            let mut argv: Vec<String> = argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
            if let Some(one) = only {
                let mut narrowed = argv.clone();
                if one.narrow(tool, &mut narrowed).is_some() {
                    argv = narrowed;
                }
            }
            Ok(Action::Exec { argv })
        }
        None => Err(tools::hint(tool).to_string()),
    }
}

fn not_run(tool: Tool) -> ToolRun {
    ToolRun {
        tool,
        findings: vec![],
        missing: None,
        refused: None,
        tail: String::new(),
        exit: Exit::NotRun,
        summary: None,
        network: None,
        environment: Vec::new(),
    }
}

/// Reads what the router made of `tool`'s action (`None`: refused, with `reasons`).
pub fn read(tool: Tool, root: &Path, outcome: Option<Outcome>, reasons: Vec<String>) -> ToolRun {
    let mut run = not_run(tool);
    match outcome {
        None | Some(Outcome::Refused { .. }) => run.refused = Some(reasons),
        Some(Outcome::Failed { error }) => run.findings = tools::findings(tool, root, None, "", &error),
        Some(Outcome::Executed { output: Output::Exec { code, stdout, stderr, timed_out, connections, .. } }) => {
            let code = if timed_out { None } else { code };
            run.exit = if timed_out { Exit::TimedOut } else { Exit::Code(code) };
            run.findings = tools::findings(tool, root, code, &stdout, &stderr);
            run.summary = summary::read(tool, root, &stdout);
            run.network = crate::sandbox::network_refusal(&[&stdout, &stderr], &connections);
            if code != Some(0) {
                run.environment = environment::missing_dependencies(tool, root, &format!("{stdout}\n{stderr}"));
            }
            run.tail = format!("{}\n{}", tail(&stdout, 60), tail(&stderr, 30)).trim().to_string();
        }
        Some(Outcome::Executed { .. }) => {}
    }
    run
}

/// A tool that is not installed.
pub fn missing(tool: Tool, hint: String) -> ToolRun {
    ToolRun { missing: Some(hint), ..not_run(tool) }
}

/// Failing tests and blocking errors among `findings`.
pub fn counts(findings: &[Finding]) -> (u32, u32) {
    findings.iter().fold((0, 0), |(t, e), f| match &f.found {
        Found::Test { outcome: TestOutcome::Fail | TestOutcome::Error, .. } => (t + 1, e),
        Found::Diagnostic { severity: Severity::Error, .. } => (t, e + 1),
        _ => (t, e),
    })
}

/// How far a build or test step was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Checked, and nothing failed: tests ran and the runner's summary says so,
    /// or (builds alone) the compiler exited cleanly.
    VerifiedPass,
    /// Checked, and something failed: a test, or the build.
    VerifiedFail,
    /// Not checked, or not far enough to say: the reason says why.
    Unverified,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::VerifiedPass => "verified_pass",
            Verdict::VerifiedFail => "verified_fail",
            Verdict::Unverified => "unverified",
        }
    }
}

/// One tool's part of a verification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    pub tool: String,
    pub status: Verdict,
    /// Tests its summary says ran (`None`: a build tool, or no summary).
    pub tests_run: Option<u32>,
    pub tests_failed: u32,
    /// Blocking compiler or tool errors.
    pub errors: u32,
    /// What was or was not checked, in a sentence.
    pub note: String,
}

/// What a build or test step established.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub status: Verdict,
    pub tests_run: u32,
    pub tests_failed: u32,
    pub checks: Vec<Check>,
    pub reason: String,
    /// Dependencies missing from the environment, which no patch to the code provides.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub environment: Vec<String>,
    /// Keys of what fails (`test ID`, a compiler error, `uncollected X`), for
    /// comparing two runs by identity, never by counts.
    #[serde(skip)]
    pub failing: BTreeSet<String>,
    /// Ids of the tests seen passing.
    #[serde(skip)]
    pub passed: BTreeSet<String>,
}

/// What changed between two verifications of the same checks, by test id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Fails now, did not before (tests, build errors, files that no longer collect).
    pub newly_failing: Vec<String>,
    /// Failed before, passes now.
    pub fixed: Vec<String>,
    /// Failed before and still fails.
    pub still_failing: Vec<String>,
}

impl Verification {
    /// Nothing was built or tested.
    pub fn nothing(reason: &str) -> Verification {
        Verification {
            status: Verdict::Unverified,
            tests_run: 0,
            tests_failed: 0,
            checks: vec![],
            reason: reason.to_string(),
            environment: vec![],
            failing: BTreeSet::new(),
            passed: BTreeSet::new(),
        }
    }

    /// The verification that `runs` amount to.
    pub fn of(runs: &[ToolRun]) -> Verification {
        let checks: Vec<Check> = runs.iter().map(judge).collect();
        let mut failing = BTreeSet::new();
        let mut passed = BTreeSet::new();
        let mut environment: Vec<String> = Vec::new();
        for run in runs {
            for e in run.environment.iter() {
                if !environment.contains(e) {
                    environment.push(e.clone());
                }
            }
            failing.extend(failure_keys(run));
            if let Some(s) = &run.summary {
                passed.extend(s.passed.iter().cloned());
            }
        }
        let tests_run = checks.iter().filter_map(|c| c.tests_run).sum();
        let tests_failed = checks.iter().map(|c| c.tests_failed).sum();
        let status = if checks.is_empty() {
            Verdict::Unverified
        } else if checks.iter().any(|c| c.status == Verdict::VerifiedFail) {
            Verdict::VerifiedFail
        } else if checks.iter().any(|c| c.status == Verdict::Unverified) {
            Verdict::Unverified
        } else {
            Verdict::VerifiedPass
        };
        let notes = |v: Verdict| -> Vec<String> {
            checks.iter().filter(|c| c.status == v).map(|c| format!("{}: {}", c.tool, c.note)).collect()
        };
        let reason = match status {
            _ if checks.is_empty() => "no build or test tool applies here".to_string(),
            Verdict::VerifiedPass => {
                checks.iter().map(|c| format!("{}: {}", c.tool, c.note)).collect::<Vec<_>>().join("; ")
            }
            Verdict::VerifiedFail => notes(Verdict::VerifiedFail).join("; "),
            Verdict::Unverified => notes(Verdict::Unverified).join("; "),
        };
        Verification { status, tests_run, tests_failed, checks, reason, environment, failing, passed }
    }

    /// This run against an earlier one of the same checks.
    pub fn since(&self, before: &Verification) -> Comparison {
        Comparison {
            newly_failing: self.failing.difference(&before.failing).cloned().collect(),
            fixed: before
                .failing
                .iter()
                .filter(|k| k.strip_prefix("test ").is_some_and(|id| self.passed.contains(id)))
                .cloned()
                .collect(),
            still_failing: self.failing.intersection(&before.failing).cloned().collect(),
        }
    }

    /// One plain sentence: what was checked and what was not.
    pub fn sentence(&self) -> String {
        match self.status {
            Verdict::VerifiedPass if self.tests_run > 0 => {
                format!("verified: {} test(s) ran and passed ({})", self.tests_run, self.reason)
            }
            Verdict::VerifiedPass => format!("verified by building only, no test ran ({})", self.reason),
            Verdict::VerifiedFail => format!("checked, and it fails: {}", self.reason),
            Verdict::Unverified => format!("not verified: {}", self.reason),
        }
    }
}

/// Blocking compiler or tool errors among `findings`, by kind: parsed
/// diagnostics, and the synthetic `<tool>-failed` finding of an unreadable run.
fn errors(findings: &[Finding]) -> (u32, u32) {
    findings.iter().fold((0, 0), |(parsed, synthetic), f| match &f.found {
        // A file that could not be collected says why elsewhere (the environment, an import error).
        Found::Diagnostic { severity: Severity::Error, code, .. }
            if unreadable(code) || crate::check::parse::is_collection_error(code) =>
        {
            (parsed, synthetic + 1)
        }
        Found::Diagnostic { severity: Severity::Error, .. } => (parsed + 1, synthetic),
        _ => (parsed, synthetic),
    })
}

/// Whether a finding's code is the one made for a tool that failed with nothing readable (`pytest-failed`...).
fn unreadable(code: &str) -> bool {
    code.ends_with("-failed")
}

/// Stable keys of what `run` says fails.
fn failure_keys(run: &ToolRun) -> Vec<String> {
    let mut keys: Vec<String> = run
        .findings
        .iter()
        .filter_map(|f| match &f.found {
            // A tool that failed with nothing readable says only that: its message is the
            // output's tail, whose timestamps and addresses differ from run to run.
            Found::Diagnostic { severity: Severity::Error, code, .. } if unreadable(code) => {
                Some(format!("{code}: exited with no result nerd could read"))
            }
            Found::Diagnostic { severity: Severity::Error, code, message } => {
                Some(format!("{code} at {}:{}: {message}", f.path, f.line))
            }
            Found::Test { name, outcome: TestOutcome::Fail | TestOutcome::Error } => Some(format!("test {name}")),
            _ => None,
        })
        .collect();
    if let Some(reasons) = &run.refused {
        keys.push(format!("{} was refused: {}", run.tool.name(), reasons.join("; ")));
    }
    if let Some(s) = &run.summary {
        keys.extend(s.failed.iter().map(|id| format!("test {id}")));
        keys.extend(s.uncollected.iter().map(|u| format!("uncollected {u}")));
    }
    keys
}

/// One tool's run, judged; a failure the sandbox's network boundary may explain says so,
/// and one that only a missing dependency explains is not verified either way.
fn judge(run: &ToolRun) -> Check {
    let mut check = judged(run);
    if !run.environment.is_empty() && check.status != Verdict::VerifiedPass {
        if check.tests_failed == 0 && errors(&run.findings).0 == 0 {
            check.status = Verdict::Unverified;
        }
        check.note = format!("{}; the environment lacks {}", check.note, run.environment.join(", "));
    }
    if let (Some(network), false) = (&run.network, check.status == Verdict::VerifiedPass) {
        check.note = format!("{}; {}", check.note, network.sentence());
    }
    check
}

/// The first error a program printed, quoted for a note (`; it said "error: no matching package
/// named `x` found"`), or nothing: what the user reads first when nerd could parse no more.
fn said(output: &str) -> String {
    let line = output.lines().map(str::trim).find(|l| l.get(..5).is_some_and(|w| w.eq_ignore_ascii_case("error")));
    match line {
        Some(line) => format!("; it said \"{}\"", line.chars().take(200).collect::<String>()),
        None => String::new(),
    }
}

fn judged(run: &ToolRun) -> Check {
    let (parsed, synthetic) = errors(&run.findings);
    let check = |status, tests_run, tests_failed, note: String| Check {
        tool: run.tool.name().to_string(),
        status,
        tests_run,
        tests_failed,
        errors: parsed + synthetic,
        note,
    };
    let unverified = |note: String| check(Verdict::Unverified, None, 0, note);
    if let Some(hint) = &run.missing {
        return unverified(format!("not installed ({hint})"));
    }
    if let Some(reasons) = &run.refused {
        return unverified(format!("refused by the constitution ({})", reasons.join("; ")));
    }
    let code = match run.exit {
        Exit::NotRun => return unverified("did not run".to_string()),
        Exit::TimedOut => return unverified("timed out".to_string()),
        Exit::Code(code) => code,
    };
    let exited = code.map_or("was killed by a signal".to_string(), |c| format!("exited with status {c}"));
    if !run.tool.is_test_runner() {
        return match (parsed, synthetic, code) {
            (0, 0, Some(0)) => check(Verdict::VerifiedPass, None, 0, "builds without errors".to_string()),
            (0, _, _) => unverified(format!("{exited} without a diagnostic nerd could read{}", said(&run.tail))),
            (n, _, _) => check(Verdict::VerifiedFail, None, 0, format!("{n} build error(s)")),
        };
    }
    let Some(s) = &run.summary else {
        return if parsed > 0 {
            check(
                Verdict::VerifiedFail,
                None,
                0,
                format!("the build failed with {parsed} error(s) before any test ran"),
            )
        } else {
            unverified(format!("{exited} and printed no test summary{}", said(&run.tail)))
        };
    };
    let failed = u32::try_from(s.failed.len()).unwrap_or(u32::MAX);
    let uncollected = if s.uncollected.is_empty() {
        String::new()
    } else {
        format!("; could not collect {}", s.uncollected.join(", "))
    };
    if failed > 0 {
        check(Verdict::VerifiedFail, Some(s.ran), failed, format!("{failed} of {} test(s) failed{uncollected}", s.ran))
    } else if parsed > 0 {
        check(Verdict::VerifiedFail, Some(s.ran), 0, format!("{parsed} build error(s){uncollected}"))
    } else if !s.uncollected.is_empty() {
        check(Verdict::Unverified, Some(s.ran), 0, format!("{} test(s) ran, but it{}", s.ran, &uncollected[1..]))
    } else if s.ran == 0 {
        check(Verdict::Unverified, Some(0), 0, "0 tests ran".to_string())
    } else if code != Some(0) {
        check(Verdict::Unverified, Some(s.ran), 0, format!("{} test(s) passed, but it {exited}", s.ran))
    } else {
        check(Verdict::VerifiedPass, Some(s.ran), 0, format!("{} test(s) ran, none failed", s.ran))
    }
}

/// The test state a verification leaves for the loop: failing tests first,
/// then errors; nothing failing but nothing verified either is `unverified`.
pub fn state_of(v: &Verification, findings: &[Finding]) -> TestState {
    // A tool that failed only for want of a dependency says nothing about the code.
    let only_environment = !v.environment.is_empty() && v.tests_failed == 0 && errors(findings).0 == 0;
    match v.status {
        Verdict::VerifiedPass => TestState::Passing,
        _ if only_environment => TestState::Unverified,
        _ => match (counts(findings), v.tests_failed) {
            ((0, 0), 0) => TestState::Unverified,
            ((0, _), 0) => TestState::BuildBroken,
            _ => TestState::Failing,
        },
    }
}

/// A verification as the `done` event carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Brief {
    pub status: Verdict,
    pub tests_run: u32,
    pub reason: String,
}

impl From<&Verification> for Brief {
    fn from(v: &Verification) -> Self {
        Brief { status: v.status, tests_run: v.tests_run, reason: v.reason.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::parse::{Finding, Found};
    use nerd_logic::vocab::Severity;

    #[test]
    fn each_runner_is_narrowed_to_one_test_its_own_way() {
        let narrowed = |tool, id: &str, argv: &[&str]| {
            let mut v: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
            OneTest::of_symbol(id).and_then(|t| t.narrow(tool, &mut v)).map(|()| v)
        };
        assert_eq!(
            narrowed(Tool::Pytest, "tests/test_x.py#TestApi.test_get", &["python3", "-m", "pytest"]),
            Some(vec!["python3".into(), "-m".into(), "pytest".into(), "tests/test_x.py::TestApi::test_get".into()])
        );
        assert_eq!(
            narrowed(Tool::CargoTest, "tests/shapes.rs#rect_area", &["cargo", "test"]),
            Some(vec!["cargo".into(), "test".into(), "rect_area".into()])
        );
        assert_eq!(
            narrowed(Tool::GoTest, "geo/area_test.go#TestComputeArea", &["go", "test", "-json", "./..."]),
            Some(["go", "test", "-json", "-run", "^TestComputeArea$", "./geo"].map(String::from).to_vec())
        );
        assert_eq!(
            narrowed(Tool::Vitest, "test/semver.test.ts#parses 1.2.3 (strict)", &["vitest", "run"]),
            Some(
                ["vitest", "run", "test/semver.test.ts", "-t", r"parses 1\.2\.3 \(strict\)$"]
                    .map(String::from)
                    .to_vec()
            )
        );
        assert_eq!(
            narrowed(Tool::Jest, "sum.test.js#adds", &["jest", "--ci"]),
            Some(["jest", "--ci", "--runTestsByPath", "sum.test.js", "-t", "adds$"].map(String::from).to_vec())
        );
        // A title that names other titles at run time: its file runs whole.
        assert_eq!(
            narrowed(Tool::Vitest, "test/a.test.ts#adds %i and %i", &["vitest", "run"]),
            Some(["vitest", "run", "test/a.test.ts"].map(String::from).to_vec())
        );
        assert_eq!(
            narrowed(Tool::Jest, "a.test.ts#parses ${t.input}", &["jest"]),
            Some(["jest", "--runTestsByPath", "a.test.ts"].map(String::from).to_vec())
        );
        assert_eq!(
            narrowed(Tool::Vitest, "a.test.ts#100% sure", &["vitest", "run"]),
            Some(["vitest", "run", "a.test.ts", "-t", "100% sure$"].map(String::from).to_vec())
        );
        assert_eq!(narrowed(Tool::Ruff, "a.py#test_x", &["ruff"]), None);
        assert_eq!(OneTest::of_symbol("no-symbol"), None);
    }

    /// A vitest of `version` installed as npm lays it out, its launcher linked from `.bin`.
    fn vitest_installed(version: &str) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join("node_modules/vitest");
        std::fs::create_dir_all(&package).unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/.bin")).unwrap();
        std::fs::write(package.join("package.json"), format!(r#"{{"name": "vitest", "version": "{version}"}}"#))
            .unwrap();
        std::fs::write(package.join("vitest.mjs"), "").unwrap();
        let launcher = dir.path().join("node_modules/.bin/vitest");
        std::os::unix::fs::symlink("../vitest/vitest.mjs", &launcher).unwrap();
        (dir, launcher.to_string_lossy().into_owned())
    }

    #[test]
    fn vitest_3_runs_a_test_by_its_line_and_older_ones_by_its_title() {
        let narrowed = |launcher: &str, id: &str, line: Option<u32>| {
            let mut v = vec![launcher.to_string(), "run".to_string()];
            let one = OneTest::of_symbol(id).unwrap();
            let one = match line {
                Some(l) => one.at(l),
                None => one,
            };
            one.narrow(Tool::Vitest, &mut v).map(|()| v[2..].to_vec())
        };
        let (_v3, three) = vitest_installed("3.2.4");
        // A computed title, a template, a shared one: the line says which test, exactly.
        for id in ["test/url.test.ts#t.input.toString()", "test/url.test.ts#parses ${t}", "test/url.test.ts#adds"] {
            assert_eq!(narrowed(&three, id, Some(12)), Some(vec!["test/url.test.ts:12".to_string()]), "{id}");
        }
        // No line known: by title, as before.
        assert_eq!(
            narrowed(&three, "test/url.test.ts#adds", None),
            Some(["test/url.test.ts", "-t", "adds$"].map(String::from).to_vec())
        );
        // vitest 2 has no line filter (`path:12` would match no file): by title.
        let (_v2, two) = vitest_installed("2.1.9");
        assert_eq!(
            narrowed(&two, "test/url.test.ts#adds", Some(12)),
            Some(["test/url.test.ts", "-t", "adds$"].map(String::from).to_vec())
        );
        // A launcher that is no vitest package's says nothing of a version.
        assert_eq!(tools::vitest_major("/bin/sh"), None);
        assert_eq!(tools::vitest_major(&three), Some(3));
    }

    fn failed_run(tail: &str) -> ToolRun {
        ToolRun {
            findings: vec![Finding {
                found: Found::Diagnostic {
                    severity: Severity::Error,
                    code: "pytest-failed".into(),
                    message: format!("exited with status 2: {tail}"),
                },
                path: String::new(),
                line: 0,
                source: "pytest".into(),
            }],
            exit: Exit::Code(Some(2)),
            ..not_run(Tool::Pytest)
        }
    }

    /// A runner that printed no summary is quoted by its first error, which says what to do.
    #[test]
    fn a_run_without_a_summary_quotes_its_first_error() {
        let run =
            |tail: &str| ToolRun { tail: tail.to_string(), exit: Exit::Code(Some(101)), ..not_run(Tool::CargoTest) };
        let v = Verification::of(&[run(
            "    Updating crates.io index\nerror: no matching package named `zq` found\nlocation searched: crates.io index\n",
        )]);
        assert_eq!(v.status, Verdict::Unverified);
        assert!(
            v.reason.ends_with("printed no test summary; it said \"error: no matching package named `zq` found\""),
            "{}",
            v.reason
        );
        let quiet = Verification::of(&[run("warning: unused import\n")]);
        assert!(quiet.reason.ends_with("printed no test summary"), "{}", quiet.reason);
    }

    #[test]
    fn a_tool_failing_unreadably_before_and_after_is_not_a_new_failure_whatever_its_output_says() {
        let before = Verification::of(&[failed_run("[2026-11-24 02:14:46,432] WARNING plugin missing")]);
        let after = Verification::of(&[failed_run("[2026-11-24 02:14:49,118] WARNING plugin missing")]);
        let since = after.since(&before);
        assert!(since.newly_failing.is_empty(), "{:?}", since.newly_failing);
        assert_eq!(after.status, Verdict::Unverified);
        // A real diagnostic still counts by its place and message.
        let mut broken = failed_run("same");
        broken.findings.push(Finding {
            found: Found::Diagnostic { severity: Severity::Error, code: "E999".into(), message: "syntax".into() },
            path: "a.py".into(),
            line: 3,
            source: "ruff".into(),
        });
        let since = Verification::of(&[broken]).since(&before);
        assert_eq!(since.newly_failing.len(), 1, "{:?}", since.newly_failing);
    }

    #[test]
    fn a_suite_that_cannot_collect_for_want_of_a_dependency_is_unverified_and_its_own_import_error_is_broken() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("app.py"), "").unwrap();
        let collect = |module: &str| {
            let stdout = format!(
                "ERROR tests/test_a.py - ModuleNotFoundError: No module named '{module}'\n\
                 !!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n\
                 1 error in 0.05s\n"
            );
            let outcome = Outcome::Executed {
                output: Output::Exec {
                    code: Some(2),
                    stdout,
                    stderr: String::new(),
                    timed_out: false,
                    truncated: false,
                    sandbox: crate::sandbox::prepare(&Default::default(), root.path()).layers.clone(),
                    connections: vec![],
                    connections_unlogged: 0,
                },
            };
            let run = read(Tool::Pytest, root.path(), Some(outcome), vec![]);
            let v = Verification::of(std::slice::from_ref(&run));
            (state_of(&v, &run.findings), v)
        };
        let (state, v) = collect("responses");
        assert_eq!(state, TestState::Unverified, "{v:?}");
        assert_eq!(v.status, Verdict::Unverified);
        assert!(v.reason.contains("the environment lacks python module `responses`"), "{}", v.reason);
        // The workspace's own module failing to import is the code's problem: the build is broken.
        let (state, v) = collect("app");
        assert_eq!(state, TestState::BuildBroken, "{v:?}");
        assert!(v.environment.is_empty());
    }
}
