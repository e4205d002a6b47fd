//! What the agent loop reports as it goes: one typed event per step (the
//! request, what was perceived, each decision with the facts behind it, each
//! action with the constitution's verdict, results, the answer). Sinks print
//! them as text or JSON lines, or keep them for a task's output file.
//! Knows nothing about how the loop decides.

use nerd_logic::vocab::{Action as Step, Category, Strategy, TestState, Verb};
use serde::Serialize;

use super::verify::{Brief, Verdict};
use crate::articulate::Change;
use crate::perceive::focus::Candidate;
use crate::policy::Action;

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A question was answered from facts.
    Answered,
    /// The strategy completed: tests green, refactor applied and verified, rule recorded.
    Succeeded,
    /// `--dry-run`: the plan was derived and nothing was done.
    Planned,
    /// Logic asks the user first (ambiguous target, missing parameter).
    NeedsClarification,
    /// The retry budget is spent; what was tried is reported.
    Escalated,
    /// An action the strategy needs was denied or not approved.
    Refused,
    /// The strategy needs a language model and none is configured.
    NeedsModel,
    /// A verification or an action failed and the change was rolled back.
    Failed,
    /// Ctrl-C: stopped between steps.
    Interrupted,
    /// Nothing failed, but the outcome could not be verified: no test ran, a
    /// runner is missing, the suite could not collect, or earlier failures
    /// still fail. The `verification` of the `done` event says why.
    Unverified,
}

impl Status {
    /// Whether a task that ended this way succeeded.
    pub fn is_success(self) -> bool {
        matches!(self, Status::Answered | Status::Succeeded | Status::Planned)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Answered => "answered",
            Status::Succeeded => "succeeded",
            Status::Planned => "planned",
            Status::NeedsClarification => "needs_clarification",
            Status::Escalated => "escalated",
            Status::Refused => "refused",
            Status::NeedsModel => "needs_model",
            Status::Failed => "failed",
            Status::Interrupted => "interrupted",
            Status::Unverified => "unverified",
        }
    }
}

/// What the loop expects of an action it announces, before the router re-derives the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Announced {
    Permitted,
    Refused,
}

impl Announced {
    pub fn as_str(self) -> &'static str {
        match self {
            Announced::Permitted => "permitted",
            Announced::Refused => "refused",
        }
    }
}

/// A file a request changed, as events and task outputs show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedFile {
    pub path: String,
    pub added: u32,
    pub removed: u32,
}

impl From<&Change> for ChangedFile {
    fn from(c: &Change) -> Self {
        ChangedFile { path: c.path.clone(), added: c.added, removed: c.removed }
    }
}

/// One step of the loop.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Request {
        session: String,
        text: String,
    },
    Perceived {
        provider: String,
        /// Share of a model's readings that agreed on category and verb (σ), when it read more than once.
        #[serde(skip_serializing_if = "Option::is_none")]
        agreement: Option<f64>,
        #[serde(with = "crate::words")]
        category: Category,
        #[serde(with = "crate::words")]
        verb: Verb,
        target: String,
        constraints: Vec<String>,
        confidence: f64,
    },
    Focus {
        candidates: Vec<Candidate>,
    },
    /// One fixpoint: the active strategy, the derived next action and the facts that led to it.
    Decided {
        turn: u32,
        #[serde(with = "crate::words")]
        strategy: Strategy,
        #[serde(serialize_with = "crate::words::serialize_option")]
        next_action: Option<Step>,
        because: Vec<String>,
    },
    /// An action put to the router, with the constitution's verdict.
    Action {
        action: Action,
        decision: Announced,
        reasons: Vec<String>,
    },
    /// A human (or the approval mode) answered an approval prompt.
    Approval {
        subject: String,
        granted: bool,
        source: String,
    },
    /// What an action produced, in brief.
    Result {
        kind: String,
        ok: bool,
        summary: String,
    },
    /// A build or test run read into facts.
    Checked {
        tool: String,
        failed: u32,
        errors: u32,
        #[serde(with = "crate::words")]
        test_state: TestState,
        /// How far this tool's run verified anything, and why.
        verification: Verdict,
        /// Tests its own summary says ran (`null`: a build tool, or no summary).
        tests_run: Option<u32>,
        note: String,
    },
    /// A model was asked for something (`task`: propose_patch, explain) and what it cost, where known.
    Model {
        task: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        tokens: Option<crate::model::Usage>,
    },
    /// A patch proposal and what validation made of it.
    Patch {
        attempt: u32,
        files: Vec<String>,
        accepted: bool,
        reason: String,
    },
    /// A delegated child started or ended (`status`: how it ended).
    Child {
        token: String,
        task: String,
        state: crate::router::ChildState,
        status: Option<String>,
        at_ms: u64,
    },
    /// Facts a step established for whoever delegated the request (atoms in the kernel's syntax).
    Findings {
        atoms: Vec<String>,
    },
    Answer {
        text: String,
    },
    /// New tests run against seeded mutants of their target: how many made a test fail, of how many counted.
    Mutants {
        target: String,
        killed: u32,
        tried: u32,
        /// One line per mutant: the change, its place, and which test failed or that it survived.
        results: Vec<String>,
    },
    /// What a model's reply kept in or dropped from memory.
    Memory {
        text: String,
    },
    Question {
        text: String,
        options: Vec<String>,
    },
    Escalated {
        text: String,
        tried: Vec<String>,
    },
    Done {
        status: Status,
        /// How the outcome is shown, as the kernel's articulation rules chose: question, answer, diff or summary.
        #[serde(with = "crate::words")]
        surface: nerd_logic::vocab::SurfaceMode,
        turns: u32,
        changes: Vec<ChangedFile>,
        /// `block_commit` atoms the last fixpoint derived (empty: a commit would pass).
        block_commit: Vec<String>,
        /// What the request's builds and tests established.
        verification: Brief,
    },
}

/// Where events go.
pub trait Sink {
    fn emit(&mut self, event: &Event);
}

/// Keeps every event, for task outputs and tests.
#[derive(Default)]
pub struct Collect(pub Vec<Event>);

impl Sink for Collect {
    fn emit(&mut self, event: &Event) {
        self.0.push(event.clone());
    }
}
