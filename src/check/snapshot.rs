//! The staged snapshot: the content of the git index materialised as a real
//! directory (`check::trees_dir`), so compilers judge exactly what would be
//! committed. Incremental: only entries whose blob id changed since the last
//! snapshot are written, in one `git cat-file --batch`, and vanished entries
//! are removed. Index paths are validated before anything is written.
//! Knows nothing about what the snapshot is checked with.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::Stdio;

use sha2::{Digest, Sha256};

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("not inside a git work tree")]
    NotAGitRepo,
    #[error("git failed: {0}")]
    Git(String),
    #[error("refusing index path `{0}`: it would leave the snapshot")]
    HostilePath(String),
    #[error("the index has unresolved merge conflicts in {0}")]
    Conflict(String),
    #[error("cannot write the snapshot at {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

pub use crate::world::git::{Entry, Manifest};

fn git(root: &Path, args: &[&str]) -> Result<String, SnapshotError> {
    crate::world::git::run(root, args).map_err(SnapshotError::Git)
}

/// The top of the work tree containing `dir`.
pub fn toplevel(dir: &Path) -> Result<PathBuf, SnapshotError> {
    let out = git(dir, &["rev-parse", "--show-toplevel"]).map_err(|_| SnapshotError::NotAGitRepo)?;
    Ok(PathBuf::from(out.trim()))
}

/// A path is safe when it is relative and has only normal components.
fn safe(path: &str) -> bool {
    !path.is_empty() && Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
}

/// Reads the index of the repository at `root`.
pub fn manifest(root: &Path) -> Result<Manifest, SnapshotError> {
    let out = git(root, &["ls-files", "--stage", "-z"])?;
    let mut manifest = Manifest::new();
    for record in out.split('\0').filter(|r| !r.is_empty()) {
        let Some((meta, path)) = record.split_once('\t') else { continue };
        let mut parts = meta.split(' ');
        let (Some(mode), Some(blob), Some(stage)) = (parts.next(), parts.next(), parts.next()) else { continue };
        if stage != "0" {
            return Err(SnapshotError::Conflict(path.to_string()));
        }
        if !safe(path) {
            return Err(SnapshotError::HostilePath(path.to_string()));
        }
        if mode == "100644" || mode == "100755" {
            manifest.insert(path.to_string(), Entry { mode: mode.to_string(), blob: blob.to_string() });
        }
    }
    Ok(manifest)
}

/// The tree of HEAD as a manifest; `None` before the first commit.
pub fn head_manifest(root: &Path) -> Result<Option<Manifest>, SnapshotError> {
    if git(root, &["rev-parse", "--verify", "--quiet", "HEAD^{tree}"]).is_err() {
        return Ok(None);
    }
    let out = git(root, &["ls-tree", "-r", "-z", "HEAD"])?;
    let mut manifest = Manifest::new();
    for record in out.split('\0').filter(|r| !r.is_empty()) {
        let Some((meta, path)) = record.split_once('\t') else { continue };
        let mut parts = meta.split(' ');
        let (Some(mode), Some(_kind), Some(blob)) = (parts.next(), parts.next(), parts.next()) else { continue };
        if !safe(path) {
            return Err(SnapshotError::HostilePath(path.to_string()));
        }
        if mode == "100644" || mode == "100755" {
            manifest.insert(path.to_string(), Entry { mode: mode.to_string(), blob: blob.to_string() });
        }
    }
    Ok(Some(manifest))
}

/// A content hash of the whole manifest: equal hashes mean equal staged trees.
pub fn tree_hash(manifest: &Manifest) -> String {
    let mut h = Sha256::new();
    for (path, e) in manifest {
        h.update(path.as_bytes());
        h.update([0]);
        h.update(e.mode.as_bytes());
        h.update(e.blob.as_bytes());
        h.update([0]);
    }
    crate::digest::hex(&h.finalize())
}

/// Brings `dir` to the content of `manifest`, given what it held before
/// (`previous`), writing only changed files. Returns the paths written.
pub fn materialise(
    root: &Path,
    dir: &Path,
    manifest: &Manifest,
    previous: &Manifest,
) -> Result<Vec<String>, SnapshotError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SnapshotError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for path in previous.keys().filter(|p| !manifest.contains_key(*p)) {
        let full = dir.join(path);
        match std::fs::remove_file(&full) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(SnapshotError::Io { path: full, source: e }),
        }
    }
    let wanted: Vec<(&String, &Entry)> =
        manifest.iter().filter(|(p, e)| previous.get(*p) != Some(*e) || !dir.join(p).is_file()).collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = crate::world::git::command(root)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| SnapshotError::Git(e.to_string()))?;
    let mut stdin = child.stdin.take().ok_or_else(|| SnapshotError::Git("no stdin".into()))?;
    let blobs: Vec<String> = wanted.iter().map(|(_, e)| e.blob.clone()).collect();
    let writer = std::thread::spawn(move || {
        for b in blobs {
            if writeln!(stdin, "{b}").is_err() {
                break;
            }
        }
    });
    let mut out = BufReader::new(child.stdout.take().ok_or_else(|| SnapshotError::Git("no stdout".into()))?);
    let mut written = Vec::with_capacity(wanted.len());
    for (path, entry) in &wanted {
        let mut header = String::new();
        out.read_line(&mut header).map_err(|e| SnapshotError::Git(e.to_string()))?;
        let size: usize = header
            .split(' ')
            .nth(2)
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| SnapshotError::Git(format!("unexpected cat-file header `{}`", header.trim())))?;
        let mut content = vec![0u8; size + 1];
        out.read_exact(&mut content).map_err(|e| SnapshotError::Git(e.to_string()))?;
        content.pop(); // the newline after each object
        let full = dir.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        // Replace rather than write through: a symlink planted here must not redirect the write.
        let _ = std::fs::remove_file(&full);
        std::fs::write(&full, &content).map_err(io(&full))?;
        if entry.mode == "100755" {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755)).map_err(io(&full))?;
        }
        written.push((*path).clone());
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_are_safe() {
        assert!(safe("src/lib.rs"));
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "./a"] {
            assert!(!safe(bad), "{bad}");
        }
    }
}
