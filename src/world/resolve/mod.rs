//! Resolves raw calls to symbol ids across the whole repository, each edge
//! with its provenance (`exact`, `inferred`, `name_only`), and links tests to
//! what they exercise. Pure over file projections; knows nothing about
//! storage or git.

mod call;
mod dispatch;
mod implicit;
mod index;
mod macros;
mod names;
mod parameters;
pub mod precise;
mod receiver;
mod types;
mod value;

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use nerd_logic::vocab::{Provenance, SymbolKind};

use super::lang::Lang;
use super::packages::Manifests;
use super::project::{CallForm, FileProjection, HintKind, ProjectedSymbol};
use call::{Cx, Outcome};
use index::{callable, Index};

/// One projected file as resolution sees it.
pub struct FileView<'a> {
    pub path: &'a str,
    pub lang: Lang,
    pub projection: &'a FileProjection,
}

/// The edges resolution derives from one file's calls.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct FileResolution {
    /// `(caller, callee, line, provenance)`.
    pub calls: Vec<(String, String, u32, Provenance)>,
    /// `(caller, name, line)` of calls whose target is not known. Calls known
    /// to reach outside the project (builtins, dependencies) are in neither list.
    pub unresolved: Vec<(String, String, u32)>,
    /// `(caller, name, line)` of calls known to reach outside the project: a
    /// token there is not the project's symbol of that name.
    pub external: Vec<(String, String, u32)>,
    /// `(test, symbol)` for calls made by tests of this file, over certain edges.
    pub test_links: Vec<(String, String)>,
}

/// The repository-wide edges resolution derives, grouped by the calling file.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub files: BTreeMap<String, FileResolution>,
    /// `(test, symbol)` links from naming conventions (`test_parse` → `parse`).
    pub named_test_links: Vec<(String, String)>,
    /// `(test, symbol)`: a test's run was seen to execute the symbol
    /// (`nerd index --coverage`). Never derived here: stored runs provide it.
    pub observed: Vec<(String, String)>,
}

impl Resolution {
    /// Every `test_of` link, sorted and without duplicates.
    pub fn test_of(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = self
            .files
            .values()
            .flat_map(|f| &f.test_links)
            .chain(&self.named_test_links)
            .map(|(t, s)| (t.as_str(), s.as_str()))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How many edges each provenance has.
    pub fn provenance_counts(&self) -> BTreeMap<Provenance, usize> {
        let mut out = BTreeMap::new();
        for (_, _, _, p) in self.files.values().flat_map(|f| &f.calls) {
            *out.entry(*p).or_insert(0) += 1;
        }
        out
    }
}

/// Normalised candidate names a test's name points at.
fn tested_names(test: &str) -> Vec<String> {
    let stripped = test
        .strip_prefix("test_")
        .or_else(|| test.strip_prefix("Test"))
        .or_else(|| test.strip_prefix("test"))
        .or_else(|| test.strip_prefix("Benchmark"))
        .unwrap_or(test);
    let normal = |s: &str| s.to_ascii_lowercase().replace('_', "");
    let mut out = vec![normal(stripped)];
    if let Some((head, _)) = stripped.split_once('_') {
        out.push(normal(head));
    }
    out.retain(|s| !s.is_empty());
    out
}

fn resolve_file<'a>(index: &Index<'a>, tests: &HashSet<&str>, f: &FileView<'a>) -> FileResolution {
    let mut out = FileResolution::default();
    let mut link = |caller: &str, callee: &ProjectedSymbol, line: u32, provenance: Provenance| {
        if provenance.is_certain() && tests.contains(caller) && callee.kind != SymbolKind::Test {
            out.test_links.push((caller.to_string(), callee.id.clone()));
        }
        out.calls.push((caller.to_string(), callee.id.clone(), line, provenance));
    };
    let mut external = Vec::new();
    let mut unresolved = Vec::new();
    for call in &f.projection.calls {
        let cx = Cx { file: f, caller: &call.caller, line: call.line };
        if call.form == CallForm::Macro {
            // Only the project's own macros answer; the language's and the
            // dependencies' are outside it, never unknown.
            for (callee, provenance) in index
                .macros_named(&cx, &call.name)
                .into_iter()
                .flat_map(|(found, p)| found.into_iter().map(move |s| (s, p)))
            {
                link(&call.caller, callee, call.line, provenance);
            }
            continue;
        }
        let outcome = index.resolve_call(&cx, &call.name, call.qualifier.as_deref(), call.form == CallForm::Method, 0);
        if call.form == CallForm::Reference {
            // A name handed on links only where resolution proved it names a
            // function (never a setter: a read does not run it); anything else
            // there is a value of another kind, and no call that could reach
            // somewhere unknown.
            let Outcome::Found(callees, provenance) = outcome else { continue };
            if provenance.is_certain() {
                let runs = |c: &&ProjectedSymbol| {
                    matches!(c.kind, SymbolKind::Function | SymbolKind::Method) && !is_setter(f.lang, &c.signature)
                };
                for callee in callees.into_iter().filter(runs) {
                    link(&call.caller, callee, call.line, provenance);
                }
            }
            continue;
        }
        match outcome {
            Outcome::Found(mut callees, provenance) => {
                // Constructing a class runs its constructor.
                let constructors: Vec<&ProjectedSymbol> =
                    callees.iter().filter(|c| index::is_type(c.kind)).flat_map(|c| index.constructors_of(c)).collect();
                callees.extend(constructors);
                for callee in callees {
                    link(&call.caller, callee, call.line, provenance);
                }
            }
            Outcome::External => external.push((call.caller.clone(), call.name.clone(), call.line)),
            Outcome::Unknown => unresolved.push((call.caller.clone(), call.name.clone(), call.line)),
        }
    }
    for (function, drop) in index.implicit_drops(f) {
        link(&function.id, drop, function.line, Provenance::Implicit);
    }
    out.external = external;
    out.unresolved = unresolved;
    sort_unique(&mut out.calls);
    sort_unique(&mut out.unresolved);
    sort_unique(&mut out.external);
    sort_unique(&mut out.test_links);
    out
}

