//! The durable state (`.nerd/state.db`, SQLite in WAL mode with full sync):
//! the audit chain, file checkpoints for `nerd undo`, sessions and commit
//! overrides: what cannot be recomputed from the files. nerd never deletes or
//! rewrites this database; when it cannot be opened, the commands that need it
//! stop with a precise error. Knows nothing about what the records say.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};

use super::{connect, legacy, migrations, StoreError};

/// One record of the audit trail as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRow {
    pub seq: i64,
    pub at_ns: i64,
    pub body: String,
    pub prev: String,
    pub hash: String,
}

/// What the router leaves in a file it changes.
#[derive(Clone, Copy, Debug)]
pub enum After<'a> {
    Written(&'a [u8]),
    Deleted,
}

/// What a checkpoint says the router left in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Left {
    Written(Vec<u8>),
    Deleted,
    /// A checkpoint written before nerd recorded what it left.
    Unknown,
}

/// What a file held before a router write or delete, and what the write left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCheckpoint {
    pub id: i64,
    /// The audit record of the decision that wrote the file.
    pub audit: i64,
    pub path: String,
    /// `None` when the file did not exist.
    pub content: Option<Vec<u8>>,
    pub after: Left,
}

/// The durable state database.
pub struct StateDb {
    pub(super) conn: Connection,
    path: PathBuf,
}

impl StateDb {
    /// Opens (creating if needed) `<root>/.nerd/state.db`, first moving the
    /// durable tables out of a workspace's older single database.
    pub fn open(root: &Path) -> Result<StateDb, StoreError> {
        let dir = super::nerd_dir(root)?;
        legacy::split(&dir)?;
        StateDb::open_file(&dir.join(super::STATE_FILE))
    }

