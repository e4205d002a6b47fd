//! The offline transducer's second reader: a linear classifier over the
//! request's word and character n-grams, trained on the labelled requests of
//! `tests/fixtures/perception` (`scripts/train-perception` writes
//! `reader.model`, which is embedded here). It reads category and verb only;
//! it knows nothing of targets, constraints or the repository.
//!
//! The features are scikit-learn's `TfidfVectorizer` ones, computed the same
//! way: lowercased text; word unigrams and bigrams of tokens of two or more
//! word characters; character 2- to 5-grams of each whitespace-separated word
//! padded with one space on each side; sublinear term frequency times the
//! stored idf, each block normalised to unit length. The decision is the
//! label with the highest `w·x + b`.

use std::collections::HashMap;
use std::sync::OnceLock;

const MODEL: &str = include_str!("reader.model");

/// What the second reader makes of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// `category/verb`, as the training labels spell it.
    pub label: &'static str,
    /// How far the best label's score is above the second best's.
    pub margin: f64,
}

impl Reading {
    pub fn category(&self) -> &'static str {
        self.label.split_once('/').map_or(self.label, |(c, _)| c)
    }

    pub fn verb(&self) -> &'static str {
        self.label.split_once('/').map_or("", |(_, v)| v)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Block {
    Words,
    Chars,
}

struct Model {
    labels: Vec<&'static str>,
    intercepts: Vec<f64>,
    /// For each n-gram of a block: its idf and its weight per label.
    features: HashMap<(Block, &'static str), (f64, Vec<f64>)>,
}

/// A model line that does not read: the embedded file is written by the training script,
/// so this is a build that shipped a broken file, reported once and read as no model.
fn parse(text: &'static str) -> Option<Model> {
    let mut labels = Vec::new();
    let mut intercepts = Vec::new();
    let mut features = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut cols = line.split('\t');
        match cols.next()? {
            "labels" => labels = cols.collect(),
            "intercept" => intercepts = cols.map(str::parse).collect::<Result<_, _>>().ok()?,
            block @ ("w" | "c") => {
                let block = if block == "w" { Block::Words } else { Block::Chars };
                let feature = cols.next()?;
                let idf: f64 = cols.next()?.parse().ok()?;
                let weights: Vec<f64> = cols.map(str::parse).collect::<Result<_, _>>().ok()?;
                if weights.len() != labels.len() {
                    return None;
                }
                features.insert((block, feature), (idf, weights));
            }
            _ => return None,
        }
    }
    (!labels.is_empty() && intercepts.len() == labels.len()).then_some(Model { labels, intercepts, features })
}

fn model() -> Option<&'static Model> {
    static MODEL_ONCE: OnceLock<Option<Model>> = OnceLock::new();
    MODEL_ONCE.get_or_init(|| parse(MODEL)).as_ref()
}

/// Word tokens: maximal runs of word characters, two or more long.
fn tokens(lower: &str) -> Vec<&str> {
    lower.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|t| t.chars().nth(1).is_some()).collect()
}

/// Word unigrams and bigrams, counted.
fn word_grams(lower: &str) -> HashMap<String, u32> {
    let tokens = tokens(lower);
    let mut counts = HashMap::new();
    for t in &tokens {
        *counts.entry((*t).to_string()).or_insert(0) += 1;
    }
    for pair in tokens.windows(2) {
        *counts.entry(format!("{} {}", pair[0], pair[1])).or_insert(0) += 1;
    }
    counts
}

/// Character 2- to 5-grams of each word padded with a space on each side; a padded
/// word shorter than an n is counted once, whole, as scikit-learn's `char_wb` does.
fn char_grams(lower: &str) -> HashMap<String, u32> {
    let mut counts = HashMap::new();
    for word in lower.split_whitespace() {
        let padded: Vec<char> = std::iter::once(' ').chain(word.chars()).chain(std::iter::once(' ')).collect();
        for n in 2..=5 {
            let mut offset = 0;
            loop {
                let end = (offset + n).min(padded.len());
                *counts.entry(padded[offset..end].iter().collect::<String>()).or_insert(0) += 1;
                if offset + n >= padded.len() {
                    break;
                }
                offset += 1;
            }
            if offset == 0 {
                break;
            }
        }
    }
    counts
}

/// Adds one block's normalised tf-idf vector, times each label's weights, to `scores`.
fn add_block(model: &Model, block: Block, counts: HashMap<String, u32>, scores: &mut [f64]) {
    let present: Vec<(f64, &Vec<f64>)> = counts
        .iter()
        .filter_map(|(gram, n)| {
            let (idf, weights) = model.features.get(&(block, gram.as_str()))?;
            Some(((1.0 + f64::from(*n).ln()) * idf, weights))
        })
        .collect();
    let norm = present.iter().map(|(x, _)| x * x).sum::<f64>().sqrt();
    if norm == 0.0 {
        return;
    }
    for (x, weights) in present {
        for (score, w) in scores.iter_mut().zip(weights) {
            *score += x / norm * w;
        }
    }
}

/// Reads a request's category and verb; `None` only if the embedded model is broken.
pub fn read(text: &str) -> Option<Reading> {
    let model = model()?;
    let lower = text.to_lowercase();
    let mut scores = model.intercepts.clone();
    add_block(model, Block::Words, word_grams(&lower), &mut scores);
    add_block(model, Block::Chars, char_grams(&lower), &mut scores);
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|a, b| scores[*b].total_cmp(&scores[*a]));
    let best = *order.first()?;
    let second = order.get(1).map_or(f64::NEG_INFINITY, |i| scores[*i]);
    Some(Reading { label: model.labels[best], margin: scores[best] - second })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_model_reads() {
        let model = model().expect("reader.model parses");
        assert_eq!(model.labels.len(), 19);
        assert!(model.features.len() > 100);
        assert!(model.features.keys().any(|(b, g)| *b == Block::Chars && g.starts_with(' ')));
    }

    #[test]
    fn character_grams_follow_char_wb() {
        let grams = char_grams("a go");
        let mut keys: Vec<&str> = grams.keys().map(String::as_str).collect();
        keys.sort_unstable();
        // " a " is shorter than 4 and 5: counted once, whole; " go " likewise for 5.
        assert_eq!(keys, [" a", " a ", " g", " go", " go ", "a ", "go", "go ", "o "]);
    }

    #[test]
    fn word_grams_drop_one_letter_tokens_and_pair_the_rest() {
        let grams = word_grams("fix a bug in parse_args()");
        let mut keys: Vec<&str> = grams.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["bug", "bug in", "fix", "fix bug", "in", "in parse_args", "parse_args"]);
    }

    #[test]
    fn a_broken_model_is_no_model() {
        assert!(parse("labels\ta/b\tc/d\nintercept\t0.1\n").is_none());
        assert!(parse("labels\ta/b\nintercept\t0.1\nw\tfix\t1.0\t0.5\t0.2\n").is_none());
        assert!(parse("labels\ta/b\nintercept\t0.1\nw\tfix\t1.0\t0.5\n").is_some());
    }
}
