//! One derived `next_action`, carried out: each arm acts only through the
//! router (or answers from facts), and leaves what it learned in the loop
//! state for the next fixpoint. The repair and implement steps live in
//! `repair.rs`, the rename in `refactor.rs`, project scaffolds in
//! `scaffold.rs`; this file dispatches and holds what they share (reads,
//! writes with rollback, builds). Also the `--dry-run` plan, which derives
//! the same step and describes it without acting.
//! Knows nothing about why the kernel chose the step.

mod delegate;
mod explain;
mod refactor;
mod repair;
mod rewrite;
mod scaffold;
mod state;
mod write_tests;

pub(crate) use delegate::{assert_delegated, Delegated, TaskRow};
pub(crate) use write_tests::Written;

use std::collections::BTreeSet;
use std::path::Path;

use nerd_logic::vocab::{Action as Step, Strategy, Verb};

use super::event::{Event, Status};
use super::patch::Edit;
use super::session::Pending;
use super::verify::{self, Kind, Verification};
use super::{answer, ground, instruct, learn, Agent, AgentError, Flow, LoopState, Turn};
use crate::check::parse::Found;
use crate::config::Config;
use crate::diff;
use crate::kernel::{self, LoadFor, Loaded};
use crate::memory::rules::{Proposed, Status as RuleStatus};
use crate::perceive::focus::Candidate;
use crate::perceive::state::StateAsked;
use crate::policy::Action;
use crate::router::{Outcome, Output, Record, Router};

const NEEDS_MODEL: &str = "needs a language model to write code, and none is configured. \
Set one in .nerd/config.toml or ~/.config/nerd/config.toml ([model] provider = \"openai\" | \"anthropic\" | \"ollama\"), \
or export OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST. Without one, nerd answers questions from facts, \
runs tests, renames symbols and records rules.";

fn has_python(loaded: &Loaded) -> bool {
    loaded.files.iter().any(|f| f.path.ends_with(".py"))
}

/// What a model's patch is for: the files it may change (`new_files` among
/// them do not exist yet) and the task it is given.
pub(super) struct PatchScope {
    pub paths: BTreeSet<String>,
    pub new_files: BTreeSet<String>,
    pub task: String,
}

/// The files `edits` would create: those the index does not hold.
fn created_by(loaded: &Loaded, edits: &[Edit]) -> BTreeSet<String> {
    edits.iter().map(|e| &e.path).filter(|p| !loaded.files.iter().any(|f| f.path == **p)).cloned().collect()
}

/// What the patch writer is told about the files it may create.
fn creation_note(new_files: &BTreeSet<String>) -> String {
    if new_files.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = new_files.iter().map(String::as_str).collect();
    format!(" You may create {} (it does not exist yet: edits with start_line 1 and end_line 0).", names.join(", "))
}

/// What became of a change that was written and checked.
enum Applied {
    /// It stays; whatever the checks still report failing predates it.
    Kept { verification: Verification },
    /// The checks found failures it introduced (`new`); every file was restored
    /// and every created one deleted (`left`: the ones that could only be emptied).
    RolledBack { new: Vec<String>, left: Vec<String> },
}

