//! The agent loop, one request at a time: observe (perceive the request),
//! orient (refresh the projection, ground the target), decide (evaluate the
//! kernel: one strategy, one `next_action`), act (only through the router,
//! only what the constitution permits), and feed the results back as facts
//! until the strategy completes, its budget is spent, or logic asks the user.
//! This is the one orchestrator: every step is an event, every turn an audit
//! record, every write checkpointed under the turn so `nerd undo` restores it.
//! Knows nothing about terminals or output formats.

pub mod answer;
pub mod context;
pub mod event;
pub mod explain;
pub mod ground;
pub mod instruct;
pub mod learn;
pub mod mutant;
pub mod patch;
pub mod recall;
pub mod rename;
pub mod session;
pub mod setup;
mod steps;
pub mod survey;
pub mod verify;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nerd_logic::vocab::{Action as Step, Autonomy, TestState};
use nerd_logic::{evaluate, ExplainedPremise, Explanation, Facts, Fixpoint};

use crate::articulate::Change;
use crate::check::parse::Finding;
use crate::config::Config;
use crate::kernel::{self, LoadFor, Loaded};
use crate::model::{Connection, Transducer};
use crate::perceive::focus::Candidate;
use crate::perceive::{perceive, Intent, Offline, Perceived};
use crate::policy::{Action, Verdict};
use crate::router::{ApprovedBy, Outcome, Record, Router, RouterError};
use crate::store::{StateDb, Store, StoreError};
pub use event::{Announced, Collect, Event, Sink, Status};
pub use session::Session;

/// Everything that can stop the loop itself (not the request).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Router(#[from] RouterError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Memory(crate::memory::MemoryError),
}

impl From<crate::memory::MemoryError> for AgentError {
    fn from(e: crate::memory::MemoryError) -> AgentError {
        match e {
            crate::memory::MemoryError::Store(s) => AgentError::Store(s),
            other => AgentError::Memory(other),
        }
    }
}

/// The transducer that writes patches over a resolved connection, when it has
/// one: a model server, or a local model sampled under the patch grammar.
/// The offline rules only read requests.
pub fn patcher(connection: &Connection) -> Result<Option<Box<dyn Transducer>>, crate::model::ProviderError> {
    Ok(match connection {
        Connection::Http(http) => Some(Box::new(http.clone().for_task(patch::task()))),
        #[cfg(feature = "local")]
        Connection::Local(spec) => Some(Box::new(spec.load(patch::task())?)),
        Connection::Offline => None,
    })
}

/// The transducer that writes explanations over a resolved connection, when it
/// has one (a local model writes them under the reply grammar, citing only
/// the files its prompt showed).
pub fn explainer(connection: &Connection) -> Result<Option<Box<dyn Transducer>>, crate::model::ProviderError> {
    Ok(match connection {
        Connection::Http(http) => Some(Box::new(http.clone().for_task(explain::task()))),
        #[cfg(feature = "local")]
        Connection::Local(spec) => Some(Box::new(spec.load(explain::task())?)),
        Connection::Offline => None,
    })
}

/// Who answers approval prompts for actions the constitution routes to ask.
pub trait Approver {
    /// `subject` says what needs approval; `detail` is the exact argv or diff.
    fn approve(&mut self, subject: &str, detail: &str) -> bool;
    /// Recorded with each approval: "human", "approval-mode:auto"...
    fn source(&self) -> &str;
    /// Whether a person answers, or the approval mode.
    fn by(&self) -> ApprovedBy {
        ApprovedBy::AutoPolicy
    }
    /// Whether this approver may approve a critical-risk action (only a person may).
    fn may_approve_critical(&self) -> bool {
        true
    }
    /// Whether this approver may approve refactoring a target some of whose
    /// callers no test reaches (a person may; the approval mode only when told).
    fn may_approve_unsafe_refactor(&self) -> bool {
        true
    }
}

/// `--approval auto`: approves what is routed to ask, except critical-risk
/// actions, and unsafe refactors unless `--allow-unsafe-refactor` was given.
pub struct AutoApprove {
    pub unsafe_refactor: bool,
}
impl Approver for AutoApprove {
    fn approve(&mut self, _subject: &str, _detail: &str) -> bool {
        true
    }
    fn source(&self) -> &str {
        "approval-mode:auto"
    }
    fn may_approve_unsafe_refactor(&self) -> bool {
        self.unsafe_refactor
    }
    fn may_approve_critical(&self) -> bool {
        false
    }
}

