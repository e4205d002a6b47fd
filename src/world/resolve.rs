//! Resolves raw calls to symbol ids across the whole repository (same file,
//! then imports, then a unique global name) and links tests to what they
//! exercise. Pure over file projections; knows nothing about storage or git.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use nerd_logic::vocab::SymbolKind;

use super::lang::Lang;
use super::project::{FileProjection, ProjectedSymbol, RawCall};

/// One projected file as resolution sees it.
pub struct FileView<'a> {
    pub path: &'a str,
    pub lang: Lang,
    pub projection: &'a FileProjection,
}

/// The edges resolution derives from one file's calls.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct FileResolution {
    /// `(caller, callee, line)`.
    pub calls: Vec<(String, String, u32)>,
    /// `(caller, name, line)`.
    pub unresolved: Vec<(String, String, u32)>,
    /// `(test, symbol)` for calls made by tests of this file.
    pub test_links: Vec<(String, String)>,
}

/// The repository-wide edges resolution derives, grouped by the calling file.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub files: BTreeMap<String, FileResolution>,
    /// `(test, symbol)` links from naming conventions (`test_parse` → `parse`).
    pub named_test_links: Vec<(String, String)>,
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
}

fn callable(kind: SymbolKind) -> bool {
    matches!(kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Class | SymbolKind::Struct)
}

/// The part of an id after `#`, without the final name: `Type` in `p#Type.method`.
fn container_of(id: &str) -> &str {
    let qualified = id.split_once('#').map_or(id, |(_, q)| q);
    qualified.rsplit_once('.').map_or("", |(c, _)| c)
}

struct Index<'a> {
    /// (path, name) → callable symbols of that file.
    local: HashMap<(&'a str, &'a str), Vec<&'a ProjectedSymbol>>,
    /// name → callable symbols anywhere.
    global: HashMap<&'a str, Vec<&'a ProjectedSymbol>>,
    /// Last segment of a module path → (module path, file) of each file.
    modules: HashMap<(Lang, &'a str), Vec<(&'a str, &'a str)>>,
}

fn lang_family(lang: Lang) -> Lang {
    if lang == Lang::Tsx {
        Lang::TypeScript
    } else {
        lang
    }
}

/// A file's module path in `/` form, as imports name it: the path without
/// extension for Python, Rust and TypeScript (`__init__`, `mod` and `index`
/// name their folder), the folder for Go.
fn module_path(lang: Lang, path: &str) -> &str {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    match lang {
        Lang::Python => stem.strip_suffix("/__init__").unwrap_or(stem),
        Lang::Rust => stem.strip_suffix("/mod").unwrap_or(stem),
        Lang::TypeScript | Lang::Tsx => {
            let stem = stem.strip_suffix(".d").unwrap_or(stem);
            stem.strip_suffix("/index").unwrap_or(stem)
        }
        Lang::Go => path.rsplit_once('/').map_or("", |(d, _)| d),
    }
}