impl Agent<'_> {
    /// Carries out one derived step of the turn `t`.
    pub(super) fn step(&mut self, next: Step, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (request, intent, focus) = (t.request, t.intent, t.focus);
        Ok(match next {
            Step::AskClarification => {
                let text = ground::question(intent, focus);
                let options: Vec<Candidate> = focus.iter().take(5).cloned().collect();
                if !options.is_empty() && intent.missing.is_empty() {
                    self.session.state.pending =
                        Some(Pending { request: request.to_string(), options: options.clone() });
                }
                let labels = options.iter().map(|c| ground::label(c).to_string()).collect();
                self.emit(Event::Question { text: text.clone(), options: labels });
                Flow::Stop(Status::NeedsClarification, text)
            }
            Step::RefuseRequest => {
                let text = refusal(&t.unworkable);
                self.emit(Event::Question { text: text.clone(), options: vec![] });
                Flow::Stop(Status::Refused, text)
            }
            Step::AnswerQuery => match intent.verb {
                Verb::Status => {
                    let asked = crate::perceive::state::asked(request);
                    match state::answer(asked, &self.root, t.world, &intent.target, focus) {
                        Some((status, text, verified)) => {
                            if verified.is_some() {
                                self.verified = verified;
                            }
                            Flow::Stop(status, text)
                        }
                        None => self.test_status(&mut t.router, t.world, focus)?,
                    }
                }
                Verb::Impact => Flow::Stop(Status::Answered, answer::impact(request, focus, t.world)),
                Verb::Explain => {
                    let facts = answer::locate(request, focus, t.world);
                    self.explained(t, facts)?
                }
                _ => Flow::Stop(Status::Answered, answer::locate(request, focus, t.world)),
            },
            Step::Delegate => self.delegate(t)?,
            Step::Survey => match self.survey(t)? {
                Flow::Stop(Status::Answered, facts) if self.options.delegation.is_none() => self.explained(t, facts)?,
                other => other,
            },
            Step::ReviewChanges => Flow::Stop(Status::Answered, answer::review(t.world)),
            Step::RunTests => self.run_tests(t)?,
            Step::ProposePatch => self.propose_patch(t)?,
            Step::ApplyPatch if t.strategy == Strategy::Refactor => self.apply_rewrite(t)?,
            Step::ApplyPatch if t.strategy == Strategy::WriteTests => self.apply_tests(t)?,
            Step::ApplyPatch => self.apply_patch(t)?,
            Step::CheckMutants => self.check_mutants(t)?,
            Step::WithdrawPatch => self.withdraw_tests(t)?,
            Step::ReportSuccess if t.strategy == Strategy::Refactor => self.rewrite_report(t, true),
            Step::ReportUnverified if t.strategy == Strategy::Refactor => self.rewrite_report(t, false),
            Step::ReportSuccess if t.strategy == Strategy::WriteTests => self.tests_report(t),
            Step::Escalate if matches!(t.strategy, Strategy::Refactor | Strategy::WriteTests) => {
                let st = &t.state;
                let text = format!(
                    "No acceptable change after {} attempt(s), the retry budget; over to you.\nTried:\n  {}\n\
                     Every attempt that was written has been taken back; nothing of this request is left in the files.",
                    st.retries,
                    st.tried.join("\n  ")
                );
                self.emit(Event::Escalated { text: text.clone(), tried: st.tried.clone() });
                Flow::Stop(Status::Escalated, text)
            }
            Step::ReportSuccess => {
                let st = &t.state;
                let checked = self.verified.as_ref().map_or(String::new(), |v| format!(" ({})", v.sentence()));
                let text = if st.changes.is_empty() {
                    format!("The tests pass; there is nothing to fix{checked}.")
                } else {
                    format!("The tests pass after {} patch attempt(s){checked}. {}", st.retries, st.explanation)
                };
                Flow::Stop(Status::Succeeded, text.trim().to_string())
            }
            Step::ReportUnverified => {
                let why = self.verified.as_ref().map_or("no test ran".to_string(), |v| v.reason.clone());
                let text = if t.state.changes.is_empty() {
                    format!("Nothing failed, but nothing was verified either: {why}.")
                } else {
                    format!(
                        "After {} patch attempt(s) nothing fails, but the result is not verified: {why}. {}",
                        t.state.retries, t.state.explanation
                    )
                };
                Flow::Stop(Status::Unverified, text.trim().to_string())
            }
            Step::Escalate => {
                let st = &t.state;
                let failing: Vec<String> = st
                    .findings
                    .iter()
                    .filter_map(|f| match &f.found {
                        Found::Test { name, .. } => Some(format!("{name} ({}:{})", f.path, f.line)),
                        Found::Diagnostic { code, message, .. } => {
                            Some(format!("{code} {message} ({}:{})", f.path, f.line))
                        }
                        _ => None,
                    })
                    .take(10)
                    .collect();
                let text = format!(
                    "Still failing after {} attempt(s), the retry budget; over to you.\nStill failing: {}\nTried:\n  {}\n\
                     The last applied attempt is still in the files; `nerd undo` restores them as they were before this request.",
                    st.retries,
                    if failing.is_empty() { "(see the test output)".to_string() } else { failing.join(", ") },
                    st.tried.join("\n  ")
                );
                self.emit(Event::Escalated { text: text.clone(), tried: st.tried.clone() });
                Flow::Stop(Status::Escalated, text)
            }
            Step::AskApproval => {
                let target = focus.first().map(ground::label).unwrap_or_default().to_string();
                let subject = format!(
                    "refactor {target}: some of its callers are reached by no test (unsafe_to_refactor), so a mistake would go unnoticed"
                );
                let detail = format!("nerd why 'unsafe_to_refactor(\"{target}\")'");
                if !self.approver.may_approve_unsafe_refactor() {
                    let source = self.approver.source().to_string();
                    self.emit(Event::Approval { subject: subject.clone(), granted: false, source: source.clone() });
                    t.router.record(Record::Approval {
                        action: None,
                        subject: Some(subject.clone()),
                        granted: false,
                        by: Some(self.approver.by()),
                        source,
                    })?;
                    return Ok(Flow::Stop(
                        Status::Refused,
                        format!(
                            "Not changed: {subject}. A person approves that (`--approval ask` on a terminal), \
                             or `--approval auto --allow-unsafe-refactor` approves it for them."
                        ),
                    ));
                }
                let granted = self.ask_approver(&mut t.router, &subject, &detail)?;
                if granted {
                    t.state.approved = true;
                    Flow::Continue
                } else {
                    Flow::Stop(Status::Refused, format!("Not changed: {subject}, and the refactor was not approved."))
                }
            }
            Step::ApplyRefactor => self.apply_rename(t)?,
            Step::ProposeEdit => self.implement(t)?,
            Step::Scaffold => self.scaffold(t)?,
            Step::RecordRule => self.learn_rule(t)?,
            Step::UpdateMemory => {
                let session = self.session.id.clone();
                let (status, text) = super::recall::update(self.memories()?, intent, &session, Some(&*t.world))?;
                Flow::Stop(status, text)
            }
            Step::RunChecks => match crate::check::check(&self.root, crate::check::Mode::Staged, None, true) {
                Ok(outcome) if !outcome.blocked => Flow::Stop(
                    Status::Succeeded,
                    "The staged changes pass the commit gate; `git commit` will go through.".into(),
                ),
                Ok(outcome) => {
                    let lines: Vec<String> =
                        outcome.blockers.iter().map(|b| format!("  {}:{} {}", b.path, b.line, b.reason)).collect();
                    Flow::Stop(Status::Refused, format!("The commit would be blocked:\n{}", lines.join("\n")))
                }
                Err(e) => Flow::Stop(Status::Failed, e.to_string()),
            },
        })
    }

    /// Runs one build or test tool through the router (approval, events and all).
    fn run_tool(
        &mut self,
        router: &mut Router,
        tool: crate::config::Tool,
        only: Option<&verify::OneTest>,
    ) -> Result<verify::ToolRun, AgentError> {
        let action = match verify::action(tool, &self.root, only) {
            Ok(a) => a,
            Err(hint) => return Ok(verify::missing(tool, hint)),
        };
        let detail = match &action {
            Action::Exec { argv } => argv.join(" "),
            _ => String::new(),
        };
        let reasons = router.judge(&action).reasons;
        let outcome = self.act(router, &action, &detail)?;
        Ok(verify::read(tool, &self.root, outcome, reasons))
    }

    /// Reports one tool's run as a `checked` event.
    fn checked(&mut self, run: &verify::ToolRun) {
        let (failed, errors) = verify::counts(&run.findings);
        let v = Verification::of(std::slice::from_ref(run));
        let check = v.checks.first();
        self.emit(Event::Checked {
            tool: run.tool.name().into(),
            failed,
            errors,
            test_state: verify::state_of(&v, &run.findings),
            verification: v.status,
            tests_run: check.and_then(|c| c.tests_run),
            note: check.map(|c| c.note.clone()).unwrap_or_default(),
        });
    }

    /// Reads a workspace file through the router.
    fn read(&mut self, router: &mut Router, path: &str) -> Result<Option<String>, AgentError> {
        let action = Action::ReadFile { path: path.to_string() };
        Ok(match self.act(router, &action, "")? {
            Some(Outcome::Executed { output: Output::Read { content, truncated: false } }) => Some(content),
            _ => None,
        })
    }

    /// Writes edits through the router, unless they break a learned rule in
    /// force. `Err(flow)`: refused or failed; what was written is restored. A
    /// write a person declines is remembered with what it would have broken.
    fn write_all(&mut self, router: &mut Router, edits: &[Edit]) -> Result<Result<(), Flow>, AgentError> {
        let rules = self.memories()?.rules_in_force()?;
        let broken = learn::violations(&rules, edits);
        if !broken.is_empty() {
            let why = learn::refusal(&rules, &broken);
            return Ok(Err(Flow::Stop(Status::Refused, format!("Not changed: {why}."))));
        }
        // The request's own constraints, named before anything is written. The kernel denies such
        // a write too: the first one is put to the router, so the trail keeps the denial and its reason.
        if let Some((why, path)) = learn::constraint_refusal(router.constraints(), edits) {
            if let Some(edit) = edits.iter().find(|e| e.path == path) {
                let action = Action::WriteFile { path: path.clone(), content: Some(edit.new.clone()) };
                let shown = diff::change(&path, &edit.old, &edit.new).diff;
                if self.act(router, &action, &shown)?.is_some() {
                    // Never expected (the kernel denies it); should it happen, the file goes back.
                    self.restore(router, std::slice::from_ref(edit))?;
                }
            }
            return Ok(Err(Flow::Stop(Status::Refused, format!("Not changed: {why}."))));
        }
        for (n, Edit { path, old, new }) in edits.iter().enumerate() {
            let action = Action::WriteFile { path: path.clone(), content: Some(new.clone()) };
            let shown = diff::change(path, old, new).diff;
            let asks_person = router.judge(&action).decision == crate::policy::Verdict::Ask
                && self.approver.by() == crate::router::ApprovedBy::Human;
            match self.act(router, &action, &shown)? {
                Some(Outcome::Executed { .. }) => {}
                refused_or_failed => {
                    self.restore(router, &edits[..n])?;
                    let declined = refused_or_failed.is_none() && asks_person;
                    let mut text = format!("Could not write {path}; nothing was changed.");
                    if declined {
                        let session = self.session.id.clone();
                        for rule in learn::declined(self.memories()?, &session, edits)? {
                            text.push_str(&format!(
                                "\nYou have now declined {} patches that {}. Proposed rule {}: {}; accept it with `nerd memory rules accept {}`.",
                                rule.evidence, rule.text, rule.id, rule.rule, rule.id
                            ));
                        }
                    }
                    let status = if refused_or_failed.is_none() { Status::Refused } else { Status::Failed };
                    return Ok(Err(Flow::Stop(status, text)));
                }
            }
        }
        Ok(Ok(()))
    }

    /// A standing instruction or preference: proposed as a rule, put to the
    /// approver, accepted, declined, or left proposed when nobody can answer.
    fn learn_rule(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        self.memory_request = true;
        let session = self.session.id.clone();
        let lang = instruct::main_language(&self.root);
        let rule = match learn::propose(self.memories()?, t.request, t.intent, lang, &session)? {
            Err(why) => return Ok(Flow::Stop(Status::Refused, format!("Not recorded as a rule: {why}."))),
            Ok(Proposed::Known(rule)) if rule.status == RuleStatus::Accepted => {
                let text = format!("Rule {} is already in force: {} ({}).", rule.id, rule.rule, rule.source());
                return Ok(Flow::Stop(Status::Succeeded, text));
            }
            Ok(Proposed::Known(rule) | Proposed::New(rule)) => rule,
        };
        let granted = self.ask_approver(&mut t.router, &learn::question(&rule), learn::enforced_where(&rule))?;
        let by_person = self.approver.by() == crate::router::ApprovedBy::Human;
        let source = self.approver.source().to_string();
        let (status, text) = learn::decide(self.memories()?, &rule, granted, by_person, &source)?;
        Ok(Flow::Stop(status, text))
    }

    /// Puts a question that is no action to the approver, shows the answer
    /// and records it in the trail with who gave it.
    fn ask_approver(&mut self, router: &mut Router, subject: &str, detail: &str) -> Result<bool, AgentError> {
        let granted = self.approver.approve(subject, detail);
        let source = self.approver.source().to_string();
        self.emit(Event::Approval { subject: subject.to_string(), granted, source: source.clone() });
        router.record(Record::Approval {
            action: None,
            subject: Some(subject.to_string()),
            granted,
            by: Some(self.approver.by()),
            source,
        })?;
        Ok(granted)
    }

    /// Takes written `edits` back: each file that existed as it was, each file
    /// in `created` deleted (emptied when deleting is refused, which the
    /// returned notes say).
    fn take_back_files(
        &mut self,
        router: &mut Router,
        edits: &[Edit],
        created: &BTreeSet<String>,
    ) -> Result<Vec<String>, AgentError> {
        let existing: Vec<Edit> = edits.iter().filter(|e| !created.contains(&e.path)).cloned().collect();
        self.restore(router, &existing)?;
        let mut notes = Vec::new();
        for path in created {
            let action = Action::DeleteFile { path: path.clone() };
            if self.act(router, &action, "take back a file this request created")?.is_none() {
                let empty = Action::WriteFile { path: path.clone(), content: Some(String::new()) };
                self.act(router, &empty, "restore")?;
                notes.push(format!("{path} could not be deleted and was left empty; `nerd undo` removes it"));
            }
        }
        Ok(notes)
    }

    /// Puts the files of `edits` back as they were before them, through the router.
    fn restore(&mut self, router: &mut Router, edits: &[Edit]) -> Result<(), AgentError> {
        for Edit { path, old, .. } in edits.iter().rev() {
            let action = Action::WriteFile { path: path.clone(), content: Some(old.clone()) };
            self.act(router, &action, "restore")?;
        }
        Ok(())
    }

    /// Writes `edits`, then runs the `kinds` of checks; when they report an error
    /// that is not in `already`, every file is restored and every file the edits
    /// created deleted. `Err(flow)`: a write was refused or failed (and what was
    /// written is restored).
    fn apply_checked(
        &mut self,
        router: &mut Router,
        loaded: &Loaded,
        edits: &[Edit],
        kinds: &[Kind],
        already: &BTreeSet<String>,
    ) -> Result<Result<Applied, Flow>, AgentError> {
        let created = created_by(loaded, edits);
        if let Err(flow) = self.write_all(router, edits)? {
            return Ok(Err(flow));
        }
        let verification = self.verify(router, loaded, kinds)?;
        let new: Vec<String> = verification.failing.iter().filter(|e| !already.contains(*e)).cloned().collect();
        if new.is_empty() {
            return Ok(Ok(Applied::Kept { verification }));
        }
        let left = self.take_back_files(router, edits, &created)?;
        Ok(Ok(Applied::RolledBack { new, left }))
    }

    /// Builds or tests through the router: what the runs establish. It is
    /// also the request's latest verification.
    fn verify(&mut self, router: &mut Router, loaded: &Loaded, kinds: &[Kind]) -> Result<Verification, AgentError> {
        let mut runs = Vec::new();
        for kind in kinds {
            for tool in verify::tools_for(&self.root, &self.config.check, *kind, has_python(loaded)) {
                let run = self.run_tool(router, tool, None)?;
                if run.missing.is_none() && run.refused.is_none() {
                    self.checked(&run);
                }
                runs.push(run);
            }
        }
        let verification = Verification::of(&runs);
        self.verified = Some(verification.clone());
        Ok(verification)
    }

    fn reload(&mut self, loaded: &mut Loaded) -> Result<(), AgentError> {
        crate::index::index(&self.root, &mut self.store, &|_, _| {})?;
        *loaded = kernel::load(&self.root, &self.store, LoadFor::Evaluation)?;
        Ok(())
    }

    fn record_changes(st: &mut LoopState, edits: &[Edit]) {
        for Edit { path, old, new } in edits {
            match st.changes.iter_mut().find(|c| c.path == *path) {
                // Keep one cumulative change per file: from its first old text to its newest.
                Some(c) => {
                    let first_old = st.originals.get(path).cloned().unwrap_or_default();
                    *c = diff::change(path, &first_old, new);
                }
                None => {
                    st.originals.insert(path.clone(), old.clone());
                    st.changes.push(diff::change(path, old, new));
                }
            }
        }
    }
}

