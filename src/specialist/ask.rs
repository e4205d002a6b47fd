//! A specialist answers from its knowledge shard: the atoms nearest the
//! question by meaning (cosine of embeddings) and by words (BM25), fused by
//! memory recall's own score (`recall::fused`), become an answer that cites each atom's source.
//! Knows nothing about who asks or why.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::Serialize;

use crate::embed::Embedder;
use crate::memory::recall;
use crate::store::{KnowledgeDb, KnowledgeRow, StoreError};

/// Candidates each side proposes before fusion.
const CANDIDATES: usize = 40;
/// Atoms an answer is built from at most.
pub const ANSWER_ATOMS: usize = 3;

/// One recalled atom and its fused score in [0, 1].
#[derive(Clone, Debug, Serialize)]
pub struct Hit {
    pub concept: String,
    pub kind: String,
    pub text: String,
    pub source: String,
    pub score: f64,
    #[serde(skip)]
    pub id: i64,
}

/// An answer and the sources it cites.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    pub question: String,
    /// The answer, each part followed by its source in brackets; empty when nothing is known.
    pub text: String,
    pub citations: Vec<String>,
    pub hits: Vec<Hit>,
}

/// The `k` atoms that best answer `question`, leaving out the ids in `skip`.
pub fn recall(
    db: &KnowledgeDb,
    model: Option<&Embedder>,
    question: &str,
    k: usize,
    skip: &HashSet<i64>,
) -> Result<Vec<Hit>, StoreError> {
    let mut words: BTreeMap<i64, f64> = match recall::words_query(question) {
        Some(q) => db.by_words(&q, CANDIDATES + skip.len())?.into_iter().filter(|(id, _)| !skip.contains(id)).collect(),
        None => BTreeMap::new(),
    };
    recall::relative_to_best(&mut words);
    let meaning: BTreeMap<i64, f64> = match model {
        Some(m) if db.embedded()? > 0 => {
            db.by_vector(&m.embed(question), usize::MAX)?.into_iter().filter(|(id, _)| !skip.contains(id)).collect()
        }
        _ => BTreeMap::new(),
    };
    let near: BTreeSet<i64> = {
        let mut by_meaning: Vec<(i64, f64)> = meaning.iter().map(|(id, m)| (*id, *m)).collect();
        by_meaning.sort_by(|a, b| b.1.total_cmp(&a.1));
        by_meaning.into_iter().take(CANDIDATES).map(|(id, _)| id).chain(words.keys().copied()).collect()
    };
    let mut scored: Vec<(i64, f64)> = near
        .into_iter()
        .map(|id| {
            let w = words.get(&id).copied().unwrap_or(0.0);
            (id, recall::fused(w, meaning.get(&id).copied(), !meaning.is_empty()))
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    let mut hits = Vec::new();
    for (id, score) in scored {
        if let Some(KnowledgeRow { concept, kind, text, source, .. }) = db.get(id)? {
            hits.push(Hit { concept, kind, text, source, score, id });
        }
    }
    Ok(hits)
}

/// The specialist's answer to `question`, from its best atoms, each cited.
pub fn answer(
    db: &KnowledgeDb,
    model: Option<&Embedder>,
    question: &str,
    skip: &HashSet<i64>,
) -> Result<Answer, StoreError> {
    let hits = recall(db, model, question, ANSWER_ATOMS, skip)?;
    let mut parts = Vec::new();
    let mut citations = Vec::new();
    for h in &hits {
        let part = if h.kind == "example" {
            format!("Example ({}) [{}]:\n{}", h.concept, h.source, h.text)
        } else {
            format!("{}: {} [{}]", h.concept, h.text, h.source)
        };
        parts.push(part);
        if !citations.contains(&h.source) {
            citations.push(h.source.clone());
        }
    }
    Ok(Answer { question: question.to_string(), text: parts.join("\n\n"), citations, hits })
}
