//! The viva voce: a specialist is examined on knowledge it must not read
//! while answering. About one atom in five (chosen by digest, so the same
//! knowledge is always examined the same way) is held out; a question is put
//! from its concept and kind alone, and the specialist answers through
//! retrieval over the other atoms. The answer passes when one of the atoms it
//! rests on is among the knowledge most related to the held-out atom: at or
//! above the 95th percentile of the held-out atom's similarity to every atom
//! the specialist may use (cosine of embeddings, or shared content words
//! without the model). Answering by chance passes about one question in six.
//! Knows nothing about spawning.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::ask;
use crate::embed::Embedder;
use crate::store::{KnowledgeDb, KnowledgeRow, StoreError, VivaRow};

/// Questions one viva puts at most.
pub const MAX_QUESTIONS: usize = 50;
/// The share of the usable knowledge counted as most related to a held-out atom.
const RELATED_SHARE: f64 = 0.05;

/// One question and how it went.
#[derive(Clone, Debug, Serialize)]
pub struct Question {
    pub question: String,
    /// Where the held-out knowledge came from.
    pub source: String,
    pub passed: bool,
    /// How related the answer's closest atom is to the held-out atom, and the mark it had to reach.
    pub related: f64,
    pub mark: f64,
    /// The sources the answer cited.
    pub cited: Vec<String>,
}

/// A viva voce's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Viva {
    pub specialist: String,
    pub asked: u32,
    pub passed: u32,
    pub threshold: u32,
    /// How similarity was judged.
    pub judged_by: &'static str,
    /// The share of questions an answer of random atoms would pass, on average: the floor to compare with.
    pub chance: f64,
    pub knowledge: String,
    pub questions: Vec<Question>,
}

const STOP: &[&str] = &[
    "about",
    "above",
    "after",
    "again",
    "also",
    "another",
    "because",
    "been",
    "before",
    "being",
    "between",
    "both",
    "cannot",
    "could",
    "does",
    "doing",
    "each",
    "either",
    "every",
    "from",
    "have",
    "having",
    "here",
    "into",
    "itself",
    "just",
    "like",
    "make",
    "makes",
    "many",
    "more",
    "most",
    "much",
    "must",
    "need",
    "only",
    "other",
    "over",
    "same",
    "should",
    "some",
    "such",
    "than",
    "that",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "under",
    "until",
    "used",
    "uses",
    "using",
    "very",
    "want",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "will",
    "with",
    "within",
    "without",
    "would",
    "your",
    "example",
    "following",
    "default",
    "value",
];

/// A word as grading compares it: lowercase, its first six letters (a crude stem).
fn stem(word: &str) -> String {
    word.to_lowercase().chars().take(6).collect()
}

/// The content words of `text`, stemmed, each once.
fn content_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= 4 && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !STOP.contains(&w.to_lowercase().as_str()))
        .map(stem)
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Whether the atom is examined rather than used to answer.
fn held_out(atom: &KnowledgeRow) -> bool {
    atom.kind != "example"
        && atom.text.split_whitespace().count() >= 8
        && u8::from_str_radix(atom.digest.get(..2).unwrap_or("ff"), 16).is_ok_and(|b| b % 5 == 0)
}

/// The question put about a held-out atom: from its concept and kind only.
pub fn question_for(atom: &KnowledgeRow) -> String {
    let subject = atom.concept.rsplit(" > ").next().unwrap_or(&atom.concept).trim();
    match atom.kind.as_str() {
        "api" => format!("What does {subject} do?"),
        "anti_pattern" => format!("What should I avoid with {subject}?"),
        "pattern" => format!("How should I use {subject}?"),
        _ => format!("What should I know about {subject}?"),
    }
}

/// How alike two atoms are: the cosine of their embeddings when both have
/// one, else the share of content words they have in common (Jaccard).
struct Likeness {
    vectors: HashMap<i64, Vec<f32>>,
    words: HashMap<i64, HashSet<String>>,
}

