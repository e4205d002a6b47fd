//! Sentence embeddings in-process: all-MiniLM-L6-v2 (384 dimensions,
//! mean-pooled, unit length) read from the files `scripts/install-embedder`
//! puts on disk; nerd never downloads a model at run time. Knows nothing
//! about where the vectors are stored or what the texts are.

mod bert;
mod safetensors;
mod tokenize;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub use bert::WIDTH as DIMENSIONS;

/// The longest input the model reads, in tokens, as sentence-transformers
/// configures it; the rest of a longer text does not count.
pub const MAX_TOKENS: usize = 256;

/// The environment variable naming the model's folder.
pub const MODEL_VAR: &str = "NERD_EMBEDDING_MODEL";

const WEIGHTS: &str = "model.safetensors";
const VOCABULARY: &str = "vocab.txt";

/// Why no embedder could be loaded.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("no embedding model in {dir} (scripts/install-embedder installs all-MiniLM-L6-v2 there)")]
    Missing { dir: PathBuf },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not the all-MiniLM-L6-v2 nerd expects: {reason} (scripts/install-embedder reinstalls it)")]
    Invalid { path: PathBuf, reason: String },
}

/// A loaded all-MiniLM-L6-v2.
pub struct Embedder {
    tokenizer: tokenize::Tokenizer,
    bert: bert::Bert,
    dir: PathBuf,
}

impl Embedder {
    /// Where nerd looks for the model: `NERD_EMBEDDING_MODEL`, else
    /// `$XDG_DATA_HOME/nerd/models/all-MiniLM-L6-v2` (`~/.local/share/…`).
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os(MODEL_VAR).filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir));
        }
        let data = std::env::var_os("XDG_DATA_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
        Some(data.join("nerd/models/all-MiniLM-L6-v2"))
    }

    /// Loads the model from the default folder.
    pub fn load_default() -> Result<Embedder, EmbedError> {
        let dir = Embedder::default_dir()
            .ok_or_else(|| EmbedError::Missing { dir: PathBuf::from("~/.local/share/nerd/models/all-MiniLM-L6-v2") })?;
        Embedder::load(&dir)
    }

    /// Loads the model from `dir` (holding `model.safetensors` and `vocab.txt`).
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        let (weights, vocabulary) = (dir.join(WEIGHTS), dir.join(VOCABULARY));
        if !weights.is_file() || !vocabulary.is_file() {
            return Err(EmbedError::Missing { dir: dir.to_path_buf() });
        }
        let read =
            |path: &Path| std::fs::read(path).map_err(|source| EmbedError::Read { path: path.to_path_buf(), source });
        fn invalid(path: &Path) -> impl Fn(String) -> EmbedError + '_ {
            move |reason| EmbedError::Invalid { path: path.to_path_buf(), reason }
        }
        let text = String::from_utf8(read(&vocabulary)?).map_err(|e| invalid(&vocabulary)(e.to_string()))?;
        let tokenizer = tokenize::Tokenizer::from_vocab(&text).map_err(invalid(&vocabulary))?;
        let tensors = safetensors::Tensors::parse(read(&weights)?).map_err(invalid(&weights))?;
        let bert = bert::Bert::load(&tensors).map_err(invalid(&weights))?;
        Ok(Embedder { tokenizer, bert, dir: dir.to_path_buf() })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The token ids the model reads for `text`, `[CLS]` and `[SEP]` included.
    pub fn tokens(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, MAX_TOKENS)
    }

    /// The unit-length embedding of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.bert.embed_batch(&[self.tokens(text)]).pop().unwrap_or_default()
    }

    /// The embeddings of `texts`, in order: batches of about `BATCH_TOKENS`
    /// tokens share their matrix products, and batches run in parallel.
    pub fn embed_all(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        const BATCH_TOKENS: usize = 2048;
        let ids: Vec<Vec<u32>> = texts.par_iter().map(|t| self.tokens(t)).collect();
        let mut batches: Vec<&[Vec<u32>]> = Vec::new();
        let (mut from, mut tokens) = (0, 0);
        for (i, one) in ids.iter().enumerate() {
            if tokens > 0 && tokens + one.len() > BATCH_TOKENS {
                batches.push(&ids[from..i]);
                (from, tokens) = (i, 0);
            }
            tokens += one.len();
        }
        batches.push(&ids[from..]);
        batches.par_iter().flat_map_iter(|batch| self.bert.embed_batch(batch)).collect()
    }
}

/// A vector as little-endian `f32` bytes, as safetensors and sqlite-vec store it.
pub fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Little-endian `f32` bytes back as a vector (a trailing partial value is dropped).
pub fn from_bytes(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// The cosine similarity of two unit-length vectors.
pub fn similarity(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
