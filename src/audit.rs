//! The audit trail: every decision and action of the router as an
//! append-only, hash-chained record in SQLite (`hash = sha256(prev, seq,
//! body)`), with the `(length, head)` checkpoint written outside the database
//! and outside the workspace (the user's state folder, which programs the
//! router runs cannot write) after each append, so editing a record breaks
//! the chain and deleting records contradicts the checkpoint.
//! Knows nothing about what the records say.

use std::path::{Path, PathBuf};

use crate::store::{Store, StoreError};

/// The `prev` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write the audit checkpoint {path}: {source}")]
    Checkpoint { path: PathBuf, source: std::io::Error },
}

/// What `verify` found.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Intact {
        length: i64,
    },
    /// The first record whose content or link does not match.
    Tampered {
        seq: i64,
        reason: String,
    },
    /// Records are missing from the end (or the checkpoint is gone).
    Truncated {
        length: i64,
        expected: i64,
    },
}

fn link(prev: &str, seq: i64, body: &str) -> String {
    let mut bytes = Vec::with_capacity(prev.len() + body.len() + 24);
    bytes.extend_from_slice(prev.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(seq.to_string().as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(body.as_bytes());
    crate::digest::sha256_hex(&bytes)
}

/// `$XDG_STATE_HOME/nerd/audit/<workspace hash>.checkpoint` (or `~/.local/state/...`).
pub fn checkpoint_path(root: &Path) -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(|| root.join(".nerd"));
    let key = crate::digest::sha256_hex(root.as_os_str().as_encoded_bytes());
    state.join("nerd/audit").join(format!("{}.checkpoint", &key[..32]))
}

/// Appends one record; returns its sequence number.
pub fn append(root: &Path, store: &Store, body: &serde_json::Value) -> Result<i64, AuditError> {
    // Several nerd processes may append to one workspace's trail at once: the
    // head is read, the record linked and the checkpoint written under one write lock.
    store.locked(|store| {
        let (last, prev) = store.audit_head()?.unwrap_or((0, GENESIS.to_string()));
        let seq = last + 1;
        let text = body.to_string();
        let hash = link(&prev, seq, &text);
        store.audit_insert(seq, crate::timing::now_ns(), &text, &prev, &hash)?;
        let path = checkpoint_path(root);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let io = |source| AuditError::Checkpoint { path: path.clone(), source };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(&tmp, format!("{seq} {hash}\n")).map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)?;
        Ok(seq)
    })
}

/// Checks every link and the checkpoint.
pub fn verify(root: &Path, store: &Store) -> Result<Verdict, AuditError> {
    let records = store.audit_records()?;
    let mut prev = GENESIS.to_string();
    for (i, r) in records.iter().enumerate() {
        if r.seq != i as i64 + 1 {
            return Ok(Verdict::Tampered { seq: i as i64 + 1, reason: format!("record {} is missing", i + 1) });
        }
        if r.prev != prev {
            return Ok(Verdict::Tampered { seq: r.seq, reason: "its link to the previous record is broken".into() });
        }
        if link(&prev, r.seq, &r.body) != r.hash {
            return Ok(Verdict::Tampered { seq: r.seq, reason: "its content does not match its hash".into() });
        }
        prev = r.hash.clone();
    }
    let length = records.len() as i64;
    let checkpoint = std::fs::read_to_string(checkpoint_path(root)).ok();
    let parsed = checkpoint.as_deref().and_then(|c| {
        let (n, h) = c.trim().split_once(' ')?;
        Some((n.parse::<i64>().ok()?, h.to_string()))
    });
    match parsed {
        None if length == 0 => Ok(Verdict::Intact { length }),
        None => Ok(Verdict::Truncated { length, expected: -1 }),
        Some((expected, _)) if expected > length => Ok(Verdict::Truncated { length, expected }),
        Some((expected, head)) => {
            let at = records.get(expected as usize - 1).map(|r| r.hash.as_str());
            if expected >= 1 && at != Some(head.as_str()) {
                return Ok(Verdict::Tampered { seq: expected, reason: "it differs from the checkpoint".into() });
            }
            Ok(Verdict::Intact { length })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tampering_and_truncation_are_detected() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for i in 0..5 {
            append(dir.path(), &store, &serde_json::json!({"turn": i})).unwrap();
        }
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 5 });
        let db = dir.path().join(".nerd/nerd.db");
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute("UPDATE audit_record SET body = '{\"turn\":99}' WHERE seq = 3", []).unwrap();
        assert!(matches!(verify(dir.path(), &store).unwrap(), Verdict::Tampered { seq: 3, .. }));
        conn.execute("UPDATE audit_record SET body = '{\"turn\":2}' WHERE seq = 3", []).unwrap();
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 5 });
        conn.execute("DELETE FROM audit_record WHERE seq >= 4", []).unwrap();
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Truncated { length: 3, expected: 5 });
    }
}
