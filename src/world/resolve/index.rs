//! The repository-wide lookup tables resolution reads: symbols by file and
//! name, types and their methods, fields and bases, modules and what each
//! file's imports bind, and what a type name written in a file names there.
//! Built once per resolution from file projections; knows nothing about calls.

use std::cell::RefCell;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use nerd_logic::symbols::bare_name;
use nerd_logic::vocab::{Provenance, SymbolKind};

use super::names::{builtin_global, builtin_type};
use super::types::type_name;
pub(super) use super::value::TypeKey;
use super::value::Value;
use super::FileView;
use crate::world::lang::Lang;
use crate::world::packages::Manifests;
use crate::world::project::{HintKind, ProjectedSymbol, TypeHint};
use crate::world::walk::{dir_of, folders_above, join};

/// Symbols a bare call can name: functions, and types called as constructors.
pub(super) fn callable(kind: SymbolKind) -> bool {
    matches!(kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Class | SymbolKind::Struct)
}

/// Symbols that are types: receivers whose methods are looked up.
pub(super) fn is_type(kind: SymbolKind) -> bool {
    use SymbolKind::*;
    matches!(kind, Struct | Class | Interface | Trait | Enum | Type)
}

/// A type name looked up from where it is written.
pub(super) enum TypeLookup<'a> {
    Project(Vec<TypeKey<'a>>, Provenance),
    External,
    NotFound,
}

/// The scope that owns the types (and their methods) of a file; see [`TypeKey`].
pub(super) fn type_scope(lang: Lang, path: &str) -> &str {
    match lang.family() {
        Lang::Go => dir_of(path),
        Lang::Rust => {
            // The package folder: what precedes `src/`, `tests/`, `benches/` or `examples/`.
            let mut at = 0;
            for segment in path.split('/') {
                if matches!(segment, "src" | "tests" | "benches" | "examples") {
                    return path[..at].trim_end_matches('/');
                }
                at += segment.len() + 1;
            }
            dir_of(path)
        }
        _ => path,
    }
}

/// The qualified part of an id (after `#`), without the final name: `A.B` in `p#A.B.f`.
pub(super) fn container_of(id: &str) -> &str {
    let qualified = id.split_once('#').map_or(id, |(_, q)| q);
    qualified.rsplit_once('.').map_or("", |(c, _)| c)
}

/// The name of the type a method id belongs to: `B` in `p#A.B.m`.
pub(super) fn owner_name(id: &str) -> &str {
    let container = container_of(id);
    container.rsplit('.').next().unwrap_or(container)
}

/// The file an id belongs to.
pub(super) fn path_of(id: &str) -> &str {
    id.split_once('#').map_or(id, |(p, _)| p)
}

/// A file's module path in `/` form, as imports name it: the path without
/// extension for Python, Rust and TypeScript (`__init__`, `mod` and `index`
/// name their folder), the folder for Go.
pub(super) fn module_path(lang: Lang, path: &str) -> &str {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    match lang {
        Lang::Python => stem.strip_suffix("/__init__").unwrap_or(stem),
        Lang::Rust => stem.strip_suffix("/mod").unwrap_or(stem),
        Lang::TypeScript | Lang::Tsx => {
            let stem = stem.strip_suffix(".d").unwrap_or(stem);
            stem.strip_suffix("/index").unwrap_or(stem)
        }
        Lang::Go => dir_of(path),
    }
}

fn last_segment(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// How many trailing `/`-segments two paths share.
pub(super) fn common_tail(a: &str, b: &str) -> usize {
    a.rsplit('/').zip(b.rsplit('/')).take_while(|(x, y)| x == y).count()
}

/// The module key an import refers to, from the importing file.
pub(super) fn import_key(lang: Lang, from_path: &str, module: &str) -> Option<String> {
    let dir = dir_of(from_path);
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
        Lang::Rust => {
            let segments: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
            if let Some(last) = segments.iter().rev().find(|s| !matches!(**s, "crate" | "self" | "super")) {
                return Some((*last).to_string());
            }
            // `crate`, `self` or `super` alone: the crate root, this module, its parent.
            let own = module_path(lang, from_path);
            let module = match segments.as_slice() {
                ["self"] => own,
                ["super", ..] => dir_of(own),
                _ => "",
            };
            let name = last_segment(module);
            Some(if name.is_empty() || name == "src" { "lib".to_string() } else { name.to_string() })
        }
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
            Some(ts_module_key(&parts.join("/")))
        }
    }
}

