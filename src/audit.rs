//! The audit trail: every decision and action of the router as an
//! append-only, hash-chained record in SQLite (`hash = sha256(prev, seq,
//! at_ns, body)`: every field), with the `(length, head)` checkpoint written
//! outside the database and outside the workspace (the user's state folder,
//! which programs the router runs cannot write) at each append. Editing a
//! record breaks the chain; deleting records, appending forged ones or
//! rewriting the chain and recomputing it contradicts the checkpoint. Before
//! each append the head is checked against the checkpoint, and a mismatch
//! refuses the append, which stops the router: nothing runs unrecorded.
//! Knows nothing about what the records say.

use std::path::{Path, PathBuf};

use crate::store::{StateDb, StoreError};

/// The `prev` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write the audit checkpoint {path}: {source}")]
    Checkpoint { path: PathBuf, source: std::io::Error },
    #[error(
        "the audit trail was changed outside nerd (its head is record {found}, the checkpoint {checkpoint} says \
         {expected}); nothing more is run or recorded until it is examined: run `nerd audit verify`, then \
         `nerd audit accept` to go on from the trail as it is"
    )]
    Diverged { found: i64, expected: i64, checkpoint: PathBuf },
    #[error(
        "audit record {seq} was edited ({reason}): nerd cannot vouch for a trail whose records changed; keep \
         .nerd/state.db aside as evidence (move it), then `nerd audit accept` starts a new trail"
    )]
    Edited { seq: i64, reason: String },
}

/// What `accept` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Accepted {
    /// The checkpoint already vouched for the trail.
    Intact { length: i64 },
    /// The checkpoint now vouches for the trail as it is; the one that did
    /// not (what it said: `None` when it was missing) is kept beside it.
    Accepted { length: i64, checkpoint_said: Option<i64>, kept: Option<PathBuf> },
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

