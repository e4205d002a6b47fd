//! Recall of the workspace's symbols for a request, by meaning and words:
//! each symbol is described in words (its kind, its name split into words,
//! its file and signature), embedded once and kept in the index by a hash of
//! that text, and scored against the query like memories are (cosine fused
//! with the query words it shares, each word weighted by how rare it is
//! among the symbols). Without the embedding model, words alone. Knows
//! nothing about the kernel or what the scores are used for.

use std::collections::{HashMap, HashSet};

use super::recall::{fused, query_words};
use super::{embedder, MemoryError};
use crate::embed::similarity;
use crate::store::Store;

/// A symbol as recall sees it.
pub struct SymbolText {
    pub id: String,
    /// Its description in words: what is embedded and matched.
    pub text: String,
}

impl SymbolText {
    /// Describes a symbol: `function parse retry after (src/http.py): def parse_retry_after(value)`.
    pub fn new(id: &str, kind: &str, name: &str, path: &str, signature: &str, doc: Option<&str>) -> SymbolText {
        let words = identifier_words(name).join(" ");
        let signature: String = signature.chars().take(200).collect();
        let doc = doc.map_or(String::new(), |d| format!(" - {d}"));
        SymbolText { id: id.to_string(), text: format!("{kind} {words} ({path}): {signature}{doc}") }
    }

    fn hash(&self) -> i64 {
        let digest = crate::digest::sha256_hex(self.text.as_bytes());
        i64::from_str_radix(&digest[..15], 16).unwrap_or_default()
    }
}

/// How many symbol texts one recall may embed (about 8 s on two cores); the
/// rest wait for later calls and are scored by words meanwhile.
const EMBED_PER_CALL: usize = 1024;

/// An identifier's words, lowercase: `parseRetryAfter`, `parse_retry_after`
/// and `ParseRetryAfter` all give `parse retry after`.
pub fn identifier_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        let boundary = match previous {
            _ if !c.is_alphanumeric() => true,
            Some(p) => c.is_uppercase() && (p.is_lowercase() || p.is_ascii_digit()),
            None => false,
        };
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word).to_lowercase());
        }
        if c.is_alphanumeric() {
            word.push(c);
        }
        previous = Some(c);
    }
    if !word.is_empty() {
        words.push(word.to_lowercase());
    }
    words
}

/// A word without its plural ending, so "charges" meets `charge` and
/// "retries" meets `retry`.
fn singular(word: &str) -> String {
    if word.len() > 4 && word.ends_with("ies") {
        format!("{}y", &word[..word.len() - 3])
    } else if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        word[..word.len() - 1].to_string()
    } else {
        word.to_string()
    }
}

/// One recalled symbol.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolHit {
    pub id: String,
    /// `0.7 · meaning + 0.3 · words`, or words alone without the model.
    pub score: f64,
}

