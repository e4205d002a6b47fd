//! `nerd undo`: restores the files of the newest change, but only where a file
//! still holds exactly what nerd left there. A file edited since is a
//! conflict: it is left alone unless forced, and forcing first saves the edit
//! under `.nerd/undo-conflicts/`. Only what the audit trail vouches for is
//! written back. Knows nothing about why the change was made.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::{Leaves, Record, RouterError, Stored, UndoFile};
use crate::audit;
use crate::files;
use crate::store::{After, FileCheckpoint, Left, StateDb};

/// Where a forced undo saves the versions it replaces.
pub const CONFLICTS_DIR: &str = ".nerd/undo-conflicts";

/// A file changed after nerd wrote it, which undo did not overwrite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The file, relative to the workspace.
    pub path: String,
    /// What nerd left there (`None`: nerd deleted it, or the checkpoint predates this record).
    pub left: Option<Vec<u8>>,
    /// What the file holds now (`None`: it is gone).
    pub now: Option<Vec<u8>>,
    /// Whether nerd knows what it left; checkpoints of older versions do not say.
    pub known: bool,
}

/// What an undo did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Undone {
    /// Files restored, relative to the workspace.
    pub restored: Vec<String>,
    /// Files left alone because they changed after nerd wrote them.
    pub conflicts: Vec<Conflict>,
    /// With force: each replaced later version and where it was saved.
    pub saved: Vec<(String, PathBuf)>,
}

/// The digest form of what a write leaves, as the audit trail records it.
pub(super) fn leaves(after: After<'_>) -> Leaves {
    match after {
        After::Written(bytes) => Leaves::Written { sha256: crate::digest::sha256_hex(bytes) },
        After::Deleted => Leaves::Deleted,
    }
}

fn leaves_of(left: &Left) -> Option<Leaves> {
    match left {
        Left::Written(bytes) => Some(leaves(After::Written(bytes))),
        Left::Deleted => Some(Leaves::Deleted),
        Left::Unknown => None,
    }
}

/// Restores the files the newest checkpointed change wrote or deleted. Only
/// what the audit trail vouches for is written back: the trail must be
/// intact, each checkpoint's path, previous digest and written digest must be
/// recorded in it under the decision that wrote the file, and the path must lie
/// inside the workspace with no symlink on the way. A row a confined program
/// slipped into the database restores nothing.
///
/// A file whose content is no longer what nerd left is a conflict: without
/// `force` it is not touched (its checkpoints stay, so a later forced undo
/// finds them); with `force` its current content is saved first.
pub fn undo(root: &Path, force: bool) -> Result<Undone, RouterError> {
    let root = root.canonicalize().map_err(|source| RouterError::Workspace { path: root.to_path_buf(), source })?;
    let state = StateDb::open(&root)?;
    let checkpoints = state.last_checkpoints()?;
    if checkpoints.is_empty() {
        return Ok(Undone::default());
    }
    match audit::verify(&root, &state)? {
        audit::Verdict::Intact { .. } => {}
        other => {
            return Err(RouterError::Undo(format!(
                "the audit trail is not intact ({other:?}); run `nerd audit verify`, then `nerd audit accept`"
            )))
        }
    }
    let vouched = vouched(&state)?;
    for c in &checkpoints {
        let previous = c.content.as_deref().map(crate::digest::sha256_hex);
        // A checkpoint that does not say what nerd left (an older one) is matched on
        // the rest, and is always treated as changed since, so it restores nothing unforced.
        let recorded = vouched.get(&(c.audit, c.path.clone(), previous));
        let matches = match (recorded, leaves_of(&c.after)) {
            (Some(afters), Some(after)) => afters.contains(&Some(after)),
            (Some(_), None) => true,
            (None, _) => false,
        };
        if !matches {
            return Err(RouterError::Undo(format!(
                "the checkpoint of {} is not recorded in the audit trail; nothing restored from it",
                c.path
            )));
        }
        if !inside(&root, Path::new(&c.path)) {
            return Err(RouterError::Undo(format!("{} is not a file inside the workspace; not restored", c.path)));
        }
    }
    // First what will happen, then the record of it, then the writes.
    let mut undone = Undone::default();
    let mut plan = Vec::new();
    for group in by_file(&checkpoints) {
        // Newest first: the first checkpoint says what nerd left, the last what the file held before.
        let (newest, oldest) = (group[0], group[group.len() - 1]);
        let file = Path::new(&newest.path);
        let shown = file.strip_prefix(&root).unwrap_or(file).display().to_string();
        let now = current(file)?;
        let unchanged = match &newest.after {
            Left::Written(bytes) => now.as_deref() == Some(bytes.as_slice()),
            Left::Deleted => now.is_none(),
            Left::Unknown => false,
        };
        // Nothing to lose when the file already holds what the undo would restore.
        let nothing_to_lose = now == oldest.content;
        let edited_since = !unchanged && !nothing_to_lose;
        if edited_since && !force {
            undone.conflicts.push(Conflict {
                path: shown,
                left: match &newest.after {
                    Left::Written(bytes) => Some(bytes.clone()),
                    _ => None,
                },
                now,
                known: newest.after != Left::Unknown,
            });
            continue;
        }
        plan.push(Restore { group, shown, now, edited_since });
    }
    if plan.is_empty() && undone.conflicts.is_empty() {
        return Ok(undone);
    }
    record(&root, &state, force, &plan, &undone.conflicts)?;
    let stamp = crate::timing::now_ns();
    for Restore { group, shown, now, edited_since } in plan {
        let (newest, oldest) = (group[0], group[group.len() - 1]);
        let file = Path::new(&newest.path);
        if let (true, Some(bytes)) = (edited_since, &now) {
            let saved = root.join(CONFLICTS_DIR).join(stamp.to_string()).join(&shown);
            crate::router::write_atomic(&saved, bytes)
                .map_err(|source| RouterError::Workspace { path: saved.clone(), source })?;
            undone.saved.push((shown.clone(), saved));
        }
        let result = match &oldest.content {
            Some(bytes) => files::write_atomic(file, bytes),
            None => match files::remove(file) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        result.map_err(|source| RouterError::Workspace { path: file.to_path_buf(), source })?;
        for c in group {
            state.mark_undone(c.id)?;
        }
        undone.restored.push(shown);
    }
    Ok(undone)
}

/// One file the undo will write back.
struct Restore<'a> {
    /// Its checkpoints, newest first.
    group: Vec<&'a FileCheckpoint>,
    shown: String,
    /// What it holds now.
    now: Option<Vec<u8>>,
    /// Whether someone changed it after nerd did (only restored when forced).
    edited_since: bool,
}