impl Likeness {
    fn of(&self, a: i64, b: i64) -> f64 {
        if let (Some(x), Some(y)) = (self.vectors.get(&a), self.vectors.get(&b)) {
            return f64::from(crate::embed::similarity(x, y));
        }
        match (self.words.get(&a), self.words.get(&b)) {
            (Some(x), Some(y)) if !x.is_empty() || !y.is_empty() => {
                x.intersection(y).count() as f64 / x.union(y).count() as f64
            }
            _ => 0.0,
        }
    }
}

/// The probability that `draws` atoms drawn without replacement from `n` miss all `marked` ones.
fn miss_all(n: usize, marked: usize, draws: usize) -> f64 {
    (0..draws.min(n)).map(|i| (n - marked).saturating_sub(i) as f64 / (n - i) as f64).product()
}

/// Examines the specialist whose shard is `db`, records the outcome in it, and returns it.
pub fn examine(name: &str, db: &KnowledgeDb, model: Option<&Embedder>, threshold: u32) -> Result<Viva, StoreError> {
    let atoms = db.all()?;
    let knowledge = super::research::knowledge_digest(atoms.iter().map(|a| a.digest.as_str()));
    // Judged on the atoms' own words, never their section titles: an answer
    // is not related to the held-out atom merely because both sit under one heading.
    let judged_by = "words";
    let likeness = Likeness {
        vectors: HashMap::new(),
        words: atoms.iter().map(|a| (a.id, content_words(&a.text).into_iter().collect())).collect(),
    };
    let (mut examined, usable): (Vec<&KnowledgeRow>, Vec<&KnowledgeRow>) = atoms.iter().partition(|a| held_out(a));
    let skip: HashSet<i64> = examined.iter().map(|a| a.id).collect();
    let usable: Vec<i64> = usable.iter().map(|a| a.id).collect();
    examined.sort_by(|a, b| a.digest.cmp(&b.digest));
    examined.truncate(MAX_QUESTIONS);
    let mut questions = Vec::new();
    let mut chance = 0.0;
    for atom in examined {
        let question = question_for(atom);
        let mut related: Vec<f64> = usable.iter().map(|&id| likeness.of(atom.id, id)).collect();
        related.sort_by(|a, b| b.total_cmp(a));
        let rank = ((related.len() as f64 * RELATED_SHARE).ceil() as usize).max(1);
        let mark = related.get(rank - 1).copied().unwrap_or(f64::INFINITY);
        // Answering with `ask::ANSWER_ATOMS` atoms drawn at random passes when one is at or above the mark.
        let at_mark = related.iter().filter(|r| **r >= mark).count();
        chance += 1.0 - miss_all(related.len(), at_mark, ask::ANSWER_ATOMS);
        let answer = ask::answer(db, model, &question, &skip)?;
        let best = answer.hits.iter().map(|h| likeness.of(atom.id, h.id)).fold(f64::NEG_INFINITY, f64::max);
        let passed = !answer.hits.is_empty() && best >= mark && !answer.citations.is_empty();
        questions.push(Question {
            question,
            source: atom.source.clone(),
            passed,
            related: if best.is_finite() { best } else { 0.0 },
            mark: if mark.is_finite() { mark } else { 0.0 },
            cited: answer.citations,
        });
    }
    let asked = questions.len() as u32;
    let passed = questions.iter().filter(|q| q.passed).count() as u32;
    let failures: Vec<&Question> = questions.iter().filter(|q| !q.passed).collect();
    db.record_viva(&VivaRow {
        at_ns: crate::timing::now_ns(),
        asked,
        passed,
        threshold,
        knowledge: knowledge.clone(),
        failures: serde_json::to_string(&failures).unwrap_or_default(),
    })?;
    let chance = if asked == 0 { 0.0 } else { chance / f64::from(asked) };
    Ok(Viva { specialist: name.to_string(), asked, passed, threshold, judged_by, chance, knowledge, questions })
}
