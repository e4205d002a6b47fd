//! What a request leaves in memory, and what later requests find there: at
//! the end of each request its target and outcome, and each file it changed,
//! are promoted to the durable memory (text facts, never a model's prose);
//! a later reference such as "the function we changed yesterday" or "that
//! test again" is grounded on the most recent of them (`source` names the
//! session and the request, so what one request touched is told apart), with a confidence that
//! asks when more than one would fit. "Remember that …" and "forget …"
//! requests land here too, and so do the checked memory operations of a
//! model's reply (notes, `knowledge_link` facts, forgetting what a model
//! noted). Before a model call, `recollect` gathers what memory brings to
//! the kernel: what the last requests touched, graph memory's links, and the
//! symbols and memories recall finds for the request's words (asserted as
//! `vector_recall` before the fixpoint). Knows nothing about how recall scores.

use std::sync::OnceLock;

use regex::Regex;

use crate::agent::event::Status;
use crate::articulate::Change;
use crate::kernel::Loaded;
use crate::memory::{Kind, Memories, Memory, MemoryError};
use crate::perceive::focus::Candidate;
use crate::perceive::Intent;
use crate::world::project::ProjectedSymbol;
use nerd_logic::vocab::Verb;

/// The confidence of the one most recent subject; below it when several fit.
const RECENT: f64 = 0.9;
const ONE_OF_SEVERAL: f64 = 0.6;
/// The confidence of the one workspace item a learned link names.
const NAMED: f64 = 0.9;
/// How many recent memories a reference looks back through.
const LOOK_BACK: usize = 50;

/// How many symbols, and how many memories, recall may add to a request's context.
const SYMBOLS_RECALLED: usize = 5;
const MEMORIES_RECALLED: usize = 5;
/// The least likeness (cosine) a symbol needs to be recalled without a word in common.
const SYMBOL_LIKENESS: f64 = 0.35;
/// The least fused score a memory needs to be recalled for a request.
const MEMORY_SCORE: f64 = 0.4;

/// What memory brings to one request's context.
#[derive(Clone, Debug, Default)]
pub struct Recollection {
    /// What the last three requests targeted or changed, with their age.
    pub touched: Vec<(String, u32)>,
    /// Graph memory: every `knowledge_link` kept.
    pub links: Vec<crate::store::LinkRow>,
    /// Symbols and memories (`memory:ID`) recalled for the request, with fused scores in [0, 1].
    pub recalled: Vec<(String, f64)>,
    /// The memories recalled, for their text.
    pub memories: Vec<Memory>,
}

/// Gathers what memory holds for a request: what recent requests touched,
/// the links, and what recall finds for `query` among the workspace's
/// symbols (embedding new ones into `store`) and the memories.
pub fn recollect(
    memories: &Memories,
    store: &mut crate::store::Store,
    (root, loaded): (&std::path::Path, &Loaded),
    query: &str,
) -> Result<Recollection, MemoryError> {
    use crate::memory::symbols::{self, SymbolText};
    // Each symbol in words, with the first sentence of its doc comment (each file read once).
    let mut texts: Vec<SymbolText> = Vec::new();
    for (path, (lang, p)) in &loaded.projections {
        let source = std::fs::read_to_string(root.join(path)).unwrap_or_default();
        let lines: Vec<&str> = source.lines().collect();
        texts.extend(p.symbols.iter().map(|s| {
            let doc = crate::world::doc::first_sentence(*lang, &lines, s.line);
            SymbolText::new(&s.id, s.kind.as_str(), &s.name, path, &s.signature, doc.as_deref())
        }));
    }
    let mut recalled: Vec<(String, f64)> = symbols::recall(store, &texts, query, SYMBOLS_RECALLED, SYMBOL_LIKENESS)?
        .into_iter()
        .map(|hit| (hit.id, hit.score))
        .collect();
    let mut found = Vec::new();
    for hit in memories.search(query, MEMORIES_RECALLED)? {
        if hit.score >= MEMORY_SCORE && matches!(hit.memory.kind, Kind::Note | Kind::Fact | Kind::Answer | Kind::Change)
        {
            recalled.push((format!("memory:{}", hit.memory.id), hit.score));
            found.push(hit.memory);
        }
    }
    Ok(Recollection { touched: recent_subjects(memories, 3)?, links: memories.links()?, recalled, memories: found })
}