fn last_segment(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How many trailing `/`-segments two paths share.
fn common_tail(a: &str, b: &str) -> usize {
    a.rsplit('/').zip(b.rsplit('/')).take_while(|(x, y)| x == y).count()
}

/// The module key an import refers to, from the importing file.
fn import_key(lang: Lang, from_path: &str, module: &str) -> Option<String> {
    let dir = from_path.rsplit_once('/').map_or("", |(d, _)| d);
    match lang {
        Lang::Python => {
            let dots = module.len() - module.trim_start_matches('.').len();
            if dots == 0 {
                return Some(module.to_string());
            }
            let mut base: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
            for _ in 1..dots {
                base.pop()?;
            }
            let rest = &module[dots..];
            let mut key = base.join(".");
            if !rest.is_empty() {
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(rest);
            }
            Some(key)
        }
        Lang::Go => Some(module.to_string()),
        Lang::Rust => module.rsplit("::").find(|s| !matches!(*s, "crate" | "self" | "super" | "")).map(str::to_string),
        Lang::TypeScript | Lang::Tsx => {
            if !module.starts_with('.') {
                return None;
            }
            let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
            for seg in module.split('/') {
                match seg {
                    "." | "" => {}
                    ".." => {
                        parts.pop()?;
                    }
                    s => parts.push(s),
                }
            }
            let joined = parts.join("/");
            let trimmed = [".js", ".ts", ".tsx", ".mjs"].iter().find_map(|e| joined.strip_suffix(e)).unwrap_or(&joined);
            Some(trimmed.to_string())
        }
    }
}

impl<'a> Index<'a> {
    fn build(files: &'a [FileView<'a>]) -> Self {
        let mut index = Index { local: HashMap::default(), global: HashMap::default(), modules: HashMap::default() };
        for f in files {
            for s in f.projection.symbols.iter().filter(|s| callable(s.kind)) {
                index.local.entry((f.path, s.name.as_str())).or_default().push(s);
                index.global.entry(s.name.as_str()).or_default().push(s);
            }
            let module = module_path(f.lang, f.path);
            index.modules.entry((lang_family(f.lang), last_segment(module))).or_default().push((module, f.path));
        }
        index
    }

    /// The files of the module an import key names. The key is a module
    /// path in `.` (Python), `::`-free (Rust: the last module) or `/` form; it
    /// matches a file whose module path ends with it at a segment boundary. A
    /// Go import path matches the folders sharing its longest tail.
    fn module_files(&self, lang: Lang, key: &str) -> Vec<&'a str> {
        let family = lang_family(lang);
        let wanted = if family == Lang::Python { key.replace('.', "/") } else { key.to_string() };
        let Some(candidates) = self.modules.get(&(family, last_segment(&wanted))) else { return Vec::new() };
        if family == Lang::Go {
            let best = candidates.iter().map(|(m, _)| common_tail(m, &wanted)).max().unwrap_or(0);
            return candidates
                .iter()
                .filter(|(m, _)| best > 0 && common_tail(m, &wanted) == best)
                .map(|(_, f)| *f)
                .collect();
        }
        let tail = format!("/{wanted}");
        candidates.iter().filter(|(m, _)| *m == wanted || m.ends_with(&tail)).map(|(_, f)| *f).collect()
    }

    /// What each local name bound by a file's imports can refer to.
    fn bindings(&self, file: &FileView<'a>) -> HashMap<&'a str, Vec<Binding<'a>>> {
        let mut out: HashMap<&str, Vec<Binding>> = HashMap::default();
        for import in &file.projection.imports {
            let Some(binding) = import.binding.as_deref() else { continue };
            let Some(key) = import_key(file.lang, file.path, &import.module) else { continue };
            let files = self.module_files(file.lang, &key);
            // In Python `from a import b` may bind the module `a.b` itself.
            let submodule = match (&import.name, file.lang) {
                (Some(item), Lang::Python) => self.module_files(file.lang, &format!("{key}.{item}")),
                _ => Vec::new(),
            };
            out.entry(binding).or_default().push(Binding { item: import.name.as_deref(), files, submodule });
        }
        out
    }

    /// The one callable named `name` among `files`.
    fn unique_in(&self, files: &[&'a str], name: &str) -> Option<&'a ProjectedSymbol> {
        let mut found = files.iter().filter_map(|p| self.local.get(&(*p, name))).flatten();
        let first = found.next()?;
        found.next().is_none().then_some(*first)
    }

    fn resolve(
        &self,
        file: &FileView<'a>,
        bindings: &HashMap<&'a str, Vec<Binding<'a>>>,
        call: &RawCall,
    ) -> Option<&'a ProjectedSymbol> {
        let name = call.name.as_str();
        let qualifier = call.qualifier.as_deref();
        let last_qualifier = qualifier.map(|q| q.rsplit(['.', ':']).next().unwrap_or(q));
        if call.method {
            return self.resolve_method(file, call, last_qualifier);
        }
        // 1. The same file.
        if let Some(local) = self.local.get(&(file.path, name)) {
            if local.len() == 1 {
                return Some(local[0]);
            }
            let same_container = |c: &str| local.iter().copied().find(|s| container_of(&s.id) == c);
            let by_qualifier =
                last_qualifier.and_then(|q| local.iter().copied().find(|s| container_of(&s.id).ends_with(q)));
            let by_self = match last_qualifier {
                Some("self" | "this" | "Self" | "cls") | None => same_container(container_of(&call.caller)),
                _ => None,
            };
            if let Some(s) = by_qualifier.or(by_self) {
                return Some(s);
            }
        }
        // 2. Imports: a name imported directly (`from m import f`), or a module
        //    imported as the qualifier (`pkg.F()`, `mod.f()`, `ns.f()`, `module::f()`).
        let through_import = match qualifier {
            None => {
                bindings.get(name).into_iter().flatten().find_map(|b| self.unique_in(&b.files, b.item.unwrap_or(name)))
            }
            Some(q) => bindings
                .get(q)
                .into_iter()
                .flatten()
                .find_map(|b| self.unique_in(&b.submodule, name).or_else(|| self.unique_in(&b.files, name))),
        };
        if through_import.is_some() {
            return through_import;
        }
        // 3. A unique name in the whole repository.
        match self.global.get(name).map(Vec::as_slice) {
            Some([only]) => Some(*only),
            _ => None,
        }
    }
}

