//! One derived `next_action`, carried out: each arm acts only through the
//! router (or answers from facts), and leaves what it learned in the loop
//! state for the next fixpoint. Also the `--dry-run` plan, which derives the
//! same step and describes it without acting.
//! Knows nothing about why the kernel chose the step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use nerd_logic::vocab::{Action as Step, TestState, Verb};
use serde_json::json;

use super::event::{Event, Status};
use super::patch::Edit;
use super::session::Pending;
use super::verify::{self, Kind};
use super::{answer, diff, ground, instruct, patch, rename, Agent, AgentError, Flow, LoopState};
use crate::check::parse::Found;
use crate::config::Config;
use crate::kernel::{self, LoadFor, Loaded};
use crate::perceive::focus::Candidate;
use crate::perceive::Intent;
use crate::policy::Action;
use crate::router::{Outcome, Output, Router};
use crate::world::lang::Lang;

/// Lines of one file shown to the patch writer.
const MAX_PROMPT_FILE_LINES: usize = 1500;
/// Files shown to the patch writer.
const MAX_PROMPT_FILES: usize = 8;

const NEEDS_MODEL: &str = "needs a language model to write code, and none is configured. \
Set one in .nerd/config.toml or ~/.config/nerd/config.toml ([model] provider = \"openai\" | \"anthropic\" | \"ollama\"), \
or export OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST. Without one, nerd answers questions from facts, \
runs tests, renames symbols and records rules.";

fn has_python(loaded: &Loaded) -> bool {
    loaded.files.iter().any(|f| f.path.ends_with(".py"))
}

/// Languages whose files can refer to each other's names.
fn family(lang: Lang) -> u8 {
    match lang {
        Lang::Rust => 0,
        Lang::Go => 1,
        Lang::Python => 2,
        Lang::TypeScript | Lang::Tsx => 3,
    }
}

/// What the test tools found.
struct TestRun {
    findings: Vec<crate::check::parse::Finding>,
    /// The tools' last output lines, for the patch writer.
    output: String,
    /// The tools that ran.
    ran: Vec<String>,
}