fn link(prev: &str, seq: i64, at_ns: Option<i64>, body: &str) -> String {
    let mut bytes = Vec::with_capacity(prev.len() + body.len() + 48);
    bytes.extend_from_slice(prev.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(seq.to_string().as_bytes());
    bytes.push(0);
    // Records written before the time was hashed have no `at` part.
    if let Some(at) = at_ns {
        bytes.extend_from_slice(b"at=");
        bytes.extend_from_slice(at.to_string().as_bytes());
        bytes.push(0);
    }
    bytes.extend_from_slice(body.as_bytes());
    crate::digest::sha256_hex(&bytes)
}

/// Whether a stored record's hash covers its fields (the time included, for records of this version on).
fn links(prev: &str, seq: i64, at_ns: i64, body: &str, hash: &str) -> bool {
    link(prev, seq, Some(at_ns), body) == hash || link(prev, seq, None, body) == hash
}

/// The checkpoint: the head after the last append, and, while an append is
/// being committed, the head before it (a crash in between leaves either).
#[derive(Debug, PartialEq, Eq)]
struct Checkpoint {
    head: (i64, String),
    before: Option<(i64, String)>,
}

impl Checkpoint {
    fn parse(text: &str) -> Option<Checkpoint> {
        let mut lines = text.lines();
        let pair = |line: &str| {
            let (n, h) = line.trim().split_once(' ')?;
            Some((n.parse::<i64>().ok()?, h.to_string()))
        };
        let head = pair(lines.next()?)?;
        let before = match lines.next() {
            Some(line) => Some(pair(line)?),
            None => None,
        };
        Some(Checkpoint { head, before })
    }

    fn read(root: &Path) -> Option<Checkpoint> {
        Checkpoint::parse(&std::fs::read_to_string(checkpoint_path(root)).ok()?)
    }

    /// Whether the trail's head `(length, hash)` is one this checkpoint vouches for.
    fn vouches(&self, head: &(i64, String)) -> bool {
        self.head == *head || self.before.as_ref() == Some(head)
    }

    fn write(&self, root: &Path) -> Result<(), AuditError> {
        let path = checkpoint_path(root);
        let io = |source| AuditError::Checkpoint { path: path.clone(), source };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut text = format!("{} {}\n", self.head.0, self.head.1);
        if let Some((n, h)) = &self.before {
            text.push_str(&format!("{n} {h}\n"));
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, &path).map_err(io)
    }
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

/// Appends one record; returns its sequence number. Refuses when the trail's
/// head is not the one the checkpoint recorded: someone else wrote the trail.
pub fn append(root: &Path, store: &StateDb, body: &serde_json::Value) -> Result<i64, AuditError> {
    // Several nerd processes may append to one workspace's trail at once: the
    // head is read and checked, the record linked and the checkpoint written under one write lock.
    let seq = store.locked(|store| {
        let head = store.audit_head()?.unwrap_or((0, GENESIS.to_string()));
        match Checkpoint::read(root) {
            Some(c) if !c.vouches(&head) => {
                return Err(AuditError::Diverged {
                    found: head.0,
                    expected: c.head.0,
                    checkpoint: checkpoint_path(root),
                })
            }
            None if head.0 > 0 => {
                return Err(AuditError::Diverged { found: head.0, expected: 0, checkpoint: checkpoint_path(root) })
            }
            _ => {}
        }
        let seq = head.0 + 1;
        let text = body.to_string();
        let at_ns = crate::timing::now_ns();
        let hash = link(&head.1, seq, Some(at_ns), &text);
        store.audit_insert(seq, at_ns, &text, &head.1, &hash)?;
        // Written before the commit, naming both heads: a crash before the commit leaves the old one valid.
        Checkpoint { head: (seq, hash.clone()), before: Some(head) }.write(root)?;
        Ok((seq, hash))
    })?;
    // Once committed, the checkpoint names the new head alone, under the lock again and only
    // while that head is still the newest: another process may have appended meanwhile and
    // written its own checkpoint, which must not be moved back.
    store.locked(|store| match store.audit_head()? {
        Some(head) if head == seq => Checkpoint { head, before: None }.write(root),
        _ => Ok(()),
    })?;
    Ok(seq.0)
}

/// The first record of a trail that does not link to the one before.
struct Broken {
    seq: i64,
    reason: String,
}

/// The head of a trail whose every record links to the one before.
fn chain(records: &[crate::store::AuditRow]) -> Result<(i64, String), Broken> {
    let mut prev = GENESIS.to_string();
    for (i, r) in records.iter().enumerate() {
        if r.seq != i as i64 + 1 {
            return Err(Broken { seq: i as i64 + 1, reason: format!("record {} is missing", i + 1) });
        }
        if r.prev != prev {
            return Err(Broken { seq: r.seq, reason: "its link to the previous record is broken".into() });
        }
        if !links(&prev, r.seq, r.at_ns, &r.body, &r.hash) {
            return Err(Broken { seq: r.seq, reason: "its content does not match its hash".into() });
        }
        prev = r.hash.clone();
    }
    Ok((records.len() as i64, prev))
}

/// After a person has examined a trail the checkpoint no longer vouches for
/// (records deleted with `.nerd/`, appended or rewritten outside nerd), makes
/// the checkpoint vouch for the trail as it is, so that nerd can go on. The
/// old checkpoint is kept beside the new one (`….checkpoint.superseded-<ns>`).
/// A trail whose records themselves were edited (a broken link) is refused:
/// nerd cannot vouch for it. Only a person runs this (`nerd audit accept`);
/// the router never does. The caller records the acceptance in the trail.
pub fn accept(root: &Path, store: &StateDb) -> Result<Accepted, AuditError> {
    store.locked(|store| {
        let head = chain(&store.audit_records()?).map_err(|b| AuditError::Edited { seq: b.seq, reason: b.reason })?;
        let old = Checkpoint::read(root);
        match &old {
            Some(c) if c.vouches(&head) => return Ok(Accepted::Intact { length: head.0 }),
            None if head.0 == 0 => return Ok(Accepted::Intact { length: 0 }),
            _ => {}
        }
        let path = checkpoint_path(root);
        let kept = match old {
            Some(_) => {
                let kept = path.with_extension(format!("checkpoint.superseded-{}", crate::timing::now_ns()));
                std::fs::rename(&path, &kept)
                    .map_err(|source| AuditError::Checkpoint { path: path.clone(), source })?;
                Some(kept)
            }
            None => None,
        };
        let checkpoint_said = old.map(|c| c.head.0);
        Checkpoint { head: head.clone(), before: None }.write(root)?;
        Ok(Accepted::Accepted { length: head.0, checkpoint_said, kept })
    })
}

/// Checks every link and the checkpoint.
pub fn verify(root: &Path, store: &StateDb) -> Result<Verdict, AuditError> {
    let records = store.audit_records()?;
    let head = match chain(&records) {
        Ok(head) => head,
        Err(Broken { seq, reason }) => return Ok(Verdict::Tampered { seq, reason }),
    };
    let length = head.0;
    match Checkpoint::read(root) {
        None if length == 0 => Ok(Verdict::Intact { length }),
        None => Ok(Verdict::Truncated { length, expected: -1 }),
        Some(c) if c.vouches(&head) => Ok(Verdict::Intact { length }),
        Some(c) if c.head.0 > length => Ok(Verdict::Truncated { length, expected: c.head.0 }),
        Some(c) => {
            // The record the checkpoint names was changed, or records were added after it.
            let at = c.head.0;
            let matches = records.get((at - 1).max(0) as usize).is_some_and(|r| r.hash == c.head.1);
            let reason = if matches && at < length {
                format!("records {}..{length} were appended outside nerd", at + 1)
            } else {
                "it differs from the checkpoint: the trail was rewritten".to_string()
            };
            Ok(Verdict::Tampered { seq: at.clamp(1, length.max(1)), reason })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tampering_and_truncation_are_detected() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateDb::open(dir.path()).unwrap();
        for i in 0..5 {
            append(dir.path(), &store, &serde_json::json!({"turn": i})).unwrap();
        }
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 5 });
        let db = dir.path().join(".nerd/state.db");
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute("UPDATE audit_record SET body = '{\"turn\":99}' WHERE seq = 3", []).unwrap();
        assert!(matches!(verify(dir.path(), &store).unwrap(), Verdict::Tampered { seq: 3, .. }));
        conn.execute("UPDATE audit_record SET body = '{\"turn\":2}' WHERE seq = 3", []).unwrap();
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 5 });
        conn.execute("DELETE FROM audit_record WHERE seq >= 4", []).unwrap();
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Truncated { length: 3, expected: 5 });
    }

    /// Rewrites the whole trail from `from` on as a forger with write access to the database would:
    /// new bodies, links recomputed so the chain itself is consistent.
    fn forge(conn: &rusqlite::Connection, from: i64, body: &str) {
        let rows: Vec<(i64, i64, String)> = conn
            .prepare("SELECT seq, at_ns, body FROM audit_record ORDER BY seq")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut prev = GENESIS.to_string();
        for (seq, at, old) in rows {
            let text = if seq >= from { body.to_string() } else { old };
            let hash = link(&prev, seq, Some(at), &text);
            conn.execute(
                "UPDATE audit_record SET body = ?1, prev = ?2, hash = ?3 WHERE seq = ?4",
                rusqlite::params![text, prev, hash, seq],
            )
            .unwrap();
            prev = hash;
        }
    }

    fn trail(records: usize) -> (tempfile::TempDir, StateDb, rusqlite::Connection) {
        let dir = tempfile::tempdir().unwrap();
        let store = StateDb::open(dir.path()).unwrap();
        for i in 0..records {
            append(dir.path(), &store, &serde_json::json!({"turn": i})).unwrap();
        }
        let conn = rusqlite::Connection::open(dir.path().join(".nerd/state.db")).unwrap();
        (dir, store, conn)
    }

    #[test]
    fn a_person_accepts_a_trail_the_checkpoint_no_longer_vouches_for_unless_records_were_edited() {
        // The records deleted (as with `.nerd/`): appends stop until a person accepts.
        let (dir, store, conn) = trail(3);
        conn.execute("DELETE FROM audit_record", []).unwrap();
        let refused = append(dir.path(), &store, &serde_json::json!({"turn": "x"})).unwrap_err();
        assert!(refused.to_string().contains("nerd audit accept"), "{refused}");
        let Accepted::Accepted { length: 0, checkpoint_said: Some(3), kept: Some(kept) } =
            accept(dir.path(), &store).unwrap()
        else {
            panic!("not accepted")
        };
        assert!(kept.exists(), "the old checkpoint is kept");
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 0 });
        append(dir.path(), &store, &serde_json::json!({"turn": "after"})).unwrap();
        assert_eq!(accept(dir.path(), &store).unwrap(), Accepted::Intact { length: 1 });

        // The checkpoint deleted: the chain is whole, so it is accepted as it is.
        let (dir, store, _conn) = trail(2);
        std::fs::remove_file(checkpoint_path(dir.path())).unwrap();
        assert_eq!(
            accept(dir.path(), &store).unwrap(),
            Accepted::Accepted { length: 2, checkpoint_said: None, kept: None }
        );
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 2 });

        // A record edited: refused, and the checkpoint still disagrees.
        let (dir, store, conn) = trail(3);
        conn.execute("UPDATE audit_record SET body = '{\"turn\":99}' WHERE seq = 2", []).unwrap();
        assert!(matches!(accept(dir.path(), &store), Err(AuditError::Edited { seq: 2, .. })));
        assert!(matches!(verify(dir.path(), &store).unwrap(), Verdict::Tampered { seq: 2, .. }));
    }

    #[test]
    fn every_tamper_mode_is_detected_and_stops_appends() {
        // A timestamp edited.
        let (dir, store, conn) = trail(4);
        conn.execute("UPDATE audit_record SET at_ns = at_ns + 1 WHERE seq = 2", []).unwrap();
        assert!(matches!(verify(dir.path(), &store).unwrap(), Verdict::Tampered { seq: 2, .. }));

        // Forged records appended at the end, properly chained.
        let (dir, store, conn) = trail(3);
        let (seq, prev): (i64, String) = conn
            .query_row("SELECT seq, hash FROM audit_record ORDER BY seq DESC LIMIT 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        let body = r#"{"forged":true}"#;
        conn.execute(
            "INSERT INTO audit_record(seq, at_ns, body, prev, hash) VALUES (?1, 5, ?2, ?3, ?4)",
            rusqlite::params![seq + 1, body, prev, link(&prev, seq + 1, Some(5), body)],
        )
        .unwrap();
        match verify(dir.path(), &store).unwrap() {
            Verdict::Tampered { reason, .. } => assert!(reason.contains("appended outside nerd"), "{reason}"),
            other => panic!("{other:?}"),
        }
        let refused = append(dir.path(), &store, &serde_json::json!({"turn": "next"})).unwrap_err();
        assert!(matches!(refused, AuditError::Diverged { found: 4, expected: 3, .. }), "{refused}");
        // The refused append wrote nothing, and the checkpoint did not move onto the forged chain.
        assert_eq!(store.audit_records().unwrap().len(), 4);
        assert!(matches!(verify(dir.path(), &store).unwrap(), Verdict::Tampered { .. }));

        // History rewritten and every link recomputed.
        let (dir, store, conn) = trail(5);
        forge(&conn, 2, r#"{"turn":"innocent"}"#);
        assert!(matches!(verify(dir.path(), &store).unwrap(), Verdict::Tampered { .. }));
        assert!(append(dir.path(), &store, &serde_json::json!({"turn": 6})).is_err());

        // The checkpoint deleted.
        let (dir, store, _conn) = trail(2);
        std::fs::remove_file(checkpoint_path(dir.path())).unwrap();
        assert!(matches!(verify(dir.path(), &store).unwrap(), Verdict::Truncated { expected: -1, .. }));
        assert!(append(dir.path(), &store, &serde_json::json!({"turn": 3})).is_err());
    }

    #[test]
    fn a_crash_between_checkpoint_and_commit_leaves_a_valid_trail() {
        let (dir, store, _conn) = trail(2);
        let head = store.audit_head().unwrap().unwrap();
        // The checkpoint as an append that never committed left it.
        Checkpoint { head: (3, "f".repeat(64)), before: Some(head) }.write(dir.path()).unwrap();
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 2 });
        append(dir.path(), &store, &serde_json::json!({"turn": 3})).unwrap();
        assert_eq!(verify(dir.path(), &store).unwrap(), Verdict::Intact { length: 3 });
    }
}
