//! A live world for `nerd watch`: holds the projection in memory, re-projects
//! the files that changed, re-resolves, persists, re-derives, and reports
//! which derived atoms appeared or disappeared. Knows nothing about where
//! change notifications come from, so tests drive it directly.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nerd_logic::{evaluate, Atom, Symbols};

use crate::index::{index, read_and_project, IndexError};
use crate::kernel::{self, FactScope, LoadFor, World};
use crate::store::{FileChange, FileRecord, ResolutionWrite, Store, StoreError};
use crate::timing::Phases;
use crate::world::git;
use crate::world::lang::Lang;
use crate::world::packages::{is_manifest, Manifests};
use crate::world::project::FileProjection;
use crate::world::resolve::{changed_names, changes_shape, re_resolve, resolve, FileView, Resolution};
use crate::world::walk::{is_excluded, relative, Walked};

/// Why the live world could not be kept.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The operating system's file watcher could not be set up.
    #[error("file watching failed: {0}")]
    Watcher(String),
}

/// One batch of file events, sorted out.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Batch {
    pub paths: Vec<String>,
    pub git_changed: bool,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.git_changed
    }
}

/// What one batch of file changes did to the derived atoms.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// Files whose content changed, appeared or vanished.
    pub files: Vec<String>,
    pub appeared: Vec<Atom>,
    pub disappeared: Vec<Atom>,
    pub elapsed: Duration,
    /// Time spent in each phase, in order.
    pub phases: Vec<(&'static str, Duration)>,
}

pub struct WatchSession {
    root: PathBuf,
    store: Store,
    files: BTreeMap<String, FileRecord>,
    projections: BTreeMap<String, (Lang, FileProjection)>,
    resolution: Resolution,
    /// The workspace's package.json and tsconfig files, read again when one changes.
    manifests: Manifests,
    /// Body hash of every symbol when watching began.
    baseline: HashMap<String, u64>,
    changed_paths: BTreeSet<String>,
    derived: BTreeSet<Atom>,
    /// The interner of the last evaluation, reused by the next.
    symbols: Symbols,
    /// Whether the workspace is in a git work tree (checked once).
    in_git: bool,
}

impl WatchSession {
    /// Indexes `root` and derives the starting atoms.
    pub fn start(root: &Path) -> Result<WatchSession, WatchError> {
        let mut store = Store::open(root)?;
        index(root, &mut store, &|_, _| {})?;
        let loaded = kernel::load(root, &store, LoadFor::Resolution)?;
        let baseline = loaded
            .projections
            .values()
            .flat_map(|(_, p)| p.symbols.iter().map(|s| (s.id.clone(), s.body_hash)))
            .collect();
        let fixpoint = loaded.evaluate();
        let derived = fixpoint.derived_atoms();
        let symbols = fixpoint.into_facts().symbols;
        let (manifests, _) = Manifests::load(root, loaded.files.iter().map(|f| f.path.as_str()));
        Ok(WatchSession {
            root: root.to_path_buf(),
            store,
            files: loaded.files.into_iter().map(|f| (f.path.clone(), f)).collect(),
            projections: loaded.projections,
            resolution: loaded.resolution,
            manifests,
            baseline,
            changed_paths: BTreeSet::new(),
            derived,
            symbols,
            in_git: git::state(root).is_some(),
        })
    }

    pub fn derived(&self) -> &BTreeSet<Atom> {
        &self.derived
    }

    /// Sorts file events into workspace-relative paths nerd should look at,
    /// and whether git's own state (index, HEAD, refs) changed.
    pub fn relevant(&self, paths: &[PathBuf]) -> Batch {
        let mut batch = Batch::default();
        for rel in paths.iter().filter_map(|p| relative(&self.root, p)) {
            if rel == ".git" || rel.starts_with(".git/") {
                batch.git_changed |= self.in_git && !rel.ends_with(".lock");
            } else if !is_excluded(&rel) {
                batch.paths.push(rel);
            }
        }
        batch.paths.sort();
        batch.paths.dedup();
        batch
    }

    /// Whether the walk would include `rel` (gitignore rules, hidden files).
    fn walk_includes(&self, rel: &str) -> bool {
        let full = self.root.join(rel);
        let Some(dir) = full.parent() else {
            return false;
        };
        ignore::WalkBuilder::new(dir).max_depth(Some(1)).build().filter_map(Result::ok).any(|e| e.path() == full)
    }