/// The module a TypeScript path names, as `module_path` names a file's:
/// without its extension (a declaration's `.d.ts` included), `index` naming its folder.
pub(super) fn ts_module_key(path: &str) -> String {
    const EXTENSIONS: [&str; 11] =
        [".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
    let trimmed = EXTENSIONS.iter().find_map(|e| path.strip_suffix(e)).unwrap_or(path);
    // `./util/index` is the module `./util`.
    trimmed.strip_suffix("/index").unwrap_or(trimmed).to_string()
}

/// Whether a TypeScript file is a declaration file, which only describes a module's shape.
pub(super) fn is_declaration_file(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"].iter().any(|e| path.ends_with(e))
}

/// One meaning of a name bound by an import.
pub(super) struct Binding<'a> {
    /// The item imported (`b` in `from a import b as c`), if one item is.
    pub item: Option<&'a str>,
    /// The project files of the imported module; empty for a module outside the project.
    pub files: Vec<&'a str>,
    /// Python: the files of module `a.b` when `b` is itself a module.
    pub submodule: Vec<&'a str>,
    /// Rust: the files are the crate root, found because the module named no
    /// project module; kept only if the root provides the item.
    pub via_crate_root: bool,
}

/// What one file's imports bring in.
#[derive(Default)]
pub(super) struct Imports<'a> {
    pub names: HashMap<&'a str, Vec<Binding<'a>>>,
    /// The files of modules imported whole (`from m import *`, `use m::*`, `export * from`).
    pub stars: Vec<Vec<&'a str>>,
}

/// The hints declaring one field, with the file that wrote each.
pub(super) type FieldHints<'a> = Vec<(&'a TypeHint, &'a str)>;

/// What a module passes on under one name, as `Index::exports` gathers it.
#[derive(Default)]
struct Exports<'a> {
    symbols: Vec<&'a ProjectedSymbol>,
    aliases: Vec<&'a TypeHint>,
}