/// `--approval never`: every ask is a no.
pub struct NeverApprove;
impl Approver for NeverApprove {
    fn approve(&mut self, _subject: &str, _detail: &str) -> bool {
        false
    }
    fn source(&self) -> &str {
        "approval-mode:never"
    }
    fn may_approve_critical(&self) -> bool {
        false
    }
}

/// How the loop runs.
#[derive(Clone, Debug)]
pub struct Options {
    pub autonomy: Autonomy,
    /// Derive and report the plan, act on nothing.
    pub dry_run: bool,
    /// Renames also rename mentions in docs (.md, .rst...) and code comments; else those are listed.
    pub include_docs: bool,
    /// Repair attempts before escalating (the kernel's `retry_budget`).
    pub retry_budget: u32,
    /// Fixpoints per request, whatever the strategy: a second guarantee of termination.
    pub max_turns: u32,
    /// Per router action.
    pub timeout: Duration,
    /// Set by Ctrl-C; checked before every turn.
    pub interrupted: Arc<AtomicBool>,
    /// Tokens of kernel-selected context a patch prompt may carry (`[context] budget_tokens`).
    pub context_budget: usize,
    /// The delegation a spawned child acts under: its router judges every action against it too.
    pub delegation: Option<crate::specialist::delegation::Chain>,
    /// Readings of each request when a model perceives (self-consistency, `[model] readings`).
    pub readings: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            autonomy: Autonomy::Balanced,
            dry_run: false,
            include_docs: false,
            retry_budget: 3,
            max_turns: 24,
            timeout: Duration::from_secs(600),
            interrupted: Arc::new(AtomicBool::new(false)),
            context_budget: context::DEFAULT_BUDGET,
            delegation: None,
            readings: 3,
        }
    }
}

/// How one request ended.
#[derive(Debug)]
pub struct Report {
    pub status: Status,
    pub answer: String,
    /// The outcome as shown to a person, in the surface the kernel chose (`articulate`).
    pub surface: nerd_logic::vocab::SurfaceMode,
    pub shown: String,
    pub changes: Vec<Change>,
    pub turns: u32,
}

/// The loop's state within one request: what the kernel reads back as facts.
#[derive(Default)]
pub(crate) struct LoopState {
    test_state: TestState,
    retries: u32,
    findings: Vec<Finding>,
    /// Files the test run before this request changed anything found broken in themselves (a
    /// diagnostic there: they do not compile or collect). A test file broken only after one of
    /// this request's patches was broken by the patch, and stays evidence.
    broken_before: std::collections::BTreeSet<String>,
    /// Output tail of the last test run, for the patch writer.
    test_output: String,
    /// A validated patch awaiting application, one edit per file.
    pending: Option<Vec<patch::Edit>>,
    explanation: String,
    feedback: Option<String>,
    tried: Vec<String>,
    approved: bool,
    changes: Vec<Change>,
    /// Each changed file's content before the request first changed it.
    originals: std::collections::BTreeMap<String, String>,
    /// The sub-tasks the last fixpoint delegated and no child has done yet: (id, task, scope).
    to_delegate: Vec<steps::TaskRow>,
    /// What became of each delegated sub-task, by its id.
    children: std::collections::BTreeMap<String, steps::Delegated>,
    /// Survey findings established here, as atoms.
    surveyed: Vec<nerd_logic::Atom>,

    /// A model's change was written and its checks found nothing new broken (`patch_kept`).
    kept: bool,
    /// What failed in the run before a refactor changed anything: what may still fail after it.
    baseline: Option<verify::Verification>,
    /// Tests a kept test-writing patch added, and the files it created.
    written: steps::Written,
    /// The new tests against seeded mutants of their target: (killed, tried) and one line per mutant.
    mutants: Option<(u32, u32)>,
    mutant_lines: Vec<String>,
}

/// One request in progress: what was asked and grounded, and everything the
/// steps work on: the world, the router that acts, what the loop has learned.
pub(crate) struct Turn<'r> {
    pub(crate) request: &'r str,
    /// The strategy the last fixpoint made active.
    pub(crate) strategy: nerd_logic::vocab::Strategy,
    /// The paths the request names, for the kernel to judge.
    pub(crate) named: Vec<ground::NamedPath>,
    /// What the last fixpoint derived nerd cannot change, and why: (path, reason).
    pub(crate) unworkable: Vec<(String, nerd_logic::vocab::Unworkable)>,
    pub(crate) intent: &'r Intent,
    pub(crate) focus: &'r [Candidate],
    pub(crate) world: &'r mut Loaded,
    pub(crate) router: Router,
    pub(crate) state: LoopState,
}

