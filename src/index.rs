//! `nerd index`: brings the stored world up to date with the workspace.
//! Incremental: a file whose size and mtime are unchanged is not read, a file
//! whose hash is unchanged is not re-parsed, deleted files lose their facts,
//! and resolution is recomputed only when something changed.
//! Knows nothing about the kernel's rules.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::store::{FileChange, FileRecord, ResolutionWrite, Store, StoreError};
use crate::timing::Phases;
use crate::world::lang::{lang_label, GrammarError, Lang};
use crate::world::packages::Manifests;
use crate::world::project::{project_file, FileProjection};
use crate::world::resolve::{resolve, FileView, Resolution};
use crate::world::walk::{walk, WalkProblem, Walked};

/// Files larger than this are recorded but not parsed.
pub const MAX_PARSE_BYTES: i64 = 8 * 1024 * 1024;
/// Files modified this close to the previous index run are re-hashed even
/// when their size and mtime match: the filesystem clock may not have ticked.
const RACY_WINDOW_NS: i64 = 2_000_000_000;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{0} is not a directory")]
    NotADirectory(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Grammar(#[from] GrammarError),
}

/// What one index run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexReport {
    pub files: usize,
    /// Files (re)parsed in this run.
    pub parsed: usize,
    /// Whether the stored world changed at all (a file added, edited, removed or touched).
    pub changed: bool,
    /// Whether every file was projected from scratch (a new index, or one made by another nerd).
    pub cold: bool,
    pub removed: usize,
    pub symbols: i64,
    pub calls: i64,
    pub unresolved_calls: i64,
    pub parse_errors: i64,
    /// Files the walk or a read could not handle.
    pub problems: Vec<WalkProblem>,
    pub elapsed: Duration,
    /// Time spent in each phase, in order.
    pub phases: Vec<(&'static str, Duration)>,
}

/// Hashes and, for projected languages, projects one file.
pub fn read_and_project(root: &Path, w: &Walked) -> Result<(FileRecord, Option<FileProjection>), WalkProblem> {
    let bytes =
        std::fs::read(root.join(&w.path)).map_err(|e| WalkProblem { path: w.path.clone(), message: e.to_string() })?;
    let sha256 = crate::digest::sha256_hex(&bytes);
    let lang = Lang::of_path(&w.path);
    let record = FileRecord {
        path: w.path.clone(),
        sha256,
        lang: lang_label(&w.path).to_string(),
        mtime_ns: w.mtime_ns,
        size: bytes.len() as i64,
        is_test: lang.is_some_and(|l| l.is_test_path(&w.path)),
    };
    let projection = match lang {
        Some(_) if record.size > MAX_PARSE_BYTES => Some(FileProjection {
            parse_error: Some((1, format!("not parsed: larger than {} MiB", MAX_PARSE_BYTES >> 20))),
            ..Default::default()
        }),
        Some(lang) => Some(
            project_file(lang, &w.path, &bytes)
                .map_err(|e| WalkProblem { path: w.path.clone(), message: e.to_string() })?,
        ),
        None => None,
    };
    Ok((record, projection))
}

/// Indexes the workspace at `root` into `store`. `progress` is told about each file read.
/// The meta key holding what the stored projections were made with.
const PROJECTION_KEY: &str = "projection";

/// Bumped whenever projection code (not only a query) changes what a file projects to.
const PROJECTION_REVISION: &str =
    "17: type hints, macro arguments, overload stubs, a call's line is its name's, alias hints, decorated functions, \
     functions named as values, arrow and overload return hints, trait-impl items public, Rust item macros expanded, #[quickcheck], Python decorators are their function's, nested item macros and paste!, a Python return annotation ends at the body's colon, TypeScript modifiers blanked before the parse and signatures as written, Rust repetitions read and tt-muncher states left unread";

/// What a projection depends on besides the file: nerd's version, the
/// projection code's revision and every grammar query.
fn projection_fingerprint() -> String {
    let mut text = format!("{}\0{PROJECTION_REVISION}", env!("CARGO_PKG_VERSION"));
    for lang in Lang::ALL {
        text.push('\0');
        text.push_str(&lang.query_source());
    }
    crate::digest::sha256_hex(text.as_bytes())
}

pub fn index(root: &Path, store: &mut Store, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<IndexReport, IndexError> {
    Ok(index_keeping(root, store, progress)?.0)
}

/// The world an index run resolved, as it wrote it to the store: every
/// projected file's projection (raw calls and hints included) and the
/// resolution before the precise tier and coverage are laid over it.
pub struct Resolved {
    pub projections: BTreeMap<String, (Lang, FileProjection)>,
    pub resolution: Resolution,
}

/// `index`, keeping the world it resolved when anything changed (`None`
/// when nothing did: the store already holds it), so that a caller that
/// evaluates next need not read back what was just written.
pub fn index_keeping(
    root: &Path,
    store: &mut Store,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(IndexReport, Option<Resolved>), IndexError> {
    let started = Instant::now();
    let mut phases = Phases::default();
    if !root.is_dir() {
        return Err(IndexError::NotADirectory(root.display().to_string()));
    }
    let run_started_ns = crate::timing::now_ns();
    let previous_run_ns: i64 = store.meta("last_index_started_ns")?.and_then(|v| v.parse().ok()).unwrap_or(0);
    let (walked, mut problems) = walk(root);
    let stored = store.files()?;
    // Projections made by another nerd or other grammar queries are stale whatever the files say.
    let fingerprint = projection_fingerprint();
    let stale = store.meta(PROJECTION_KEY)?.as_deref() != Some(fingerprint.as_str());
    let none = HashMap::default();
    let known = if stale { &none } else { &stored };
    phases.mark("walk");

    // Only files whose stat changed, or that are racily clean, are read.
    let to_read: Vec<&Walked> = walked
        .iter()
        .filter(|w| match known.get(&w.path) {
            None => true,
            Some(k) => k.size != w.size || k.mtime_ns != w.mtime_ns || k.mtime_ns + RACY_WINDOW_NS >= previous_run_ns,
        })
        .collect();
    let total = to_read.len() as u64;
    let done = std::sync::atomic::AtomicU64::new(0);
    let results: Vec<Result<(FileRecord, Option<FileProjection>), WalkProblem>> = to_read
        .par_iter()
        .map(|w| {
            let r = read_and_project(root, w);
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
            r
        })
        .collect();

    phases.mark("read_and_project");
    let mut changes = Vec::new();
    let mut parsed = 0;
    for result in results {
        match result {
            Ok((record, projection)) => match known.get(&record.path) {
                Some(k) if k.sha256 == record.sha256 => {
                    if k.mtime_ns != record.mtime_ns {
                        changes.push(FileChange::Touch { path: record.path, mtime_ns: record.mtime_ns });
                    }
                }
                _ => {
                    parsed += usize::from(projection.is_some());
                    changes.push(FileChange::Upsert { record, projection: projection.map(Box::new) });
                }
            },
            Err(problem) => problems.push(problem),
        }
    }
    let present: HashSet<&str> = walked.iter().map(|w| w.path.as_str()).collect();
    let mut removed = 0;
    for path in stored.keys().filter(|p| !present.contains(p.as_str())) {
        changes.push(FileChange::Remove { path: path.clone() });
        removed += 1;
    }

    let world_changed = changes.iter().any(|c| !matches!(c, FileChange::Touch { .. }));
    let mut unchanged = Vec::new();
    let resolution = if world_changed {
        // Unchanged files come from the store, changed ones from memory.
        let fresh: Vec<(&str, Lang, &FileProjection)> = changes
            .iter()
            .filter_map(|c| match c {
                FileChange::Upsert { record, projection: Some(p) } => {
                    Lang::from_name(&record.lang).map(|l| (record.path.as_str(), l, &**p))
                }
                _ => None,
            })
            .collect();
        let touched: HashSet<&str> = changes
            .iter()
            .filter_map(|c| match c {
                FileChange::Upsert { record, .. } => Some(record.path.as_str()),
                FileChange::Remove { path } => Some(path.as_str()),
                FileChange::Touch { .. } => None,
            })
            .collect();
        unchanged = store.projections(&|p| touched.contains(p), true)?;
        phases.mark("load_unchanged");
        let mut views: Vec<FileView> =
            unchanged.iter().map(|(p, l, proj)| FileView { path: p, lang: *l, projection: proj }).collect();
        views.extend(fresh.into_iter().map(|(p, l, proj)| FileView { path: p, lang: l, projection: proj }));
        views.sort_by(|a, b| a.path.cmp(b.path));
        let (manifests, unreadable) = Manifests::load(root, walked.iter().map(|w| w.path.as_str()));
        problems.extend(unreadable.into_iter().map(|p| WalkProblem {
            path: p.path,
            message: format!("manifest not read, so bare imports it defines stay unresolved: {}", p.message),
        }));
        let resolution = resolve(&views, &manifests);
        phases.mark("resolve");
        Some(resolution)
    } else {
        None
    };
    if !changes.is_empty() || resolution.is_some() {
        let write = resolution.as_ref().map_or(ResolutionWrite::None, ResolutionWrite::Full);
        store.apply(&changes, write)?;
    }
    store.set_meta("last_index_started_ns", &run_started_ns.to_string())?;
    if stale {
        // The precise tier names symbols by ids the old projection made.
        store.clear_precise()?;
        store.set_meta(PROJECTION_KEY, &fingerprint)?;
    }
    phases.mark("store");
    let [files, symbols, calls, unresolved_calls, parse_errors] = store.counts()?;
    let changed = !changes.is_empty() || resolution.is_some();
    let resolved = resolution.map(|resolution| {
        let fresh = changes.into_iter().filter_map(|c| match c {
            FileChange::Upsert { record, projection: Some(p) } => {
                Lang::from_name(&record.lang).map(|l| (record.path, (l, *p)))
            }
            _ => None,
        });
        let kept = unchanged.into_iter().map(|(path, lang, p)| (path, (lang, p)));
        Resolved { projections: kept.chain(fresh).collect(), resolution }
    });
    let report = IndexReport {
        files: files as usize,
        parsed,
        changed,
        cold: stale || stored.is_empty(),
        removed,
        symbols,
        calls,
        unresolved_calls,
        parse_errors,
        problems,
        elapsed: started.elapsed(),
        phases: phases.done,
    };
    Ok((report, resolved))
}
