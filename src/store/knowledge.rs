//! A specialist's knowledge shard (`.nerd/agents/NAME.db`): knowledge atoms
//! with their words (FTS5) and embeddings, the research runs that filled it
//! and the viva voce results on it. A research run replaces the atoms in one
//! transaction; a spawned child opens the file read-only. The shard keeps a
//! rollback journal, not a WAL, so a read-only open needs no write access.
//! Knows nothing about how atoms are extracted or what a question is.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::{migrations, StoreError};
use crate::embed::{from_bytes, similarity, to_bytes};

/// One knowledge atom: `knowledge(Name, Concept, Kind, Text, Source)` without the name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnowledgeRow {
    pub id: i64,
    pub concept: String,
    pub kind: String,
    pub text: String,
    pub source: String,
    pub digest: String,
}

/// An atom to store, with its embedding when the model is loaded.
pub struct NewKnowledge<'a> {
    pub concept: &'a str,
    pub kind: &'a str,
    pub text: &'a str,
    pub source: &'a str,
    pub digest: &'a str,
    pub vector: Option<&'a [f32]>,
}

/// One viva voce as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VivaRow {
    pub at_ns: i64,
    pub asked: u32,
    pub passed: u32,
    pub threshold: u32,
    pub knowledge: String,
    pub failures: String,
}

/// The last research run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResearchRow {
    pub at_ns: i64,
    pub sources: u32,
    pub files: u32,
    pub atoms: u32,
    pub knowledge: String,
}

pub struct KnowledgeDb {
    conn: Connection,
    path: PathBuf,
}

const COLUMNS: &str = "SELECT id, concept, kind, text, source, digest FROM knowledge";

fn row(r: &rusqlite::Row) -> rusqlite::Result<KnowledgeRow> {
    Ok(KnowledgeRow {
        id: r.get(0)?,
        concept: r.get(1)?,
        kind: r.get(2)?,
        text: r.get(3)?,
        source: r.get(4)?,
        digest: r.get(5)?,
    })
}

impl KnowledgeDb {
    /// Opens (creating if needed) the shard at `path` for research and examination.
    pub fn open(path: &Path) -> Result<KnowledgeDb, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { path: dir.to_path_buf(), source })?;
        }
        super::register_vectors();
        let open = |source| StoreError::Open { path: path.to_path_buf(), source };
        let mut conn = Connection::open(path).map_err(open)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "DELETE")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrations::migrate(&mut conn, migrations::KNOWLEDGE)?;
        Ok(KnowledgeDb { conn, path: path.to_path_buf() })
    }

    /// Opens an existing shard read-only, as a spawned child mounts it: any write fails.
    pub fn open_read_only(path: &Path) -> Result<KnowledgeDb, StoreError> {
        let open = |source| StoreError::Open { path: path.to_path_buf(), source };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(open)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let known = migrations::KNOWLEDGE.len() as i64;
        if version > known {
            return Err(StoreError::TooNew { found: version, known });
        }
        if version < known {
            return Err(StoreError::Corrupt(format!(
                "{} has schema version {version}; research the specialist again to bring it to {known}",
                path.display()
            )));
        }
        Ok(KnowledgeDb { conn, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces every atom with `atoms` and records the run, in one transaction.
    pub fn replace(&mut self, atoms: &[NewKnowledge], run: &ResearchRow) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM knowledge", [])?;
        {
            let mut insert = tx.prepare(
                "INSERT OR IGNORE INTO knowledge(concept, kind, text, source, digest) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut vector =
                tx.prepare("INSERT OR REPLACE INTO knowledge_embedding(knowledge_id, vector) VALUES (?1, ?2)")?;
            for a in atoms {
                if insert.execute(params![a.concept, a.kind, a.text, a.source, a.digest])? == 0 {
                    continue;
                }
                if let Some(v) = a.vector {
                    vector.execute(params![tx.last_insert_rowid(), to_bytes(v)])?;
                }
            }
        }
        tx.execute(
            "INSERT INTO research(at_ns, sources, files, atoms, knowledge) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![run.at_ns, run.sources, run.files, run.atoms, run.knowledge],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Every atom, in the order research kept them.
    pub fn all(&self) -> Result<Vec<KnowledgeRow>, StoreError> {
        let mut stmt = self.conn.prepare(&format!("{COLUMNS} ORDER BY id"))?;
        let rows = stmt.query_map([], row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn get(&self, id: i64) -> Result<Option<KnowledgeRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!("{COLUMNS} WHERE id = ?1"))?;
        Ok(stmt.query_row([id], row).optional()?)
    }

    pub fn count(&self) -> Result<u32, StoreError> {
        Ok(self.conn.query_row("SELECT count(*) FROM knowledge", [], |r| r.get::<_, i64>(0))? as u32)
    }

    /// How many atoms have an embedding.
    pub fn embedded(&self) -> Result<u32, StoreError> {
        Ok(self.conn.query_row("SELECT count(*) FROM knowledge_embedding", [], |r| r.get::<_, i64>(0))? as u32)
    }

    /// The best `limit` matches of an FTS5 query, with their BM25 relevance (higher is better).
    pub fn by_words(&self, query: &str, limit: usize) -> Result<Vec<(i64, f64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT rowid, -bm25(knowledge_words, 2.0, 1.0) FROM knowledge_words \
             WHERE knowledge_words MATCH ?1 ORDER BY rank LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![query, limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every embedded atom's cosine similarity to `vector` (unit length), best first.
    /// A shard holds thousands of atoms, not millions: a full scan takes milliseconds.
    pub fn by_vector(&self, vector: &[f32], limit: usize) -> Result<Vec<(i64, f64)>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT knowledge_id, vector FROM knowledge_embedding")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))?;
        let mut scored = Vec::new();
        for r in rows {
            let (id, bytes) = r?;
            scored.push((id, f64::from(similarity(&from_bytes(&bytes), vector))));
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        Ok(scored)
    }

    /// Every stored embedding, by atom id.
    pub fn vectors(&self) -> Result<std::collections::HashMap<i64, Vec<f32>>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT knowledge_id, vector FROM knowledge_embedding")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, from_bytes(&r.get::<_, Vec<u8>>(1)?))))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The last research run, if any.
    pub fn last_research(&self) -> Result<Option<ResearchRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT at_ns, sources, files, atoms, knowledge FROM research ORDER BY id DESC LIMIT 1",
                [],
                |r| {
                    Ok(ResearchRow {
                        at_ns: r.get(0)?,
                        sources: r.get(1)?,
                        files: r.get(2)?,
                        atoms: r.get(3)?,
                        knowledge: r.get(4)?,
                    })
                },
            )
            .optional()?)
    }

    /// Records a viva voce.
    pub fn record_viva(&self, viva: &VivaRow) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO viva(at_ns, asked, passed, threshold, knowledge, failures) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![viva.at_ns, viva.asked, viva.passed, viva.threshold, viva.knowledge, viva.failures],
        )?;
        Ok(())
    }

    /// The last viva voce, if any.
    pub fn last_viva(&self) -> Result<Option<VivaRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT at_ns, asked, passed, threshold, knowledge, failures FROM viva ORDER BY id DESC LIMIT 1",
                [],
                |r| {
                    Ok(VivaRow {
                        at_ns: r.get(0)?,
                        asked: r.get(1)?,
                        passed: r.get(2)?,
                        threshold: r.get(3)?,
                        knowledge: r.get(4)?,
                        failures: r.get(5)?,
                    })
                },
            )
            .optional()?)
    }
}