/// The agent bound to one workspace and one session.
pub struct Agent<'a> {
    root: PathBuf,
    /// The index, a cache.
    store: Store,
    /// The durable state: the session and its events.
    state: StateDb,
    config: Config,
    perceiver: Box<dyn Transducer>,
    patcher: Option<Box<dyn Transducer>>,
    /// The model that writes explanations, when one is configured.
    explainer: Option<Box<dyn Transducer>>,
    approver: &'a mut dyn Approver,
    sink: &'a mut dyn Sink,
    options: Options,
    pub session: Session,
    /// The world as the last request left it, reused while no file changes.
    world: Option<Loaded>,
    /// What survives sessions, opened on first use.
    memories: Option<crate::memory::Memories>,
    /// The grounded target of the request in progress, for what it leaves in memory.
    target: Option<Candidate>,
    /// Whether the request in progress is itself a memory operation ("remember that …",
    /// "forget …"): it leaves no request memory, so what is forgotten stays forgotten.
    memory_request: bool,
    /// What the current request's last build or test step established.
    verified: Option<verify::Verification>,
    /// The watchdog's pause within the current request.
    watch: Watch,
}

/// The watchdog's pause within one request.
#[derive(Default)]
struct Watch {
    /// The last action failed (only then is the pause looked at).
    last_failed: bool,
    /// A person let the loop go on after a pause.
    cleared: bool,
    /// The loop paused and nobody let it go on: no more actions run.
    stopped: bool,
}

/// What a request the watchdog stopped says.
const PAUSED: &str = "Paused: most of the recent actions failed, so nerd stopped instead of trying more \
(watchdog_pause). `nerd audit show` lists them; run the request again to retry, or answer yes when a person is asked.";

/// What a step of the loop decided: go on, or stop with a status and an answer.
enum Flow {
    Continue,
    Stop(Status, String),
}