/// Puts the undo in the audit trail before any file is written: each file with
/// what it will hold and what it holds now, by digest, and the conflicts left alone.
fn record(
    root: &Path,
    state: &StateDb,
    forced: bool,
    plan: &[Restore<'_>],
    conflicts: &[Conflict],
) -> Result<(), RouterError> {
    let digest = |b: &Option<Vec<u8>>| b.as_deref().map(crate::digest::sha256_hex);
    let files = plan
        .iter()
        .map(|r| UndoFile {
            path: r.shown.clone(),
            restores: digest(&r.group[r.group.len() - 1].content),
            replaces: digest(&r.now),
            edited_since: r.edited_since,
        })
        .collect();
    let record = Record::Undo { forced, files, conflicts: conflicts.iter().map(|c| c.path.clone()).collect() };
    super::append_record(root, state, format!("undo-{:x}", crate::timing::now_ns()), record)?;
    Ok(())
}

/// Every checkpoint the trail records: (decision, path, previous digest) → what each left.
type Vouched = BTreeMap<(i64, String, Option<String>), BTreeSet<Option<Leaves>>>;

fn vouched(state: &StateDb) -> Result<Vouched, RouterError> {
    let mut out = Vouched::new();
    for record in state.audit_records()?.into_iter().filter_map(|r| serde_json::from_str::<Stored>(&r.body).ok()) {
        if let Record::Checkpoint { decision, path, previous, after } = record.record {
            out.entry((decision, path, previous)).or_default().insert(after);
        }
    }
    Ok(out)
}

/// An absolute path inside the workspace, with no `..` and not itself a symlink.
fn inside(root: &Path, p: &Path) -> bool {
    p.is_absolute()
        && p.components().all(|c| !matches!(c, Component::ParentDir))
        && p.parent().and_then(|d| d.canonicalize().ok()).is_some_and(|d| d.starts_with(root))
        && !p.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
}

/// The checkpoints grouped by file, each group newest first, in the order files were first met.
fn by_file(checkpoints: &[FileCheckpoint]) -> Vec<Vec<&FileCheckpoint>> {
    let mut groups: Vec<Vec<&FileCheckpoint>> = Vec::new();
    for c in checkpoints {
        match groups.iter_mut().find(|g| g[0].path == c.path) {
            Some(group) => group.push(c),
            None => groups.push(vec![c]),
        }
    }
    groups
}

/// What the file holds now; `None` when it does not exist.
fn current(file: &Path) -> Result<Option<Vec<u8>>, RouterError> {
    match std::fs::read(file) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(RouterError::Workspace { path: file.to_path_buf(), source }),
    }
}