impl Agent<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn step(
        &mut self,
        next: Step,
        request: &str,
        intent: &Intent,
        focus: &[Candidate],
        loaded: &mut Loaded,
        router: &mut Router,
        st: &mut LoopState,
    ) -> Result<Flow, AgentError> {
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
            Step::AnswerQuery => match intent.verb {
                Verb::Status => self.test_status(router, loaded)?,
                Verb::Impact => Flow::Stop(Status::Answered, answer::impact(focus, loaded)),
                _ => Flow::Stop(Status::Answered, answer::locate(request, focus, loaded)),
            },
            Step::Survey => Flow::Stop(Status::Answered, answer::survey(loaded)),
            Step::ReviewChanges => Flow::Stop(Status::Answered, answer::review(loaded)),
            Step::RunTests => self.run_tests(router, loaded, st)?,
            Step::ProposePatch => self.propose_patch(request, focus, loaded, router, st)?,
            Step::ApplyPatch => self.apply_patch(router, loaded, st)?,
            Step::ReportSuccess => {
                let text = if st.changes.is_empty() {
                    "The tests pass; there is nothing to fix.".to_string()
                } else {
                    format!("The tests pass after {} patch attempt(s). {}", st.retries, st.explanation)
                };
                Flow::Stop(Status::Succeeded, text.trim().to_string())
            }
            Step::Escalate => {
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
                let granted = self.approver.approve(&subject, &format!("nerd why 'unsafe_to_refactor(\"{target}\")'"));
                let source = self.approver.source().to_string();
                self.emit(Event::Approval { subject: subject.clone(), granted, source: source.clone() });
                router
                    .record(json!({"record": "approval", "subject": subject, "granted": granted, "source": source}))?;
                if granted {
                    st.approved = true;
                    Flow::Continue
                } else {
                    Flow::Stop(Status::Refused, format!("Not changed: {subject}, and the refactor was not approved."))
                }
            }
            Step::ApplyRefactor => self.apply_rename(intent, focus, loaded, router, st)?,
            Step::ProposeEdit => self.implement(request, focus, loaded, router, st)?,
            Step::Scaffold => self.scaffold(request, router, st)?,
            Step::RecordRule => match instruct::record(&self.root, request, intent) {
                Ok(instruct::Recorded::Added { id, path }) => {
                    Flow::Stop(Status::Succeeded, format!("Recorded rule {id} in {path}; the commit gate enforces it."))
                }
                Ok(instruct::Recorded::AlreadyThere { id }) => {
                    Flow::Stop(Status::Succeeded, format!("Rule {id} is already recorded."))
                }
                Ok(instruct::Recorded::Refused { why }) => Flow::Stop(Status::Refused, format!("Not recorded: {why}")),
                Err(e) => Flow::Stop(Status::Failed, e.to_string()),
            },
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

    /// Runs the test tools through the router; `None` when there are none to run.
    fn tests(&mut self, router: &mut Router, loaded: &Loaded) -> Result<Result<TestRun, Flow>, AgentError> {
        let tools = verify::tools_for(&self.root, &self.config.check, Kind::Tests, has_python(loaded));
        if tools.is_empty() {
            let text = "No test runner found here (nerd runs cargo test, go test, pytest and node --test, \
                        detected from Cargo.toml, go.mod, Python files and package.json).";
            return Ok(Err(Flow::Stop(Status::Failed, text.into())));
        }
        let (mut findings, mut tails, mut ran, mut missing) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for tool in tools {
            let run = self.run_tool(router, tool)?;
            if let Some(reasons) = run.refused {
                return Ok(Err(Flow::Stop(
                    Status::Refused,
                    format!("Running {} was refused: {}", tool.name(), reasons.join("; ")),
                )));
            }
            if let Some(hint) = run.missing {
                missing.push(format!("{} is not installed ({hint})", tool.name()));
                continue;
            }
            let (failed, errors) = verify::counts(&run.findings);
            self.emit(Event::Checked {
                tool: tool.name().into(),
                failed,
                errors,
                test_state: verify::state(&run.findings).to_string(),
            });
            ran.push(tool.name().to_string());
            findings.extend(run.findings);
            tails.push(run.tail);
        }
        if ran.is_empty() {
            return Ok(Err(Flow::Stop(Status::Failed, missing.join("; "))));
        }
        Ok(Ok(TestRun { findings, output: tails.join("\n"), ran }))
    }

    /// Runs one build or test tool through the router (approval, events and all).
    fn run_tool(&mut self, router: &mut Router, tool: crate::config::Tool) -> Result<verify::ToolRun, AgentError> {
        let action = match verify::action(tool, &self.root) {
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

    fn test_status(&mut self, router: &mut Router, loaded: &Loaded) -> Result<Flow, AgentError> {
        let TestRun { findings, ran, .. } = match self.tests(router, loaded)? {
            Ok(done) => done,
            Err(flow) => return Ok(flow),
        };
        let (failed, errors) = verify::counts(&findings);
        if failed + errors == 0 {
            return Ok(Flow::Stop(Status::Answered, format!("Yes: the tests pass ({}).", ran.join(", "))));
        }
        let mut lines = vec![format!("No: {failed} failing test(s), {errors} error(s) ({}).", ran.join(", "))];
        for f in findings.iter().take(25) {
            match &f.found {
                Found::Test { name, outcome } => lines.push(format!("  {outcome} {name}  ({}:{})", f.path, f.line)),
                Found::Diagnostic { code, message, .. } => {
                    lines.push(format!("  {code} {message}  ({}:{})", f.path, f.line))
                }
                _ => {}
            }
        }
        Ok(Flow::Stop(Status::Answered, lines.join("\n")))
    }

    fn run_tests(&mut self, router: &mut Router, loaded: &Loaded, st: &mut LoopState) -> Result<Flow, AgentError> {
        let TestRun { findings, output, .. } = match self.tests(router, loaded)? {
            Ok(done) => done,
            Err(flow) => return Ok(flow),
        };
        st.test_state = verify::state(&findings);
        st.findings = findings;
        st.test_output = output;
        Ok(Flow::Continue)
    }

    /// Reads a workspace file through the router.
    fn read(&mut self, router: &mut Router, path: &str) -> Result<Option<String>, AgentError> {
        let action = Action::ReadFile { path: path.to_string() };
        Ok(match self.act(router, &action, "")? {
            Some(Outcome::Executed { output: Output::Read { content, truncated: false } }) => Some(content),
            _ => None,
        })
    }

    /// The files a repair may touch: where the failures are, what the failing
    /// tests reach through calls, and what the user named.
    fn repair_focus(&self, loaded: &Loaded, focus: &[Candidate], st: &LoopState) -> BTreeSet<String> {
        let mut paths: BTreeSet<String> = focus.iter().map(|c| c.path.clone()).collect();
        let mut start: Vec<String> = Vec::new();
        for f in &st.findings {
            if f.path.is_empty() || !loaded.files.iter().any(|r| r.path == f.path) {
                continue;
            }
            paths.insert(f.path.clone());
            if let Some((_, p)) = loaded.projections.get(&f.path) {
                start.extend(
                    p.symbols.iter().filter(|s| s.line <= f.line && f.line <= s.end_line).map(|s| s.id.clone()),
                );
            }
        }
        // Everything the failing code calls, transitively.
        let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for r in loaded.resolution.files.values() {
            for (caller, callee, _) in &r.calls {
                edges.entry(caller.as_str()).or_default().push(callee.as_str());
            }
        }
        let mut seen: BTreeSet<String> = start.iter().cloned().collect();
        while let Some(id) = start.pop() {
            for callee in edges.get(id.as_str()).into_iter().flatten() {
                if seen.insert(callee.to_string()) {
                    start.push(callee.to_string());
                }
            }
        }
        paths.extend(seen.iter().filter_map(|id| id.split('#').next().map(str::to_string)));
        paths.retain(|p| loaded.projections.contains_key(p));
        paths
    }

    fn prompt(
        &mut self,
        router: &mut Router,
        task: &str,
        st: &LoopState,
        paths: &BTreeSet<String>,
    ) -> Result<(String, BTreeMap<String, String>), AgentError> {
        let mut text = format!("Task: {task}\n\n");
        let failures: Vec<String> = st
            .findings
            .iter()
            .map(|f| match &f.found {
                Found::Test { name, outcome } => format!("- test {name} {outcome} at {}:{}", f.path, f.line),
                Found::Diagnostic { code, message, .. } => format!("- {code} at {}:{}: {message}", f.path, f.line),
                _ => String::new(),
            })
            .filter(|l| !l.is_empty())
            .collect();
        if !failures.is_empty() {
            text.push_str(&format!("Observed failures:\n{}\n\n", failures.join("\n")));
        }
        if !st.test_output.is_empty() {
            text.push_str(&format!("Test output (last lines):\n{}\n\n", st.test_output));
        }
        if !st.tried.is_empty() {
            text.push_str(&format!("Already tried (did not work):\n- {}\n\n", st.tried.join("\n- ")));
        }
        let mut contents = BTreeMap::new();
        text.push_str("Files you may change:\n");
        for path in paths.iter().take(MAX_PROMPT_FILES) {
            let Some(content) = self.read(router, path)? else { continue };
            text.push_str(&format!("=== {path} ===\n"));
            for (i, line) in content.lines().take(MAX_PROMPT_FILE_LINES).enumerate() {
                text.push_str(&format!("{:>5} | {line}\n", i + 1));
            }
            contents.insert(path.clone(), content);
        }
        Ok((text, contents))
    }

    /// Parses and validates model output into edits, or says why not.
    fn validate(
        raw: Result<String, String>,
        contents: &BTreeMap<String, String>,
        paths: &BTreeSet<String>,
    ) -> Result<(String, Vec<Edit>), String> {
        let proposal = patch::parse(&raw?).map_err(|e| e.to_string())?;
        let edits = patch::apply(&proposal, &mut |p| contents.get(p).cloned(), paths).map_err(|e| e.to_string())?;
        for (path, old, new) in &edits {
            let Some(lang) = Lang::of_path(path) else { continue };
            let broken = |text: &str| {
                crate::world::project::project_file(lang, path, text.as_bytes()).ok().and_then(|p| p.parse_error)
            };
            if let (None, Some((line, message))) = (broken(old), broken(new)) {
                return Err(format!("the patch leaves a syntax error in {path}:{line}: {message}"));
            }
        }
        if edits.iter().all(|(_, old, new)| old == new) {
            return Err("the patch changes nothing".into());
        }
        Ok((proposal.explanation, edits))
    }

    fn propose_patch(
        &mut self,
        request: &str,
        focus: &[Candidate],
        loaded: &Loaded,
        router: &mut Router,
        st: &mut LoopState,
    ) -> Result<Flow, AgentError> {
        if self.patcher.is_none() {
            return Ok(Flow::Stop(Status::NeedsModel, format!("Repairing the failures {NEEDS_MODEL}")));
        }
        let paths = self.repair_focus(loaded, focus, st);
        let (prompt, contents) = self.prompt(router, request, st, &paths)?;
        let raw = match self.patcher.as_mut() {
            Some(p) => p.transduce(&prompt, st.feedback.as_deref()),
            None => Err("no model".into()),
        };
        let attempt = st.retries + 1;
        match Self::validate(raw, &contents, &paths) {
            Ok((explanation, edits)) => {
                let files = edits.iter().map(|(p, _, _)| p.clone()).collect();
                self.emit(Event::Patch { attempt, files, accepted: true, reason: explanation.clone() });
                st.explanation = explanation;
                st.pending = Some(edits);
                st.feedback = None;
            }
            Err(reason) => {
                self.emit(Event::Patch { attempt, files: vec![], accepted: false, reason: reason.clone() });
                st.retries += 1;
                st.tried.push(format!("attempt {attempt}: proposal rejected: {reason}"));
                st.feedback = Some(reason);
            }
        }
        Ok(Flow::Continue)
    }

    /// Writes edits through the router. `Err(flow)`: refused or failed; what was written is restored.
    fn write_all(&mut self, router: &mut Router, edits: &[Edit]) -> Result<Result<(), Flow>, AgentError> {
        let mut written: Vec<(String, String)> = Vec::new();
        for (path, old, new) in edits {
            let action = Action::WriteFile { path: path.clone(), content: Some(new.clone()) };
            let shown = diff::change(path, old, new).diff;
            match self.act(router, &action, &shown)? {
                Some(Outcome::Executed { .. }) => written.push((path.clone(), old.clone())),
                refused_or_failed => {
                    self.restore(router, &written)?;
                    let status = if refused_or_failed.is_none() { Status::Refused } else { Status::Failed };
                    return Ok(Err(Flow::Stop(status, format!("Could not write {path}; nothing was changed."))));
                }
            }
        }
        Ok(Ok(()))
    }

    /// Puts files back as they were, through the router.
    fn restore(&mut self, router: &mut Router, written: &[(String, String)]) -> Result<(), AgentError> {
        for (path, old) in written.iter().rev() {
            let action = Action::WriteFile { path: path.clone(), content: Some(old.clone()) };
            self.act(router, &action, "restore")?;
        }
        Ok(())
    }

    /// Builds through the router; the blocking errors found, as text.
    fn build_errors(
        &mut self,
        router: &mut Router,
        loaded: &Loaded,
        kinds: &[Kind],
    ) -> Result<Vec<String>, AgentError> {
        let mut errors = Vec::new();
        for kind in kinds {
            for tool in verify::tools_for(&self.root, &self.config.check, *kind, has_python(loaded)) {
                let run = self.run_tool(router, tool)?;
                if let Some(reasons) = run.refused {
                    errors.push(format!("{} was refused: {}", tool.name(), reasons.join("; ")));
                    continue;
                }
                let (failed, errs) = verify::counts(&run.findings);
                if run.missing.is_none() {
                    self.emit(Event::Checked {
                        tool: tool.name().into(),
                        failed,
                        errors: errs,
                        test_state: verify::state(&run.findings).to_string(),
                    });
                }
                errors.extend(run.findings.iter().filter_map(|f| match &f.found {
                    Found::Diagnostic { severity: nerd_logic::vocab::Severity::Error, code, message } => {
                        Some(format!("{code} at {}:{}: {message}", f.path, f.line))
                    }
                    Found::Test {
                        name,
                        outcome: nerd_logic::vocab::TestOutcome::Fail | nerd_logic::vocab::TestOutcome::Error,
                    } => Some(format!("test {name} fails ({}:{})", f.path, f.line)),
                    _ => None,
                }));
            }
        }
        Ok(errors)
    }

    fn reload(&mut self, loaded: &mut Loaded) -> Result<(), AgentError> {
        crate::index::index(&self.root, &mut self.store, &|_, _| {})?;
        *loaded = kernel::load(&self.root, &self.store, LoadFor::Evaluation)?;
        Ok(())
    }

    fn record_changes(st: &mut LoopState, edits: &[Edit]) {
        for (path, old, new) in edits {
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

    fn apply_patch(
        &mut self,
        router: &mut Router,
        loaded: &mut Loaded,
        st: &mut LoopState,
    ) -> Result<Flow, AgentError> {
        let Some(edits) = st.pending.take() else { return Ok(Flow::Continue) };
        st.retries += 1;
        let attempt = st.retries;
        if let Err(flow) = self.write_all(router, &edits)? {
            return Ok(flow);
        }
        let broken = self.build_errors(router, loaded, &[Kind::Build])?;
        if !broken.is_empty() {
            let written: Vec<(String, String)> = edits.iter().map(|(p, o, _)| (p.clone(), o.clone())).collect();
            self.restore(router, &written)?;
            let reason = format!("the patch breaks the build ({}); it was rolled back", broken[0]);
            self.emit(Event::Patch {
                attempt,
                files: written.into_iter().map(|w| w.0).collect(),
                accepted: false,
                reason: reason.clone(),
            });
            st.tried.push(format!("attempt {attempt}: {}: {reason}", st.explanation));
            st.feedback = Some(reason);
            return Ok(Flow::Continue);
        }
        Self::record_changes(st, &edits);
        st.tried.push(format!("attempt {attempt}: {}", st.explanation));
        st.test_state = TestState::Unknown;
        st.findings.clear();
        self.reload(loaded)?;
        Ok(Flow::Continue)
    }

    fn implement(
        &mut self,
        request: &str,
        focus: &[Candidate],
        loaded: &mut Loaded,
        router: &mut Router,
        st: &mut LoopState,
    ) -> Result<Flow, AgentError> {
        if self.patcher.is_none() {
            return Ok(Flow::Stop(Status::NeedsModel, format!("Implementing this {NEEDS_MODEL}")));
        }
        // Only the best-grounded candidates: a change goes where the user pointed.
        let best = focus.iter().map(|c| c.confidence).fold(0.0, f64::max);
        let paths: BTreeSet<String> = focus
            .iter()
            .filter(|c| best - c.confidence < 1e-9)
            .map(|c| c.path.clone())
            .filter(|p| loaded.projections.contains_key(p))
            .collect();
        if paths.is_empty() {
            let q = "Which file should this change go into?".to_string();
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(Flow::Stop(Status::NeedsClarification, q));
        }
        let (prompt, contents) = self.prompt(router, request, st, &paths)?;
        let raw = match self.patcher.as_mut() {
            Some(p) => p.transduce(&prompt, None),
            None => Err("no model".into()),
        };
        let (explanation, edits) = match Self::validate(raw, &contents, &paths) {
            Ok(v) => v,
            Err(reason) => {
                self.emit(Event::Patch { attempt: 1, files: vec![], accepted: false, reason: reason.clone() });
                return Ok(Flow::Stop(Status::Failed, format!("The model's change was rejected: {reason}")));
            }
        };
        let files = edits.iter().map(|(p, _, _)| p.clone()).collect();
        self.emit(Event::Patch { attempt: 1, files, accepted: true, reason: explanation.clone() });
        if let Err(flow) = self.write_all(router, &edits)? {
            return Ok(flow);
        }
        let broken = self.build_errors(router, loaded, &[Kind::Build])?;
        if !broken.is_empty() {
            let written: Vec<(String, String)> = edits.iter().map(|(p, o, _)| (p.clone(), o.clone())).collect();
            self.restore(router, &written)?;
            return Ok(Flow::Stop(Status::Failed, format!("The change broke the build ({}); rolled back.", broken[0])));
        }
        Self::record_changes(st, &edits);
        self.reload(loaded)?;
        Ok(Flow::Stop(Status::Succeeded, explanation))
    }

    fn apply_rename(
        &mut self,
        intent: &Intent,
        focus: &[Candidate],
        loaded: &mut Loaded,
        router: &mut Router,
        st: &mut LoopState,
    ) -> Result<Flow, AgentError> {
        let Some(new) = ground::new_name(intent).map(str::to_string) else {
            return Ok(Flow::Stop(Status::NeedsClarification, "What should the new name be?".into()));
        };
        let target = focus.iter().find(|c| !c.symbol.is_empty()).map(|c| c.symbol.clone());
        let found = target.as_deref().and_then(|id| {
            let path = id.split('#').next()?;
            let (lang, p) = loaded.projections.get(path)?;
            Some((path.to_string(), *lang, p.symbols.iter().find(|s| s.id == id)?.clone()))
        });
        let Some((def_path, lang, symbol)) = found else {
            let q = format!("Which symbol named \"{}\" should be renamed?", intent.target);
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(Flow::Stop(Status::NeedsClarification, q));
        };
        let old = symbol.name.clone();
        if let Err(e) = rename::check_name(lang, &old, &new) {
            return Ok(Flow::Stop(Status::Refused, format!("Not renamed: {e}.")));
        }
        let same_family = |l: &Lang| family(*l) == family(lang);
        let named = |name: &str| {
            loaded
                .projections
                .values()
                .filter(|(l, _)| same_family(l))
                .flat_map(|(_, p)| p.symbols.iter())
                .filter(|s| s.name == name)
                .count()
        };
        if named(&new) > 0 {
            return Ok(Flow::Stop(Status::Refused, format!("Not renamed: `{new}` is already defined here.")));
        }
        let scope = if named(&old) == 1 { rename::Scope::EveryToken } else { rename::Scope::ResolvedSites };
        let mut calls: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (path, r) in &loaded.resolution.files {
            for (_, callee, line) in r.calls.iter().filter(|(_, callee, _)| *callee == symbol.id) {
                let _ = callee;
                calls.entry(path.clone()).or_default().push(*line);
            }
        }
        let mut paths: BTreeSet<String> = calls.keys().cloned().collect();
        paths.insert(def_path.clone());
        if scope == rename::Scope::EveryToken {
            let search = Action::Search { pattern: format!(r"\b{}\b", regex::escape(&old)), path: None };
            if let Some(Outcome::Executed { output: Output::Search { matches } }) = self.act(router, &search, "")? {
                paths.extend(matches.into_iter().map(|(p, _, _)| p));
            }
        }
        let mut inputs = Vec::new();
        for path in paths {
            let Some((file_lang, _)) = loaded.projections.get(&path) else { continue };
            if !same_family(file_lang) {
                continue;
            }
            let file_lang = *file_lang;
            let Some(content) = self.read(router, &path)? else {
                return Ok(Flow::Stop(Status::Failed, format!("Not renamed: {path} could not be read.")));
            };
            inputs.push(rename::FileInput {
                definition: (path == def_path).then_some((symbol.line, symbol.end_line)),
                call_lines: calls.get(&path).cloned().unwrap_or_default(),
                path,
                lang: file_lang,
                content,
            });
        }
        let plan = match rename::plan(&old, &new, scope, &inputs) {
            Ok(plan) if !plan.files.is_empty() => plan,
            Ok(_) => return Ok(Flow::Stop(Status::Failed, format!("Not renamed: no occurrence of `{old}` found."))),
            Err(e) => return Ok(Flow::Stop(Status::Refused, format!("Not renamed: {e}."))),
        };
        // What already fails is not the rename's doing: judge it by what it makes worse.
        let word = regex::Regex::new(&format!(r"\b{}\b", regex::escape(&old))).ok();
        let before: BTreeSet<String> = self
            .build_errors(router, loaded, &[Kind::Build, Kind::Tests])?
            .into_iter()
            .map(|e| word.as_ref().map_or(e.clone(), |w| w.replace_all(&e, new.as_str()).into_owned()))
            .collect();
        if let Err(flow) = self.write_all(router, &plan.files)? {
            return Ok(flow);
        }
        let after = self.build_errors(router, loaded, &[Kind::Build, Kind::Tests])?;
        let broken: Vec<String> = after.iter().filter(|e| !before.contains(*e)).cloned().collect();
        if !broken.is_empty() {
            let written: Vec<(String, String)> = plan.files.iter().map(|(p, o, _)| (p.clone(), o.clone())).collect();
            self.restore(router, &written)?;
            let why = if scope == rename::Scope::ResolvedSites {
                format!(
                    " `{old}` is defined {} times here, so only the call sites resolution attributes to {} were \
                     renamed; calls through values of unknown type were not.",
                    named(&old),
                    symbol.id
                )
            } else {
                String::new()
            };
            return Ok(Flow::Stop(
                Status::Failed,
                format!(
                    "Renaming `{old}` to `{new}` broke the build or tests ({}); every file was restored.{why}",
                    broken[0]
                ),
            ));
        }
        Self::record_changes(st, &plan.files);
        self.reload(loaded)?;
        let verdict = if after.is_empty() {
            "the build and tests pass".to_string()
        } else {
            format!("{} failure(s) that predate it still fail, and nothing new broke", after.len())
        };
        Ok(Flow::Stop(
            Status::Succeeded,
            format!("Renamed `{old}` to `{new}` at {} site(s) in {} file(s); {verdict}.", plan.sites, plan.files.len()),
        ))
    }

    fn scaffold(&mut self, request: &str, router: &mut Router, st: &mut LoopState) -> Result<Flow, AgentError> {
        let lower = request.to_lowercase();
        let name = self.root.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or("app".into());
        let crate_name: String =
            name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
        let files: Vec<(String, String)> = if lower.contains("rust")
            || lower.contains("crate")
            || lower.contains("cargo")
        {
            vec![
                ("Cargo.toml".to_string(), format!("[package]\nname = \"{crate_name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n")),
                ("src/main.rs".to_string(), "fn main() {\n    println!(\"Hello, world!\");\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn it_runs() {\n        super::main();\n    }\n}\n".into()),
                (".gitignore".to_string(), "/target\n".into()),
            ]
        } else if lower.contains(" go ") || lower.contains("golang") || lower.ends_with(" go") {
            vec![
                ("go.mod".to_string(), format!("module {crate_name}\n\ngo 1.19\n")),
                (
                    "main.go".to_string(),
                    "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello, world!\")\n}\n".into(),
                ),
                (
                    "main_test.go".to_string(),
                    "package main\n\nimport \"testing\"\n\nfunc TestMain(t *testing.T) {\n\tmain()\n}\n".into(),
                ),
            ]
        } else if lower.contains("python") {
            vec![
                ("pyproject.toml".to_string(), format!("[project]\nname = \"{crate_name}\"\nversion = \"0.1.0\"\nrequires-python = \">=3.9\"\n")),
                (format!("{crate_name}/__init__.py"), "def hello() -> str:\n    return \"Hello, world!\"\n".into()),
                ("tests/test_hello.py".to_string(), format!("from {crate_name} import hello\n\n\ndef test_hello():\n    assert hello() == \"Hello, world!\"\n")),
            ]
        } else if lower.contains("typescript") || lower.contains(" ts ") || lower.contains("node") {
            vec![
                ("package.json".to_string(), format!("{{\n  \"name\": \"{}\",\n  \"version\": \"0.1.0\",\n  \"type\": \"module\",\n  \"scripts\": {{ \"build\": \"tsc\" }}\n}}\n", crate_name.replace('_', "-"))),
                ("tsconfig.json".to_string(), "{\n  \"compilerOptions\": { \"target\": \"es2022\", \"module\": \"nodenext\", \"strict\": true, \"outDir\": \"dist\" },\n  \"include\": [\"src\"]\n}\n".into()),
                ("src/index.ts".to_string(), "export function hello(): string {\n  return \"Hello, world!\";\n}\n".into()),
            ]
        } else {
            let q = "Which language should the new project use: Rust, Go, Python or TypeScript?".to_string();
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(Flow::Stop(Status::NeedsClarification, q));
        };
        let edits: Vec<Edit> = files.into_iter().map(|(p, c)| (p, String::new(), c)).collect();
        if let Err(flow) = self.write_all(router, &edits)? {
            return Ok(flow);
        }
        Self::record_changes(st, &edits);
        Ok(Flow::Stop(Status::Succeeded, format!("Created {} file(s).", edits.len())))
    }
}

/// The `--dry-run` description of a derived step: what would happen, acting on nothing.
pub(super) fn plan(
    next: Step,
    intent: &Intent,
    focus: &[Candidate],
    loaded: &Loaded,
    root: &Path,
    config: &Config,
) -> String {
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
        Step::AskClarification => format!("Would ask: {}", ground::question(intent, focus)),
        Step::AnswerQuery if intent.verb == Verb::Status => {
            format!("Would run the tests and report: {}", argv(Kind::Tests).join("; "))
        }
        Step::AnswerQuery if intent.verb == Verb::Impact => answer::impact(focus, loaded),
        Step::AnswerQuery => format!("Would answer from facts about {target}."),
        Step::Survey => "Would survey the repository from facts (no action).".into(),
        Step::ReviewChanges => "Would review the changes against HEAD from facts (no action).".into(),
        Step::RunTests => format!(
            "Plan: run the tests ({}), then ask the model for a patch for each failure, apply it only if it stays \
             inside the failures' focus and the build passes, and rerun; escalate after the retry budget.",
            argv(Kind::Tests).join("; ")
        ),
        Step::ProposePatch | Step::ApplyPatch | Step::ProposeEdit => {
            format!("Would ask the model for a patch about {target}, validate it and apply it through the router.")
        }
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
                        .filter(|(_, callee, _)| *callee == c.symbol)
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
        Step::Scaffold => "Would create a new project's files.".into(),
        Step::RecordRule => "Would record the instruction as a rule in .nerd/config.toml.".into(),
        Step::RunChecks => "Would run the commit gate on the staged changes.".into(),
    }
}
