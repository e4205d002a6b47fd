//! The memory tables of the durable state: memories with their words (FTS5)
//! and vectors (full embeddings, and their sign bits in sqlite-vec), and the knowledge graph's links. Every change is
//! one transaction across the tables, so a memory is never in one index and
//! not the other. Knows nothing about embeddings beyond their floats, or
//! about what the memories say.

use rusqlite::{params, OptionalExtension, Row};

use super::{StateDb, StoreError};
use crate::embed::{from_bytes, similarity, to_bytes};

/// One stored memory.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryRow {
    pub id: i64,
    pub kind: String,
    pub text: String,
    pub subject: Option<String>,
    pub source: String,
    pub created_ns: i64,
    pub used_ns: i64,
    pub uses: i64,
}

/// A memory to store.
pub struct NewMemory<'a> {
    pub kind: &'a str,
    pub text: &'a str,
    pub subject: Option<&'a str>,
    pub source: &'a str,
    pub at_ns: i64,
    /// Its embedding, when the model is loaded.
    pub vector: Option<&'a [f32]>,
}

/// One `knowledge_link(A, Relation, B)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkRow {
    pub a: String,
    pub relation: String,
    pub b: String,
    pub memory: Option<i64>,
}

/// How much memory there is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryCounts {
    pub by_kind: Vec<(String, i64)>,
    pub vectors: i64,
    pub links: i64,
}

const COLUMNS: &str = "SELECT id, kind, text, subject, source, created_ns, used_ns, uses FROM memory";

fn row(r: &Row) -> rusqlite::Result<MemoryRow> {
    Ok(MemoryRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        text: r.get(2)?,
        subject: r.get(3)?,
        source: r.get(4)?,
        created_ns: r.get(5)?,
        used_ns: r.get(6)?,
        uses: r.get(7)?,
    })
}