    /// Re-projects the batch's paths, refreshes git state, and re-derives.
    /// Returns `None` when neither file content nor git state changed.
    pub fn apply(&mut self, batch: &Batch) -> Result<Option<Delta>, WatchError> {
        let rels = &batch.paths;
        let started = Instant::now();
        let mut phases = Phases::default();
        let mut changes = Vec::new();
        let mut touched = Vec::new();
        // Names whose definitions appeared or vanished: calls to them may resolve differently.
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut resolve_all = false;
        for rel in rels {
            let full = self.root.join(rel);
            let meta = std::fs::symlink_metadata(&full).ok().filter(|m| m.is_file());
            match meta {
                Some(meta) if self.files.contains_key(rel) || self.walk_includes(rel) => {
                    let mtime_ns = crate::timing::mtime_ns(&meta);
                    let walked = Walked { path: rel.clone(), mtime_ns, size: meta.len() as i64 };
                    let Ok((record, projection)) = read_and_project(&self.root, &walked) else {
                        continue;
                    };
                    if self.files.get(rel).is_some_and(|old| old.sha256 == record.sha256) {
                        continue;
                    }
                    resolve_all |= self.files.insert(rel.clone(), record.clone()).is_none();
                    let lang = Lang::from_name(&record.lang);
                    let old = match (&projection, lang) {
                        (Some(p), Some(lang)) => self.projections.insert(rel.clone(), (lang, p.clone())),
                        _ => self.projections.remove(rel),
                    };
                    let before = old.as_ref().map(|(_, p)| p);
                    names.extend(changed_names(before, projection.as_ref()));
                    // Types of fields, bases, module-level names and return types reach every file.
                    resolve_all |= lang.is_some_and(|l| changes_shape(l, before, projection.as_ref()));
                    changes.push(FileChange::Upsert { record, projection: projection.map(Box::new) });
                    touched.push(rel.clone());
                }
                None if self.files.contains_key(rel) => {
                    resolve_all = true;
                    self.files.remove(rel);
                    self.projections.remove(rel);
                    changes.push(FileChange::Remove { path: rel.clone() });
                    touched.push(rel.clone());
                }
                _ => {}
            }
        }
        if changes.is_empty() && !batch.git_changed {
            return Ok(None);
        }
        // A package name, an export or a path alias may now name other files.
        if touched.iter().any(|p| is_manifest(p)) {
            (self.manifests, _) = Manifests::load(&self.root, self.files.keys().map(String::as_str));
            resolve_all = true;
        }
        phases.mark("project");
        let views: Vec<FileView> =
            self.projections.iter().map(|(p, (l, proj))| FileView { path: p, lang: *l, projection: proj }).collect();
        let redone;
        let write = if changes.is_empty() {
            ResolutionWrite::None
        } else if resolve_all {
            self.resolution = resolve(&views, &self.manifests);
            ResolutionWrite::Full(&self.resolution)
        } else {
            let changed: BTreeSet<String> = touched.iter().cloned().collect();
            redone = re_resolve(&views, &self.manifests, &mut self.resolution, &changed, &names);
            ResolutionWrite::Files(&self.resolution, &redone)
        };
        phases.mark("resolve");
        self.store.apply(&changes, write)?;
        // The precise tier stands for the files it covered that did not change;
        // the changed ones are on the heuristic tier until the next precise run.
        if !changes.is_empty() {
            self.store.lay_over(&mut self.resolution)?;
        }
        phases.mark("store");
        self.changed_paths.extend(touched.iter().cloned());

        // In a git work tree, `modified` means "differs from HEAD", which follows
        // commits and reverts; elsewhere it means "changed since watching began".
        let outside_git = !self.in_git;
        // Only files changed since watching began can hold symbols unlike the baseline.
        let modified_symbols: HashSet<String> = self
            .changed_paths
            .iter()
            .filter(|_| outside_git)
            .filter_map(|path| self.projections.get(path))
            .flat_map(|(_, p)| &p.symbols)
            .filter(|s| self.baseline.get(&s.id) != Some(&s.body_hash))
            .map(|s| s.id.clone())
            .collect();
        let git = if self.in_git { git::state(&self.root).unwrap_or_default() } else { git::GitState::default() };
        phases.mark("git");
        let files: Vec<FileRecord> = self.files.values().cloned().collect();
        let empty_paths = BTreeSet::new();
        let world = World {
            files: &files,
            projections: &self.projections,
            resolution: &self.resolution,
            modified: &git.modified,
            changed_paths: if outside_git { &self.changed_paths } else { &empty_paths },
            modified_symbols: &modified_symbols,
            staged: &git.staged,
        };
        let facts = kernel::world_facts(&world, std::mem::take(&mut self.symbols), FactScope::Rules);
        phases.mark("facts");
        let fixpoint = evaluate(facts);
        phases.mark("derive");
        let derived = fixpoint.derived_atoms();
        self.symbols = fixpoint.into_facts().symbols;
        let appeared: Vec<Atom> = derived.difference(&self.derived).cloned().collect();
        let disappeared: Vec<Atom> = self.derived.difference(&derived).cloned().collect();
        self.derived = derived;
        phases.mark("diff");
        if touched.is_empty() && appeared.is_empty() && disappeared.is_empty() {
            return Ok(None);
        }
        Ok(Some(Delta { files: touched, appeared, disappeared, elapsed: started.elapsed(), phases: phases.done }))
    }
}
