//! Memory that survives sessions, in the durable state: memories recalled by
//! meaning (all-MiniLM-L6-v2 vectors in sqlite-vec) fused with words (FTS5
//! BM25), so recall still works by words when the model is absent. Knows
//! nothing about the agent's loop or the kernel's rules: callers say what to
//! remember and what to recall.

pub mod recall;
pub mod rules;
pub mod symbols;

use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;

use crate::embed::{EmbedError, Embedder};
use crate::store::{MemoryCounts, MemoryRow, NewMemory, StateDb, StoreError};
use crate::timing::now_ns;

pub use recall::{selective_words_query, words_query, Hit};

/// What a memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Something the user told nerd to remember.
    Note,
    /// How the user wants work done ("I prefer early returns").
    Preference,
    /// A request and what it aimed at.
    Request,
    /// What a request changed, and how its verification ended.
    Change,
    /// A person's answer to a clarification.
    Answer,
    /// Something learned about the project ("X is configured in Y").
    Fact,
}

impl Kind {
    pub const ALL: [Kind; 6] = [Kind::Note, Kind::Preference, Kind::Request, Kind::Change, Kind::Answer, Kind::Fact];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Note => "note",
            Kind::Preference => "preference",
            Kind::Request => "request",
            Kind::Change => "change",
            Kind::Answer => "answer",
            Kind::Fact => "fact",
        }
    }

    pub fn parse(text: &str) -> Result<Kind, MemoryError> {
        Kind::ALL.into_iter().find(|k| k.as_str() == text).ok_or_else(|| MemoryError::UnknownKind(text.to_string()))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("there is no memory {0}")]
    NoSuchMemory(i64),
    #[error("`{0}` is not a kind of memory (note, preference, request, change, answer, fact)")]
    UnknownKind(String),
    #[error("a memory needs some text")]
    Empty,
    #[error("a stored memory has kind `{0}`, which this nerd does not know")]
    Stored(String),
    #[error("a stored rule cannot be read ({0}); `nerd memory rules --all` lists the rest")]
    StoredRule(String),
    #[error("there is no rule L{0}")]
    NoSuchRule(i64),
}

/// A stored memory, as callers see it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Memory {
    pub id: i64,
    pub kind: Kind,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub source: String,
    pub created_ns: i64,
    pub used_ns: i64,
    pub uses: i64,
}

impl TryFrom<MemoryRow> for Memory {
    type Error = MemoryError;
    fn try_from(row: MemoryRow) -> Result<Memory, MemoryError> {
        let kind = Kind::parse(&row.kind).map_err(|_| MemoryError::Stored(row.kind.clone()))?;
        Ok(Memory {
            id: row.id,
            kind,
            text: row.text,
            subject: row.subject,
            source: row.source,
            created_ns: row.created_ns,
            used_ns: row.used_ns,
            uses: row.uses,
        })
    }
}

/// How much memory there is, and whether recall can use meaning.
#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    pub memories: i64,
    pub by_kind: Vec<(String, i64)>,
    pub vectors: i64,
    pub links: i64,
    /// The embedding model's folder, when it is loaded.
    pub model: Option<String>,
    /// Why recall is by words only, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub words_only: Option<String>,
}

/// The embedding model, loaded once per process on first use.
pub fn embedder() -> Result<&'static Embedder, &'static EmbedError> {
    static MODEL: OnceLock<Result<Embedder, EmbedError>> = OnceLock::new();
    MODEL.get_or_init(Embedder::load_default).as_ref()
}

/// A workspace's memory. The embedding model is loaded on first need (a
/// memory to embed, a search, stats), never to list or forget.
pub struct Memories {
    db: StateDb,
}

impl Memories {
    /// Opens the memory of the workspace at `root`.
    pub fn open(root: &Path) -> Result<Memories, MemoryError> {
        Ok(Memories::with_db(StateDb::open(root)?))
    }

    pub fn with_db(db: StateDb) -> Memories {
        Memories { db }
    }

