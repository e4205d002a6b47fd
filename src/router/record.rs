//! The records of the audit trail, typed: what the router decided about an
//! action (with the facts to replay it), what became of it, each agent turn's
//! decision, and each approval with who gave it. Written and read through
//! these types only; the trail itself (`audit.rs`) sees JSON text.
//! Knows nothing about how records are chained or stored.

use nerd_logic::vocab::{Action as Step, Strategy};
use serde::{Deserialize, Serialize};

use crate::policy::{Action, Verdict};

/// Who approved an action the constitution routes to a human.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovedBy {
    /// A person, at a prompt or with `nerd act --approve`.
    Human,
    /// The approval mode answered (`--approval auto` or `never`), not a person.
    AutoPolicy,
}

impl ApprovedBy {
    /// The word the constitution's `approval(Action, Source)` fact carries.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovedBy::Human => "human",
            ApprovedBy::AutoPolicy => "auto-policy",
        }
    }
}

/// What became of an action, in brief: its status and what the router keeps of its output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutcomeSummary {
    pub status: OutcomeStatus,
    /// The rest: exit code and capped output of a program, bytes read, matches, reasons, error.
    #[serde(flatten)]
    pub detail: serde_json::Map<String, serde_json::Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeStatus {
    Refused,
    Executed,
    Failed,
}

impl OutcomeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeStatus::Refused => "refused",
            OutcomeStatus::Executed => "executed",
            OutcomeStatus::Failed => "failed",
        }
    }
}

/// One record of the trail.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum Record {
    /// The verdict on one action, recorded before anything happens.
    Decision {
        /// The constitution's integrity hash.
        constitution: String,
        action: Action,
        /// SHA-256 of `facts`, checked on replay.
        facts_digest: String,
        /// The base facts beyond the default policy, as atoms.
        facts: Vec<String>,
        /// The decision atoms, which a replay must reproduce.
        derived: Vec<String>,
        decision: Verdict,
        reasons: Vec<String>,
    },
    /// What became of an action (`decision`: its decision record, none when it was malformed).
    Result { decision: Option<i64>, action: Action, outcome: OutcomeSummary },
    /// One turn of the agent: the strategy, the step and the facts it rests on.
    Turn {
        turn: u32,
        request: String,
        #[serde(with = "crate::words")]
        strategy: Strategy,
        #[serde(with = "crate::words::option")]
        next_action: Option<Step>,
        because: Vec<String>,
    },
    /// An answer to an approval prompt: about one action, or about a step (an unsafe refactor).
    /// What a file held before the router wrote or deleted it, by digest:
    /// `nerd undo` restores only content the trail vouches for.
    Checkpoint {
        decision: i64,
        path: String,
        /// sha256 of the previous content; `None` when the file did not exist.
        previous: Option<String>,
        /// What the router leaves in the file (absent in trails older than this field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<Leaves>,
    },
    /// `nerd undo`, recorded before it writes anything.
    Undo {
        /// `--force`: files edited since nerd wrote them are restored too (their edits saved first).
        forced: bool,
        files: Vec<UndoFile>,
        /// Files left alone because they changed after nerd wrote them.
        conflicts: Vec<String>,
    },
    /// A person accepted a trail the checkpoint no longer vouched for
    /// (`nerd audit accept`): how long it was, what the checkpoint said
    /// (`None`: it was missing) and where the old checkpoint is kept.
    AuditAccepted { length: i64, checkpoint_said: Option<i64>, kept: Option<String> },
    Approval {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        action: Option<Action>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        granted: bool,
        /// Who answered: a person or the approval mode (absent in trails older than this field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<ApprovedBy>,
        /// How the answer came: "human", "approval-mode:auto", "command line --approve"...
        source: String,
    },
}

/// One file an undo writes back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoFile {
    /// Relative to the workspace.
    pub path: String,
    /// sha256 of what it will hold; `None`: it is deleted (nerd created it).
    pub restores: Option<String>,
    /// sha256 of what it holds now; `None`: it is gone.
    pub replaces: Option<String>,
    /// Whether someone changed it after nerd did (only with `forced`).
    pub edited_since: bool,
}

/// A record as stored: the router session it belongs to, and the record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    pub session: String,
    #[serde(flatten)]
    pub record: Record,
}

/// What a router write or delete leaves in a file, by digest.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Leaves {
    Written { sha256: String },
    Deleted,
}
