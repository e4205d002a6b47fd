//! Answers about the project's state other than the tests: the working tree's
//! changes, the branch and the commits (read from git, answered in
//! `agent::answer`), and the compilers' and linters' diagnostics, which the
//! commit gate's checks produce on the working tree as it is. Knows nothing
//! about why the kernel chose to answer.

use std::path::Path;

use super::answer;
use crate::agent::event::Status;
use crate::agent::verify::Verification;
use crate::check::parse::Found;
use crate::check::tools::Status as ToolStatus;
use crate::kernel::Loaded;
use crate::perceive::focus::Candidate;
use crate::perceive::state::StateAsked;

/// Diagnostics listed before the rest are counted.
const LISTED: usize = 25;

/// The answer to a status question that does not ask for the tests, and the verification it rests
/// on where something ran; `None` when it asks for the tests.
pub(super) fn answer(
    asked: StateAsked,
    root: &Path,
    loaded: &Loaded,
    target: &str,
    focus: &[Candidate],
) -> Option<(Status, String, Option<Verification>)> {
    Some(match asked {
        StateAsked::Tests => return None,
        StateAsked::Changes => (Status::Answered, answer::changes(root, loaded), None),
        StateAsked::Branch => (Status::Answered, answer::branch(root), None),
        StateAsked::Commits => {
            // "Who last changed parser.py": the commits of what the question names, when it is sure.
            let named = focus
                .first()
                .filter(|c| !target.is_empty() && c.confidence >= crate::agent::ground::CONFIDENT)
                .map(|c| c.path.as_str());
            (Status::Answered, answer::commits(root, named), None)
        }
        StateAsked::Diagnostics => {
            let (status, text) = diagnostics(root);
            // Checkers ran, tests did not: the request's verification says both.
            (status, text, Some(Verification::nothing(DIAGNOSTICS_RAN)))
        }
    })
}

/// What a diagnostics answer verified.
const DIAGNOSTICS_RAN: &str = "the checkers ran on the working tree; no test ran for this request";

/// The working tree's diagnostics, as the commit gate's checks report them. "None" is said only
/// when a checker ran.
fn diagnostics(root: &Path) -> (Status, String) {
    let outcome = match crate::check::check(root, crate::check::Mode::All, None, true) {
        Ok(outcome) => outcome,
        Err(e) => return (Status::Unverified, format!("Unknown: the checks could not run ({e}).")),
    };
    let ran: Vec<&str> =
        outcome.tools.iter().filter(|t| matches!(t.status, ToolStatus::Ran { .. })).map(|t| t.tool.as_str()).collect();
    let missing: Vec<String> = outcome
        .tools
        .iter()
        .filter_map(|t| match &t.status {
            ToolStatus::Missing { hint } => Some(format!("{} is not installed ({hint})", t.tool)),
            ToolStatus::TimedOut => Some(format!("{} timed out", t.tool)),
            ToolStatus::Ran { .. } => None,
        })
        .collect();
    let found: Vec<String> = outcome
        .findings
        .iter()
        .filter_map(|f| match &f.found {
            Found::Diagnostic { code, .. } if code == crate::check::baseline::MISSING_TOOL => None,
            Found::Diagnostic { severity, code, message } => {
                let place = if f.path.is_empty() { f.source.clone() } else { format!("{}:{}", f.path, f.line) };
                Some(format!("{place} {severity} {code}: {message}"))
            }
            Found::Secret { kind } => Some(format!("{}:{} secret: {kind}", f.path, f.line)),
            Found::Rule { id } => Some(format!("{}:{} breaks rule {id}", f.path, f.line)),
            Found::Test { .. } => None,
        })
        .collect();
    let mut out = Vec::new();
    let status = if ran.is_empty() {
        out.push("Unknown: no checker ran on the working tree.".to_string());
        Status::Unverified
    } else if found.is_empty() {
        out.push(format!("No diagnostics: {} ran on the working tree and reported nothing.", ran.join(", ")));
        Status::Answered
    } else {
        out.push(format!("{} diagnostic(s) in the working tree, from {}:", found.len(), ran.join(", ")));
        out.extend(found.iter().take(LISTED).map(|f| format!("  {f}")));
        if found.len() > LISTED {
            out.push(format!("  … and {} more (`nerd check --all` lists them all)", found.len() - LISTED));
        }
        Status::Answered
    };
    out.extend(missing.iter().map(|m| format!("Not checked: {m}.")));
    (status, out.join("\n"))
}
