//! Hybrid recall: the nearest memories by meaning (cosine of embeddings) and
//! the best by words (BM25), each side's candidates scored on both, fused by
//! a convex combination. Knows nothing about what the memories are for.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Memory, MemoryError};
use crate::embed::Embedder;
use crate::store::StateDb;

/// How many candidates the words side proposes before fusion.
const CANDIDATES: usize = 64;
/// The weight of meaning against words when both are known.
const MEANING: f64 = 0.7;

/// One recalled memory and why it scored as it did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    #[serde(flatten)]
    pub memory: Memory,
    /// The fused score in [0, 1]: `0.7 · meaning + 0.3 · words`, or words alone without the model.
    pub score: f64,
    /// BM25 relevance relative to the best word match among the candidates, in [0, 1].
    pub words: f64,
    /// Cosine similarity of the embeddings; absent without the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meaning: Option<f64>,
}

/// One candidate's fused score: `MEANING · meaning + (1 − MEANING) · words`;
/// a candidate without a meaning scores its words as they would count beside
/// one when recall is `by_meaning`, and its words alone when it is not.
pub fn fused(words: f64, meaning: Option<f64>, by_meaning: bool) -> f64 {
    match (meaning, by_meaning) {
        (Some(m), _) => MEANING * m.clamp(0.0, 1.0) + (1.0 - MEANING) * words,
        (None, true) => (1.0 - MEANING) * words,
        (None, false) => words,
    }
}

/// BM25 relevances made relative to the best of them, in [0, 1].
pub fn relative_to_best(words: &mut BTreeMap<i64, f64>) {
    let best = words.values().copied().fold(0.0f64, f64::max);
    if best > 0.0 {
        words.values_mut().for_each(|w| *w /= best);
    }
}

/// The FTS5 query for free text: every word of two or more characters that
/// is not a stop word, quoted (so no user text is FTS syntax), joined by OR.
pub fn words_query(text: &str) -> Option<String> {
    let words = query_words(text);
    (!words.is_empty()).then(|| or_query(&words))
}

fn or_query(words: &[String]) -> String {
    words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(" OR ")
}

/// The query's words worth matching: stop words and one-letter words dropped, each once.
pub(super) fn query_words(text: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in", "is", "it",
        "of", "on", "or", "that", "the", "this", "to", "was", "we", "what", "when", "where", "which", "who", "why",
        "with", "you", "our", "my", "me",
    ];
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 2 && !STOP.contains(&w.as_str()))
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The words query over `db`, without the words so common in this store
/// (in more than one memory in twenty) that they carry almost no weight
/// while costing a BM25 score for every memory they match; when every
/// word is that common, the query keeps them all.
pub fn selective_words_query(db: &StateDb, text: &str) -> Result<Option<String>, MemoryError> {
    let words = query_words(text);
    if words.is_empty() {
        return Ok(None);
    }
    let common = (db.memory_id_bound()? / 20).max(1000);
    let mut kept = Vec::new();
    for word in &words {
        if db.memory_word_count(&format!("\"{word}\""), common + 1)? <= common {
            kept.push(word.clone());
        }
    }
    Ok(Some(or_query(if kept.is_empty() { &words } else { &kept })))
}

pub fn hybrid(db: &StateDb, model: Option<&Embedder>, query: &str, k: usize) -> Result<Vec<Hit>, MemoryError> {
    let mut words: BTreeMap<i64, f64> = match selective_words_query(db, query)? {
        Some(q) => db.memory_by_words(&q, CANDIDATES)?.into_iter().collect(),
        None => BTreeMap::new(),
    };
    relative_to_best(&mut words);
    let mut meaning: BTreeMap<i64, f64> = BTreeMap::new();
    if let Some(model) = model {
        let vector = model.embed(query);
        // The nearest by meaning (their own search oversamples before ranking exactly).
        meaning.extend(db.memory_by_vector(&vector, k.max(10))?);
        // Word candidates the vector side did not propose still get their meaning scored.
        for id in words.keys().filter(|id| !meaning.contains_key(id)).copied().collect::<Vec<_>>() {
            if let Some(similarity) = db.memory_similarity(id, &vector)? {
                meaning.insert(id, similarity);
            }
        }
    }
    let mut scored: Vec<(i64, f64, f64, Option<f64>)> = words
        .keys()
        .chain(meaning.keys())
        .copied()
        .collect::<std::collections::BTreeSet<i64>>()
        .into_iter()
        .map(|id| {
            let w = words.get(&id).copied().unwrap_or(0.0);
            let m = meaning.get(&id).copied();
            let score = fused(w, m, model.is_some());
            (id, score, w, m)
        })
        .collect();
    // A candidate with neither a word in common nor any likeness is no answer.
    scored.retain(|(_, score, ..)| *score > 0.0);
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    scored.truncate(k);
    scored
        .into_iter()
        .map(|(id, score, words, meaning)| {
            let row = db.memory(id)?.ok_or(MemoryError::NoSuchMemory(id))?;
            Ok(Hit { memory: row.try_into()?, score, words, meaning })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::words_query;

    #[test]
    fn free_text_becomes_a_quoted_or_query_without_stop_words_or_syntax() {
        assert_eq!(
            words_query("How do we wait between failed charges?").as_deref(),
            Some("\"between\" OR \"charges\" OR \"failed\" OR \"wait\"")
        );
        assert_eq!(words_query("NEAR(\"x\" y) AND -z*").as_deref(), Some("\"near\""));
        assert_eq!(words_query("the a ?"), None);
        assert_eq!(words_query("retry_after"), Some("\"retry_after\"".into()));
    }
}