/// Methods of Rust's standard types and traits that repository types often share.
const STD_METHODS: &[&str] = &[
    "as_ref",
    "as_str",
    "as_slice",
    "borrow",
    "build",
    "clear",
    "clone",
    "cmp",
    "contains",
    "contains_key",
    "default",
    "drain",
    "entry",
    "eq",
    "extend",
    "filter",
    "find",
    "flush",
    "fmt",
    "from",
    "get",
    "get_mut",
    "hash",
    "insert",
    "into",
    "into_iter",
    "is_empty",
    "is_none",
    "is_some",
    "iter",
    "iter_mut",
    "join",
    "keys",
    "last",
    "len",
    "lock",
    "map",
    "next",
    "parse",
    "partial_cmp",
    "pop",
    "push",
    "push_str",
    "read",
    "remove",
    "run",
    "send",
    "sort",
    "split",
    "take",
    "to_owned",
    "to_string",
    "unwrap",
    "values",
    "write",
];

impl<'a> Index<'a> {
    /// A call in method syntax (`value.name()`): only a method answers it, so
    /// free functions of that name are never candidates. The caller's own
    /// type for `self.name()`, else a method unique in the file, else in the repository.
    fn resolve_method(
        &self,
        file: &FileView<'a>,
        call: &RawCall,
        last_qualifier: Option<&str>,
    ) -> Option<&'a ProjectedSymbol> {
        let methods = |found: Option<&Vec<&'a ProjectedSymbol>>| -> Vec<&'a ProjectedSymbol> {
            found.into_iter().flatten().copied().filter(|s| s.kind == SymbolKind::Method).collect()
        };
        let local = methods(self.local.get(&(file.path, call.name.as_str())));
        if matches!(last_qualifier, Some("self")) {
            let own = container_of(&call.caller);
            if let Some(s) = local.iter().copied().find(|s| container_of(&s.id) == own) {
                return Some(s);
            }
        }
        if let [only] = local.as_slice() {
            return Some(*only);
        }
        // Across files the receiver's type is unknown: a name the standard library's
        // types also answer (`v.len()`, `it.next()`) is more likely theirs than ours.
        if STD_METHODS.contains(&call.name.as_str()) {
            return None;
        }
        match methods(self.global.get(call.name.as_str())).as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }
}

/// One meaning of a name bound by an import.
struct Binding<'a> {
    /// The item imported (`b` in `from a import b as c`), if one item is.
    item: Option<&'a str>,
    /// The files of the imported module.
    files: Vec<&'a str>,
    /// Python: the files of module `a.b` when `b` is itself a module.
    submodule: Vec<&'a str>,
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