/// Why a request asks for what nerd cannot change, one line per path.
fn refusal(unworkable: &[(String, nerd_logic::vocab::Unworkable)]) -> String {
    use nerd_logic::vocab::Unworkable;
    let lines: Vec<String> = unworkable
        .iter()
        .map(|(path, why)| match why {
            Unworkable::BinaryFile => {
                format!("{path} is a binary file: nerd changes text (code, configuration, docs), never bytes it cannot read")
            }
            Unworkable::OutsideWorkspace => {
                format!("{path} is outside this workspace: nerd changes only the files of the repository it runs in")
            }
        })
        .collect();
    format!("Not done: {}. Nothing was changed.", lines.join("; "))
}

/// The `--dry-run` description of a derived step: what would happen, acting on nothing.
pub(super) fn plan(next: Step, t: &Turn<'_>, root: &Path, config: &Config) -> String {
    let (intent, focus, loaded) = (t.intent, t.focus, &*t.world);
    let argv = |kind: Kind| -> Vec<String> {
        verify::tools_for(root, &config.check, kind, has_python(loaded))
            .into_iter()
            .map(|t| match crate::check::tools::argv(t, root) {
                Some(v) => v.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" "),
                None => format!("{} (not installed)", t.name()),
            })
            .collect()
    };
    let target = focus.first().map(ground::label).unwrap_or(&intent.target).to_string();
    match next {
        Step::RefuseRequest => format!("Would refuse: {}", refusal(&t.unworkable)),
        Step::AskClarification => format!("Would ask: {}", ground::question(intent, focus)),
        Step::AnswerQuery if intent.verb == Verb::Status => match crate::perceive::state::asked(t.request) {
            StateAsked::Tests => format!("Would run the tests and report: {}", argv(Kind::Tests).join("; ")),
            StateAsked::Changes => "Would list what differs from HEAD (git) and what it impacts (no action).".into(),
            StateAsked::Branch => "Would say which branch HEAD is on (git; no action).".into(),
            StateAsked::Commits => "Would list the newest commits (git log; no action).".into(),
            StateAsked::Diagnostics => {
                "Would run the commit gate's checks on the working tree and list their diagnostics.".into()
            }
        },
        Step::AnswerQuery if intent.verb == Verb::Impact => answer::impact(t.request, focus, loaded),
        Step::AnswerQuery => format!("Would answer from facts about {target}."),
        Step::Delegate => "Would share the kernel's delegate_task atoms (one survey per top-level area) among at most \
             [shards] max_parallel read-only children run side by side, then gather their surveys."
            .into(),
        Step::Survey => "Would survey each top-level area here, from the index and the files' text (no action).".into(),
        Step::ReviewChanges => "Would review the changes against HEAD from facts (no action).".into(),
        Step::RunTests if t.strategy == Strategy::Refactor => format!(
            "Plan: run the tests ({}) to know what passes now, ask the model for the refactor of {target}, apply it \
             only if the build and every test that passed before still pass (else roll it back and retry), within \
             the retry budget.",
            argv(Kind::Tests).join("; ")
        ),
        Step::RunTests => format!(
            "Plan: run the tests ({}), then ask the model for a patch for each failure, apply it only if it stays \
             inside the failures' focus and the build passes, and rerun; escalate after the retry budget.",
            argv(Kind::Tests).join("; ")
        ),
        Step::ProposePatch if t.strategy == Strategy::WriteTests => format!(
            "Plan: ask the model for new tests of {target}, keep them only if they change no code under test, pass \
             on today's code ({}) and fail on at least one seeded mutant of {target}; otherwise remove them and retry \
             within the retry budget.",
            argv(Kind::Tests).join("; ")
        ),
        Step::CheckMutants => format!("Would run the new tests against seeded mutants of {target}, one at a time."),
        Step::WithdrawPatch => "Would remove the new tests: no seeded mutant made them fail.".into(),
        Step::ProposePatch | Step::ApplyPatch | Step::ProposeEdit => {
            format!("Would ask the model for a patch about {target}, validate it and apply it through the router.")
        }
        Step::AskApproval if intent.verb != Verb::Rename => format!(
            "Would ask for approval first ({target} is unsafe_to_refactor: some of its callers are reached by no \
             test), then run the tests ({}) to know what passes now, ask the model for the refactor of {target}, and \
             keep it only if the build and every test that passed before still pass.",
            argv(Kind::Tests).join("; ")
        ),
        Step::ApplyRefactor | Step::AskApproval => {
            let new = ground::new_name(intent).unwrap_or("?");
            let calls: usize = focus
                .iter()
                .take(1)
                .map(|c| {
                    loaded
                        .resolution
                        .files
                        .values()
                        .flat_map(|r| r.calls.iter())
                        .filter(|(_, callee, _, p)| *callee == c.symbol && p.is_certain())
                        .count()
                })
                .sum();
            let approval =
                if next == Step::AskApproval { " after asking for approval (unsafe_to_refactor)" } else { "" };
            format!(
                "Would rename {target} to `{new}`{approval}: its definition and {calls} resolved call site(s), then run {}.",
                argv(Kind::Build).into_iter().chain(argv(Kind::Tests)).collect::<Vec<_>>().join("; ")
            )
        }
        Step::Escalate => "Would stop and hand over to you: the retry budget is spent.".into(),
        Step::ReportSuccess => "Would report success: the tests pass.".into(),
        Step::ReportUnverified => "Would report that nothing failed but nothing was verified.".into(),
        Step::Scaffold => "Would create a new project's files.".into(),
        Step::RecordRule => {
            "Would propose the instruction as a learned rule and ask you to accept it; accepted rules refuse \
             patches that break them, block commits, and are shown to the model."
                .into()
        }
        Step::RunChecks => "Would run the commit gate on the staged changes.".into(),
        Step::UpdateMemory => "Would remember or forget what the request says.".into(),
    }
}
