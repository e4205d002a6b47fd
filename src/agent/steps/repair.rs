//! The repair loop's steps (run the tests, ask the model for a patch, validate
//! it against the focus, apply it with a build check and rollback) and the
//! implement step, which applies one model change where the user pointed.
//! Knows nothing about why the kernel chose the step.

use std::collections::{BTreeMap, BTreeSet};

use nerd_logic::vocab::{Strategy, TestState};

use super::{has_python, write_tests, Applied, PatchScope, NEEDS_MODEL};
use crate::agent::event::{Event, Status};
use crate::agent::patch::{self, Edit};
use crate::agent::verify::{self, Kind, Verdict, Verification};
use crate::agent::{context, learn};
use crate::agent::{Agent, AgentError, Flow, LoopState, Turn};
use crate::check::parse::Found;
use crate::kernel::Loaded;
use crate::memory::rules::LearnedRule;
use crate::model::Shown;
use crate::perceive::focus::Candidate;
use crate::router::Router;
use crate::world::lang::Lang;
use crate::world::walk::dir_of;

/// The one test a status request is about: its best candidate, confidently
/// and alone at the top, is a test symbol.
fn one_test(loaded: &Loaded, focus: &[Candidate]) -> Option<verify::OneTest> {
    let top = focus.iter().map(|c| c.confidence).fold(0.0, f64::max);
    let [best] = focus.iter().filter(|c| c.confidence >= top).collect::<Vec<_>>()[..] else {
        return None;
    };
    if best.confidence < crate::agent::ground::CONFIDENT {
        return None;
    }
    let (_, projection) = loaded.projections.get(&best.path)?;
    let symbol = projection.symbols.iter().find(|s| s.id == best.symbol)?;
    (symbol.kind == nerd_logic::vocab::SymbolKind::Test).then(|| verify::OneTest::of_declared(symbol)).flatten()
}

/// The symbol id of the test a runner names `path::Class::test[params]`
/// (pytest), `path::describe > title` (jest, vitest) or `test`.
fn test_symbol_id(path: &str, name: &str) -> String {
    let name = name.strip_prefix(path).and_then(|n| n.strip_prefix("::")).unwrap_or(name);
    match Lang::of_path(path).map(Lang::family) {
        // A jest or vitest test's symbol is its title alone, whatever describes it.
        Some(Lang::TypeScript) | None => {
            format!("{path}#{}", name.rsplit(crate::check::jest::NESTING).next().unwrap_or(name))
        }
        _ => format!("{path}#{}", name.split('[').next().unwrap_or(name).replace("::", ".")),
    }
}

/// A patch writer's prompt, the files a patch may change as read to
/// validate it against, and the lines of each file the prompt shows.
pub(super) struct Prompt {
    pub text: String,
    pub contents: BTreeMap<String, String>,
    pub shown: BTreeMap<String, Vec<(u32, u32)>>,
}

/// What a local model's grammar lets a patch address: each file of `paths`
/// with the lines the prompt showed of it (a model cannot address lines it
/// never saw, nor put one file's lines on another); a file it did not show
/// (no room in the budget) may only be appended to, after its last line as
/// `contents` reads it.
fn grammar_shown(
    paths: &BTreeSet<String>,
    shown: &BTreeMap<String, Vec<(u32, u32)>>,
    contents: &BTreeMap<String, String>,
) -> Vec<Shown> {
    paths
        .iter()
        .map(|p| match shown.get(p) {
            Some(lines) => Shown::new(p.clone(), lines.clone()),
            None => {
                let last = contents.get(p).map_or(0, |c| u32::try_from(c.lines().count()).unwrap_or(u32::MAX - 1));
                Shown::new(p.clone(), vec![(last + 1, last)])
            }
        })
        .collect()
}

/// Failures a patch prompt lists by name (a broken parser can fail hundreds of tests).
const MAX_FAILURES_SHOWN: usize = 20;
/// Bytes of the test runners' output a patch prompt carries, from its end.
const MAX_OUTPUT_SHOWN: usize = 3000;

/// What the test tools found.
struct TestRun {
    findings: Vec<crate::check::parse::Finding>,
    /// The tools' last output lines, for the patch writer.
    output: String,
    /// How far the runs verified anything.
    verification: Verification,
}

