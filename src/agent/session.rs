//! Sessions: a conversation with the agent that survives the process. The
//! resumable state (how many requests so far, the last one, a clarification
//! awaiting its answer) lives in `.nerd/state.db`, so `nerd --resume` and
//! `nerd run --resume ID` pick up where a session stopped. The history itself
//! is kept as facts elsewhere: each request's memory (its target, outcome and
//! changes) and the audit trail of every decision and action; no surface text
//! of a reply is kept. Knows nothing about how requests are handled.

use serde::{Deserialize, Serialize};

use super::event::Status;
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
    /// How many requests the session has handled.
    #[serde(default, deserialize_with = "count_or_list")]
    pub requests: u32,
    /// The latest of them, as said (after a clarification: the request it completed).
    #[serde(default)]
    pub last_request: Option<String>,
    pub pending: Option<Pending>,
    pub last_status: Option<Status>,
}

impl State {
    /// Counts a request the session is about to handle.
    pub fn begin(&mut self, request: &str) {
        self.requests += 1;
        self.last_request = Some(request.to_string());
    }
}

/// Sessions saved before the count kept every request's text: their number is read.
fn count_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Requests {
        Count(u32),
        List(Vec<String>),
    }
    Ok(match Requests::deserialize(d)? {
        Requests::Count(n) => n,
        Requests::List(list) => u32::try_from(list.len()).unwrap_or(u32::MAX),
    })
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_saved_with_every_request_text_resumes_with_its_count() {
        let old = r#"{"requests":["explain parse","who calls parse"],"pending":null,"last_status":"answered"}"#;
        let state: State = serde_json::from_str(old).unwrap();
        assert_eq!((state.requests, state.last_request.as_deref()), (2, None));
        let mut state = state;
        state.begin("explain that function again");
        let saved = serde_json::to_string(&state).unwrap();
        assert!(!saved.contains("who calls"), "{saved}");
        let back: State = serde_json::from_str(&saved).unwrap();
        assert_eq!((back.requests, back.last_request.as_deref()), (3, Some("explain that function again")));
        let empty: State = serde_json::from_str(r#"{"pending":null,"last_status":null}"#).unwrap();
        assert_eq!(empty.requests, 0);
    }
}
