//! Moves a workspace's older single database (`.nerd/nerd.db`) apart: its
//! durable tables are copied into `state.db` (built under a temporary name and
//! renamed into place, so a crash leaves either no state file or a whole one),
//! then the file itself becomes `index.db`. Nothing is deleted: a file that
//! cannot be moved is kept under another name. Knows nothing about what the
//! tables mean.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::{connect, migrations, StoreError, INDEX_FILE, STATE_FILE};

/// The single database of nerd before the split.
const LEGACY_FILE: &str = "nerd.db";

/// The durable tables and the columns they had in the single database.
const DURABLE: &[(&str, &str)] = &[
    ("audit_record", "seq, at_ns, body, prev, hash"),
    ("file_checkpoint", "id, audit, turn, path, existed, content, undone"),
    ("session", "id, created_ns, updated_ns, state"),
    ("commit_override", "id, at_ns, tree, reason, blockers"),
];

/// Splits `dir/nerd.db` when it is still there; does nothing otherwise.
pub fn split(dir: &Path) -> Result<(), StoreError> {
    let legacy = dir.join(LEGACY_FILE);
    if !legacy.exists() {
        return Ok(());
    }
    let state = dir.join(STATE_FILE);
    if !state.exists() {
        match copy_durable(&legacy, &state) {
            Ok(true) => eprintln!(
                "nerd: moved the audit trail, sessions, undo checkpoints and overrides from .nerd/{LEGACY_FILE} \
                 to .nerd/{STATE_FILE}; the rest is the index, .nerd/{INDEX_FILE}"
            ),
            Ok(false) => {}
            Err(e @ StoreError::StateDamaged { .. }) => {
                // Its durable rows cannot be read: keep the file for recovery and go on
                // with an empty state, which the audit checkpoint outside the workspace
                // will contradict until someone examines it (`nerd doctor`).
                let kept = dir.join(format!("{LEGACY_FILE}.damaged"));
                move_file(&legacy, &kept)?;
                eprintln!("nerd: {e}; kept it as {}", kept.display());
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
    if !detach_wal(&legacy) {
        // Another connection holds the old file: it is moved at a later start.
        return Ok(());
    }
    // It becomes the index, or, when an index exists already, is kept aside.
    let index = dir.join(INDEX_FILE);
    let target = if index.exists() { dir.join(format!("{LEGACY_FILE}.before-split")) } else { index };
    if target.exists() {
        return Ok(());
    }
    move_file(&legacy, &target)
}

/// Copies the durable rows into a new state database; `false` when another
/// process did it meanwhile.
fn copy_durable(legacy: &Path, state: &Path) -> Result<bool, StoreError> {
    let damaged = |source| StoreError::StateDamaged { path: legacy.to_path_buf(), source };
    let mut old = connect(legacy, "NORMAL").map_err(damaged)?;
    // Every durable table exists with every column once the old migrations ran.
    migrations::migrate_to(&mut old, migrations::INDEX, migrations::INDEX_BEFORE_SPLIT)
        .map_err(|e| e.at_state(legacy))?;
    // Holding the old file's write lock keeps other nerd processes out until the state file is in place.
    old.execute_batch("BEGIN IMMEDIATE").map_err(damaged)?;
    if state.exists() {
        let _ = old.execute_batch("ROLLBACK");
        return Ok(false);
    }
    let tmp = PathBuf::from(format!("{}.tmp{}", state.display(), std::process::id()));
    let result = build_state(legacy, &tmp);
    let _ = old.execute_batch("ROLLBACK");
    match result {
        Ok(()) => {
            move_file(&tmp, state)?;
            Ok(true)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn build_state(legacy: &Path, tmp: &Path) -> Result<(), StoreError> {
    let _ = std::fs::remove_file(tmp);
    let mut fresh = Connection::open(tmp).map_err(|source| StoreError::Open { path: tmp.to_path_buf(), source })?;
    fresh.busy_timeout(std::time::Duration::from_secs(5))?;
    migrations::migrate(&mut fresh, migrations::STATE)?;
    fresh.execute("ATTACH DATABASE ?1 AS legacy", [legacy.display().to_string()])?;
    let copied = (|| {
        let tx = fresh.transaction()?;
        for (table, columns) in DURABLE {
            tx.execute(&format!("INSERT INTO main.{table}({columns}) SELECT {columns} FROM legacy.{table}"), [])?;
        }
        tx.commit()
    })();
    copied.map_err(|source| StoreError::from(source).at_state(legacy))?;
    fresh.execute("DETACH DATABASE legacy", [])?;
    // A rollback journal leaves one self-contained file to rename; it is opened in WAL mode later.
    fresh.pragma_update(None, "journal_mode", "DELETE")?;
    drop(fresh);
    Ok(())
}

/// Folds the old file's write-ahead log into it, so the file alone is whole;
/// `false` when another connection holds it open.
fn detach_wal(path: &Path) -> bool {
    let Ok(conn) = Connection::open(path) else { return false };
    let mode: rusqlite::Result<String> = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0));
    matches!(mode, Ok(m) if m.eq_ignore_ascii_case("delete"))
}

/// Renames a file, its content and the rename both made durable.
fn move_file(from: &Path, to: &Path) -> Result<(), StoreError> {
    let err = |source| StoreError::Move { from: from.to_path_buf(), to: to.to_path_buf(), source };
    std::fs::File::open(from).and_then(|f| f.sync_all()).map_err(err)?;
    std::fs::rename(from, to).map_err(err)?;
    if let Some(dir) = to.parent() {
        std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(err)?;
    }
    Ok(())
}
