//! What `nerd run` and the interactive session share: the agent's options
//! from the command line, the provider layering, event printers (text or
//! JSON lines) and the approval prompt.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use clap::{Args, ValueEnum};
use nerd_logic::vocab::Autonomy;

use crate::agent::event::{Event, Sink};
pub use crate::agent::setup::{Settings, Setup, SetupError};
use crate::agent::{Approver, AutoApprove, NeverApprove};
use crate::config::Provider;
use crate::policy::Action;
use crate::router::{ApprovedBy, ChildState};

/// Who answers approval prompts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalMode {
    /// Ask on the terminal; without one, answer no.
    Ask,
    /// Approve what the constitution routes to ask (never critical-risk actions).
    Auto,
    /// Answer every prompt with no.
    Never,
}

/// Agent options shared by `nerd` and `nerd run`.
#[derive(Args, Debug, Clone)]
pub struct AgentArgs {
    /// How approval prompts are answered.
    #[arg(long, value_enum, default_value = "ask")]
    pub approval: ApprovalMode,
    /// The model provider (default: layered config, then environment, then offline).
    #[arg(long, value_enum)]
    pub provider: Option<Provider>,
    /// The autonomy profile.
    #[arg(long, default_value = "balanced", value_parser = super::word::<Autonomy>(Autonomy::NAMES))]
    pub autonomy: Autonomy,
    /// Repair attempts before the loop escalates.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub retry_budget: u32,
    /// Seed for local and server models that honour one (the offline transducer is deterministic anyway).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Replay recorded model outputs (a JSON file {"outputs": [...]}) as the patch writer, for tests and audits.
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// Renames also rename the name's mentions in docs (.md, .rst, .txt, .adoc) and in code comments.
    #[arg(long)]
    pub include_docs: bool,
    /// With `--approval auto`, also approve refactors of `unsafe_to_refactor` targets (callers no test
    /// reaches); without it only a person approves them.
    #[arg(long)]
    pub allow_unsafe_refactor: bool,
}

impl AgentArgs {
    /// What the agent's set-up needs from these options.
    pub fn settings(&self, dry_run: bool) -> Settings {
        Settings {
            provider: self.provider,
            autonomy: self.autonomy,
            retry_budget: self.retry_budget,
            seed: self.seed,
            transcript: self.transcript.clone(),
            dry_run,
            include_docs: self.include_docs,
            interrupted: interrupt_flag(),
        }
    }
}

/// Resolves provider, options and transducers for the workspace at `root`.
pub fn setup(root: &Path, args: &AgentArgs, dry_run: bool) -> Result<Setup, SetupError> {
    crate::agent::setup::setup(root, &args.settings(dry_run))
}

static INTERRUPTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

extern "C" fn on_sigint(_: libc::c_int) {
    if let Some(flag) = INTERRUPTED.get() {
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The Ctrl-C flag, with the handler installed on first use: the loop stops
/// between steps instead of dying mid-write.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = INTERRUPTED.get_or_init(|| Arc::new(AtomicBool::new(false))).clone();
    install_sigint_handler();
    flag
}

/// (Re)installs the Ctrl-C handler; the line editor replaces it with its own when created.
pub fn install_sigint_handler() {
    // SAFETY: the handler only stores into an atomic that lives for the whole process.
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t);
    }
}

/// Prints events as JSON lines.
pub struct JsonLines<W: Write>(pub W);

impl<W: Write> Sink for JsonLines<W> {
    fn emit(&mut self, event: &Event) {
        if let Ok(line) = serde_json::to_string(event) {
            let _ = writeln!(self.0, "{line}");
            let _ = self.0.flush();
        }
    }
}

/// Prints the loop's progress as short lines, and the answer.
pub struct Text<W: Write> {
    pub out: W,
    /// Also print every decision's reasons.
    pub verbose: bool,
    /// Print the answer too (the interactive session); `nerd run` prints it to stdout itself.
    pub answers: bool,
}