/// Stores what one request did: the request with its target and status, and
/// each changed file. Returns the memories written.
pub fn promote(
    memories: &Memories,
    source: &str,
    request: &str,
    target: Option<&Candidate>,
    status: Status,
    changes: &[Change],
) -> Result<Vec<Memory>, MemoryError> {
    let subject = target.map(|c| if c.symbol.is_empty() { c.path.as_str() } else { c.symbol.as_str() });
    let mut out = Vec::new();
    // The target is the memory's subject, which recall reads beside its text.
    out.push(memories.add(Kind::Request, &format!("{request}: {}", status.as_str()), subject, source)?);
    for change in changes {
        // The target when the change is in its file, else the file itself.
        let subject = match target {
            Some(c) if c.path == change.path && !c.symbol.is_empty() => c.symbol.as_str(),
            _ => change.path.as_str(),
        };
        let text = format!(
            "changed {} (+{} -{}) for \"{request}\": {}",
            change.path,
            change.added,
            change.removed,
            status.as_str()
        );
        out.push(memories.add(Kind::Change, &text, Some(subject), source)?);
    }
    Ok(out)
}

/// What the last `requests` requests targeted or changed, newest first, each
/// subject once with its age (0: the latest request that touched anything).
pub fn recent_subjects(memories: &Memories, requests: u32) -> Result<Vec<(String, u32)>, MemoryError> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for memory in memories.list(None, LOOK_BACK)? {
        let Some(subject) = memory.subject else { continue };
        if !matches!(memory.kind, Kind::Change | Kind::Request) {
            continue;
        }
        if !sources.contains(&memory.source) {
            if sources.len() as u32 == requests {
                break;
            }
            sources.push(memory.source.clone());
        }
        if !out.iter().any(|(s, _)| *s == subject) {
            out.push((subject, sources.len() as u32 - 1));
        }
    }
    Ok(out)
}

/// How far ahead of the next memory the best match must score to be forgotten without asking.
const CLEAR_LEAD: f64 = 0.1;
/// The least fused score a memory needs to be the one a "forget" means.
const FORGET_AT_LEAST: f64 = 0.5;

/// Carries out "remember that …" (a note, or a preference when it says how
/// work should be done) and "forget …" (the one memory that clearly matches;
/// several close matches are listed and nothing is forgotten).
pub fn update(
    memories: &Memories,
    intent: &Intent,
    session: &str,
    loaded: Option<&Loaded>,
) -> Result<(Status, String), MemoryError> {
    let text = intent.target.trim();
    if intent.verb == Verb::Remember {
        let (memory, link) = remember(memories, text, &format!("user, session {session}"), loaded)?;
        let linked =
            link.map_or(String::new(), |l| format!("\nLinked: knowledge_link({:?}, {:?}, {:?})", l.a, l.relation, l.b));
        return Ok((
            Status::Succeeded,
            format!("Remembered ({} {}): {}{linked}", memory.kind.as_str(), memory.id, memory.text),
        ));
    }
    let hits = memories.search(text, 3)?;
    let lead = match (hits.first(), hits.get(1)) {
        (Some(best), Some(next)) => best.score - next.score,
        (Some(best), None) => best.score,
        _ => 0.0,
    };
    match hits.first() {
        Some(best) if best.score >= FORGET_AT_LEAST && lead >= CLEAR_LEAD => {
            let gone = memories.forget(best.memory.id)?;
            Ok((Status::Succeeded, format!("Forgot memory {}: {}", gone.id, gone.text)))
        }
        Some(_) => {
            let listed: Vec<String> =
                hits.iter().map(|h| format!("{}) {} ({:.2})", h.memory.id, h.memory.text, h.score)).collect();
            Ok((
                Status::NeedsClarification,
                format!("Which memory should I forget? {}; `nerd memory forget ID` forgets one.", listed.join("  ")),
            ))
        }
        None => Ok((Status::Answered, format!("Nothing I remember matches \"{text}\"."))),
    }
}

