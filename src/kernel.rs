//! Glue between the world and the logic: builds one `Facts` from file
//! records, projections, resolution and git state (the only builder, used by
//! every command and by `nerd watch`), then evaluates the programs.
//! Knows nothing about how the world was gathered or stored.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use nerd_logic::vocab::SymbolKind;
use nerd_logic::{evaluate, Facts, FileFact, Fixpoint, Line, SymbolFact, Symbols};

use crate::store::{FileRecord, Store, StoreError};
use crate::world::git::{self, GitState};
use crate::world::lang::Lang;
use crate::world::project::{FileProjection, ProjectedSymbol};
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
    for (path, (lang, p)) in w.projections {
        let path_id = f.path(path);
        for (method, class) in methods_in_classes(&p.symbols) {
            let (m, c) = (f.symbol_id(&method.id), f.symbol_id(&class.id));
            f.method_of.push((m, c));
            if lang.calls_unnamed(&method.name) {
                f.implicit_method.push(m);
            }
        }
        for value in values_run_at_load(*lang, &p.symbols) {
            let row = (path_id, f.symbol_id(&value.id));
            f.runs_at_load.push(row);
        }
        let ranges = w.modified.get(path);
        let own = ranges.map(|r| own_changes(&p.symbols, r)).unwrap_or_default();
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
            let touched = ranges.is_some_and(|r| holds_change(s, r));
            let named = w.modified_symbols.contains(&s.id);
            if touched || named {
                f.modified.push(fact.id.sym());
            }
            if named || own.contains(s.id.as_str()) {
                f.modified_own.push(fact.id);
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
    f.modified_own.sort_unstable();
    f.modified_own.dedup();
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

/// Whether a symbol's span holds a changed line (`ranges` empty: the whole file changed).
fn holds_change(s: &ProjectedSymbol, ranges: &[(u32, u32)]) -> bool {
    ranges.is_empty() || ranges.iter().any(|&(lo, hi)| overlaps(lo, hi, s))
}

/// Whether the lines `lo..=hi` meet a symbol's span.
fn overlaps(lo: u32, hi: u32, s: &ProjectedSymbol) -> bool {
    lo <= s.end_line && s.line <= hi
}

/// The values a test file defines at its top level, whose initializers run
/// when it loads: Python and TypeScript, and Go, whose package variables are
/// initialized before any test of the package runs (the file's own tests are
/// counted; the package's other test files are not reached this way). A Rust
/// const is evaluated when compiled.
fn values_run_at_load(lang: Lang, symbols: &[ProjectedSymbol]) -> Vec<&ProjectedSymbol> {
    use nerd_logic::vocab::SymbolKind::{Const, Test, Variable};
    let runs =
        matches!(lang.family(), Lang::Python | Lang::TypeScript | Lang::Go) && symbols.iter().any(|s| s.kind == Test);
    if !runs {
        return Vec::new();
    }
    symbols.iter().filter(|s| s.depth == 0 && matches!(s.kind, Variable | Const)).collect()
}

/// Each method of one file with the class whose body holds it: the method's
/// id extends the class's by one name, and the class's span holds its own.
fn methods_in_classes(symbols: &[ProjectedSymbol]) -> Vec<(&ProjectedSymbol, &ProjectedSymbol)> {
    let classes: HashMap<&str, &ProjectedSymbol> =
        symbols.iter().filter(|s| s.kind == SymbolKind::Class).map(|s| (s.id.as_str(), s)).collect();
    if classes.is_empty() {
        return Vec::new();
    }
    symbols
        .iter()
        .filter(|m| m.kind == SymbolKind::Method)
        .filter_map(|m| {
            let (owner, _) = m.id.rsplit_once('.')?;
            let class = classes.get(owner)?;
            (class.line <= m.line && m.end_line <= class.end_line).then_some((m, *class))
        })
        .collect()
}

/// The symbols of one file whose own code changed. A function, method or
/// test owns every changed line in its span, those of functions nested in it
/// included: its run makes them (a getter cached after its first call, a
/// callback kept for later). A class or other container owns a changed line
/// only outside the functions and methods in it, since coverage credits a line
/// that runs to the innermost function holding it. `ranges` empty means the
/// whole file changed: every symbol owns a change.
fn own_changes<'p>(symbols: &'p [ProjectedSymbol], ranges: &[(u32, u32)]) -> HashSet<&'p str> {
    if ranges.is_empty() {
        return symbols.iter().map(|s| s.id.as_str()).collect();
    }
    let touched: Vec<&ProjectedSymbol> = symbols.iter().filter(|s| holds_change(s, ranges)).collect();
    let mut out = HashSet::with_capacity(touched.len());
    for s in &touched {
        if s.kind.is_code() {
            out.insert(s.id.as_str());
            continue;
        }
        // The changed stretches inside the container, less those of callables in it.
        let mut left: Vec<(u32, u32)> = ranges
            .iter()
            .filter(|&&(lo, hi)| overlaps(lo, hi, s))
            .map(|&(lo, hi)| (lo.max(s.line), hi.min(s.end_line)))
            .collect();
        let nested = touched
            .iter()
            .filter(|c| c.kind.is_code() && c.depth > s.depth && s.line <= c.line && c.end_line <= s.end_line);
        for c in nested {
            left = left
                .into_iter()
                .flat_map(|(lo, hi)| {
                    let before = (lo < c.line).then(|| (lo, hi.min(c.line - 1)));
                    let after = (hi > c.end_line).then(|| (lo.max(c.end_line.saturating_add(1)), hi));
                    before.into_iter().chain(after)
                })
                .collect();
        }
        if !left.is_empty() {
            out.insert(s.id.as_str());
        }
    }
    out
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

/// The world an index run just resolved and wrote, with the store's file
/// records, precise tier and coverage laid over it as `load` lays them: what
/// `load` would read back, without reading back every projection and edge.
/// `projections` hold every projected file and `resolution` the heuristic
/// tier's edges of all of them.
pub fn load_resolved(
    root: &Path,
    store: &Store,
    projections: BTreeMap<String, (Lang, FileProjection)>,
    mut resolution: Resolution,
) -> Result<Loaded, StoreError> {
    let files = file_records(store, &|_| true)?;
    // The store keeps a file's edges as rows: a file that has none reads back as no entry.
    resolution.files.retain(|_, f| !(f.calls.is_empty() && f.unresolved.is_empty() && f.external.is_empty()));
    store.lay_over(&mut resolution)?;
    let git = git::state(root).unwrap_or_default();
    Ok(Loaded { files, projections, resolution, git })
}

/// The stored file records that `admits` admits, by path.
fn file_records(store: &Store, admits: &dyn Fn(&str) -> bool) -> Result<Vec<FileRecord>, StoreError> {
    let mut files: Vec<FileRecord> = store.files()?.into_values().filter(|f| admits(&f.path)).collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The stored world, all of it or the part `covers` admits.
fn load_where(
    root: &Path,
    store: &Store,
    purpose: LoadFor,
    covers: Option<&dyn Fn(&str) -> bool>,
) -> Result<Loaded, StoreError> {
    let admits = |path: &str| covers.is_none_or(|c| c(path));
    let files = file_records(store, &admits)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use nerd_logic::vocab::SymbolKind::{Class, Const, Function, Method, Test, Variable};

    #[test]
    fn a_test_file_runs_its_top_level_values_when_it_loads() {
        let file = |lang: Lang, with_test: bool| {
            let mut symbols = vec![
                ProjectedSymbol::spanning("f#SCHEMA", Const, 1, 1, 0),
                ProjectedSymbol::spanning("f#value", Variable, 2, 2, 0),
                ProjectedSymbol::spanning("f#helper", Function, 3, 5, 0),
                ProjectedSymbol::spanning("f#Suite.field", Variable, 7, 7, 1),
            ];
            if with_test {
                symbols.push(ProjectedSymbol::spanning("f#test_it", Test, 9, 12, 0));
            }
            let ids: Vec<String> = values_run_at_load(lang, &symbols).iter().map(|s| s.id.clone()).collect();
            ids
        };
        for lang in [Lang::Python, Lang::TypeScript, Lang::Go] {
            assert_eq!(file(lang, true), ["f#SCHEMA", "f#value"], "{lang:?}");
            assert!(file(lang, false).is_empty(), "{lang:?}: no test, nothing to count for");
        }
        assert!(file(Lang::Rust, true).is_empty());
    }

    /// `modified` and `modified_own` of one TypeScript file whose lines
    /// `ranges` changed (empty: the whole file), as sorted symbol ids.
    fn changed(ranges: &[(u32, u32)], named: &[&str]) -> (Vec<String>, Vec<String>) {
        let symbols = vec![
            ProjectedSymbol::spanning("s.ts#K", Class, 1, 20, 0),
            ProjectedSymbol::spanning("s.ts#K.a", Method, 2, 6, 1),
            ProjectedSymbol::spanning("s.ts#K.b", Method, 8, 14, 1),
            ProjectedSymbol::spanning("s.ts#K.b.inner", Function, 10, 12, 2),
        ];
        let projection = FileProjection { symbols, ..Default::default() };
        let projections = BTreeMap::from([("s.ts".to_string(), (Lang::TypeScript, projection))]);
        let modified = BTreeMap::from([("s.ts".to_string(), ranges.to_vec())]);
        let modified_symbols: HashSet<String> = named.iter().map(|s| s.to_string()).collect();
        let world = World {
            files: &[],
            projections: &projections,
            resolution: &Resolution::default(),
            modified: &modified,
            changed_paths: &BTreeSet::new(),
            modified_symbols: &modified_symbols,
            staged: &[],
        };
        let f = world_facts(&world, Symbols::default(), FactScope::Rules);
        let names = |ids: Vec<&str>| {
            let mut v: Vec<String> = ids.into_iter().filter(|s| s.contains('#')).map(String::from).collect();
            v.sort();
            v
        };
        let modified = names(f.modified.iter().map(|&s| f.symbols.resolve(s)).collect());
        let own = names(f.modified_own.iter().map(|&s| f.symbols.resolve(s.sym())).collect());
        (modified, own)
    }

    /// Lines changed, symbols named as changed, and what must be `modified`
    /// and `modified_own`.
    struct Case {
        ranges: &'static [(u32, u32)],
        named: &'static [&'static str],
        modified: &'static [&'static str],
        own: &'static [&'static str],
    }

    #[test]
    fn a_class_owns_a_change_only_outside_its_methods_and_a_function_owns_its_nested_ones() {
        const ALL: &[&str] = &["s.ts#K", "s.ts#K.a", "s.ts#K.b", "s.ts#K.b.inner"];
        let cases = [
            // A line of a method: the class around it changed, but the change is the method's.
            Case { ranges: &[(4, 4)], named: &[], modified: &["s.ts#K", "s.ts#K.a"], own: &["s.ts#K.a"] },
            // A line of a function nested in a method: the method's run makes that function.
            Case {
                ranges: &[(11, 11)],
                named: &[],
                modified: &["s.ts#K", "s.ts#K.b", "s.ts#K.b.inner"],
                own: &["s.ts#K.b", "s.ts#K.b.inner"],
            },
            // A line of the class between its methods (a field, a decorator): the class's own.
            Case { ranges: &[(7, 7)], named: &[], modified: &["s.ts#K"], own: &["s.ts#K"] },
            // One hunk from a method's end over the gap into the next: each owns some line of it.
            Case {
                ranges: &[(5, 9)],
                named: &[],
                modified: &["s.ts#K", "s.ts#K.a", "s.ts#K.b"],
                own: &["s.ts#K", "s.ts#K.a", "s.ts#K.b"],
            },
            // Lines of b around its nested function, and none of the class's own.
            Case { ranges: &[(9, 9), (13, 13)], named: &[], modified: &["s.ts#K", "s.ts#K.b"], own: &["s.ts#K.b"] },
            // The whole file: everything.
            Case { ranges: &[], named: &[], modified: ALL, own: ALL },
            // Outside every symbol: nothing; a symbol named as changed (under watch) owns its change.
            Case { ranges: &[(30, 31)], named: &["s.ts#K"], modified: &["s.ts#K"], own: &["s.ts#K"] },
        ];
        for case in cases {
            let (m, own) = changed(case.ranges, case.named);
            assert_eq!(m, case.modified, "modified for {:?}", case.ranges);
            assert_eq!(own, case.own, "modified_own for {:?}", case.ranges);
        }
    }
}