    pub fn open_file(path: &Path) -> Result<StateDb, StoreError> {
        let damaged = |source| StoreError::StateDamaged { path: path.to_path_buf(), source };
        let mut conn = connect(path, "FULL").map_err(damaged)?;
        migrations::migrate(&mut conn, migrations::STATE).map_err(|e| e.at_state(path))?;
        Ok(StateDb { conn, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a human override of a blocked commit.
    pub fn record_override(&self, at_ns: i64, tree: &str, reason: &str, blockers: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO commit_override(at_ns, tree, reason, blockers) VALUES (?1, ?2, ?3, ?4)",
            params![at_ns, tree, reason, blockers],
        )?;
        Ok(())
    }

    /// Recorded overrides, newest first: (at_ns, tree, reason, blockers).
    pub fn overrides(&self) -> Result<Vec<(i64, String, String, String)>, StoreError> {
        let mut stmt =
            self.conn.prepare("SELECT at_ns, tree, reason, blockers FROM commit_override ORDER BY id DESC")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Runs `f` holding the database's write lock (`BEGIN IMMEDIATE`): writers in
    /// other processes wait, so read-then-write sequences such as the audit
    /// chain's append stay consistent. Commits when `f` succeeds, else rolls back.
    pub fn locked<T, E: From<StoreError>>(&self, f: impl FnOnce(&StateDb) -> Result<T, E>) -> Result<T, E> {
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| E::from(e.into()))?;
        match f(self) {
            Ok(value) => {
                self.conn.execute_batch("COMMIT").map_err(|e| E::from(e.into()))?;
                Ok(value)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// The last audit record's sequence number and hash; `None` for an empty trail.
    pub fn audit_head(&self) -> Result<Option<(i64, String)>, StoreError> {
        let head = self
            .conn
            .query_row("SELECT seq, hash FROM audit_record ORDER BY seq DESC LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        Ok(head)
    }

    /// Appends one audit record (the caller computed its hash).
    pub fn audit_insert(&self, seq: i64, at_ns: i64, body: &str, prev: &str, hash: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO audit_record(seq, at_ns, body, prev, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![seq, at_ns, body, prev, hash],
        )?;
        Ok(())
    }

    /// Every audit record in order.
    pub fn audit_records(&self) -> Result<Vec<AuditRow>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT seq, at_ns, body, prev, hash FROM audit_record ORDER BY seq")?;
        let rows = stmt.query_map([], |r| {
            Ok(AuditRow { seq: r.get(0)?, at_ns: r.get(1)?, body: r.get(2)?, prev: r.get(3)?, hash: r.get(4)? })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Saves what a file held before the router changed it, and what the router
    /// leaves there, under the agent turn it belongs to.
    pub fn checkpoint_file(
        &self,
        audit: i64,
        turn: Option<&str>,
        path: &str,
        before: Option<&[u8]>,
        after: After<'_>,
    ) -> Result<(), StoreError> {
        let (after_state, after) = match after {
            After::Written(bytes) => (1, Some(bytes)),
            After::Deleted => (2, None),
        };
        self.conn.execute(
            "INSERT INTO file_checkpoint(audit, turn, path, existed, content, after_state, after)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![audit, turn, path, before.is_some(), before, after_state, after],
        )?;
        Ok(())
    }

    /// The checkpoints not yet undone of the newest change: every write of its
    /// agent turn when it belongs to one, else its single router action. Newest first,
    /// so restoring them in order leaves each file as it was before the first write.
    pub fn last_checkpoints(&self) -> Result<Vec<FileCheckpoint>, StoreError> {
        let newest: Option<(i64, Option<String>)> = self
            .conn
            .query_row("SELECT audit, turn FROM file_checkpoint WHERE undone = 0 ORDER BY id DESC LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        let Some((audit, turn)) = newest else { return Ok(Vec::new()) };
        let read = |r: &rusqlite::Row<'_>| {
            let existed: bool = r.get(2)?;
            let after = match r.get::<_, i64>(5)? {
                1 => Left::Written(r.get::<_, Option<Vec<u8>>>(6)?.unwrap_or_default()),
                2 => Left::Deleted,
                _ => Left::Unknown,
            };
            Ok(FileCheckpoint {
                id: r.get(0)?,
                audit: r.get(4)?,
                path: r.get(1)?,
                content: if existed { r.get(3)? } else { None },
                after,
            })
        };
        const COLUMNS: &str = "SELECT id, path, existed, content, audit, after_state, after FROM file_checkpoint";
        let (filter, key): (&str, rusqlite::types::Value) = match turn {
            Some(turn) => ("turn", turn.into()),
            None => ("audit", audit.into()),
        };
        let mut stmt = self.conn.prepare(&format!("{COLUMNS} WHERE {filter} = ?1 AND undone = 0 ORDER BY id DESC"))?;
        let rows = stmt.query_map([key], read)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Creates or replaces a session's resumable state.
    pub fn save_session(&self, id: &str, at_ns: i64, state: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO session(id, created_ns, updated_ns, state) VALUES (?1, ?2, ?2, ?3)
             ON CONFLICT(id) DO UPDATE SET updated_ns = ?2, state = ?3",
            params![id, at_ns, state],
        )?;
        Ok(())
    }

    /// A session's state, if it exists.
    pub fn session(&self, id: &str) -> Result<Option<String>, StoreError> {
        Ok(self.conn.query_row("SELECT state FROM session WHERE id = ?1", [id], |r| r.get(0)).optional()?)
    }

    /// The id of the most recently updated session.
    pub fn latest_session(&self) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT id FROM session ORDER BY updated_ns DESC, rowid DESC LIMIT 1", [], |r| r.get(0))
            .optional()?)
    }

    /// Every session as (id, updated, state), newest first.
    pub fn sessions(&self) -> Result<Vec<(String, i64, String)>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT id, updated_ns, state FROM session ORDER BY updated_ns DESC")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn mark_undone(&self, id: i64) -> Result<(), StoreError> {
        self.conn.execute("UPDATE file_checkpoint SET undone = 1 WHERE id = ?1", [id])?;
        Ok(())
    }
}