/// Remembers what the user said (a note, or a preference when it says how
/// work should be done); when it states a link ("the retry delay is
/// configured in settings.py"), graph memory keeps it too, each end
/// grounded on the workspace where it names one symbol or file with
/// confidence, else kept as words. Forgetting the memory removes the link.
pub fn remember(
    memories: &Memories,
    text: &str,
    source: &str,
    loaded: Option<&Loaded>,
) -> Result<(Memory, Option<crate::store::LinkRow>), MemoryError> {
    static PREFERENCE: OnceLock<Regex> = OnceLock::new();
    let preference = PREFERENCE
        .get_or_init(|| {
            Regex::new(
                r"(?i)\b(i|we) (prefer|like|want|would rather)\b|\b(always|never|do not|don't) (use|add|write)\b",
            )
            .unwrap_or_else(|e| panic!("built-in regex: {e}"))
        })
        .is_match(text);
    let said = if preference { None } else { crate::perceive::link::said_link(text) };
    let Some(said) = said else {
        let kind = if preference { Kind::Preference } else { Kind::Note };
        return Ok((memories.add(kind, text, None, source)?, None));
    };
    // Each end as the one symbol or file it names, when it names one.
    let ground = |words: &str| loaded.and_then(|l| crate::agent::ground::confidently(words, l));
    let (a, b) = (ground(&said.a), ground(&said.b));
    let subject = a.clone().or(b.clone());
    let memory = memories.add(Kind::Fact, text, subject.as_deref(), source)?;
    let link = crate::store::LinkRow {
        a: a.unwrap_or(said.a),
        relation: said.relation,
        b: b.unwrap_or(said.b),
        memory: Some(memory.id),
    };
    memories.link(&link.a, &link.relation, &link.b, Some(memory.id))?;
    Ok((memory, Some(link)))
}

/// An item (a symbol id or a file) in the workspace: its file, when
/// indexed, with its symbol when that still exists.
fn locate<'a>(item: &str, loaded: &'a Loaded) -> Option<(&'a str, Option<&'a ProjectedSymbol>)> {
    let path = item.split('#').next().unwrap_or(item);
    let (path, (_, projection)) = loaded.projections.get_key_value(path)?;
    Some((path.as_str(), projection.symbols.iter().find(|s| s.id == item)))
}

/// A candidate (confidence set by the caller) for a file and maybe one of its symbols.
fn candidate(path: &str, symbol: Option<&ProjectedSymbol>) -> Candidate {
    let symbol = symbol.map_or(String::new(), |s| s.id.clone());
    Candidate { path: path.to_string(), symbol, confidence: 0.0 }
}

/// Candidates for a target that graph memory names: a learned link whose
/// words end (two words or more) appears in the target ("the flaky test", once "the flaky test is
/// test_timeout" was said) and a symbol or file of the workspace at the
/// other. One such link is confident; several ask.
pub fn linked(memories: &Memories, target: &str, loaded: &Loaded) -> Result<Vec<Candidate>, MemoryError> {
    let words = format!(" {} ", crate::perceive::link::phrase(target).to_lowercase());
    if words.trim().is_empty() {
        return Ok(Vec::new());
    }
    // The link's words appear in the target as whole words ("the flaky test again").
    let names = |end: &str| end.contains(' ') && words.contains(&format!(" {} ", end.to_lowercase()));
    // The other end must still be in the workspace: a file, or a symbol that still exists.
    let exists = |item: &str| match locate(item, loaded)? {
        (_, None) if item.contains('#') => None,
        (path, symbol) => Some(candidate(path, symbol)),
    };
    let mut found: Vec<Candidate> = Vec::new();
    for link in memories.links()? {
        let other = if names(&link.b) {
            &link.a
        } else if names(&link.a) {
            &link.b
        } else {
            continue;
        };
        if let Some(c) = exists(other) {
            if !found.iter().any(|f| f.path == c.path && f.symbol == c.symbol) {
                found.push(c);
            }
        }
    }
    let confidence = if found.len() == 1 { NAMED } else { ONE_OF_SEVERAL };
    found.iter_mut().for_each(|c| c.confidence = confidence);
    Ok(found)
}