/// Whether a signature declares a TypeScript setter (`set size(n)`).
fn is_setter(lang: Lang, signature: &str) -> bool {
    lang.family() == Lang::TypeScript
        && signature.split('(').next().is_some_and(|head| head.split_whitespace().any(|word| word == "set"))
}

/// Sorts a list of edges and drops repeats: every list resolution hands on is a set.
fn sort_unique<T: Ord>(list: &mut Vec<T>) {
    list.sort_unstable();
    list.dedup();
}

fn test_ids<'a>(files: &[FileView<'a>]) -> HashSet<&'a str> {
    files
        .iter()
        .flat_map(|f| &f.projection.symbols)
        .filter(|s| s.kind == SymbolKind::Test)
        .map(|s| s.id.as_str())
        .collect()
}

/// Naming conventions: `test_parse_config` and `TestParseConfig` point at `parse_config` / `ParseConfig`.
fn named_test_links(files: &[FileView<'_>]) -> Vec<(String, String)> {
    let mut by_normal_name: HashMap<String, Vec<&ProjectedSymbol>> = HashMap::default();
    for s in files.iter().flat_map(|f| &f.projection.symbols).filter(|s| callable(s.kind)) {
        by_normal_name.entry(s.name.to_ascii_lowercase().replace('_', "")).or_default().push(s);
    }
    let mut out = Vec::new();
    for t in files.iter().flat_map(|f| &f.projection.symbols).filter(|s| s.kind == SymbolKind::Test) {
        for candidate in tested_names(&t.name) {
            if let Some([only]) = by_normal_name.get(&candidate).map(Vec::as_slice) {
                out.push((t.id.clone(), only.id.clone()));
                break;
            }
        }
    }
    out.sort_unstable();
    out
}

/// Resolves every raw call and links tests, deterministically. `manifests`
/// say what bare TypeScript imports of workspace packages and aliases name.
pub fn resolve(files: &[FileView<'_>], manifests: &Manifests) -> Resolution {
    let index = Index::build(files, manifests);
    let tests = test_ids(files);
    Resolution {
        files: files.iter().map(|f| (f.path.to_string(), resolve_file(&index, &tests, f))).collect(),
        named_test_links: named_test_links(files),
        observed: Vec::new(),
    }
}

/// The `(name, id)` of every callable a file defines: what other files' calls
/// may resolve to. Compare two of these to find names whose meaning changed.
pub fn definitions(p: &FileProjection) -> BTreeSet<(&str, &str)> {
    p.symbols
        .iter()
        .filter(|s| callable(s.kind) || index::is_type(s.kind) || s.kind == SymbolKind::Test)
        .map(|s| (s.name.as_str(), s.id.as_str()))
        .collect()
}

/// Names whose definitions differ between two versions of a file.
pub fn changed_names(before: Option<&FileProjection>, after: Option<&FileProjection>) -> BTreeSet<String> {
    let before = before.map(definitions).unwrap_or_default();
    let after = after.map(definitions).unwrap_or_default();
    before.symmetric_difference(&after).map(|(name, _)| name.to_string()).collect()
}

/// Whether a change to a file can change how calls in other files resolve
/// beyond the names it defines: the types it declares for fields, bases and
/// module-level names, the return types its signatures declare, its imports.
pub fn changes_shape(lang: Lang, before: Option<&FileProjection>, after: Option<&FileProjection>) -> bool {
    fn shape(p: Option<&FileProjection>) -> BTreeSet<String> {
        let Some(p) = p else { return BTreeSet::new() };
        let hints = p
            .hints
            .iter()
            .filter(|h| h.field || h.kind == HintKind::Base || !h.scope.contains('#'))
            .map(|h| format!("{}\0{}\0{}\0{}", h.scope, h.var, h.kind.as_str(), h.text));
        let imports = p.imports.iter().map(|i| format!("{}\0{:?}\0{:?}", i.module, i.name, i.binding));
        hints.chain(imports).collect()
    }
    /// Declared return types of the symbols both versions define.
    fn returns_changed(before: &FileProjection, after: &FileProjection, lang: Lang) -> bool {
        let old: HashMap<&str, &str> = before.symbols.iter().map(|s| (s.id.as_str(), s.signature.as_str())).collect();
        after.symbols.iter().any(|s| {
            old.get(s.id.as_str())
                .is_some_and(|sig| types::return_type(lang, sig) != types::return_type(lang, &s.signature))
        })
    }
    shape(before) != shape(after) || matches!((before, after), (Some(b), Some(a)) if returns_changed(b, a, lang))
}

/// Re-resolves after `changed` files changed content, in place: the changed
/// files themselves, and every file with a call to a name in `names` (names
/// whose definitions appeared, vanished or moved). Returns the paths whose
/// edges were recomputed. Files added or removed need a full `resolve`, since
/// they change which modules exist.
pub fn re_resolve(
    files: &[FileView<'_>],
    manifests: &Manifests,
    previous: &mut Resolution,
    changed: &BTreeSet<String>,
    names: &BTreeSet<String>,
) -> Vec<String> {
    let index = Index::build(files, manifests);
    let tests = test_ids(files);
    let mut redone = Vec::new();
    for f in files {
        let affected = changed.contains(f.path)
            || f.projection.calls.iter().any(|c| names.contains(&c.name))
            || f.projection.hints.iter().any(|h| names.iter().any(|n| h.text.contains(n.as_str())));
        if affected {
            previous.files.insert(f.path.to_string(), resolve_file(&index, &tests, f));
            redone.push(f.path.to_string());
        }
    }
    // Naming links depend only on definitions, so they change only with `names`.
    if !names.is_empty() {
        previous.named_test_links = named_test_links(files);
    }
    redone
}

#[cfg(test)]
mod tests {
    use super::index::{common_tail, import_key, module_path};
    use super::*;

    #[test]
    fn import_keys_follow_each_languages_rules() {
        assert_eq!(import_key(Lang::Python, "pkg/sub/mod.py", ".models").as_deref(), Some("pkg.sub.models"));
        assert_eq!(import_key(Lang::Python, "pkg/sub/mod.py", "..util").as_deref(), Some("pkg.util"));
        assert_eq!(import_key(Lang::Python, "a.py", "os.path").as_deref(), Some("os.path"));
        assert_eq!(import_key(Lang::TypeScript, "src/a/b.ts", "../c/d.js").as_deref(), Some("src/c/d"));
        assert_eq!(import_key(Lang::TypeScript, "src/a.ts", "react"), None);
        assert_eq!(import_key(Lang::Rust, "src/a.rs", "crate::world::lang").as_deref(), Some("lang"));
        assert_eq!(module_path(Lang::Python, "src/pkg/__init__.py"), "src/pkg");
        assert_eq!(module_path(Lang::TypeScript, "src/util/index.ts"), "src/util");
        assert_eq!(module_path(Lang::Go, "x/price/price.go"), "x/price");
        assert_eq!(common_tail("example.com/shop/price", "shop/price"), 2);
    }

    /// Applies `edits` one at a time and checks incremental re-resolution
    /// against resolving everything from scratch after each.
    #[test]
    fn incremental_resolution_equals_full_resolution() {
        use crate::world::project::project_file;
        let mut sources: BTreeMap<String, String> = BTreeMap::new();
        sources.insert("a.py".into(), "def f():\n    return g()\n\ndef g():\n    pass\n".into());
        sources.insert("b.py".into(), "from a import f\n\ndef caller():\n    f()\n    h()\n".into());
        sources.insert("c.py".into(), "def other():\n    pass\n".into());
        let edits = [
            ("c.py", "def h():\n    pass\n"),                       // h appears: b's call resolves
            ("c.py", "def h():\n    pass\n\ndef g():\n    pass\n"), // a second g: a's call stays local
            ("a.py", "def f():\n    return 1\n"),                   // g vanishes from a: now ambiguous? no, unique in c
            ("c.py", "def renamed():\n    pass\n"),                 // h and g vanish
            ("b.py", "def caller():\n    renamed()\n"),             // the caller itself changes
        ];
        let project = |sources: &BTreeMap<String, String>| -> BTreeMap<String, FileProjection> {
            sources.iter().map(|(p, s)| (p.clone(), project_file(Lang::Python, p, s.as_bytes()).unwrap())).collect()
        };
        fn views(projections: &BTreeMap<String, FileProjection>) -> Vec<FileView<'_>> {
            projections.iter().map(|(p, proj)| FileView { path: p, lang: Lang::Python, projection: proj }).collect()
        }
        let mut projections = project(&sources);
        let mut incremental = resolve(&views(&projections), &Manifests::default());
        for (path, text) in edits {
            let before = projections[path].clone();
            sources.insert(path.into(), text.into());
            projections = project(&sources);
            let names = changed_names(Some(&before), Some(&projections[path]));
            let changed = BTreeSet::from([path.to_string()]);
            if changes_shape(Lang::Python, Some(&before), Some(&projections[path])) {
                incremental = resolve(&views(&projections), &Manifests::default());
            } else {
                re_resolve(&views(&projections), &Manifests::default(), &mut incremental, &changed, &names);
            }
            assert_eq!(incremental, resolve(&views(&projections), &Manifests::default()), "after editing {path}");
        }
        // The edits did change resolution along the way.
        let b = &incremental.files["b.py"];
        assert_eq!(b.calls, vec![("b.py#caller".to_string(), "c.py#renamed".to_string(), 2, Provenance::NameOnly)]);
    }

    #[test]
    fn rust_method_calls_resolve_only_to_methods() {
        use crate::world::project::project_file;
        let files = [
            ("src/util.rs", "pub fn unwrap(x: u8) -> u8 { x }\npub struct Cart;\nimpl Cart {\n    pub fn total(&self) -> u8 { 1 }\n    pub fn len(&self) -> u8 { 2 }\n}\n"),
            ("src/app.rs", "fn run(c: Cart, v: Vec<u8>, o: Option<u8>) -> u8 {\n    o.unwrap() + c.total() + v.len() as u8 + unwrap(1)\n}\n"),
        ];
        let projections: Vec<(&str, FileProjection)> =
            files.iter().map(|(p, s)| (*p, project_file(Lang::Rust, p, s.as_bytes()).unwrap())).collect();
        let views: Vec<FileView> =
            projections.iter().map(|(p, proj)| FileView { path: p, lang: Lang::Rust, projection: proj }).collect();
        let app = &resolve(&views, &Manifests::default()).files["src/app.rs"];
        let callees: BTreeSet<(&str, Provenance)> =
            app.calls.iter().map(|(_, callee, _, p)| (callee.as_str(), *p)).collect();
        // `c.total()` is Cart's `total` (the parameter's type says so); `unwrap(1)` the
        // free function, by a unique name. `o.unwrap()` and `v.len()` are Option's and Vec's.
        assert_eq!(
            callees,
            BTreeSet::from([
                ("src/util.rs#Cart.total", Provenance::Inferred),
                ("src/util.rs#unwrap", Provenance::NameOnly)
            ])
        );
        assert!(app.unresolved.is_empty(), "{:?}", app.unresolved);
    }

    #[test]
    fn test_names_point_at_their_subjects() {
        assert_eq!(tested_names("test_parse_config"), vec!["parseconfig", "parse"]);
        assert_eq!(tested_names("TestParseConfig"), vec!["parseconfig"]);
        assert_eq!(tested_names("TestParse_errors"), vec!["parseerrors", "parse"]);
    }
}
