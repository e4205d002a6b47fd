//! Resolves raw calls to symbol ids across the whole repository (same file,
//! then imports, then a unique global name) and links tests to what they
//! exercise. Pure over file projections; knows nothing about storage or git.

use std::collections::HashMap;

use nerd_logic::vocab::SymbolKind;

use super::imports::Import;
use super::lang::Lang;
use super::project::{FileProjection, ProjectedSymbol, RawCall};

/// One projected file as resolution sees it.
pub struct FileView<'a> {
    pub path: &'a str,
    pub lang: Lang,
    pub projection: &'a FileProjection,
}

/// The repository-wide edges resolution derives.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Resolution {
    /// `(caller, callee, path, line)`.
    pub calls: Vec<(String, String, String, u32)>,
    /// `(caller, name, path, line)`.
    pub unresolved: Vec<(String, String, String, u32)>,
    /// `(test, symbol)`.
    pub test_of: Vec<(String, String)>,
}

fn callable(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Function | SymbolKind::Method | SymbolKind::Class | SymbolKind::Struct
    )
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
    /// Python dotted module name, Go directory, Rust module stem, TS path without extension → files.
    modules: HashMap<(Lang, String), Vec<&'a str>>,
}

fn lang_family(lang: Lang) -> Lang {
    if lang == Lang::Tsx {
        Lang::TypeScript
    } else {
        lang
    }
}

/// The keys under which a file can be imported.
fn module_keys(lang: Lang, path: &str) -> Vec<String> {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    match lang {
        Lang::Python => {
            let dotted = stem.trim_end_matches("/__init__").replace('/', ".");
            // Every suffix, since the package root may sit below the repository root.
            let mut keys = vec![dotted.clone()];
            let mut rest = dotted.as_str();
            while let Some((_, tail)) = rest.split_once('.') {
                keys.push(tail.to_string());
                rest = tail;
            }
            keys
        }
        Lang::Go => {
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            let mut keys = vec![dir.to_string()];
            let mut rest = dir;
            while let Some((_, tail)) = rest.split_once('/') {
                keys.push(tail.to_string());
                rest = tail;
            }
            keys
        }
        Lang::Rust => {
            let module = stem.trim_end_matches("/mod");
            vec![module.rsplit('/').next().unwrap_or(module).to_string()]
        }
        Lang::TypeScript | Lang::Tsx => {
            let module = stem.trim_end_matches(".d");
            let mut keys = vec![module.to_string()];
            if let Some(dir) = module.strip_suffix("/index") {
                keys.push(dir.to_string());
            }
            keys
        }
    }
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
        Lang::Rust => module
            .rsplit("::")
            .find(|s| !matches!(*s, "crate" | "self" | "super" | ""))
            .map(str::to_string),
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
            let trimmed = [".js", ".ts", ".tsx", ".mjs"]
                .iter()
                .find_map(|e| joined.strip_suffix(e))
                .unwrap_or(&joined);
            Some(trimmed.to_string())
        }
    }
}