impl StateDb {
    /// Runs `f` as one change: all of it lands, or none of it. At the top
    /// level the write lock is taken first (`BEGIN IMMEDIATE`, waiting for
    /// other writers up to `WRITE_PATIENCE`), so a read inside never has to
    /// upgrade; inside `locked` it is a savepoint of that transaction.
    pub(super) fn atomically<T>(&self, f: impl FnOnce(&StateDb) -> Result<T, StoreError>) -> Result<T, StoreError> {
        const WRITE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);
        let top = self.conn.is_autocommit();
        let (begin, commit, undo) = if top {
            ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")
        } else {
            ("SAVEPOINT memory_change", "RELEASE memory_change", "ROLLBACK TO memory_change; RELEASE memory_change")
        };
        let started = std::time::Instant::now();
        loop {
            match self.conn.execute_batch(begin) {
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::DatabaseBusy && started.elapsed() < WRITE_PATIENCE =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other?,
            }
        }
        match f(self) {
            Ok(value) => {
                self.conn.execute_batch(commit)?;
                Ok(value)
            }
            Err(e) => {
                let _ = self.conn.execute_batch(undo);
                Err(e)
            }
        }
    }

    /// Stores a memory (and its vector, when given); returns its id.
    pub fn memory_insert(&self, new: &NewMemory) -> Result<i64, StoreError> {
        self.atomically(|db| {
            db.conn.execute(
                "INSERT INTO memory(kind, text, subject, source, created_ns, used_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![new.kind, new.text, new.subject, new.source, new.at_ns],
            )?;
            let id = db.conn.last_insert_rowid();
            if let Some(vector) = new.vector {
                db.set_vector(id, vector)?;
            }
            Ok(id)
        })
    }

    fn set_vector(&self, id: i64, vector: &[f32]) -> Result<(), StoreError> {
        let bytes = to_bytes(vector);
        self.conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?1", [id])?;
        self.conn.execute(
            "INSERT INTO memory_vectors(memory_id, coarse) VALUES (?1, vec_quantize_binary(vec_f32(?2)))",
            params![id, bytes],
        )?;
        self.conn.execute(
            "INSERT OR REPLACE INTO memory_embedding(memory_id, vector) VALUES (?1, ?2)",
            params![id, bytes],
        )?;
        self.conn.execute("UPDATE memory SET embedded = 1 WHERE id = ?1", [id])?;
        Ok(())
    }

    /// Memory `id`'s embedding, when it has one.
    pub fn memory_vector(&self, id: i64) -> Result<Option<Vec<f32>>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT vector FROM memory_embedding WHERE memory_id = ?1")?;
        let bytes: Option<Vec<u8>> = stmt.query_row([id], |r| r.get(0)).optional()?;
        Ok(bytes.as_deref().map(from_bytes))
    }

    /// Stores the vectors of memories embedded after they were added.
    pub fn memory_set_vectors(&self, vectors: &[(i64, Vec<f32>)]) -> Result<(), StoreError> {
        self.atomically(|db| vectors.iter().try_for_each(|(id, v)| db.set_vector(*id, v)))
    }

    /// Up to `limit` memories that have no vector yet, oldest first.
    pub fn memory_without_vectors(&self, limit: usize) -> Result<Vec<(i64, String, Option<String>)>, StoreError> {
        let mut stmt =
            self.conn.prepare("SELECT id, text, subject FROM memory WHERE embedded = 0 ORDER BY id LIMIT ?1")?;
        let rows = stmt.query_map([limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many memories match an FTS5 query, counting no further than `cap`.
    pub fn memory_word_count(&self, query: &str, cap: usize) -> Result<usize, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT count(*) FROM (SELECT 1 FROM memory_words WHERE memory_words MATCH ?1 LIMIT ?2)")?;
        Ok(stmt.query_row(params![query, cap as i64], |r| r.get::<_, i64>(0))? as usize)
    }

    /// How many memories there have been (the highest id: an index lookup, unlike a count,
    /// and never below how many there are).
    pub fn memory_id_bound(&self) -> Result<usize, StoreError> {
        Ok(self.conn.query_row("SELECT coalesce(max(id), 0) FROM memory", [], |r| r.get::<_, i64>(0))? as usize)
    }

    /// The best `limit` matches of an FTS5 query, with their BM25 relevance (higher is better).
    pub fn memory_by_words(&self, query: &str, limit: usize) -> Result<Vec<(i64, f64)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT rowid, -bm25(memory_words) FROM memory_words WHERE memory_words MATCH ?1 ORDER BY rank LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![query, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The `limit` memories nearest to `vector` (unit length), with their
    /// cosine similarity: sqlite-vec proposes the nearest `oversample × limit`
    /// by the Hamming distance of sign bits, and the full vectors rank them.
    pub fn memory_by_vector(&self, vector: &[f32], limit: usize) -> Result<Vec<(i64, f64)>, StoreError> {
        const OVERSAMPLE: usize = 20;
        let mut stmt = self.conn.prepare_cached(
            "SELECT memory_id FROM memory_vectors WHERE coarse MATCH vec_quantize_binary(vec_f32(?1)) AND k = ?2",
        )?;
        let wanted = (limit * OVERSAMPLE).max(200) as i64;
        let ids: Vec<i64> =
            stmt.query_map(params![to_bytes(vector), wanted], |r| r.get(0))?.collect::<Result<_, _>>()?;
        let mut scored = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(stored) = self.memory_vector(id)? {
                scored.push((id, f64::from(similarity(&stored, vector))));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        Ok(scored)
    }

    /// The cosine similarity of memory `id`'s vector to `vector`; `None` without a vector.
    pub fn memory_similarity(&self, id: i64, vector: &[f32]) -> Result<Option<f64>, StoreError> {
        Ok(self.memory_vector(id)?.map(|stored| f64::from(similarity(&stored, vector))))
    }

    pub fn memory(&self, id: i64) -> Result<Option<MemoryRow>, StoreError> {
        Ok(self.conn.query_row(&format!("{COLUMNS} WHERE id = ?1"), [id], row).optional()?)
    }

    /// Memories newest first, of one kind or all, at most `limit`.
    pub fn memory_list(&self, kind: Option<&str>, limit: usize) -> Result<Vec<MemoryRow>, StoreError> {
        let mut stmt =
            self.conn.prepare(&format!("{COLUMNS} WHERE ?1 IS NULL OR kind = ?1 ORDER BY id DESC LIMIT ?2"))?;
        let rows = stmt.query_map(params![kind, limit as i64], row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Memories about `subject`, newest first.
    pub fn memory_about(&self, subject: &str) -> Result<Vec<MemoryRow>, StoreError> {
        let mut stmt = self.conn.prepare(&format!("{COLUMNS} WHERE subject = ?1 ORDER BY id DESC"))?;
        let rows = stmt.query_map([subject], row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Removes a memory from the table, both indexes and the links it taught; false if there was none.
    pub fn memory_forget(&self, id: i64) -> Result<bool, StoreError> {
        self.atomically(|db| {
            db.conn.execute("DELETE FROM knowledge_link WHERE memory = ?1", [id])?;
            db.conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?1", [id])?;
            db.conn.execute("DELETE FROM memory_embedding WHERE memory_id = ?1", [id])?;
            Ok(db.conn.execute("DELETE FROM memory WHERE id = ?1", [id])? > 0)
        })
    }

    /// Records that memories were recalled (rehydration decays by age and use).
    pub fn memory_touch(&self, ids: &[i64], at_ns: i64) -> Result<(), StoreError> {
        self.atomically(|db| {
            let mut stmt = db.conn.prepare("UPDATE memory SET used_ns = ?2, uses = uses + 1 WHERE id = ?1")?;
            ids.iter().try_for_each(|id| stmt.execute(params![id, at_ns]).map(drop))?;
            Ok(())
        })
    }

    pub fn memory_counts(&self) -> Result<MemoryCounts, StoreError> {
        let mut stmt = self.conn.prepare("SELECT kind, count(*) FROM memory GROUP BY kind ORDER BY kind")?;
        let by_kind = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
        let count = |sql: &str| self.conn.query_row(sql, [], |r| r.get::<_, i64>(0));
        Ok(MemoryCounts {
            by_kind,
            vectors: count("SELECT count(*) FROM memory_embedding")?,
            links: count("SELECT count(*) FROM knowledge_link")?,
        })
    }

    /// Adds `knowledge_link(a, relation, b)` (once); `memory` is the memory that taught it.
    pub fn link_insert(&self, link: &LinkRow, at_ns: i64) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT OR IGNORE INTO knowledge_link(a, relation, b, memory, created_ns) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![link.a, link.relation, link.b, link.memory, at_ns],
        )?;
        Ok(())
    }

    pub fn links(&self) -> Result<Vec<LinkRow>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT a, relation, b, memory FROM knowledge_link ORDER BY id")?;
        let rows =
            stmt.query_map([], |r| Ok(LinkRow { a: r.get(0)?, relation: r.get(1)?, b: r.get(2)?, memory: r.get(3)? }))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
