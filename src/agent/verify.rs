//! Builds and test runs for the agent loop, through the router: the project's
//! own tools (detected from marker files, as the commit gate detects them)
//! run as permitted, audited, sandboxed execs, and their output is read into
//! findings, then into one `test_state`. Knows nothing about strategies.

use std::path::Path;

use nerd_logic::vocab::{Severity, TestOutcome, TestState};

use crate::check::parse::{Finding, Found};
use crate::check::tools;
use crate::config::{CheckConfig, Tool};
use crate::policy::Action;
use crate::router::{Outcome, Output};

/// What is being verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Compilers and type checkers only.
    Build,
    /// Test runners (which also build).
    Tests,
}

/// One tool's run.
#[derive(Debug)]
pub struct ToolRun {
    pub tool: Tool,
    pub findings: Vec<Finding>,
    /// Not installed: the hint.
    pub missing: Option<String>,
    /// The router refused it: why.
    pub refused: Option<Vec<String>>,
    /// The last lines of its output, for the patch writer.
    pub tail: String,
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

/// The exec action that runs `tool` in the workspace; `Err(hint)` when it is not installed.
pub fn action(tool: Tool, root: &Path) -> Result<Action, String> {
    match tools::argv(tool, root) {
        Some(argv) => Ok(Action::Exec { argv: argv.iter().map(|a| a.to_string_lossy().into_owned()).collect() }),
        None => Err(tools::hint(tool).to_string()),
    }
}

/// Reads what the router made of `tool`'s action (`None`: refused, with `reasons`).
pub fn read(tool: Tool, root: &Path, outcome: Option<Outcome>, reasons: Vec<String>) -> ToolRun {
    let mut run = ToolRun { tool, findings: vec![], missing: None, refused: None, tail: String::new() };
    match outcome {
        None | Some(Outcome::Refused { .. }) => run.refused = Some(reasons),
        Some(Outcome::Failed { error }) => run.findings = tools::findings(tool, root, None, "", &error),
        Some(Outcome::Executed { output: Output::Exec { code, stdout, stderr, timed_out, .. } }) => {
            let code = if timed_out { None } else { code };
            run.findings = tools::findings(tool, root, code, &stdout, &stderr);
            run.tail = format!("{}\n{}", tail(&stdout, 60), tail(&stderr, 30)).trim().to_string();
        }
        Some(Outcome::Executed { .. }) => {}
    }
    run
}

/// A tool that is not installed.
pub fn missing(tool: Tool, hint: String) -> ToolRun {
    ToolRun { tool, findings: vec![], missing: Some(hint), refused: None, tail: String::new() }
}

/// Failing tests and blocking errors among `findings`.
pub fn counts(findings: &[Finding]) -> (u32, u32) {
    findings.iter().fold((0, 0), |(t, e), f| match &f.found {
        Found::Test { outcome: TestOutcome::Fail | TestOutcome::Error, .. } => (t + 1, e),
        Found::Diagnostic { severity: Severity::Error, .. } => (t, e + 1),
        _ => (t, e),
    })
}

/// The test state findings amount to: failing tests first, then build errors.
pub fn state(findings: &[Finding]) -> TestState {
    match counts(findings) {
        (0, 0) => TestState::Passing,
        (0, _) => TestState::BuildBroken,
        _ => TestState::Failing,
    }
}