/// The lookup tables of one resolution.
pub(super) struct Index<'a> {
    pub files: HashMap<&'a str, &'a FileView<'a>>,
    pub by_id: HashMap<&'a str, &'a ProjectedSymbol>,
    /// (path, name) → callables, types and TypeScript namespaces that file defines.
    pub local: HashMap<(&'a str, &'a str), Vec<&'a ProjectedSymbol>>,
    /// (language, name) → callables anywhere.
    pub global: HashMap<(Lang, &'a str), Vec<&'a ProjectedSymbol>>,
    /// (language, name) → types anywhere.
    pub types: HashMap<(Lang, &'a str), Vec<&'a ProjectedSymbol>>,
    /// Each type → its declarations (a Go or Rust type is declared once, a TS name may be twice).
    pub declared: HashMap<TypeKey<'a>, Vec<&'a ProjectedSymbol>>,
    /// (type, method name) → that type's methods of that name.
    pub methods: HashMap<(TypeKey<'a>, &'a str), Vec<&'a ProjectedSymbol>>,
    /// (language, method name) → methods of any type.
    pub methods_by_name: HashMap<(Lang, &'a str), Vec<&'a ProjectedSymbol>>,
    /// (language, last module segment) → (module path, file) of each file.
    pub modules: HashMap<(Lang, &'a str), Vec<(&'a str, &'a str)>>,
    /// scope → hints on local names of that scope (a function, or a file at module level).
    pub hints: HashMap<&'a str, Vec<&'a TypeHint>>,
    /// (file, name) → the module-level alias that name is (`export { f as g }`,
    /// `const g = Foo.create`): what the module exports under it.
    aliases: HashMap<(&'a str, &'a str), &'a TypeHint>,
    /// (type, field) → field hints, with the file that wrote them.
    pub fields: HashMap<(TypeKey<'a>, &'a str), FieldHints<'a>>,
    /// Type → its bases that are project types, each looked up from the file declaring it.
    pub supertypes: HashMap<TypeKey<'a>, Vec<TypeKey<'a>>>,
    /// Types with a base that is not a project type (a dependency's, the standard library's).
    pub foreign_base: HashSet<TypeKey<'a>>,
    /// Interface or trait → the types that declare it as a base.
    pub implementors: HashMap<TypeKey<'a>, Vec<TypeKey<'a>>>,
    /// Go: folder → the files of that package.
    pub packages: HashMap<&'a str, Vec<&'a str>>,
    pub imports: HashMap<&'a str, Imports<'a>>,
    pub test_files: HashSet<&'a str>,
    /// The workspace's package names and path aliases, for bare TypeScript imports.
    manifests: &'a Manifests,
    /// What `exports` found, by its question: a barrel file's `export *`
    /// chains are walked once per name, not once per call through them.
    exported: RefCell<HashMap<ExportsQuestion<'a>, ExportsAnswer<'a>>>,
    /// What a hint gives its name, by the hint (its address) and the depth it was asked at:
    /// a field or local is read at many calls, and its value depends on nothing else.
    pub(super) hint_values: RefCell<HashMap<(usize, u32), Value<'a>>>,
}

/// One question to `Index::exports`: the module's files, the name, and the
/// kinds kept (the filter function's address).
type ExportsQuestion<'a> = (Vec<&'a str>, String, usize);
type ExportsAnswer<'a> = (Vec<&'a ProjectedSymbol>, Vec<&'a TypeHint>);

impl<'a> Index<'a> {
    pub fn build(views: &'a [FileView<'a>], manifests: &'a Manifests) -> Self {
        let mut index = Index {
            files: HashMap::default(),
            by_id: HashMap::default(),
            local: HashMap::default(),
            global: HashMap::default(),
            types: HashMap::default(),
            declared: HashMap::default(),
            methods: HashMap::default(),
            methods_by_name: HashMap::default(),
            modules: HashMap::default(),
            hints: HashMap::default(),
            aliases: HashMap::default(),
            fields: HashMap::default(),
            supertypes: HashMap::default(),
            foreign_base: HashSet::default(),
            implementors: HashMap::default(),
            packages: HashMap::default(),
            imports: HashMap::default(),
            test_files: HashSet::default(),
            manifests,
            exported: RefCell::default(),
            hint_values: RefCell::default(),
        };
        let mut bases: Vec<(TypeKey<'a>, &'a str, &'a str)> = Vec::new();
        for f in views {
            let family = f.lang.family();
            let scope = type_scope(family, f.path);
            let key = |name: &'a str| TypeKey { lang: family, scope, name };
            index.files.insert(f.path, f);
            if f.lang.is_test_path(f.path) {
                index.test_files.insert(f.path);
            }
            // The qualified names of symbols that hold others (`coerce` of `coerce.string`),
            // read only where a TypeScript const may be one.
            let symbols = &f.projection.symbols;
            let holders: HashSet<&str> =
                if family == Lang::TypeScript && symbols.iter().any(|s| s.kind == SymbolKind::Const) {
                    symbols.iter().map(|s| container_of(&s.id)).filter(|c| !c.is_empty()).collect()
                } else {
                    HashSet::default()
                };
            for s in &f.projection.symbols {
                index.by_id.insert(s.id.as_str(), s);
                // A TypeScript namespace declared in code answers for its members, and so does
                // a module-level const whose object literal holds functions.
                let holds = || holders.contains(s.id.split_once('#').map_or("", |(_, q)| q));
                let namespace = family == Lang::TypeScript
                    && (s.kind == SymbolKind::Module || s.kind == SymbolKind::Const && holds());
                if callable(s.kind) || is_type(s.kind) || namespace {
                    index.local.entry((f.path, s.name.as_str())).or_default().push(s);
                }
                if callable(s.kind) {
                    index.global.entry((family, s.name.as_str())).or_default().push(s);
                }
                if is_type(s.kind) {
                    index.types.entry((family, s.name.as_str())).or_default().push(s);
                    index.declared.entry(key(s.name.as_str())).or_default().push(s);
                }
                if s.kind == SymbolKind::Method {
                    index.methods.entry((key(owner_name(&s.id)), s.name.as_str())).or_default().push(s);
                    index.methods_by_name.entry((family, s.name.as_str())).or_default().push(s);
                }
            }
            for h in &f.projection.hints {
                match (h.kind, h.field) {
                    (HintKind::Base, _) => bases.push((key(bare_name(&h.scope)), h.text.as_str(), f.path)),
                    (_, true) => {
                        index.fields.entry((key(bare_name(&h.scope)), h.var.as_str())).or_default().push((h, f.path))
                    }
                    (_, false) => {
                        if h.kind == HintKind::Alias && h.scope == f.path {
                            index.aliases.entry((f.path, h.var.as_str())).or_insert(h);
                        }
                        index.hints.entry(h.scope.as_str()).or_default().push(h)
                    }
                }
            }
            let module = module_path(f.lang, f.path);
            index.modules.entry((family, last_segment(module))).or_default().push((module, f.path));
            if family == Lang::Go {
                index.packages.entry(dir_of(f.path)).or_default().push(f.path);
            }
        }
        for f in views {
            let imports = index.read_imports(f);
            index.imports.insert(f.path, imports);
        }
        // A crate-root guess stands only where the root provides the item.
        let mut dropped: Vec<(&'a str, &'a str, usize)> = Vec::new();
        for (path, imports) in &index.imports {
            for (name, bindings) in &imports.names {
                for (i, b) in bindings.iter().enumerate().filter(|(_, b)| b.via_crate_root && !b.files.is_empty()) {
                    let provided = b.item.is_none_or(|item| !index.exported(&b.files, item, |_| true).is_empty());
                    if !provided {
                        dropped.push((path, name, i));
                    }
                }
            }
        }
        for (path, name, i) in dropped {
            if let Some(b) =
                index.imports.get_mut(path).and_then(|im| im.names.get_mut(name)).and_then(|bs| bs.get_mut(i))
            {
                b.files.clear();
            }
        }
        // Bases are looked up where they are written, through that file's imports.
        for (owner, text, path) in bases {
            let Some(file) = index.files.get(path).copied() else { continue };
            match index.written_type(file, text) {
                TypeLookup::Project(found, _) => {
                    for base in found.into_iter().filter(|b| *b != owner) {
                        index.supertypes.entry(owner).or_default().push(base);
                        index.implementors.entry(base).or_default().push(owner);
                    }
                }
                TypeLookup::External | TypeLookup::NotFound => {
                    index.foreign_base.insert(owner);
                }
            }
        }
        index
    }

    /// The type a symbol declares.
    pub fn type_key(&self, s: &'a ProjectedSymbol) -> Option<TypeKey<'a>> {
        let file = self.files.get(path_of(&s.id))?;
        let lang = file.lang.family();
        Some(TypeKey { lang, scope: type_scope(lang, file.path), name: s.name.as_str() })
    }

    /// What constructing a type runs: its own constructor (TypeScript
    /// `constructor`, Python `__init__`), else the nearest base's. Rust and Go
    /// types have none.
    pub fn constructors_of(&self, ty: &'a ProjectedSymbol) -> Vec<&'a ProjectedSymbol> {
        let Some(key) = self.type_key(ty) else { return Vec::new() };
        let name = match key.lang {
            Lang::TypeScript => "constructor",
            Lang::Python => "__init__",
            _ => return Vec::new(),
        };
        let mut level = vec![key];
        let mut seen: HashSet<TypeKey<'a>> = HashSet::default();
        for _ in 0..6 {
            let found: Vec<&'a ProjectedSymbol> =
                level.iter().flat_map(|t| self.methods.get(&(*t, name)).into_iter().flatten().copied()).collect();
            if !found.is_empty() {
                return found;
            }
            seen.extend(level.iter().copied());
            level = level
                .iter()
                .flat_map(|t| self.supertypes.get(t).into_iter().flatten().copied())
                .filter(|t| !seen.contains(t))
                .collect();
            if level.is_empty() {
                break;
            }
        }
        Vec::new()
    }

    /// The types of a list of type symbols, each once, in order.
    pub fn type_keys(&self, found: &[&'a ProjectedSymbol]) -> Vec<TypeKey<'a>> {
        let mut keys: Vec<TypeKey<'a>> = Vec::new();
        for key in found.iter().filter_map(|s| self.type_key(s)) {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// The files of the module an import key names. The key is a module
    /// path in `.` (Python), `::`-free (Rust: the last module) or `/` form; it
    /// matches a file whose module path ends with it at a segment boundary. A
    /// Go import path matches the folders sharing its longest tail.
    pub fn module_files(&self, lang: Lang, key: &str) -> Vec<&'a str> {
        let family = lang.family();
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

    /// The files of a submodule `name` of the module `files` make up.
    pub fn submodule_files(&self, lang: Lang, files: &[&'a str], name: &str) -> Vec<&'a str> {
        let family = lang.family();
        let Some(candidates) = self.modules.get(&(family, name)) else { return Vec::new() };
        let parents: HashSet<&str> = files.iter().map(|f| module_path(lang, f)).collect();
        candidates.iter().filter(|(m, _)| parents.contains(dir_of(m))).map(|(_, f)| *f).collect()
    }

    /// The files of the workspace module a bare TypeScript import names
    /// through a package name or a tsconfig alias: the first candidate with
    /// source files, else the first with declaration files only.
    fn bare_module_files(&self, lang: Lang, from: &str, module: &str) -> Vec<&'a str> {
        let mut declared = Vec::new();
        for candidate in self.manifests.bare_import(from, module) {
            let key = ts_module_key(&candidate);
            let Some(modules) = self.modules.get(&(lang.family(), last_segment(&key))) else { continue };
            let files: Vec<&'a str> = modules.iter().filter(|(m, _)| *m == key).map(|(_, f)| *f).collect();
            if files.iter().any(|f| !is_declaration_file(f)) {
                return files.into_iter().filter(|f| !is_declaration_file(f)).collect();
            }
            if declared.is_empty() {
                declared = files;
            }
        }
        declared
    }

    fn read_imports(&self, file: &FileView<'a>) -> Imports<'a> {
        let mut out = Imports::default();
        for import in &file.projection.imports {
            let (files, submodule, via_crate_root) = match import_key(file.lang, file.path, &import.module) {
                // A bare TypeScript import: a workspace package or a path alias, else outside the project.
                None if file.lang.family() == Lang::TypeScript => {
                    (self.bare_module_files(file.lang, file.path, &import.module), Vec::new(), false)
                }
                // A package outside the project (`import React from "react"`).
                None => (Vec::new(), Vec::new(), false),
                Some(key) => {
                    let mut files = self.module_files(file.lang, &key);
                    let via_crate_root = files.is_empty() && file.lang == Lang::Rust;
                    if via_crate_root {
                        files = self.rust_crate_root(file.path, &import.module);
                    }
                    // In Python `from a import b` may bind the module `a.b` itself.
                    let submodule = match (&import.name, file.lang) {
                        (Some(item), Lang::Python) => self.module_files(file.lang, &format!("{key}.{item}")),
                        _ => Vec::new(),
                    };
                    (files, submodule, via_crate_root)
                }
            };
            match import.binding.as_deref() {
                Some(binding) => {
                    let item = import.name.as_deref();
                    out.names.entry(binding).or_default().push(Binding { item, files, submodule, via_crate_root });
                }
                None if !files.is_empty() => out.stars.push(files),
                None => {}
            }
        }
        out
    }

    /// Rust: the crate's root file when an import names the crate itself from
    /// its tests, benches, examples or binary (`use semver::Version` in
    /// `tests/`), or names `crate` alone. Only names that root provides
    /// resolve through it, so a dependency's items stay outside.
    fn rust_crate_root(&self, from: &str, module: &str) -> Vec<&'a str> {
        let first = module.split("::").next().unwrap_or(module);
        if matches!(first, "std" | "core" | "alloc" | "self" | "super") {
            return Vec::new();
        }
        if first != "crate" && self.manifests.knows_rust_crates() {
            // The workspace's manifests say which crate names are its own;
            // any other is a dependency's.
            return self.workspace_crate_root(first);
        }
        if module.contains("::") && first != "crate" {
            return Vec::new();
        }
        folders_above(from)
            .flat_map(|dir| ["src/lib.rs", "src/main.rs"].map(|root| join(dir, root)))
            .find_map(|candidate| self.files.get_key_value(candidate.as_str()).map(|(path, _)| *path))
            .into_iter()
            .collect()
    }

    /// Rust: the files of module `name` declared by the module made of
    /// `files` (`src/lib.rs` declares `src/size_hint.rs` and
    /// `src/size_hint/mod.rs`; `src/a.rs` and `src/a/mod.rs` declare `src/a/b.rs`).
    pub fn submodule_of(&self, files: &[&'a str], name: &str) -> Vec<&'a str> {
        let Some(candidates) = self.modules.get(&(Lang::Rust, name)) else { return Vec::new() };
        let parents: HashSet<&str> = files
            .iter()
            .map(|f| {
                let own = module_path(Lang::Rust, f);
                // A crate root declares modules beside it; `a.rs` and `a/mod.rs`, in `a/`.
                if matches!(last_segment(own), "lib" | "main") {
                    dir_of(own)
                } else {
                    own
                }
            })
            .collect();
        candidates.iter().filter(|(m, _)| parents.contains(dir_of(m))).map(|(_, f)| *f).collect()
    }

    /// Rust: the root file of the workspace crate that code calls `name`,
    /// when the workspace's `Cargo.toml` files name it.
    pub fn workspace_crate_root(&self, name: &str) -> Vec<&'a str> {
        self.manifests
            .rust_crate_roots(name)
            .iter()
            .find_map(|root| self.files.get_key_value(root.as_str()).map(|(p, _)| *p))
            .into_iter()
            .collect()
    }

    /// The symbols named `name` that the module made of `files` provides,
    /// defined there or passed on by its imports and re-exports, keeping
    /// those `keep` accepts.
    pub fn exported(&self, files: &[&'a str], name: &str, keep: fn(SymbolKind) -> bool) -> Vec<&'a ProjectedSymbol> {
        self.exports(files, name, keep).0
    }

    /// What the module made of `files` exports as `name`: the symbols `keep`
    /// accepts, through re-exports and aliases of a plain name, and the
    /// module-level aliases of a longer name (`const string = ZodString.create`)
    /// that only a receiver's resolution can follow.
    pub fn exports(&self, files: &[&'a str], name: &str, keep: fn(SymbolKind) -> bool) -> ExportsAnswer<'a> {
        let question = (files.to_vec(), name.to_string(), keep as usize);
        if let Some(answer) = self.exported.borrow().get(&question) {
            return answer.clone();
        }
        let mut out = Exports::default();
        let mut seen = HashSet::default();
        self.exports_into(files, name, keep, 0, &mut seen, &mut out);
        out.symbols.sort_by(|a, b| a.id.cmp(&b.id));
        out.symbols.dedup_by(|a, b| a.id == b.id);
        let answer = (out.symbols, out.aliases);
        self.exported.borrow_mut().insert(question, answer.clone());
        answer
    }

    fn exports_into(
        &self,
        files: &[&'a str],
        name: &str,
        keep: fn(SymbolKind) -> bool,
        depth: u32,
        seen: &mut HashSet<(&'a str, String)>,
        out: &mut Exports<'a>,
    ) {
        if depth > 6 {
            return;
        }
        for &file in files {
            if !seen.insert((file, name.to_string())) {
                continue;
            }
            let defined: Vec<&ProjectedSymbol> = self
                .local
                .get(&(file, name))
                .into_iter()
                .flatten()
                .copied()
                .filter(|s| keep(s.kind) && s.depth == 0)
                .collect();
            if !defined.is_empty() {
                out.symbols.extend(defined);
                continue;
            }
            if let Some(alias) = self.aliases.get(&(file, name)) {
                if alias.text.contains(['.', ':']) {
                    out.aliases.push(alias);
                } else {
                    self.exports_into(&[file], &alias.text, keep, depth + 1, seen, out);
                }
                continue;
            }
            let Some(imports) = self.imports.get(file) else { continue };
            for b in imports.names.get(name).into_iter().flatten() {
                self.exports_into(&b.files, b.item.unwrap_or(name), keep, depth + 1, seen, out);
            }
            for star in &imports.stars {
                self.exports_into(star, name, keep, depth + 1, seen, out);
            }
        }
    }

    /// The files of the module that the module made of `files` passes on
    /// under `name`, when it binds that name to a whole module
    /// (`import * as z from "./x"; export { z }`, `export * as z from`).
    pub fn exported_namespace(&self, files: &[&'a str], name: &str) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut seen = HashSet::default();
        self.namespace_into(files, name, 0, &mut seen, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    fn namespace_into(
        &self,
        files: &[&'a str],
        name: &str,
        depth: u32,
        seen: &mut HashSet<(&'a str, String)>,
        out: &mut Vec<&'a str>,
    ) {
        if depth > 6 {
            return;
        }
        for &file in files {
            let Some(imports) = self.imports.get(file) else { continue };
            if !seen.insert((file, name.to_string())) || self.local.contains_key(&(file, name)) {
                continue;
            }
            for b in imports.names.get(name).into_iter().flatten() {
                match b.item {
                    None => out.extend(&b.files),
                    Some(item) => self.namespace_into(&b.files, item, depth + 1, seen, out),
                }
            }
            for star in &imports.stars {
                self.namespace_into(star, name, depth + 1, seen, out);
            }
        }
    }

    /// Whether a symbol is in a test file.
    pub fn in_test_file(&self, s: &ProjectedSymbol) -> bool {
        self.test_files.contains(path_of(&s.id))
    }

    /// A type name as the file sees it: its own, imported, its package's, or unique in the project.
    pub(super) fn type_named(&self, file: &FileView<'a>, name: &str) -> TypeLookup<'a> {
        let family = file.lang.family();
        let own: Vec<&'a ProjectedSymbol> =
            self.local.get(&(file.path, name)).into_iter().flatten().copied().filter(|s| is_type(s.kind)).collect();
        if !own.is_empty() {
            return TypeLookup::Project(self.type_keys(&own), Provenance::Exact);
        }
        if let Some(imports) = self.imports.get(file.path) {
            if let Some(bindings) = imports.names.get(name) {
                let found: Vec<&'a ProjectedSymbol> =
                    bindings.iter().flat_map(|b| self.exported(&b.files, b.item.unwrap_or(name), is_type)).collect();
                if !found.is_empty() {
                    return TypeLookup::Project(self.type_keys(&found), Provenance::Exact);
                }
                if bindings.iter().all(|b| b.files.is_empty() && b.submodule.is_empty()) {
                    return TypeLookup::External;
                }
            }
            for star in &imports.stars {
                let found = self.exported(star, name, is_type);
                if !found.is_empty() {
                    return TypeLookup::Project(self.type_keys(&found), Provenance::Exact);
                }
            }
        }
        if let Some(all) = self.types.get(&(family, name)) {
            let scope = type_scope(family, file.path);
            let here = all.first().map(|s| TypeKey { lang: family, scope, name: s.name.as_str() });
            if let Some(here) =
                here.filter(|h| matches!(family, Lang::Go | Lang::Rust) && self.declared.contains_key(h))
            {
                // A Go package's own names need no import; in a Rust crate, a
                // name of the crate is the likeliest meaning, but a module path
                // may still name another.
                let provenance = if family == Lang::Go { Provenance::Exact } else { Provenance::Inferred };
                return TypeLookup::Project(vec![here], provenance);
            }
            if name.starts_with(|c: char| c.is_uppercase()) {
                // A declaration file only describes a module: its types stand where no source declares one.
                let sources: Vec<&'a ProjectedSymbol> =
                    all.iter().copied().filter(|s| !is_declaration_file(path_of(&s.id))).collect();
                let pick = if sources.is_empty() { all.as_slice() } else { sources.as_slice() };
                return TypeLookup::Project(self.type_keys(pick), Provenance::Inferred);
            }
        }
        if builtin_type(file.lang, name) {
            return TypeLookup::External;
        }
        TypeLookup::NotFound
    }

    /// A type as written in a file (`Foo`, `pkg.Foo<T>`, `&mut Foo`): a project
    /// type, through a qualifying module when one is written, or not.
    pub(super) fn written_type(&self, file: &FileView<'a>, text: &str) -> TypeLookup<'a> {
        let lang = file.lang;
        let Some((qualifier, name)) = type_name(lang, text) else { return TypeLookup::External };
        if let Some(q) = qualifier {
            let head = q.split([':', '.']).next().unwrap_or(q);
            if builtin_global(lang, head) {
                return TypeLookup::External;
            }
            let bindings = self.imports.get(file.path).and_then(|i| i.names.get(head));
            if let Some(bindings) = bindings {
                if bindings.iter().all(|b| b.files.is_empty() && b.submodule.is_empty()) {
                    return TypeLookup::External;
                }
                // `core.$ZodType` with `import * as core from "../core"`: the module's own type.
                let mut modules: Vec<&'a str> = Vec::new();
                for b in bindings {
                    match b.item {
                        None => modules.extend(&b.files),
                        Some(item) => modules.extend(self.exported_namespace(&b.files, item)),
                    }
                }
                let found = self.exported(&modules, name, is_type);
                if !found.is_empty() {
                    return TypeLookup::Project(self.type_keys(&found), Provenance::Exact);
                }
            }
        }
        self.type_named(file, name)
    }
}