impl Agent<'_> {
    /// Runs the test tools through the router. `Err(flow)`: nothing could run
    /// (no runner applies, every runner is missing) or a run was refused.
    fn tests(
        &mut self,
        router: &mut Router,
        loaded: &Loaded,
        only: Option<&verify::OneTest>,
    ) -> Result<Result<TestRun, Flow>, AgentError> {
        let tools = verify::tools_for(&self.root, &self.config.check, Kind::Tests, has_python(loaded));
        if tools.is_empty() {
            let text = "Not verified: no test runner found here (nerd runs cargo test, go test, pytest, and vitest, \
                        jest or node --test, detected from Cargo.toml, go.mod, Python files and package.json).";
            self.verified = Some(Verification::nothing("no test runner applies to this workspace"));
            return Ok(Err(Flow::Stop(Status::Unverified, text.into())));
        }
        let (mut findings, mut tails, mut runs) = (Vec::new(), Vec::new(), Vec::new());
        for tool in tools {
            // Only the runner of the test's language runs when one test is asked for.
            if only.is_some_and(|one| !verify::runs_language_of(tool, &one.path)) {
                continue;
            }
            let run = self.run_tool(router, tool, only)?;
            if self.options.interrupted.load(std::sync::atomic::Ordering::SeqCst) {
                return Ok(Err(Flow::Stop(Status::Interrupted, format!("Interrupted while {} ran.", tool.name()))));
            }
            if let Some(reasons) = &run.refused {
                let text = format!("Running {} was refused: {}", tool.name(), reasons.join("; "));
                runs.push(run);
                self.verified = Some(Verification::of(&runs));
                return Ok(Err(Flow::Stop(Status::Refused, text)));
            }
            if run.missing.is_none() {
                self.checked(&run);
                findings.extend(run.findings.iter().cloned());
                tails.push(run.tail.clone());
            }
            runs.push(run);
        }
        let verification = Verification::of(&runs);
        self.verified = Some(verification.clone());
        if runs.iter().all(|r| r.missing.is_some()) {
            return Ok(Err(Flow::Stop(Status::Unverified, format!("Not verified: {}.", verification.reason))));
        }
        Ok(Ok(TestRun { findings, output: tails.join("\n"), verification }))
    }

    /// "Are the tests passing?", "run the tests", and "run that test again":
    /// a request whose focus is one test, confidently, runs that test alone.
    pub(super) fn test_status(
        &mut self,
        router: &mut Router,
        loaded: &Loaded,
        focus: &[Candidate],
    ) -> Result<Flow, AgentError> {
        let only = one_test(loaded, focus);
        let flow = self.status_of(router, loaded, only.as_ref())?;
        Ok(match (flow, &only) {
            (Flow::Stop(status, text), Some(one)) => {
                Flow::Stop(status, format!("Ran {}#{} only.\n{text}", one.path, one.name))
            }
            (flow, _) => flow,
        })
    }

    fn status_of(
        &mut self,
        router: &mut Router,
        loaded: &Loaded,
        only: Option<&verify::OneTest>,
    ) -> Result<Flow, AgentError> {
        let TestRun { findings, verification: v, .. } = match self.tests(router, loaded, only)? {
            Ok(done) => done,
            Err(flow) => return Ok(flow),
        };
        let (failed, errors) = verify::counts(&findings);
        match v.status {
            Verdict::VerifiedPass => {
                return Ok(Flow::Stop(Status::Answered, format!("Yes: the tests pass; {}.", v.sentence())))
            }
            Verdict::Unverified if failed + errors == 0 => {
                return Ok(Flow::Stop(Status::Unverified, format!("Unknown: nothing failed, but {}.", v.sentence())))
            }
            _ => {}
        }
        let status = if v.status == Verdict::Unverified { Status::Unverified } else { Status::Answered };
        let mut lines = vec![format!("No: {failed} failing test(s), {errors} error(s); {}.", v.sentence())];
        for f in findings.iter().take(25) {
            match &f.found {
                Found::Test { name, outcome } => lines.push(format!("  {outcome} {name}  ({}:{})", f.path, f.line)),
                Found::Diagnostic { code, message, .. } => {
                    lines.push(format!("  {code} {message}  ({}:{})", f.path, f.line))
                }
                _ => {}
            }
        }
        Ok(Flow::Stop(status, lines.join("\n")))
    }

    pub(super) fn run_tests(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let refactor = t.strategy == Strategy::Refactor;
        if refactor && self.patcher.is_none() {
            // The tests run before a refactor only for the model's patch to be judged against.
            return Ok(Flow::Stop(Status::NeedsModel, format!("Refactoring {NEEDS_MODEL}")));
        }
        let (loaded, router, st) = (&*t.world, &mut t.router, &mut t.state);
        let TestRun { findings, output, verification } = match self.tests(router, loaded, None)? {
            Ok(done) => done,
            // A refactor goes on without tests to run: the build still checks it, and its end says unverified.
            Err(Flow::Stop(Status::Unverified, _)) if refactor => {
                st.test_state = TestState::Unverified;
                st.baseline = self.verified.clone();
                return Ok(Flow::Continue);
            }
            Err(flow) => return Ok(flow),
        };
        st.test_state = verify::state_of(&verification, &findings);
        if refactor && st.changes.is_empty() {
            st.baseline = Some(verification);
        }
        if st.changes.is_empty() {
            st.broken_before = findings
                .iter()
                .filter(|f| matches!(f.found, Found::Diagnostic { .. }))
                .map(|f| f.path.clone())
                .collect();
        }
        st.findings = findings;
        st.test_output = output;
        Ok(Flow::Continue)
    }

    /// The files a repair may touch: where the failures are, what the failing
    /// tests reach through calls, and what the user named; test files only
    /// when named or broken themselves, so that no repair passes by editing the test.
    pub(super) fn repair_focus(&self, loaded: &Loaded, focus: &[Candidate], st: &LoopState) -> BTreeSet<String> {
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
                // A failure without a line (a parametrised pytest case) still names its test.
                if let Found::Test { name, .. } = &f.found {
                    let id = test_symbol_id(&f.path, name);
                    if p.symbols.iter().any(|s| s.id == id) {
                        start.push(id);
                    }
                }
            }
        }
        // Everything the failing code calls, transitively.
        let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for r in loaded.resolution.files.values() {
            for (caller, callee, _, _) in &r.calls {
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
        // A failing test is evidence, not the thing to change: a test file stays out of a
        // repair unless the user named it, or it was broken itself (it did not compile or
        // collect) before this request changed anything: a patch that breaks the package's
        // import makes every test file fail to collect, and that opens none of them.
        let named = |p: &str| focus.iter().any(|c| c.path == p && c.confidence >= crate::agent::ground::CONFIDENT);
        let broken = |p: &str| {
            st.broken_before.contains(p)
                && st.findings.iter().any(|f| f.path == p && matches!(f.found, Found::Diagnostic { .. }))
        };
        paths.retain(|p| !Lang::of_path(p).is_some_and(|l| l.is_test_path(p)) || named(p) || broken(p));
        if paths.is_empty() {
            // A Go test reaches its package's code through interfaces the standard library calls
            // (`json.Marshal` calls `MarshalText`), which no call edge shows: where the failures
            // reach no file to change, the failing test's package may change.
            let failed: BTreeSet<&str> = st.findings.iter().map(|f| f.path.as_str()).collect();
            for test in failed {
                paths.extend(go_package_files(test, loaded.projections.keys()));
            }
        }
        paths
    }

    /// The patch writer's prompt: the task, what failed, what was tried,
    /// and the context the kernel selects (the code spans its activation
    /// ranks best within the budget, with the atoms that connect them),
    /// never whole files. Also returns the contents of the files the patch
    /// may change, read through the router, to validate the patch against.
    /// The learned `rules` in force and the request's constraints come first.
    pub(super) fn prompt(
        &mut self,
        router: &mut Router,
        (task, loaded, focus): (&str, &Loaded, &[Candidate]),
        st: &LoopState,
        (paths, rules): (&BTreeSet<String>, &[LearnedRule]),
    ) -> Result<Prompt, AgentError> {
        let mut text = format!("Task: {task}\n\n");
        text.push_str(&learn::context_block(rules));
        text.push_str(&learn::constraint_block(router.constraints()));
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
            let shown = &failures[..failures.len().min(MAX_FAILURES_SHOWN)];
            let more = failures.len() - shown.len();
            let more = if more > 0 { format!("\n- ... and {more} more") } else { String::new() };
            text.push_str(&format!("Observed failures:\n{}{more}\n\n", shown.join("\n")));
        }
        if !st.test_output.is_empty() {
            let output = st.test_output.as_str();
            let mut from = output.len().saturating_sub(MAX_OUTPUT_SHOWN);
            while !output.is_char_boundary(from) {
                from += 1;
            }
            text.push_str(&format!("Test output (last lines):\n{}\n\n", &output[from..]));
        }
        if !st.tried.is_empty() {
            text.push_str(&format!("Already tried (did not work):\n- {}\n\n", st.tried.join("\n- ")));
        }
        let (selected, mut contents) = self.kernel_context(router, (task, loaded, focus), &st.findings)?;
        let budget = self.options.context_budget;
        // The changeable files not read yet, whole, to validate the patch against.
        let mut shown = selected.lines();
        let unread: Vec<&String> =
            paths.iter().filter(|p| !shown.contains_key(*p) && !contents.contains_key(*p)).collect();
        for path in unread {
            if let Some(content) = self.read(router, path)? {
                contents.insert(path.clone(), content);
            }
        }
        text.push_str(&selected.render());
        // A file the patch may change that activation did not reach (a config
        // file, code without symbols) is shown whole while it fits.
        let mut room = budget.saturating_sub(selected.tokens);
        let mut whole = Vec::new();
        for (path, content) in contents.iter().filter(|(p, _)| paths.contains(*p) && !shown.contains_key(*p)) {
            let numbered: String = content.lines().enumerate().map(|(i, l)| format!("{:>5} | {l}\n", i + 1)).collect();
            let cost = context::tokens(&numbered) + 16;
            if cost <= room {
                room -= cost;
                text.push_str(&format!("=== {path} (whole file) ===\n{numbered}"));
                let last = u32::try_from(content.lines().count()).unwrap_or(u32::MAX);
                whole.push((path.clone(), vec![(1, last)]));
            }
        }
        shown.extend(whole);
        let changeable: Vec<&str> = paths.iter().map(String::as_str).collect();
        text.push_str(&format!(
            "\nFiles you may change: {}\nAddress lines by the numbers shown.\n",
            changeable.join(", ")
        ));
        Ok(Prompt { text, contents, shown })
    }

    /// What the kernel's activation selects for `query` within the context
    /// budget (`findings` seed it too), and the files read to show it.
    pub(super) fn kernel_context(
        &mut self,
        router: &mut Router,
        (query, loaded, focus): (&str, &Loaded, &[Candidate]),
        findings: &[crate::check::parse::Finding],
    ) -> Result<(context::Context, BTreeMap<String, String>), AgentError> {
        let mut facts = loaded.facts();
        crate::check::assert_findings(&mut facts, findings);
        // What the last three requests touched starts activation too, further away.
        let memory = self.recollect(loaded, query)?;
        let index = context::SymbolIndex::new(loaded);
        // The tests the last run saw pass: context weighs what only the failing tests run.
        let passed = self.verified.iter().flat_map(|v| v.passed.iter().map(String::as_str));
        for (path, name) in index.runner_tests(passed) {
            let row = (facts.sym(name), facts.path(path), nerd_logic::Line(0), nerd_logic::vocab::TestOutcome::Pass);
            facts.test_outcome.push(row);
        }
        context::seed(&mut facts, &index, focus, &memory);
        let fixpoint = nerd_logic::evaluate(facts);
        let budget = self.options.context_budget;
        let mut contents = BTreeMap::new();
        let mut failed = None;
        let mut read = |path: &str| match self.read(router, path) {
            Ok(content) => {
                if let Some(c) = &content {
                    contents.insert(path.to_string(), c.clone());
                }
                content
            }
            Err(e) => {
                failed.get_or_insert(e);
                None
            }
        };
        let selected = context::select_context(&fixpoint, &index, &memory.memories, budget, &mut read);
        match failed {
            Some(e) => Err(e),
            None => Ok((selected, contents)),
        }
    }

    /// Parses and validates model output into edits, or says why not.
    pub(super) fn validate(
        raw: Result<String, String>,
        contents: &BTreeMap<String, String>,
        paths: &BTreeSet<String>,
        rules: &[LearnedRule],
    ) -> Result<(patch::Proposal, Vec<Edit>), String> {
        let proposal = patch::parse(&raw?).map_err(|e| e.to_string())?;
        let edits = patch::apply(&proposal, &mut |p| contents.get(p).cloned(), paths).map_err(|e| e.to_string())?;
        for Edit { path, old, new } in &edits {
            let Some(lang) = Lang::of_path(path) else { continue };
            let broken = |text: &str| {
                crate::world::project::project_file(lang, path, text.as_bytes()).ok().and_then(|p| p.parse_error)
            };
            if let (None, Some((line, message))) = (broken(old), broken(new)) {
                return Err(format!("the patch leaves a syntax error in {path}:{line}: {message}"));
            }
        }
        if edits.iter().all(|e| e.old == e.new) {
            return Err("the patch changes nothing".into());
        }
        let broken = learn::violations(rules, &edits);
        if !broken.is_empty() {
            return Err(learn::refusal(rules, &broken));
        }
        Ok((proposal, edits))
    }

    /// Carries out the memory operations of an accepted reply, and keeps its
    /// self-correction for the next attempt's prompt.
    fn keep_model_memory(
        &mut self,
        proposal: &patch::Proposal,
        st: &mut LoopState,
        loaded: &Loaded,
    ) -> Result<(), AgentError> {
        if let Some(correction) = &proposal.self_correction {
            st.tried.push(format!("the model corrected itself: {correction}"));
        }
        if proposal.memory.is_empty() {
            return Ok(());
        }
        let source = format!("model:{}", self.session.id);
        let done = crate::agent::recall::model_operations(self.memories()?, &proposal.memory, &source, Some(loaded))?;
        for line in done {
            self.emit(Event::Memory { text: line });
        }
        Ok(())
    }

    pub(super) fn propose_patch(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (request, focus) = (t.request, t.focus);
        let strategy = t.strategy;
        let (loaded, router, st) = (&*t.world, &mut t.router, &mut t.state);
        let what = match strategy {
            Strategy::Refactor => "Refactoring",
            Strategy::WriteTests => "Writing tests",
            _ => "Repairing the failures",
        };
        if self.patcher.is_none() {
            return Ok(Flow::Stop(Status::NeedsModel, format!("{what} {NEEDS_MODEL}")));
        }
        let scope = match strategy {
            Strategy::Refactor => self.rewrite_scope(request, loaded, focus),
            Strategy::WriteTests => self.test_scope(request, loaded, focus),
            _ => Some(PatchScope {
                paths: self.repair_focus(loaded, focus, st),
                new_files: BTreeSet::new(),
                task: request.to_string(),
            }),
        };
        let scope = scope.filter(|s| !s.paths.is_empty() || !s.new_files.is_empty());
        let Some(PatchScope { mut paths, new_files, task }) = scope else {
            if strategy == Strategy::TddRepairLoop {
                // What the run itself says comes with it: a build the sandbox kept off the network, a
                // missing tool or module is no code to patch, and the user can act on it.
                let run = self.verified.as_ref().map(|v| format!(" The test run was {}.", v.sentence()));
                let text = format!(
                    "The failures name no file of the index that a patch could change; over to you \
                     (the test output is in the trail: `nerd audit show`).{}",
                    run.unwrap_or_default()
                );
                return Ok(Flow::Stop(Status::Escalated, text));
            }
            let q = format!("Which function do you mean? \"{}\" names no function or method here.", t.intent.target);
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(Flow::Stop(Status::NeedsClarification, q));
        };
        let rules = self.memories()?.rules_in_force()?;
        let Prompt { text: prompt, mut contents, mut shown } =
            self.prompt(router, (&task, loaded, focus), st, (&paths, &rules))?;
        // A file the patch may create has no lines yet; it is named all the same.
        shown.extend(new_files.iter().map(|p| (p.clone(), vec![(1, 0)])));
        // Files the patch may create are empty until it does.
        for path in &new_files {
            paths.insert(path.clone());
            contents.insert(path.clone(), String::new());
        }
        let raw = match self.patcher.as_mut() {
            Some(p) => {
                p.narrow(&grammar_shown(&paths, &shown, &contents));
                let raw = p.transduce(&prompt, st.feedback.as_deref());
                let tokens = p.usage();
                self.emit(Event::Model { task: "propose_patch".into(), tokens });
                raw
            }
            None => Err("no model".into()),
        };
        let attempt = st.retries + 1;
        let checked = Self::validate(raw, &contents, &paths, &rules).and_then(|(proposal, edits)| {
            match strategy {
                Strategy::WriteTests => write_tests::changes_code(&edits).map_or(Ok(()), Err),
                _ => Ok(()),
            }
            .map(|()| (proposal, edits))
        });
        match checked {
            Ok((proposal, edits)) => {
                let explanation = proposal.explanation.clone();
                self.keep_model_memory(&proposal, st, loaded)?;
                let files = edits.iter().map(|e| e.path.clone()).collect();
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

    pub(super) fn apply_patch(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (loaded, router, st) = (&mut *t.world, &mut t.router, &mut t.state);
        let Some(edits) = st.pending.take() else { return Ok(Flow::Continue) };
        st.retries += 1;
        let attempt = st.retries;
        let applied = match self.apply_checked(router, loaded, &edits, &[Kind::Build], &BTreeSet::new())? {
            Ok(applied) => applied,
            Err(flow) => return Ok(flow),
        };
        if let Applied::RolledBack { new, .. } = applied {
            let reason = if st.test_state == TestState::BuildBroken {
                format!("the build still fails with the patch ({}); it was rolled back", new[0])
            } else {
                format!("the patch breaks the build ({}); it was rolled back", new[0])
            };
            self.emit(Event::Patch {
                attempt,
                files: edits.iter().map(|e| e.path.clone()).collect(),
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

    pub(super) fn implement(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (request, focus) = (t.request, t.focus);
        let (loaded, router, st) = (&mut *t.world, &mut t.router, &mut t.state);
        if self.patcher.is_none() {
            return Ok(Flow::Stop(Status::NeedsModel, format!("Implementing this {NEEDS_MODEL}")));
        }
        // Only the best-grounded candidates: a change goes where the user pointed.
        let indexed = |p: &String| loaded.files.iter().any(|f| f.path == *p);
        let mut paths: BTreeSet<String> =
            crate::perceive::focus::best(focus).map(|c| c.path.clone()).filter(indexed).collect();
        // A file the request names (a schema, a config) when nothing was grounded; the kernel refused binaries.
        if paths.is_empty() {
            let inside = |n: &&crate::agent::ground::NamedPath| {
                n.class == nerd_logic::vocab::PathClass::Inside && !n.binary && indexed(&n.path)
            };
            paths = t.named.iter().filter(inside).map(|n| n.path.clone()).collect();
        }
        if paths.is_empty() {
            let q = "Which file should this change go into?".to_string();
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(Flow::Stop(Status::NeedsClarification, q));
        }
        let rules = self.memories()?.rules_in_force()?;
        let Prompt { text: prompt, contents, shown } =
            self.prompt(router, (request, loaded, focus), st, (&paths, &rules))?;
        let raw = match self.patcher.as_mut() {
            Some(p) => {
                p.narrow(&grammar_shown(&paths, &shown, &contents));
                let raw = p.transduce(&prompt, None);
                let tokens = p.usage();
                self.emit(Event::Model { task: "propose_patch".into(), tokens });
                raw
            }
            None => Err("no model".into()),
        };
        let (explanation, edits) = match Self::validate(raw, &contents, &paths, &rules) {
            Ok((proposal, edits)) => {
                self.keep_model_memory(&proposal, st, loaded)?;
                (proposal.explanation, edits)
            }
            Err(reason) => {
                self.emit(Event::Patch { attempt: 1, files: vec![], accepted: false, reason: reason.clone() });
                return Ok(Flow::Stop(Status::Failed, format!("The model's change was rejected: {reason}")));
            }
        };
        let files = edits.iter().map(|e| e.path.clone()).collect();
        self.emit(Event::Patch { attempt: 1, files, accepted: true, reason: explanation.clone() });
        let built = match self.apply_checked(router, loaded, &edits, &[Kind::Build], &BTreeSet::new())? {
            Err(flow) => return Ok(flow),
            Ok(Applied::RolledBack { new, .. }) => {
                return Ok(Flow::Stop(Status::Failed, format!("The change broke the build ({}); rolled back.", new[0])))
            }
            Ok(Applied::Kept { verification }) => verification,
        };
        Self::record_changes(st, &edits);
        self.reload(loaded)?;
        // The build gates the change; the tests say whether it can be called done.
        let tested = self.verify(router, loaded, &[Kind::Tests])?;
        let status = if tested.status == Verdict::VerifiedPass { Status::Succeeded } else { Status::Unverified };
        let mut checked = Vec::new();
        if !built.checks.is_empty() {
            checked.push(format!("build {}", built.sentence()));
        }
        checked.push(format!("tests {}", tested.sentence()));
        if tested.status == Verdict::VerifiedFail {
            checked.push("(not compared with a run before the change)".to_string());
        }
        Ok(Flow::Stop(status, format!("{explanation}\nChecked: {}.", checked.join("; "))))
    }
}

/// The files of the Go package a Go test file belongs to: the other Go files of its directory
/// that are not tests (a `_test.go` file's package, or the package its `_test` package tests).
fn go_package_files<'a>(test: &str, indexed: impl Iterator<Item = &'a String>) -> BTreeSet<String> {
    if Lang::of_path(test) != Some(Lang::Go) || !Lang::Go.is_test_path(test) {
        return BTreeSet::new();
    }
    let home = dir_of(test);
    indexed
        .filter(|p| Lang::of_path(p) == Some(Lang::Go) && !Lang::Go.is_test_path(p) && dir_of(p) == home)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::test_symbol_id;
    use crate::model::Shown;
    use std::collections::BTreeMap;

    #[test]
    fn a_go_test_s_package_is_its_directory_s_go_files_that_are_not_tests() {
        let indexed: Vec<String> = ["uuid.go", "marshal.go", "json_test.go", "cmd/main.go", "README.md", "x.py"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let package = super::go_package_files("json_test.go", indexed.iter());
        assert_eq!(package.into_iter().collect::<Vec<_>>(), ["marshal.go", "uuid.go"]);
        let nested: Vec<String> =
            ["geo/area.go", "geo/area_test.go", "main.go"].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            super::go_package_files("geo/area_test.go", nested.iter()).into_iter().collect::<Vec<_>>(),
            ["geo/area.go"]
        );
        assert!(super::go_package_files("main.go", nested.iter()).is_empty(), "not a test file");
        assert!(super::go_package_files("tests/test_a.py", indexed.iter()).is_empty(), "not Go");
    }

    #[test]
    fn a_local_grammar_binds_each_allowed_file_to_the_lines_shown_or_its_end() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<std::collections::BTreeSet<_>>();
        let paths = set(&["tomlkit/_types.py", "tomlkit/parser.py", "tomlkit/items.py"]);
        let shown: BTreeMap<String, Vec<(u32, u32)>> = [
            ("tomlkit/parser.py".to_string(), vec![(40, 60), (10, 20), (55, 80)]),
            ("README.md".to_string(), vec![(1, 9)]),
        ]
        .into();
        let contents: BTreeMap<String, String> = [("tomlkit/items.py".to_string(), "a\nb\nc\n".to_string())].into();
        assert_eq!(
            super::grammar_shown(&paths, &shown, &contents),
            [
                Shown { path: "tomlkit/_types.py".into(), lines: vec![(1, 0)] },
                Shown { path: "tomlkit/items.py".into(), lines: vec![(4, 3)] },
                Shown { path: "tomlkit/parser.py".into(), lines: vec![(10, 20), (40, 80)] },
            ],
            "a file not shown may only be appended to"
        );
    }

    #[test]
    fn a_runner_s_test_name_maps_to_its_symbol() {
        let id = |p, n| test_symbol_id(p, n);
        assert_eq!(id("tests/test_api.py", "tests/test_api.py::test_parse[example]"), "tests/test_api.py#test_parse");
        assert_eq!(id("tests/test_a.py", "tests/test_a.py::TestX::test_y"), "tests/test_a.py#TestX.test_y");
        assert_eq!(id("pkg/x_test.go", "TestParse"), "pkg/x_test.go#TestParse");
        let vitest = "test/calc.test.ts::calc > nested > handles [] in 1.5";
        assert_eq!(id("test/calc.test.ts", vitest), "test/calc.test.ts#handles [] in 1.5");
        assert_eq!(id("sum.test.js", "sum.test.js::adds"), "sum.test.js#adds");
    }
}
