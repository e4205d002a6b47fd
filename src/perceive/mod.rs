//! Perception: text in, checked intent facts out. A transducer (the offline
//! rules, or a model) writes intent JSON; the boundary parses it into typed
//! values; malformed output gets a bounded repair loop that feeds the parse
//! error back, then falls back to asking the user. Focus resolution grounds
//! the target on the projected symbols and paths with a confidence, which the
//! kernel's clarification rules judge. Knows nothing about acting.

/// `pattern!(name, "regex")`: a built-in pattern as a function, compiled
/// once on first use. A pattern that does not compile is a defect of nerd
/// itself, caught by the perception tests.
macro_rules! pattern {
    ($vis:vis $name:ident, $re:expr) => {
        $vis fn $name() -> &'static regex::Regex {
            static CELL: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
            CELL.get_or_init(|| {
                regex::Regex::new($re).unwrap_or_else(|e| panic!("built-in perception pattern {}: {e}", $re))
            })
        }
    };
}

pub mod boundary;
pub mod constraint;
pub mod direction;
pub mod focus;
pub mod grammar;
pub mod instruction;
pub mod link;
pub mod offline;
pub mod reader;
pub mod state;

pub use crate::model::{Transcript, Transducer};
pub use boundary::{BoundaryError, Intent, Missing};

use crate::model::{Connection, ProviderError, Task};

/// Attempts after the first at repairing malformed output.
pub const MAX_REPAIRS: usize = 2;

/// Instructions every model that reads requests gets; the schema does the rest.
pub const SYSTEM: &str = "You read a software developer's request to a coding agent and describe it. \
You never decide or act: output only the intent as JSON matching the schema. \
category: query (asks for information), mutation (asks to change code or the repository), \
instruction (a standing rule or a memory for later work). The verb must belong to its category. \
Query verbs: explain (how or why something works, how to do something, advice, overviews), \
search (where code, files, symbols or usages are), review (judge quality, correctness, security or \
performance), impact (what a change, removal or upgrade would affect or break; which tests cover X), \
status (tests, build, CI, diagnostics, git history and diffs, issues and pull requests). \
Mutation verbs: fix (make wrong behaviour right; a bug report is a fix), refactor (restructure \
without changing behaviour), rename, implement (new behaviour, any other change), test (write \
tests), document (docs, comments, changelog), delete, scaffold (a new project from nothing), commit \
(commit, push, tag, open or merge a pull request). Instruction verbs: forbid (never, don't), \
require (must, always), prefer (style and preferences), remember (a fact to keep), forget. \
A question is always a query, whatever verb it mentions; a polite request (\"can you fix it?\") is \
a request. \
target: the symbol, file or thing the request is about, as written. constraints: limits the user set. \
context: broad for architecture or overview questions, else narrow. missing: parameters the request leaves open.";

/// What a model reading a request is asked to write: the intent schema (and its grammar).
pub fn intent_task() -> Task {
    Task {
        name: "record_intent",
        description: "Record the request's intent.",
        system: SYSTEM,
        schema: boundary::schema(),
        max_tokens: 512,
        grammar: Some(grammar::gbnf()),
        narrowed: None,
    }
}

/// The transducer that reads requests over a resolved connection.
pub fn transducer(connection: Connection) -> Result<Box<dyn Transducer>, ProviderError> {
    Ok(match connection {
        Connection::Offline => Box::new(Offline),
        Connection::Http(http) => Box::new(http.for_task(intent_task())),
        #[cfg(feature = "local")]
        Connection::Local(spec) => Box::new(spec.load(intent_task())?),
    })
}

/// The deterministic, offline transducer: the embedded default.
pub struct Offline;

impl Transducer for Offline {
    fn name(&self) -> &str {
        "offline"
    }

    fn transduce(&mut self, text: &str, _feedback: Option<&str>) -> Result<String, String> {
        Ok(offline::transduce(text))
    }
}

/// How perception went.
#[derive(Debug, PartialEq)]
pub enum Perceived {
    Intent {
        intent: Intent,
        attempts: usize,
    },
    /// Every attempt failed: the request must be clarified with the user.
    Unparsed {
        errors: Vec<String>,
    },
}

/// Perceives `text`, repairing malformed output at most `MAX_REPAIRS` times.
pub fn perceive(transducer: &mut dyn Transducer, text: &str) -> Perceived {
    let mut errors = Vec::new();
    for attempt in 0..=MAX_REPAIRS {
        let feedback = errors.last().map(String::as_str);
        let raw = match transducer.transduce(text, feedback) {
            Ok(raw) => raw,
            Err(e) => {
                errors.push(e);
                break;
            }
        };
        // A model that speaks in HRF channels answers on `final`; the envelope is validated first.
        let body = match crate::hrf::final_content(&raw) {
            Ok(Some(content)) => content,
            Ok(None) => raw,
            Err(e) => {
                errors.push(format!("{}: {} {}", e.code, e.message, e.details.join("; ")));
                continue;
            }
        };
        match boundary::parse(&body) {
            Ok(intent) => return Perceived::Intent { intent, attempts: attempt + 1 },
            Err(e) => errors.push(e.to_string()),
        }
    }
    Perceived::Unparsed { errors }
}

/// Agreement below which a reading is uncertain and the user is asked.
pub const MIN_AGREEMENT: f64 = 2.0 / 3.0;

/// Several readings of one request, and how much they agreed.
#[derive(Debug, PartialEq)]
pub struct Consensus {
    pub perceived: Perceived,
    /// Share of the readings that gave the majority's category and verb.
    pub agreement: f64,
}