impl<'a> Agent<'a> {
    pub fn new(
        root: &Path,
        perceiver: Box<dyn Transducer>,
        patcher: Option<Box<dyn Transducer>>,
        approver: &'a mut dyn Approver,
        sink: &'a mut dyn Sink,
        options: Options,
        session: Session,
    ) -> Result<Agent<'a>, AgentError> {
        let root = root.canonicalize().map_err(|source| RouterError::Workspace { path: root.to_path_buf(), source })?;
        let store = Store::open(&root)?;
        let state = StateDb::open(&root)?;
        let config = Config::load(&root)?;
        Ok(Agent {
            root,
            store,
            state,
            config,
            perceiver,
            patcher,
            explainer: None,
            approver,
            sink,
            options,
            session,
            world: None,
            memories: None,
            target: None,
            memory_request: false,
            verified: None,
            watch: Watch::default(),
        })
    }

    /// The same agent, with a model that writes explanations.
    pub fn with_explainer(mut self, explainer: Option<Box<dyn Transducer>>) -> Self {
        self.explainer = explainer;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn emit(&mut self, event: Event) {
        self.sink.emit(&event);
    }

    /// The workspace's memory, opened on first use.
    fn memories(&mut self) -> Result<&crate::memory::Memories, AgentError> {
        let memories = match self.memories.take() {
            Some(memories) => memories,
            None => crate::memory::Memories::open(&self.root)?,
        };
        Ok(self.memories.insert(memories))
    }

    /// What memory brings to a request's context (`recall::recollect`).
    fn recollect(&mut self, loaded: &Loaded, query: &str) -> Result<recall::Recollection, AgentError> {
        self.memories()?;
        let Some(memories) = &self.memories else { return Ok(recall::Recollection::default()) };
        Ok(recall::recollect(memories, &mut self.store, (&self.root, loaded), query)?)
    }

    /// Handles one request to its end.
    pub fn handle(&mut self, text: &str) -> Result<Report, AgentError> {
        let text = text.trim();
        self.emit(Event::Request { session: self.session.id.clone(), text: text.to_string() });
        // A reply to a pending clarification picks one of the options offered.
        let mut forced = None;
        let mut request = text.to_string();
        if let Some(p) = self.session.state.pending.take() {
            if let Some(choice) = ground::pick(&p.options, text) {
                forced = Some(choice);
                request = p.request;
            }
        }
        self.session.state.begin(&request);
        self.watch = Watch::default();
        self.target = None;
        self.memory_request = false;
        let report = self.run_request(&request, forced)?;
        // A delegated child starts with an empty working memory and leaves nothing in the workspace's.
        if report.status != Status::Planned && !self.memory_request && self.options.delegation.is_none() {
            let source = format!("session {} request {}", self.session.id, self.session.state.requests);
            let target = self.target.clone();
            recall::promote(self.memories()?, &source, &request, target.as_ref(), report.status, &report.changes)
                .map_err(AgentError::from)?;
        }
        self.session.state.last_status = Some(report.status);
        self.session.save(&self.state)?;
        Ok(report)
    }

    fn read_request(&mut self, request: &str) -> Option<(Intent, String, Option<f64>)> {
        let provider = self.perceiver.name().to_string();
        // A model reads the request several times; readings that disagree make the kernel ask.
        let readings = if provider == "offline" { 1 } else { self.options.readings.max(1) };
        let consensus = crate::perceive::perceive_consistent(self.perceiver.as_mut(), request, readings);
        if let Perceived::Intent { intent, .. } = consensus.perceived {
            return Some((intent, provider, (readings > 1).then_some(consensus.agreement)));
        }
        if provider == "offline" {
            return None;
        }
        // A model that cannot be reached or keeps answering malformed JSON: the offline rules still read.
        match perceive(&mut Offline, request) {
            Perceived::Intent { intent, .. } => Some((intent, format!("offline (fallback from {provider})"), None)),
            Perceived::Unparsed { .. } => None,
        }
    }

    fn run_request(&mut self, request: &str, forced: Option<Candidate>) -> Result<Report, AgentError> {
        self.verified = None;
        let Some((intent, provider, agreement)) = self.read_request(request) else {
            let q = "I could not read that request. Could you rephrase it?".to_string();
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(self.finish(Status::NeedsClarification, q, vec![], 0, &[]));
        };
        self.emit(Event::Perceived {
            provider,
            agreement,
            category: intent.category,
            verb: intent.verb,
            target: intent.target.clone(),
            constraints: intent.constraints.clone(),
            confidence: intent.confidence,
        });
        let mut loaded = self.world()?;
        let report = self.decide_and_act(request, &intent, forced, &mut loaded);
        // The next request of this session starts from this world if no file changes in between.
        self.world = Some(loaded);
        report
    }

    /// The projected world, brought up to date: loaded from the store only when
    /// the index changed since this session last loaded it; git state is always fresh.
    fn world(&mut self) -> Result<Loaded, AgentError> {
        let report = crate::index::index(&self.root, &mut self.store, &|_, _| {})?;
        match (self.world.take(), &self.options.delegation) {
            (Some(mut world), _) if !report.changed => {
                world.git = crate::world::git::state(&self.root).unwrap_or_default();
                Ok(world)
            }
            // A child that may only read sees only the part of the world it may read. A child that
            // may act sees it whole, so that what it tries outside its paths reaches its router,
            // is refused there and shows in the parent's audit.
            (_, Some(chain)) if chain.reads_only() => {
                Ok(kernel::load_scoped(&self.root, &self.store, &chain.path_matcher())?)
            }
            _ => Ok(kernel::load(&self.root, &self.store, LoadFor::Evaluation)?),
        }
    }

    fn decide_and_act(
        &mut self,
        request: &str,
        intent: &Intent,
        forced: Option<Candidate>,
        loaded: &mut Loaded,
    ) -> Result<Report, AgentError> {
        self.memory_request =
            matches!(intent.verb, nerd_logic::vocab::Verb::Remember | nerd_logic::vocab::Verb::Forget);
        let focus = match forced {
            Some(c) => vec![c],
            None => recall::focus(self.memories()?, intent, loaded)?,
        };
        let best = focus.iter().map(|c| c.confidence).fold(0.0f64, f64::max);
        self.target = focus.iter().find(|c| c.confidence >= best && best > 0.0).cloned();
        if !focus.is_empty() {
            self.emit(Event::Focus { candidates: focus.clone() });
        }
        let mut router = Router::open(&self.root, intent.category, self.options.autonomy)?
            .with_timeout(self.options.timeout)
            .with_cancel(self.options.interrupted.clone());
        router.set_turn(Some(format!("{}:{}", self.session.id, self.session.state.requests)));
        router.set_constraints(crate::perceive::constraint::restrictions(&intent.constraints));
        if let Some(chain) = &self.options.delegation {
            router.set_delegation(chain.clone());
        }
        let mut t = Turn {
            request,
            strategy: nerd_logic::vocab::Strategy::Idle,
            named: ground::named_paths(&self.root, request),
            unworkable: Vec::new(),
            intent,
            focus: &focus,
            world: loaded,
            router,
            state: LoopState::default(),
        };
        for turn in 1..=self.options.max_turns {
            if self.options.interrupted.load(Ordering::SeqCst) {
                let changes = std::mem::take(&mut t.state.changes);
                return Ok(self.finish(Status::Interrupted, "Interrupted.".into(), changes, turn - 1, &[]));
            }
            let fixpoint = evaluate(self.facts(&t));
            let strategy = fixpoint.strategy();
            t.strategy = strategy;
            let s = &fixpoint.facts().symbols;
            t.unworkable = fixpoint
                .relations()
                .unworkable()
                .iter()
                .map(|&(_, p, why)| (s.resolve(p.sym()).to_string(), why))
                .collect();
            let next = fixpoint.next_action();
            let because = next.map(|a| because(&fixpoint, a)).unwrap_or_default();
            t.router.record(Record::Turn {
                turn,
                request: request.to_string(),
                strategy,
                next_action: next,
                because: because.clone(),
            })?;
            self.emit(Event::Decided { turn, strategy, next_action: next, because });
            if next == Some(Step::Delegate) {
                let s = &fixpoint.facts().symbols;
                t.state.to_delegate = fixpoint
                    .relations()
                    .delegate_task()
                    .iter()
                    .map(|&(id, task, scope)| (s.resolve(id).to_string(), task, s.resolve(scope).to_string()))
                    .filter(|(id, _, _)| !t.state.children.contains_key(id))
                    .collect();
            }
            let blockers = block_commit(&fixpoint);
            let Some(next) = next else {
                let answer = "Nothing to do: the kernel derived no next action.".to_string();
                let changes = std::mem::take(&mut t.state.changes);
                return Ok(self.finish(Status::Succeeded, answer, changes, turn, &blockers));
            };
            if self.options.dry_run {
                let plan = steps::plan(next, &t, &self.root, &self.config);
                return Ok(self.finish(Status::Planned, plan, vec![], turn, &[]));
            }
            let mut flow = self.step(next, &mut t)?;
            if self.watch.stopped {
                // The watchdog paused the loop and nobody let it go on: stop here, whatever the step said.
                let said = match flow {
                    Flow::Stop(_, answer) if !answer.is_empty() => format!("\n\n{answer}"),
                    _ => String::new(),
                };
                self.emit(Event::Question { text: PAUSED.to_string(), options: vec![] });
                flow = Flow::Stop(Status::NeedsClarification, format!("{PAUSED}{said}"));
            }
            if let Flow::Stop(status, answer) = flow {
                // The last word on the commit gate: re-derived with what the loop learned.
                let blockers = block_commit(&evaluate(self.facts(&t)));
                let changes = std::mem::take(&mut t.state.changes);
                return Ok(self.finish(status, answer, changes, turn, &blockers));
            }
        }
        let answer = format!("Stopped after {} turns without finishing.", self.options.max_turns);
        self.emit(Event::Escalated { text: answer.clone(), tried: t.state.tried.clone() });
        let changes = std::mem::take(&mut t.state.changes);
        Ok(self.finish(Status::Escalated, answer, changes, self.options.max_turns, &[]))
    }

    fn finish(
        &mut self,
        status: Status,
        answer: String,
        changes: Vec<Change>,
        turns: u32,
        blockers: &[String],
    ) -> Report {
        if !answer.is_empty() {
            self.emit(Event::Answer { text: answer.clone() });
        }
        let verification = match &self.verified {
            Some(v) => v.into(),
            None => (&verify::Verification::nothing("no build or test ran for this request")).into(),
        };
        let (surface, shown) = articulated(status, &answer, &changes);
        self.emit(Event::Done {
            status,
            surface,
            turns,
            changes: changes.iter().map(Into::into).collect(),
            block_commit: blockers.to_vec(),
            verification,
        });
        Report { status, answer, surface, shown, changes, turns }
    }

    /// The fact base of one turn: the world, the intent, and what the loop learned so far.
    fn facts(&self, t: &Turn<'_>) -> Facts {
        let (intent, focus, st) = (t.intent, t.focus, &t.state);
        let mut f = t.world.facts();
        f.autonomy = self.options.autonomy;
        f.retry_budget = self.options.retry_budget;
        f.retry_count = st.retries;
        f.test_state = st.test_state;
        f.pending_patch = st.pending.is_some();
        f.patch_kept = st.kept;
        f.mutation_result.extend(st.mutants);
        f.blocking_severity = self.config.check.block_on.clone();
        ground::assert_intent(&mut f, intent, focus, true);
        ground::assert_named_paths(&mut f, &t.named);
        crate::check::assert_findings(&mut f, &st.findings);
        f.max_parallel = u32::try_from(self.config.shards.parallel()).unwrap_or(u32::MAX);
        f.delegate_min_files = self.config.shards.delegate_min_files;
        if let Some(chain) = &self.options.delegation {
            let token = f.sym(chain.id());
            f.delegated.push(token);
        }
        survey::assert_areas(&mut f, t.world);
        steps::assert_delegated(&mut f, &st.children, &st.surveyed);
        if matches!(intent.verb, nerd_logic::vocab::Verb::Rename | nerd_logic::vocab::Verb::Refactor) {
            for c in focus.iter().filter(|c| !c.symbol.is_empty()).take(1) {
                let s = f.symbol_id(&c.symbol);
                f.refactor_target.push(s);
                if st.approved {
                    let human = f.sym(self.approver.source());
                    f.approval.push((s.sym(), human));
                }
            }
        }
        f
    }

    /// Whether the watchdog lets the next action run: after a failed action,
    /// when `watchdog_pause` holds (most recent actions failed), the loop asks,
    /// and only a person may let it go on; otherwise nothing more runs in
    /// this request.
    fn watchdog_allows(&mut self, router: &mut Router) -> Result<bool, AgentError> {
        if self.watch.stopped {
            return Ok(false);
        }
        if self.watch.cleared || !self.watch.last_failed || !router.paused() {
            return Ok(true);
        }
        let subject = "most of this request's recent actions failed (watchdog_pause); go on anyway".to_string();
        let detail = "`nerd audit show` lists the failed actions";
        let granted = self.approver.by() == crate::router::ApprovedBy::Human && self.approver.approve(&subject, detail);
        let source = self.approver.source().to_string();
        self.emit(Event::Approval { subject: subject.clone(), granted, source: source.clone() });
        router.record(Record::Approval {
            action: None,
            subject: Some(subject),
            granted,
            by: Some(self.approver.by()),
            source,
        })?;
        self.watch.cleared = granted;
        self.watch.stopped = !granted;
        Ok(granted)
    }

    /// Puts one action to the router: asks the approver when the constitution
    /// routes it to ask, emits the verdict and the result. `None`: refused.
    fn act(&mut self, router: &mut Router, action: &Action, detail: &str) -> Result<Option<Outcome>, AgentError> {
        if !self.watchdog_allows(router)? {
            return Ok(None);
        }
        self.announce(router, action, detail)?;
        // The router re-derives the verdict itself; its outcome is what counts.
        let outcome = router.execute(action)?;
        self.watch.last_failed = matches!(outcome, Outcome::Failed { .. });
        self.emit_result(action, &outcome);
        Ok(match outcome {
            Outcome::Refused { .. } => None,
            other => Some(other),
        })
    }

    /// What an action's outcome was, as an event.
    fn emit_result(&mut self, action: &Action, outcome: &Outcome) {
        let (ok, text) = match outcome {
            Outcome::Refused { reasons } => (false, reasons.join("; ")),
            Outcome::Failed { error } => (false, error.clone()),
            Outcome::Executed { output } => (true, output_summary(output)),
        };
        self.emit(Event::Result { kind: action.kind().to_string(), ok, summary: text });
    }

    /// Asks the approver when the constitution routes `action` to ask (recording
    /// a granted approval with the router), then announces the action with the verdict expected.
    fn announce(&mut self, router: &mut Router, action: &Action, detail: &str) -> Result<(), AgentError> {
        let judged = router.judge(action);
        let mut granted = false;
        if judged.decision == Verdict::Ask {
            let critical = judged.risk == Some(nerd_logic::vocab::Risk::Critical);
            let subject = format!("{} ({})", summary(action), judged.reasons.join("; "));
            granted = (!critical || self.approver.may_approve_critical()) && self.approver.approve(&subject, detail);
            let source = self.approver.source().to_string();
            self.emit(Event::Approval { subject, granted, source: source.clone() });
            if granted {
                router.approve(action, self.approver.by(), &source)?;
            }
        }
        // Announced before it runs, so a long build or test run shows what is happening.
        let expected = judged.decision == Verdict::Allow || granted;
        self.emit(Event::Action {
            action: action.clone(),
            decision: if expected { Announced::Permitted } else { Announced::Refused },
            reasons: if expected { vec![] } else { judged.reasons },
        });
        Ok(())
    }
}