    /// The embedding model, where installed.
    fn model(&self) -> Option<&'static Embedder> {
        embedder().ok()
    }

    /// Why recall works by words only (no embedding model), when it does.
    pub fn words_only(&self) -> Option<String> {
        embedder().err().map(ToString::to_string)
    }

    /// Stores a memory; returns it with its id.
    pub fn add(&self, kind: Kind, text: &str, subject: Option<&str>, source: &str) -> Result<Memory, MemoryError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(MemoryError::Empty);
        }
        let vector = self.model().map(|m| m.embed(&meant(text, subject)));
        let at_ns = now_ns();
        let new = NewMemory { kind: kind.as_str(), text, subject, source, at_ns, vector: vector.as_deref() };
        let id = self.db.memory_insert(&new)?;
        self.get(id)
    }

    pub fn get(&self, id: i64) -> Result<Memory, MemoryError> {
        self.db.memory(id)?.ok_or(MemoryError::NoSuchMemory(id))?.try_into()
    }

    /// Memories newest first, of one kind or all.
    pub fn list(&self, kind: Option<Kind>, limit: usize) -> Result<Vec<Memory>, MemoryError> {
        self.db.memory_list(kind.map(Kind::as_str), limit)?.into_iter().map(Memory::try_from).collect()
    }

    /// Removes a memory from the store and from both indexes.
    pub fn forget(&self, id: i64) -> Result<Memory, MemoryError> {
        let memory = self.get(id)?;
        self.db.memory_forget(id)?;
        Ok(memory)
    }

    /// Keeps `knowledge_link(a, relation, b)` in graph memory (once).
    pub fn link(&self, a: &str, relation: &str, b: &str, memory: Option<i64>) -> Result<(), MemoryError> {
        let row = crate::store::LinkRow { a: a.into(), relation: relation.into(), b: b.into(), memory };
        Ok(self.db.link_insert(&row, now_ns())?)
    }

    /// Every `knowledge_link`, oldest first.
    pub fn links(&self) -> Result<Vec<crate::store::LinkRow>, MemoryError> {
        Ok(self.db.links()?)
    }

    /// The `k` memories that best answer `query`, by meaning and words, best first.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<Hit>, MemoryError> {
        self.backfill()?;
        let hits = recall::hybrid(&self.db, self.model(), query, k)?;
        self.db.memory_touch(&hits.iter().map(|h| h.memory.id).collect::<Vec<_>>(), now_ns())?;
        Ok(hits)
    }

    pub fn stats(&self) -> Result<Stats, MemoryError> {
        let MemoryCounts { by_kind, vectors, links } = self.db.memory_counts()?;
        Ok(Stats {
            memories: by_kind.iter().map(|(_, n)| n).sum(),
            by_kind,
            vectors,
            links,
            model: self.model().map(|m| m.dir().display().to_string()),
            words_only: self.words_only(),
        })
    }

    /// Embeds the memories stored while the model was absent (a bounded batch per call).
    fn backfill(&self) -> Result<(), MemoryError> {
        const BATCH: usize = 512;
        let Some(model) = self.model() else { return Ok(()) };
        let missing = self.db.memory_without_vectors(BATCH)?;
        if missing.is_empty() {
            return Ok(());
        }
        let meant: Vec<String> = missing.iter().map(|(_, text, subject)| meant(text, subject.as_deref())).collect();
        let vectors = model.embed_all(&meant.iter().map(String::as_str).collect::<Vec<_>>());
        let pairs: Vec<(i64, Vec<f32>)> = missing.iter().map(|(id, ..)| *id).zip(vectors).collect();
        Ok(self.db.memory_set_vectors(&pairs)?)
    }
}

/// What a memory means, as embedded: its text and what it is about, which
/// the text need not repeat (words recall reads the subject column too).
fn meant(text: &str, subject: Option<&str>) -> String {
    match subject {
        Some(subject) if !text.contains(subject) => format!("{text} ({subject})"),
        _ => text.to_string(),
    }
}
