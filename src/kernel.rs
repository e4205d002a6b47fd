//! Glue between the world and the logic: builds one `Facts` from file
//! records, projections, resolution and git state (the only builder, used by
//! every command and by `nerd watch`), then evaluates the programs.
//! Knows nothing about how the world was gathered or stored.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use nerd_logic::{evaluate, Facts, FileFact, Fixpoint, Line, SymbolFact, Symbols};

use crate::store::{FileRecord, Store, StoreError};
use crate::world::git::{self, GitState};
use crate::world::lang::Lang;
use crate::world::project::FileProjection;
use crate::world::resolve::Resolution;

/// Everything the world contributes to one evaluation.
pub struct World<'a> {
    pub files: &'a [FileRecord],
    /// Projection by path.
    pub projections: &'a BTreeMap<String, (Lang, FileProjection)>,
    pub resolution: &'a Resolution,
    /// Changed line ranges by path (empty: the whole file), from git and from watching.
    pub modified: &'a BTreeMap<String, Vec<(u32, u32)>>,
    /// Paths changed while watching, whatever git says.
    pub changed_paths: &'a BTreeSet<String>,
    /// Symbols changed while watching, whatever git says.
    pub modified_symbols: &'a HashSet<String>,
    pub staged: &'a [String],
}

/// Which facts an evaluation needs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FactScope {
    /// Every world fact: for queries and explanations.
    All,
    /// Only what the rules read (no signatures, chunks, imports or parse
    /// errors): for re-deriving under `nerd watch`.
    Rules,
}

/// Builds the fact base of one evaluation, with the default policy, reusing
/// `symbols` (an interner from an earlier evaluation makes this mostly lookups).
pub fn world_facts(w: &World<'_>, symbols: Symbols, scope: FactScope) -> Facts {
    let mut f = nerd_logic::defaults::policy();
    f.symbols = symbols;
    let all = scope == FactScope::All;
    let no_signature = f.sym("");
    let mut has_source = false;
    for r in w.files {
        let fact = FileFact {
            path: f.path(&r.path),
            sha256: f.sym(&r.sha256),
            lang: f.sym(&r.lang),
            mtime: r.mtime_ns,
            size: r.size,
            is_test: r.is_test,
        };
        f.file.push(fact);
        has_source |= Lang::from_name(&r.lang).is_some();
    }
    f.workspace_empty = !has_source;
    for (path, (_, p)) in w.projections {
        let path_id = f.path(path);
        let ranges = w.modified.get(path);
        for s in &p.symbols {
            let fact = SymbolFact {
                id: f.symbol_id(&s.id),
                kind: s.kind,
                visibility: s.visibility,
                path: path_id,
                line: Line(s.line),
                end_line: Line(s.end_line),
                signature: if all { f.sym(&s.signature) } else { no_signature },
            };
            f.defines.push((path_id, fact.id));
            let touched = match ranges {
                Some(r) if r.is_empty() => true,
                Some(r) => r.iter().any(|&(lo, hi)| lo <= s.end_line && s.line <= hi),
                None => false,
            };
            if touched || w.modified_symbols.contains(&s.id) {
                f.modified.push(fact.id.sym());
            }
            f.symbol.push(fact);
        }
        if !all {
            continue;
        }
        for i in &p.imports {
            let row = (path_id, f.sym(&i.module));
            f.imports.push(row);
        }
        if let Some((line, message)) = &p.parse_error {
            let row = (path_id, Line(*line), f.sym(message));
            f.parse_error.push(row);
        }
        for (start, end, first) in &p.chunks {
            let row = (path_id, Line(*start), Line(*end), f.symbol_id(first));
            f.chunk.push(row);
        }
    }
    f.imports.sort_unstable();
    f.imports.dedup();
    for path in w.modified.keys().chain(w.changed_paths) {
        let m = f.sym(path);
        f.modified.push(m);
    }
    f.modified.sort_unstable();
    f.modified.dedup();
    for path in w.staged {
        let s = f.path(path);
        f.staged.push(s);
    }
    for (path, file) in &w.resolution.files {
        let p = f.path(path);
        for (a, b, l, provenance) in &file.calls {
            let row = (f.symbol_id(a), f.symbol_id(b), p, Line(*l), *provenance);
            f.calls.push(row);
        }
        // Unresolved calls make statements uncertain: the rules read them.
        for (a, n, l) in &file.unresolved {
            let row = (f.symbol_id(a), f.sym(n), p, Line(*l));
            f.unresolved_call.push(row);
        }
    }
    for (t, s) in w.resolution.test_of() {
        let row = (f.symbol_id(t), f.symbol_id(s));
        f.test_of.push(row);
    }
    for (t, s) in &w.resolution.observed {
        let row = (f.symbol_id(t), f.symbol_id(s));
        f.covers.push(row);
    }
    f
}