/// The outcome in the surface the kernel's articulation rules choose: a
/// question while one is open, the answer when nothing changed, the answer
/// with its diff for one small change, a summary otherwise.
fn articulated(status: Status, answer: &str, changes: &[Change]) -> (nerd_logic::vocab::SurfaceMode, String) {
    let mut facts = Facts::default();
    let asks = status == Status::NeedsClarification;
    if asks {
        let (missing, clue, none) = (facts.sym("answer"), facts.sym(answer), facts.sym(""));
        facts.ambiguity_flag.push((missing, clue, none));
    }
    crate::articulate::articulate(facts, changes, answer, asks.then_some(answer))
}

/// The facts and checks a `next_action` rests on, from its shortest derivation.
fn because(fixpoint: &Fixpoint, action: Step) -> Vec<String> {
    let atom = nerd_logic::atoms::next_action(&fixpoint.facts().symbols, action);
    let mut out = BTreeSet::new();
    if let Ok(e) = fixpoint.explain(&atom) {
        leaves(&e, &mut out);
    }
    out.into_iter().take(12).collect()
}

fn leaves(e: &Explanation, out: &mut BTreeSet<String>) {
    match e {
        Explanation::Fact(a) => {
            // The world's thousands of facts are not the reason; the loop's own are.
            out.insert(a.to_string());
        }
        Explanation::Derived { premises, .. } => {
            for p in premises {
                match p {
                    ExplainedPremise::Holds(inner) => leaves(inner, out),
                    ExplainedPremise::Absent(a) => {
                        out.insert(format!("not {a}"));
                    }
                    ExplainedPremise::Check(c) => {
                        out.insert(c.clone());
                    }
                }
            }
        }
    }
}