fn resolve_file(index: &Index<'_>, tests: &HashSet<&str>, f: &FileView<'_>) -> FileResolution {
    let bindings = index.bindings(f);
    let mut out = FileResolution::default();
    for call in &f.projection.calls {
        match index.resolve(f, &bindings, call) {
            Some(callee) => {
                if tests.contains(call.caller.as_str()) && callee.kind != SymbolKind::Test {
                    out.test_links.push((call.caller.clone(), callee.id.clone()));
                }
                out.calls.push((call.caller.clone(), callee.id.clone(), call.line));
            }
            None => out.unresolved.push((call.caller.clone(), call.name.clone(), call.line)),
        }
    }
    out.calls.sort_unstable();
    out.calls.dedup();
    out.unresolved.sort_unstable();
    out.unresolved.dedup();
    out.test_links.sort_unstable();
    out.test_links.dedup();
    out
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

/// Resolves every raw call and links tests, deterministically.
pub fn resolve(files: &[FileView<'_>]) -> Resolution {
    let index = Index::build(files);
    let tests = test_ids(files);
    Resolution {
        files: files.iter().map(|f| (f.path.to_string(), resolve_file(&index, &tests, f))).collect(),
        named_test_links: named_test_links(files),
    }
}

/// The `(name, id)` of every callable a file defines: what other files' calls
/// may resolve to. Compare two of these to find names whose meaning changed.
pub fn definitions(p: &FileProjection) -> BTreeSet<(&str, &str)> {
    p.symbols
        .iter()
        .filter(|s| callable(s.kind) || s.kind == SymbolKind::Test)
        .map(|s| (s.name.as_str(), s.id.as_str()))
        .collect()
}

/// Names whose definitions differ between two versions of a file.
pub fn changed_names(before: Option<&FileProjection>, after: Option<&FileProjection>) -> BTreeSet<String> {
    let before = before.map(definitions).unwrap_or_default();
    let after = after.map(definitions).unwrap_or_default();
    before.symmetric_difference(&after).map(|(name, _)| name.to_string()).collect()
}

/// Re-resolves after `changed` files changed content, in place: the changed
/// files themselves, and every file with a call to a name in `names` (names
/// whose definitions appeared, vanished or moved). Returns the paths whose
/// edges were recomputed. Files added or removed need a full `resolve`, since
/// they change which modules exist.
pub fn re_resolve(
    files: &[FileView<'_>],
    previous: &mut Resolution,
    changed: &BTreeSet<String>,
    names: &BTreeSet<String>,
) -> Vec<String> {
    let index = Index::build(files);
    let tests = test_ids(files);
    let mut redone = Vec::new();
    for f in files {
        let affected = changed.contains(f.path) || f.projection.calls.iter().any(|c| names.contains(&c.name));
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
        let mut incremental = resolve(&views(&projections));
        for (path, text) in edits {
            let before = projections[path].clone();
            sources.insert(path.into(), text.into());
            projections = project(&sources);
            let names = changed_names(Some(&before), Some(&projections[path]));
            let changed = BTreeSet::from([path.to_string()]);
            re_resolve(&views(&projections), &mut incremental, &changed, &names);
            assert_eq!(incremental, resolve(&views(&projections)), "after editing {path}");
        }
        // The edits did change resolution along the way.
        let b = &incremental.files["b.py"];
        assert_eq!(b.calls, vec![("b.py#caller".to_string(), "c.py#renamed".to_string(), 2)]);
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
        let app = &resolve(&views).files["src/app.rs"];
        let callees: BTreeSet<&str> = app.calls.iter().map(|(_, callee, _)| callee.as_str()).collect();
        // `c.total()` is the one method `total`; `unwrap(1)` the free function. `o.unwrap()`
        // cannot be the free function, and `v.len()` is more likely Vec's than Cart's.
        assert_eq!(callees, BTreeSet::from(["src/util.rs#Cart.total", "src/util.rs#unwrap"]));
        let unresolved: BTreeSet<&str> = app.unresolved.iter().map(|(_, name, _)| name.as_str()).collect();
        assert_eq!(unresolved, BTreeSet::from(["len", "unwrap"]));
    }

    #[test]
    fn test_names_point_at_their_subjects() {
        assert_eq!(tested_names("test_parse_config"), vec!["parseconfig", "parse"]);
        assert_eq!(tested_names("TestParseConfig"), vec!["parseconfig"]);
        assert_eq!(tested_names("TestParse_errors"), vec!["parseerrors", "parse"]);
    }
}