/// Adds the facts of the last page the workspace's browser showed, if any
/// (a workspace without a state database has none).
pub fn page_facts(root: &Path, f: &mut Facts) -> Result<(), StoreError> {
    if !root.join(".nerd").join(crate::store::STATE_FILE).exists() {
        return Ok(());
    }
    let Some(row) = crate::store::StateDb::open(root)?.last_page()? else { return Ok(()) };
    let snapshot: crate::browser::Snapshot = serde_json::from_str(&row.snapshot)
        .map_err(|e| StoreError::Corrupt(format!("the page snapshot of {} ({e}); run nerd browse again", row.url)))?;
    snapshot.facts(f);
    Ok(())
}

/// The stored world of a workspace, loaded once.
pub struct Loaded {
    pub files: Vec<FileRecord>,
    pub projections: BTreeMap<String, (Lang, FileProjection)>,
    pub resolution: Resolution,
    pub git: GitState,
}

/// What a caller does with the loaded world.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoadFor {
    /// Evaluate once: raw calls are not needed.
    Evaluation,
    /// Keep the world and re-resolve it later: raw calls are needed.
    Resolution,
}

/// Loads the stored world and the current git state.
pub fn load(root: &Path, store: &Store, purpose: LoadFor) -> Result<Loaded, StoreError> {
    load_where(root, store, purpose, None)
}

/// Loads the part of the stored world that `covers` admits: its files, their
/// projections, the calls made from them and the test links between them. A
/// delegated child sees the world its token covers, and no more.
pub fn load_scoped(root: &Path, store: &Store, covers: &dyn Fn(&str) -> bool) -> Result<Loaded, StoreError> {
    load_where(root, store, LoadFor::Evaluation, Some(covers))
}

/// The stored world, all of it or the part `covers` admits.
fn load_where(
    root: &Path,
    store: &Store,
    purpose: LoadFor,
    covers: Option<&dyn Fn(&str) -> bool>,
) -> Result<Loaded, StoreError> {
    let admits = |path: &str| covers.is_none_or(|c| c(path));
    let mut files: Vec<FileRecord> = store.files()?.into_values().filter(|f| admits(&f.path)).collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let projections = store
        .projections(&|p| !admits(p), purpose == LoadFor::Resolution)?
        .into_iter()
        .map(|(p, l, proj)| (p, (l, proj)))
        .collect();
    let mut resolution = store.resolution()?;
    if covers.is_some() {
        resolution.files.retain(|path, _| admits(path));
        let inside = |id: &str| admits(id.split('#').next().unwrap_or_default());
        resolution.named_test_links.retain(|(t, s)| inside(t) && inside(s));
        resolution.observed.retain(|(t, s)| inside(t) && inside(s));
    }
    let git = git::state(root).unwrap_or_default();
    Ok(Loaded { files, projections, resolution, git })
}

impl Loaded {
    pub fn facts(&self) -> Facts {
        let world = World {
            files: &self.files,
            projections: &self.projections,
            resolution: &self.resolution,
            modified: &self.git.modified,
            changed_paths: &BTreeSet::new(),
            modified_symbols: &HashSet::new(),
            staged: &self.git.staged,
        };
        world_facts(&world, Symbols::default(), FactScope::All)
    }

    pub fn evaluate(&self) -> Fixpoint {
        evaluate(self.facts())
    }
}