/// The `block_commit` atoms of a fixpoint, as the `done` event lists them.
fn block_commit(fixpoint: &Fixpoint) -> Vec<String> {
    let s = &fixpoint.facts().symbols;
    fixpoint
        .blockers()
        .iter()
        .map(|b| nerd_logic::atoms::block_commit(s, (b.reason, b.path, b.line)).to_string())
        .collect()
}

fn summary(action: &Action) -> String {
    match action {
        Action::Exec { argv } => format!("run `{}`", argv.join(" ")),
        Action::WriteFile { path, .. } => format!("write {path}"),
        Action::DeleteFile { path } => format!("delete {path}"),
        Action::ReadFile { path } => format!("read {path}"),
        other => other.kind().to_string(),
    }
}

fn output_summary(output: &crate::router::Output) -> String {
    use crate::router::Output;
    match output {
        Output::Exec { code, timed_out, .. } if *timed_out => format!("timed out (status {code:?})"),
        Output::Exec { code, .. } => format!("exited with {}", code.map_or("a signal".into(), |c| c.to_string())),
        Output::Read { content, .. } => format!("read {} bytes", content.len()),
        Output::Written { bytes } => format!("wrote {bytes} bytes"),
        Output::Deleted => "deleted".into(),
        Output::Search { matches } => format!("{} matches", matches.len()),
        Output::Page { visit, .. } if visit.traffic.blocked.is_empty() => {
            format!("showed {} ({} nodes)", visit.url, visit.nodes)
        }
        Output::Page { visit, .. } => {
            format!("showed {} ({} nodes; {} requests refused)", visit.url, visit.nodes, visit.traffic.blocked.len())
        }
        Output::Fetched { url, status, body, .. } => format!("GET {url}: {status}, {} bytes", body.len()),
        Output::Spawned { token, report, .. } => match report {
            Some(r) => format!("child {token} {}", r.status),
            None => format!("child {token} gave no report"),
        },
    }
}
