//! The gitignore-aware walk of a workspace: every regular file with its
//! repository-relative path, modification time and size. Parallel, never
//! follows symlinks, skips nerd's own `.nerd/` and `.git/`.
//! Knows nothing about file contents.

use std::path::Path;
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

/// A file found by the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walked {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    pub mtime_ns: i64,
    pub size: i64,
}

/// An entry the walk could not read; reported, never fatal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkProblem {
    pub path: String,
    pub message: String,
}

/// The workspace-relative, `/`-separated form of `path`, if it is inside `root`.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut out = String::new();
    for part in rel.components() {
        let part = part.as_os_str().to_str()?;
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(part);
    }
    (!out.is_empty()).then_some(out)
}

/// The folder of a workspace-relative, `/`-separated path; `""` at the root.
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The folder of `path` and each folder above it, nearest first; `""` (the root) last.
pub fn folders_above(path: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(dir_of(path)), |d| (!d.is_empty()).then(|| dir_of(d)))
}

/// A relative path `rel` read from the folder `dir` (`""` is the root), `.` and `..` resolved.
pub fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// Whether a relative path is one nerd never projects.
pub fn is_excluded(rel: &str) -> bool {
    rel.split('/').any(|part| part == ".git" || part == ".nerd")
}

/// Walks `root`, returning files sorted by path and the entries it could not read.
pub fn walk(root: &Path) -> (Vec<Walked>, Vec<WalkProblem>) {
    let found = Mutex::new(Vec::new());
    let problems = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    WalkBuilder::new(root)
        .threads(threads)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".nerd" && e.file_name() != ".git")
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                let entry = match entry {
                    Ok(e) => e,
                    Err(err) => {
                        if let Ok(mut p) = problems.lock() {
                            p.push(WalkProblem { path: String::new(), message: err.to_string() });
                        }
                        return WalkState::Continue;
                    }
                };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                let Some(rel) = relative(root, entry.path()) else {
                    if let Ok(mut p) = problems.lock() {
                        let path = entry.path().display().to_string();
                        p.push(WalkProblem { path, message: "path is not valid UTF-8; skipped".into() });
                    }
                    return WalkState::Continue;
                };
                match entry.metadata() {
                    Ok(meta) => {
                        let mtime_ns = crate::timing::mtime_ns(&meta);
                        let size = i64::try_from(meta.len()).unwrap_or(i64::MAX);
                        if let Ok(mut f) = found.lock() {
                            f.push(Walked { path: rel, mtime_ns, size });
                        }
                    }
                    Err(err) => {
                        if let Ok(mut p) = problems.lock() {
                            p.push(WalkProblem { path: rel, message: err.to_string() });
                        }
                    }
                }
                WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_default();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let problems = problems.into_inner().unwrap_or_default();
    (files, problems)
}
