//! Language-model clients, for every task that needs one: a `Transducer`
//! turns text into text for one `Task` (its instructions, the JSON schema of
//! the answer, and for local models a grammar). Perception reads requests
//! with it; patch writing proposes patches with it; both parse what comes
//! back at their own boundary. `provider` resolves which model to use, once,
//! for every command. Knows nothing about what the answers mean.

pub mod http;
#[cfg(feature = "local")]
pub mod local;
pub mod provider;

pub use provider::{Choice, Connection, ProviderError};

/// Something that answers text with text: a model, the offline rules, a transcript.
pub trait Transducer {
    fn name(&self) -> &str;
    /// One attempt; `feedback` is why the previous attempt was rejected.
    fn transduce(&mut self, text: &str, feedback: Option<&str>) -> Result<String, String>;

    /// Tokens the last answer cost, when the model said or counted them.
    fn usage(&self) -> Option<Usage> {
        None
    }

    /// Narrows what the next answers may name to the files of `shown` and the
    /// lines of them the prompt showed, where the transducer can enforce it: a
    /// local model samples under a grammar that lists them. Others leave it to
    /// validation.
    fn narrow(&mut self, _shown: &[Shown]) {}
}

/// A file an answer may name, and the lines of it the prompt showed (1-based,
/// inclusive, in order): an answer may address only these. `(1, 0)` is a file
/// with no lines yet (one a patch creates); no ranges at all, lines unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub path: String,
    pub lines: Vec<(u32, u32)>,
}

impl Shown {
    /// `path` with `lines` sorted and merged where they overlap or touch.
    pub fn new(path: impl Into<String>, mut lines: Vec<(u32, u32)>) -> Shown {
        lines.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(lines.len());
        for (lo, hi) in lines {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) && hi >= last.0 => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        Shown { path: path.into(), lines: merged }
    }

    /// A file named with no knowledge of its lines.
    pub fn any_line(path: impl Into<String>) -> Shown {
        Shown { path: path.into(), lines: Vec::new() }
    }
}

/// Tokens one model call cost: read (the prompt) and written (the answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    pub prompt: u32,
    pub completion: u32,
}

/// What a model is asked to write.
#[derive(Clone, Debug)]
pub struct Task {
    /// The schema's and the forced tool's name, e.g. `record_intent`.
    pub name: &'static str,
    /// The forced tool's description.
    pub description: &'static str,
    /// Instructions every model gets; the schema does the rest.
    pub system: &'static str,
    /// The JSON schema of the answer.
    pub schema: serde_json::Value,
    /// Tokens an answer may have.
    pub max_tokens: u32,
    /// A GBNF grammar for local models sampled under logit masking, when the task has one.
    pub grammar: Option<String>,
    /// The grammar narrowed to the files and lines an answer may name, for tasks that name files.
    pub narrowed: Option<fn(&[Shown]) -> String>,
}

/// A recorded transcript replayed in order: model outputs for tests and audits.
pub struct Transcript {
    pub outputs: std::collections::VecDeque<String>,
    /// The feedback each attempt received, for inspection.
    pub feedback: Vec<Option<String>>,
}

impl Transducer for Transcript {
    fn name(&self) -> &str {
        "transcript"
    }

    fn transduce(&mut self, _text: &str, feedback: Option<&str>) -> Result<String, String> {
        self.feedback.push(feedback.map(str::to_string));
        self.outputs.pop_front().ok_or_else(|| "the transcript has no more outputs".to_string())
    }
}
