//! Sessions: a conversation with the agent that survives the process. The
//! resumable state (requests so far, a clarification awaiting its answer)
//! and every event live in `.nerd/state.db`, so `nerd --resume` and
//! `nerd run --resume ID` pick up where a session stopped.
//! Knows nothing about how requests are handled.

use serde::{Deserialize, Serialize};

use super::event::{Event, Status};
use crate::perceive::focus::Candidate;
use crate::store::{StateDb, StoreError};

/// A clarification the session asked and is waiting to hear back on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    /// The request that needed it.
    pub request: String,
    /// The options offered, in the order shown.
    pub options: Vec<Candidate>,
}

/// What a session carries from one request to the next.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub requests: Vec<String>,
    pub pending: Option<Pending>,
    pub last_status: Option<Status>,
}

/// One session and its state.
pub struct Session {
    pub id: String,
    pub state: State,
}

/// Why a session cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no session `{0}` in this workspace")]
    Unknown(String),
    #[error("no earlier session in this workspace")]
    NoneYet,
    #[error("session `{id}` is unreadable: {message}")]
    Corrupt { id: String, message: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Session {
    /// A new session; `seed` (if any) makes the id reproducible for scripted runs.
    pub fn new(seed: Option<u64>) -> Session {
        let id = match seed {
            Some(s) => format!("s{s:x}-{:x}", crate::timing::now_ns() & 0xffff_ffff),
            None => format!("s{:x}", crate::timing::now_ns()),
        };
        Session { id, state: State::default() }
    }

    /// Loads session `id`, or the latest one when `id` is `None`.
    pub fn resume(store: &StateDb, id: Option<&str>) -> Result<Session, SessionError> {
        let id = match id {
            Some(id) => id.to_string(),
            None => store.latest_session()?.ok_or(SessionError::NoneYet)?,
        };
        let text = store.session(&id)?.ok_or_else(|| SessionError::Unknown(id.clone()))?;
        let state: State = serde_json::from_str(&text)
            .map_err(|e| SessionError::Corrupt { id: id.clone(), message: e.to_string() })?;
        Ok(Session { id, state })
    }

    pub fn save(&self, store: &StateDb) -> Result<(), StoreError> {
        let text = serde_json::to_string(&self.state).unwrap_or_else(|_| "{}".into());
        store.save_session(&self.id, crate::timing::now_ns(), &text)
    }

    pub fn record(&self, store: &StateDb, event: &Event) -> Result<(), StoreError> {
        let text = serde_json::to_string(event).unwrap_or_else(|_| "{}".into());
        store.append_session_event(&self.id, crate::timing::now_ns(), &text)
    }
}