/// Perceives `text` `n` times (self-consistency). When fewer than
/// `MIN_AGREEMENT` of the readings agree, the majority reading is returned
/// marked uncertain: an `intent` parameter is missing, so the kernel asks.
pub fn perceive_consistent(transducer: &mut dyn Transducer, text: &str, n: usize) -> Consensus {
    let n = n.max(1);
    let mut intents = Vec::new();
    let mut errors = Vec::new();
    for _ in 0..n {
        match perceive(transducer, text) {
            Perceived::Intent { intent, .. } => intents.push(intent),
            Perceived::Unparsed { errors: e } => errors.extend(e),
        }
    }
    let mut votes: Vec<((nerd_logic::vocab::Category, nerd_logic::vocab::Verb), usize)> = Vec::new();
    for i in &intents {
        match votes.iter_mut().find(|(k, _)| *k == (i.category, i.verb)) {
            Some((_, count)) => *count += 1,
            None => votes.push(((i.category, i.verb), 1)),
        }
    }
    let Some(&(winner, count)) = votes.iter().max_by_key(|(_, c)| *c) else {
        return Consensus { perceived: Perceived::Unparsed { errors }, agreement: 0.0 };
    };
    let agreement = count as f64 / n as f64;
    let Some(mut intent) = intents.into_iter().find(|i| (i.category, i.verb) == winner) else {
        return Consensus { perceived: Perceived::Unparsed { errors }, agreement: 0.0 };
    };
    if agreement < MIN_AGREEMENT {
        let tally: Vec<String> = votes.iter().map(|((c, v), k)| format!("{c}/{v}×{k}")).collect();
        intent.missing.push(Missing {
            param: "intent".into(),
            clue: format!("readings disagree: {}", tally.join(", ")),
            hypothesis: format!("{}/{}", winner.0, winner.1),
        });
        intent.confidence = intent.confidence.min(agreement);
    }
    Consensus { perceived: Perceived::Intent { intent, attempts: n }, agreement }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_output_is_repaired_within_the_budget_with_the_error_fed_back() {
        let good = r#"{"category":"mutation","verb":"fix","target":"parser","confidence":0.9}"#;
        let mut t = Transcript { outputs: ["not json".to_string(), good.to_string()].into(), feedback: vec![] };
        let got = perceive(&mut t, "fix the parser");
        assert!(matches!(got, Perceived::Intent { attempts: 2, .. }), "{got:?}");
        assert_eq!(t.feedback[0], None);
        assert!(t.feedback[1].as_deref().unwrap_or("").contains("not the intent JSON"));
    }

    #[test]
    fn a_model_speaking_hrf_channels_goes_through_the_same_boundary() {
        let env = r#"{"HRFVersion":"1.0","messages":[
            {"role":"assistant","channel":"analysis","content":"they want a fix"},
            {"role":"assistant","channel":"final","contentType":"json","content":{"category":"mutation","verb":"fix","target":"lexer","confidence":0.8}}]}"#;
        let broken = r#"{"HRFVersion":"1.0","messages":[{"role":"assistant","content":"no channel"}]}"#;
        let mut t = Transcript { outputs: [broken.to_string(), env.to_string()].into(), feedback: vec![] };
        match perceive(&mut t, "fix the lexer") {
            Perceived::Intent { intent, attempts } => {
                assert_eq!((intent.verb.as_str(), attempts), ("fix", 2));
            }
            other => panic!("{other:?}"),
        }
        assert!(t.feedback[1].as_deref().unwrap_or("").contains("HRF_SEMANTIC_VALIDATION_FAILED"));
    }

    #[test]
    fn disagreeing_readings_mark_the_intent_uncertain() {
        let fix = r#"{"category":"mutation","verb":"fix","target":"x","confidence":0.9}"#;
        let refactor = r#"{"category":"mutation","verb":"refactor","target":"x","confidence":0.9}"#;
        let search = r#"{"category":"query","verb":"search","target":"x","confidence":0.9}"#;
        let mut t = Transcript { outputs: [fix, refactor, search].map(String::from).into(), feedback: vec![] };
        let c = perceive_consistent(&mut t, "do the thing to x", 3);
        assert!((c.agreement - 1.0 / 3.0).abs() < 1e-9);
        match c.perceived {
            Perceived::Intent { intent, .. } => {
                assert!(intent.missing.iter().any(|m| m.param == "intent"), "{intent:?}")
            }
            other => panic!("{other:?}"),
        }
        let mut t = Transcript { outputs: [fix, fix, refactor].map(String::from).into(), feedback: vec![] };
        let c = perceive_consistent(&mut t, "fix x", 3);
        match c.perceived {
            Perceived::Intent { intent, .. } => assert!(intent.missing.is_empty() && intent.verb.as_str() == "fix"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_model_that_never_complies_ends_in_clarification() {
        let bad = r#"{"category":"mutation","verb":"delete","confidence":1,"permitted":true}"#;
        let mut t = Transcript { outputs: vec![bad.to_string(); 5].into(), feedback: vec![] };
        match perceive(&mut t, "delete everything") {
            Perceived::Unparsed { errors } => assert_eq!(errors.len(), MAX_REPAIRS + 1),
            other => panic!("{other:?}"),
        }
        assert_eq!(t.outputs.len(), 5 - (MAX_REPAIRS + 1), "bounded: no more attempts than the budget");
    }
}