/// The focus of a request's target: what graph memory names first ("the
/// flaky test"), then, for a reference to earlier work ("the function we
/// changed", "that function again"), what recent requests touched, else
/// what its words resemble in the workspace.
pub fn focus(memories: &Memories, intent: &Intent, loaded: &Loaded) -> Result<Vec<Candidate>, MemoryError> {
    if !crate::agent::ground::needs_focus(intent) {
        return Ok(Vec::new());
    }
    let named = linked(memories, &intent.target, loaded)?;
    if !named.is_empty() {
        return Ok(named);
    }
    // "That function again" means earlier work, not a symbol named `function`.
    let back = remembered(memories, &intent.target, loaded)?;
    if !back.is_empty() {
        return Ok(back);
    }
    Ok(crate::agent::ground::candidates(intent, loaded))
}

/// Candidates for a target that refers back: the subjects of the most recent
/// changes and requests that still exist, newest first. The newest is
/// confident only when nothing else was touched by the same request.
pub fn remembered(memories: &Memories, target: &str, loaded: &Loaded) -> Result<Vec<Candidate>, MemoryError> {
    if !crate::perceive::focus::refers_back(target) {
        return Ok(Vec::new());
    }
    let wants_test = target.to_lowercase().contains("test");
    // A symbol since renamed or removed leaves its file.
    let exists = |subject: &str| match locate(subject, loaded)? {
        (_, Some(s)) if wants_test && s.kind != nerd_logic::vocab::SymbolKind::Test => None,
        (path, symbol) => Some(candidate(path, symbol)),
    };
    // Each subject with how many requests ago it was touched; a request's subjects share an age.
    let mut recent: Vec<(u32, Candidate)> = Vec::new();
    for (subject, age) in recent_subjects(memories, u32::MAX)? {
        let Some(candidate) = exists(&subject) else { continue };
        if !recent.iter().any(|(_, c)| c.path == candidate.path && c.symbol == candidate.symbol) {
            recent.push((age, candidate));
        }
    }
    let Some(&(newest, _)) = recent.first() else { return Ok(Vec::new()) };
    let same_request = recent.iter().filter(|(age, _)| *age == newest).count();
    Ok(recent
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut c))| {
            c.confidence = if i == 0 && same_request == 1 { RECENT } else { ONE_OF_SEVERAL };
            c
        })
        .collect())
}

/// Carries out a model's checked memory operations under `source`
/// (`model:SESSION`); returns what each did, in words. A model forgets only
/// what a model noted.
/// Carries out a model's memory operations. A promoted link's ends are
/// grounded like a link the user said: an end that is already a symbol or
/// file of the workspace stays, one that names a single symbol or file with
/// confidence becomes it, the rest are kept as words.
pub fn model_operations(
    memories: &Memories,
    ops: &[crate::agent::patch::MemoryOp],
    source: &str,
    loaded: Option<&Loaded>,
) -> Result<Vec<String>, MemoryError> {
    let ground = |end: &str| -> String {
        let Some(loaded) = loaded else { return end.to_string() };
        if locate(end, loaded).is_some() {
            return end.to_string();
        }
        crate::agent::ground::confidently(end, loaded).unwrap_or_else(|| end.to_string())
    };
    use crate::agent::patch::MemoryOp;
    let mut done = Vec::new();
    for op in ops {
        done.push(match op {
            MemoryOp::Note { text, subject } => {
                let m = memories.add(Kind::Fact, text, subject.as_deref(), source)?;
                format!("noted {}: {}", m.id, m.text)
            }
            MemoryOp::Link { a, relation, b } => {
                let (a, b) = (ground(a), ground(b));
                memories.link(&a, relation, &b, None)?;
                format!("linked {a} -{relation}-> {b}")
            }
            MemoryOp::Forget { id } => match memories.get(*id) {
                Ok(m) if m.source.starts_with("model:") => {
                    memories.forget(*id)?;
                    format!("forgot {id}: {}", m.text)
                }
                Ok(_) => format!("kept {id}: a model may forget only what a model noted"),
                Err(MemoryError::NoSuchMemory(_)) => format!("nothing to forget: there is no memory {id}"),
                Err(e) => return Err(e),
            },
        });
    }
    Ok(done)
}