impl<'a> Index<'a> {
    fn build(files: &'a [FileView<'a>]) -> Self {
        let mut index = Index {
            local: HashMap::new(),
            global: HashMap::new(),
            modules: HashMap::new(),
        };
        for f in files {
            for s in f.projection.symbols.iter().filter(|s| callable(s.kind)) {
                index
                    .local
                    .entry((f.path, s.name.as_str()))
                    .or_default()
                    .push(s);
                index.global.entry(s.name.as_str()).or_default().push(s);
            }
            for key in module_keys(f.lang, f.path) {
                index
                    .modules
                    .entry((lang_family(f.lang), key))
                    .or_default()
                    .push(f.path);
            }
        }
        index
    }

    /// The one callable named `name` in the files of a module. A Go import
    /// path matches the longest suffix that names a directory of the workspace.
    fn in_module(&self, lang: Lang, key: &str, name: &str) -> Option<&'a ProjectedSymbol> {
        let family = lang_family(lang);
        let mut key = key;
        let files = loop {
            if let Some(files) = self.modules.get(&(family, key.to_string())) {
                break files;
            }
            match (family, key.split_once('/')) {
                (Lang::Go, Some((_, rest))) => key = rest,
                _ => return None,
            }
        };
        let mut found = files
            .iter()
            .filter_map(|p| self.local.get(&(*p, name)))
            .flatten();
        let first = found.next()?;
        found.next().is_none().then_some(*first)
    }

    fn resolve(&self, file: &FileView<'a>, call: &RawCall) -> Option<&'a ProjectedSymbol> {
        let name = call.name.as_str();
        let qualifier = call.qualifier.as_deref();
        let last_qualifier = qualifier.map(|q| q.rsplit(['.', ':']).next().unwrap_or(q));
        // 1. The same file.
        if let Some(local) = self.local.get(&(file.path, name)) {
            if local.len() == 1 {
                return Some(local[0]);
            }
            let same_container = |c: &str| local.iter().copied().find(|s| container_of(&s.id) == c);
            let by_qualifier = last_qualifier.and_then(|q| {
                local
                    .iter()
                    .copied()
                    .find(|s| container_of(&s.id).ends_with(q))
            });
            let by_self = match last_qualifier {
                Some("self" | "this" | "Self" | "cls") | None => {
                    same_container(container_of(&call.caller))
                }
                _ => None,
            };
            if let Some(s) = by_qualifier.or(by_self) {
                return Some(s);
            }
        }
        // 2. Imports: a name imported directly, or a module imported as the qualifier.
        for import in &file.projection.imports {
            if let Some(s) = self.through_import(file, import, name, qualifier) {
                return Some(s);
            }
        }
        // 3. A unique name in the whole repository.
        match self.global.get(name).map(Vec::as_slice) {
            Some([only]) => Some(*only),
            _ => None,
        }
    }

    fn through_import(
        &self,
        file: &FileView<'a>,
        import: &Import,
        name: &str,
        qualifier: Option<&str>,
    ) -> Option<&'a ProjectedSymbol> {
        let binding = import.binding.as_deref()?;
        let key = import_key(file.lang, file.path, &import.module)?;
        if qualifier.is_none() && binding == name {
            let original = import.name.as_deref().unwrap_or(name);
            return self.in_module(file.lang, &key, original);
        }
        if qualifier == Some(binding) {
            // `pkg.F()`, `mod.f()`, `ns.f()`, `module::f()`; in Python `from a import b` may bind a module.
            let module_key = match (&import.name, file.lang) {
                (Some(item), Lang::Python) => format!("{key}.{item}"),
                _ => key.clone(),
            };
            return self
                .in_module(file.lang, &module_key, name)
                .or_else(|| self.in_module(file.lang, &key, name));
        }
        None
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

/// Resolves every raw call and links tests, deterministically.
pub fn resolve(files: &[FileView<'_>]) -> Resolution {
    let index = Index::build(files);
    let mut out = Resolution::default();
    let mut test_ids: HashMap<&str, ()> = HashMap::new();
    for f in files {
        for s in &f.projection.symbols {
            if s.kind == SymbolKind::Test {
                test_ids.insert(s.id.as_str(), ());
            }
        }
    }
    for f in files {
        for call in &f.projection.calls {
            match index.resolve(f, call) {
                Some(callee) => {
                    if test_ids.contains_key(call.caller.as_str())
                        && callee.kind != SymbolKind::Test
                    {
                        out.test_of.push((call.caller.clone(), callee.id.clone()));
                    }
                    out.calls.push((
                        call.caller.clone(),
                        callee.id.clone(),
                        f.path.to_string(),
                        call.line,
                    ));
                }
                None => out.unresolved.push((
                    call.caller.clone(),
                    call.name.clone(),
                    f.path.to_string(),
                    call.line,
                )),
            }
        }
    }
    // Naming conventions: `test_parse_config` and `TestParseConfig` point at `parse_config` / `ParseConfig`.
    let mut by_normal_name: HashMap<String, Vec<&ProjectedSymbol>> = HashMap::new();
    for f in files {
        for s in f.projection.symbols.iter().filter(|s| callable(s.kind)) {
            by_normal_name
                .entry(s.name.to_ascii_lowercase().replace('_', ""))
                .or_default()
                .push(s);
        }
    }
    for f in files {
        for t in f
            .projection
            .symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::Test)
        {
            for candidate in tested_names(&t.name) {
                if let Some([only]) = by_normal_name.get(&candidate).map(Vec::as_slice) {
                    out.test_of.push((t.id.clone(), only.id.clone()));
                    break;
                }
            }
        }
    }
    out.calls.sort();
    out.calls.dedup();
    out.unresolved.sort();
    out.unresolved.dedup();
    out.test_of.sort();
    out.test_of.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_keys_follow_each_languages_rules() {
        assert_eq!(
            import_key(Lang::Python, "pkg/sub/mod.py", ".models").as_deref(),
            Some("pkg.sub.models")
        );
        assert_eq!(
            import_key(Lang::Python, "pkg/sub/mod.py", "..util").as_deref(),
            Some("pkg.util")
        );
        assert_eq!(
            import_key(Lang::Python, "a.py", "os.path").as_deref(),
            Some("os.path")
        );
        assert_eq!(
            import_key(Lang::TypeScript, "src/a/b.ts", "../c/d.js").as_deref(),
            Some("src/c/d")
        );
        assert_eq!(import_key(Lang::TypeScript, "src/a.ts", "react"), None);
        assert_eq!(
            import_key(Lang::Rust, "src/a.rs", "crate::world::lang").as_deref(),
            Some("lang")
        );
        assert!(module_keys(Lang::Python, "src/pkg/__init__.py").contains(&"pkg".to_string()));
        assert!(
            module_keys(Lang::TypeScript, "src/util/index.ts").contains(&"src/util".to_string())
        );
    }

    #[test]
    fn test_names_point_at_their_subjects() {
        assert_eq!(
            tested_names("test_parse_config"),
            vec!["parseconfig", "parse"]
        );
        assert_eq!(tested_names("TestParseConfig"), vec!["parseconfig"]);
        assert_eq!(
            tested_names("TestParse_errors"),
            vec!["parseerrors", "parse"]
        );
    }
}
