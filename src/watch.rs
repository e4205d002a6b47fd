//! A live world for `nerd watch`: holds the projection in memory, re-projects
//! the files that changed, re-resolves, persists, re-derives, and reports
//! which derived atoms appeared or disappeared. Knows nothing about where
//! change notifications come from, so tests drive it directly.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nerd_logic::{evaluate, Atom};

use crate::error::NerdError;
use crate::index::{index, read_and_project};
use crate::kernel::{self, World};
use crate::store::{FileChange, FileRecord, Store};
use crate::world::git;
use crate::world::lang::Lang;
use crate::world::project::FileProjection;
use crate::world::resolve::{resolve, FileView, Resolution};
use crate::world::walk::{is_excluded, relative, Walked};

/// What one batch of file changes did to the derived atoms.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// Files whose content changed, appeared or vanished.
    pub files: Vec<String>,
    pub appeared: Vec<Atom>,
    pub disappeared: Vec<Atom>,
    pub elapsed: Duration,
}

pub struct WatchSession {
    root: PathBuf,
    store: Store,
    files: BTreeMap<String, FileRecord>,
    projections: BTreeMap<String, (Lang, FileProjection)>,
    resolution: Resolution,
    /// Body hash of every symbol when watching began.
    baseline: HashMap<String, u64>,
    changed_paths: BTreeSet<String>,
    derived: BTreeSet<Atom>,
}

impl WatchSession {
    /// Indexes `root` and derives the starting atoms.
    pub fn start(root: &Path) -> Result<WatchSession, NerdError> {
        let mut store = Store::open(root)?;
        index(root, &mut store, &|_, _| {})?;
        let loaded = kernel::load(root, &store)?;
        let baseline = loaded
            .projections
            .values()
            .flat_map(|(_, p)| p.symbols.iter().map(|s| (s.id.clone(), s.body_hash)))
            .collect();
        let derived = loaded.evaluate().derived_atoms();
        Ok(WatchSession {
            root: root.to_path_buf(),
            store,
            files: loaded
                .files
                .into_iter()
                .map(|f| (f.path.clone(), f))
                .collect(),
            projections: loaded.projections,
            resolution: loaded.resolution,
            baseline,
            changed_paths: BTreeSet::new(),
            derived,
        })
    }

    pub fn derived(&self) -> &BTreeSet<Atom> {
        &self.derived
    }

    /// The workspace-relative paths among `paths` that nerd should look at.
    pub fn relevant(&self, paths: &[PathBuf]) -> Vec<String> {
        let mut out: Vec<String> = paths
            .iter()
            .filter_map(|p| relative(&self.root, p))
            .filter(|rel| !is_excluded(rel))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Whether the walk would include `rel` (gitignore rules, hidden files).
    fn walk_includes(&self, rel: &str) -> bool {
        let full = self.root.join(rel);
        let Some(dir) = full.parent() else {
            return false;
        };
        ignore::WalkBuilder::new(dir)
            .max_depth(Some(1))
            .build()
            .filter_map(Result::ok)
            .any(|e| e.path() == full)
    }

    /// Re-projects the given workspace-relative paths and re-derives.
    /// Returns `None` when no file content actually changed.
    pub fn apply(&mut self, rels: &[String]) -> Result<Option<Delta>, NerdError> {
        let started = Instant::now();
        let mut changes = Vec::new();
        let mut touched = Vec::new();
        for rel in rels {
            let full = self.root.join(rel);
            let meta = std::fs::symlink_metadata(&full)
                .ok()
                .filter(|m| m.is_file());
            match meta {
                Some(meta) if self.files.contains_key(rel) || self.walk_includes(rel) => {
                    let mtime_ns = meta
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
                    let walked = Walked {
                        path: rel.clone(),
                        mtime_ns,
                        size: meta.len() as i64,
                    };
                    let Ok((record, projection)) = read_and_project(&self.root, &walked) else {
                        continue;
                    };
                    if self
                        .files
                        .get(rel)
                        .is_some_and(|old| old.sha256 == record.sha256)
                    {
                        continue;
                    }
                    self.files.insert(rel.clone(), record.clone());
                    match (&projection, Lang::from_name(&record.lang)) {
                        (Some(p), Some(lang)) => {
                            self.projections.insert(rel.clone(), (lang, p.clone()));
                        }
                        _ => {
                            self.projections.remove(rel);
                        }
                    }
                    changes.push(FileChange::Upsert { record, projection });
                    touched.push(rel.clone());
                }
                None if self.files.contains_key(rel) => {
                    self.files.remove(rel);
                    self.projections.remove(rel);
                    changes.push(FileChange::Remove { path: rel.clone() });
                    touched.push(rel.clone());
                }
                _ => {}
            }
        }
        if changes.is_empty() {
            return Ok(None);
        }
        let views: Vec<FileView> = self
            .projections
            .iter()
            .map(|(p, (l, proj))| FileView {
                path: p,
                lang: *l,
                projection: proj,
            })
            .collect();
        self.resolution = resolve(&views);
        self.store.apply(&changes, Some(&self.resolution))?;
        self.changed_paths.extend(touched.iter().cloned());

        let modified_symbols: HashSet<String> = self
            .projections
            .values()
            .flat_map(|(_, p)| &p.symbols)
            .filter(|s| self.baseline.get(&s.id) != Some(&s.body_hash))
            .map(|s| s.id.clone())
            .collect();
        let git = git::state(&self.root).unwrap_or_default();
        let files: Vec<FileRecord> = self.files.values().cloned().collect();
        let facts = kernel::world_facts(&World {
            files: &files,
            projections: &self.projections,
            resolution: &self.resolution,
            modified: &git.modified,
            changed_paths: &self.changed_paths,
            modified_symbols: &modified_symbols,
            staged: &git.staged,
        });
        let derived = evaluate(facts).derived_atoms();
        let appeared = derived.difference(&self.derived).cloned().collect();
        let disappeared = self.derived.difference(&derived).cloned().collect();
        self.derived = derived;
        Ok(Some(Delta {
            files: touched,
            appeared,
            disappeared,
            elapsed: started.elapsed(),
        }))
    }
}