impl<W: Write> Sink for Text<W> {
    fn emit(&mut self, event: &Event) {
        let line = match event {
            Event::Request { .. } => return,
            Event::Perceived { provider, category, verb, target, .. } => {
                let target = if target.is_empty() { String::new() } else { format!(" `{target}`") };
                format!("· read as {category} / {verb}{target} ({provider})")
            }
            Event::Focus { candidates } => {
                let shown: Vec<String> = candidates
                    .iter()
                    .take(3)
                    .map(|c| format!("{} ({:.2})", crate::agent::ground::label(c), c.confidence))
                    .collect();
                format!("· focus: {}", shown.join(", "))
            }
            Event::Decided { turn, strategy, next_action, because } => {
                let mut l = format!("· turn {turn}: {strategy} → {}", next_action.map_or("nothing", |a| a.as_str()));
                if self.verbose && !because.is_empty() {
                    l.push_str(&format!("\n    because {}", because.join(", ")));
                }
                l
            }
            Event::Action { action, decision, reasons } => {
                let what = match action {
                    Action::Exec { argv } => argv.join(" "),
                    other => format!("{} {}", other.kind(), other.target()),
                };
                let decision = decision.as_str();
                if reasons.is_empty() {
                    format!("· {decision}: {}", what.trim())
                } else {
                    format!("· {decision}: {} ({})", what.trim(), reasons.join("; "))
                }
            }
            Event::Approval { subject, granted, source } => {
                format!("· approval {} by {source}: {subject}", if *granted { "granted" } else { "refused" })
            }
            Event::Result { ok: true, .. } => return,
            Event::Result { kind, summary, .. } => format!("  ✗ {kind}: {summary}"),
            Event::Checked { tool, test_state, note, .. } => format!("· {tool}: {test_state} ({note})"),
            Event::Patch { attempt, files, accepted, reason } => {
                let verdict = if *accepted { "accepted" } else { "rejected" };
                format!("· patch {attempt} {verdict} {}: {reason}", files.join(", "))
            }
            Event::Memory { text } => format!("· memory: {text}"),
            Event::Model { task, tokens: Some(t) } => {
                format!("· model ({task}): {} token(s) read, {} written", t.prompt, t.completion)
            }
            Event::Model { task, tokens: None } => format!("· model ({task})"),
            Event::Mutants { target, killed, tried, .. } => {
                format!("· mutants of {target}: {killed} of {tried} made the new tests fail")
            }
            Event::Child { token, task, state: ChildState::Running, at_ms, .. } => {
                format!("· child {token} running: {task} (at {:.1} s)", *at_ms as f64 / 1000.0)
            }
            Event::Child { token, status, at_ms, .. } => {
                let how = status.as_deref().unwrap_or("ended");
                format!("· child {token} {how} (at {:.1} s)", *at_ms as f64 / 1000.0)
            }
            Event::Findings { .. } => return,
            Event::Answer { text } if self.answers => format!("\n{text}"),
            Event::Answer { .. } => return,
            Event::Question { .. } | Event::Escalated { .. } => return,
            Event::Done { status, turns, changes, block_commit, verification, .. } => {
                let mut l = format!("\n· {} after {turns} turn(s)", status.as_str());
                l.push_str(&format!("\n    {}: {}", verification.status.as_str(), verification.reason));
                for c in changes {
                    l.push_str(&format!("\n    {}  +{} −{}", c.path, c.added, c.removed));
                }
                if !block_commit.is_empty() {
                    l.push_str(&format!("\n    a commit would be blocked: {}", block_commit.join(", ")));
                }
                l
            }
        };
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }
}

/// Asks on the terminal, showing the exact argv or diff.
pub struct Prompt;

impl Approver for Prompt {
    fn approve(&mut self, subject: &str, detail: &str) -> bool {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "\nApproval needed: {subject}");
        if !detail.is_empty() {
            let _ = writeln!(err, "{detail}");
        }
        let _ = write!(err, "Approve? [y/N] ");
        let _ = err.flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).is_err() {
            return false;
        }
        matches!(line.trim().to_lowercase().as_str(), "y" | "yes")
    }

    fn source(&self) -> &str {
        "human"
    }

    fn by(&self) -> ApprovedBy {
        ApprovedBy::Human
    }
}

/// The approver the options stand for; `ask` without a terminal answers no.
pub fn approver(args: &AgentArgs) -> Box<dyn Approver> {
    match args.approval {
        ApprovalMode::Ask if std::io::stdin().is_terminal() => Box::new(Prompt),
        ApprovalMode::Ask | ApprovalMode::Never => Box::new(NeverApprove),
        ApprovalMode::Auto => Box::new(AutoApprove { unsafe_refactor: args.allow_unsafe_refactor }),
    }
}