/// The `k` symbols that best answer `query`, best first; symbols sharing no
/// rare word and (with the model) less alike than `least` are no answer.
/// Up to `EMBED_PER_CALL` new symbols' texts are embedded and kept in
/// `store` (those sharing a query word first); a text no symbol has any
/// longer is dropped from it.
pub fn recall(
    store: &mut Store,
    symbols: &[SymbolText],
    query: &str,
    k: usize,
    least: f64,
) -> Result<Vec<SymbolHit>, MemoryError> {
    let words = word_scores(symbols, query);
    let mut meaning: Vec<Option<f64>> = vec![None; symbols.len()];
    let model = embedder().ok();
    if let Some(model) = model {
        let mut stored = store.symbol_vectors()?;
        let hashes: Vec<i64> = symbols.iter().map(SymbolText::hash).collect();
        let mut missing: Vec<usize> = (0..symbols.len()).filter(|&i| !stored.contains_key(&hashes[i])).collect();
        // A bounded batch per call, those sharing a word with the query first:
        // a large workspace is embedded over several calls, never all at once.
        missing.sort_by(|&x, &y| words[y].total_cmp(&words[x]).then(x.cmp(&y)));
        let mut seen = HashSet::new();
        missing.retain(|i| seen.insert(hashes[*i]));
        missing.truncate(EMBED_PER_CALL);
        if !missing.is_empty() {
            let texts: Vec<&str> = missing.iter().map(|&i| symbols[i].text.as_str()).collect();
            let new: Vec<(i64, Vec<f32>)> = missing.iter().map(|&i| hashes[i]).zip(model.embed_all(&texts)).collect();
            // Texts no symbol has any longer leave the index with this batch.
            let current: HashSet<i64> = hashes.iter().copied().collect();
            let stale: Vec<i64> = stored.keys().filter(|h| !current.contains(h)).copied().collect();
            store.keep_symbol_vectors(&stale, &new)?;
            stored.extend(new);
        }
        let q = model.embed(query);
        for (i, hash) in hashes.iter().enumerate() {
            meaning[i] = stored.get(hash).map(|v| f64::from(similarity(v, &q)));
        }
    }
    let mut hits: Vec<SymbolHit> = symbols
        .iter()
        .enumerate()
        .filter_map(|(i, symbol)| {
            let w = words[i];
            let score = match meaning[i] {
                Some(m) if m >= least || w > 0.0 => fused(w, Some(m), true),
                Some(_) => return None,
                // Not embedded yet: its words count as they would beside a meaning.
                None if w > 0.0 => fused(w, None, model.is_some()),
                None => return None,
            };
            Some(SymbolHit { id: symbol.id.clone(), score })
        })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
    hits.truncate(k);
    Ok(hits)
}

/// Each symbol's share of the query's word weight (each query word weighs
/// ln(N / the symbols that have it); words no symbol has weigh nothing).
fn word_scores(symbols: &[SymbolText], query: &str) -> Vec<f64> {
    let query: Vec<String> =
        query_words(query).into_iter().flat_map(|w| identifier_words(&w)).map(|w| singular(&w)).collect();
    let texts: Vec<HashSet<String>> = symbols
        .iter()
        .map(|s| {
            s.text
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .flat_map(identifier_words)
                .map(|w| singular(&w))
                .collect()
        })
        .collect();
    let n = symbols.len().max(1) as f64;
    let mut weight: HashMap<&str, f64> = HashMap::new();
    for word in &query {
        let df = texts.iter().filter(|t| t.contains(word)).count();
        if df > 0 {
            weight.insert(word.as_str(), (n / df as f64).ln().max(0.0));
        }
    }
    let total: f64 = weight.values().sum();
    if total <= 0.0 {
        return vec![0.0; symbols.len()];
    }
    texts.iter().map(|t| weight.iter().filter(|(w, _)| t.contains(**w)).map(|(_, x)| x).sum::<f64>() / total).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words_in_every_casing() {
        for name in ["parseRetryAfter", "parse_retry_after", "ParseRetryAfter", "PARSE_RETRY_AFTER"] {
            assert_eq!(identifier_words(name), ["parse", "retry", "after"], "{name}");
        }
        assert_eq!(identifier_words("HTTPError"), ["httperror"]);
        assert_eq!(identifier_words("v2Parse"), ["v2", "parse"]);
        assert_eq!(identifier_words("__init__"), ["init"]);
    }

    #[test]
    fn rare_shared_words_score_and_common_ones_barely_do() {
        let symbols = [
            SymbolText::new("a.py#retry_after", "function", "retry_after", "a.py", "def retry_after(r)", None),
            SymbolText::new("a.py#get", "function", "get", "a.py", "def get(url)", None),
            SymbolText::new("a.py#post", "function", "post", "a.py", "def post(url)", None),
        ];
        let scores = word_scores(&symbols, "when is the retry after header read");
        assert!(scores[0] > 0.99, "{scores:?}");
        assert_eq!(&scores[1..], &[0.0, 0.0]);
        // Plurals meet their singular.
        assert!(word_scores(&symbols, "retries after")[0] > 0.99);
        // A word every symbol has carries no weight.
        assert_eq!(word_scores(&symbols, "a.py"), vec![0.0; 3]);
    }
}
