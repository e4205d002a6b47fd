//! Reads the workspace's manifests (`package.json`, `tsconfig.json`,
//! `Cargo.toml`) into what a bare import names: a TypeScript workspace
//! package by its name and `exports` (a package importing itself, or a
//! sibling in a monorepo), a tsconfig's `paths` aliases (`@/util` →
//! `src/util`), and the Rust crates the workspace itself defines. Answers
//! with workspace paths. Knows nothing about symbols or calls.

use std::path::Path;

use serde_json::Value;

use super::walk::{dir_of, join};

/// The file names read as manifests.
pub fn is_manifest(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let known = matches!(name, "package.json" | "jsconfig.json" | "Cargo.toml")
        || name.starts_with("tsconfig") && name.ends_with(".json");
    known && !path.split('/').any(|part| matches!(part, "node_modules" | "target" | "vendor"))
}

/// A manifest that could not be read or parsed; reported, never fatal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestProblem {
    pub path: String,
    pub message: String,
}

/// One workspace package: its folder, name, and the targets of each subpath.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Package {
    /// The package's folder, workspace-relative, `""` at the root.
    dir: String,
    name: String,
    /// `exports`: subpath pattern (`.`, `./v4`, `./locales/*`) → targets as written, every condition.
    exports: Patterns,
    /// `source`, `types`, `typings`, `module` and `main`: the root's targets without `exports`.
    entry: Vec<String>,
    /// Export conditions of this package that name a TypeScript source
    /// (`"@zod/source": "./src/index.ts"`): a compiler told about them reads
    /// the sources instead of published declarations.
    source_conditions: Vec<String>,
    /// The package's own tsconfig `outDir` and the source folder it is built
    /// from (`rootDir`, else the first `include` folder): a target in `dist/`
    /// names the source it was compiled from.
    built_from: Option<(String, String)>,
}

/// Patterns (`@/*`, `./v4`) with the targets each names, as written.
type Patterns = Vec<(String, Vec<String>)>;

/// One tsconfig's `paths`, with the folder its targets are relative to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Aliases {
    /// The folder of the tsconfig that applies them (its nearest files use them).
    dir: String,
    /// `baseUrl`, else the folder of the tsconfig that declared `paths`.
    base: String,
    paths: Patterns,
}

/// Every manifest of a workspace, parsed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifests {
    packages: Vec<Package>,
    aliases: Vec<Aliases>,
    /// Rust crates of the workspace.
    crates: Vec<RustCrate>,
}

/// One Rust package of the workspace with a library or binary target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct RustCrate {
    /// The package folder, workspace-relative.
    dir: String,
    /// The crate name as code writes it.
    name: String,
    /// `[lib] path`, when the root is not `src/lib.rs`.
    lib_path: Option<String>,
}

/// What one tsconfig declares, before `extends` is followed.
#[derive(Clone, Debug, Default)]
struct TsConfig {
    extends: Vec<String>,
    base_url: Option<String>,
    paths: Option<Patterns>,
    /// `outDir` and `rootDir` (else the first `include` folder), as written.
    out_dir: Option<String>,
    root_dir: Option<String>,
}

impl Manifests {
    /// Reads the manifests among `paths` (workspace-relative) under `root`.
    pub fn load<'p>(root: &Path, paths: impl IntoIterator<Item = &'p str>) -> (Manifests, Vec<ManifestProblem>) {
        let mut texts = Vec::new();
        let mut problems = Vec::new();
        for path in paths.into_iter().filter(|p| is_manifest(p)) {
            match std::fs::read_to_string(root.join(path)) {
                Ok(text) => texts.push((path.to_string(), text)),
                Err(e) => problems.push(ManifestProblem { path: path.to_string(), message: e.to_string() }),
            }
        }
        let (manifests, more) = Manifests::parse(&texts);
        problems.extend(more);
        (manifests, problems)
    }

    /// Parses manifests given as (workspace-relative path, text).
    pub fn parse(files: &[(String, String)]) -> (Manifests, Vec<ManifestProblem>) {
        let mut problems = Vec::new();
        let mut packages = Vec::new();
        let mut configs: Vec<(String, TsConfig)> = Vec::new();
        let mut crates = Vec::new();
        for (path, text) in files.iter().filter(|(p, _)| is_manifest(p)) {
            if path.rsplit('/').next() == Some("Cargo.toml") {
                match text.parse::<toml::Table>() {
                    Ok(table) => crates.extend(rust_crate(dir_of(path).to_string(), &table)),
                    Err(e) => problems.push(ManifestProblem { path: path.clone(), message: e.to_string() }),
                }
                continue;
            }
            let value = match serde_json::from_str::<Value>(&strip_jsonc(text)) {
                Ok(v) => v,
                Err(e) => {
                    problems.push(ManifestProblem { path: path.clone(), message: e.to_string() });
                    continue;
                }
            };
            let dir = dir_of(path).to_string();
            if path.rsplit('/').next() == Some("package.json") {
                if let Some(p) = package(dir, &value) {
                    packages.push(p);
                }
            } else {
                configs.push((path.clone(), tsconfig(&value)));
            }
        }
        for p in &mut packages {
            p.built_from = ["tsconfig.json", "tsconfig.build.json"].iter().find_map(|name| {
                let path = join(&p.dir, name);
                let (_, c) = configs.iter().find(|(q, _)| *q == path)?;
                Some((join("", c.out_dir.as_deref()?), join("", c.root_dir.as_deref()?)))
            });
        }
        let aliases = configs.iter().filter_map(|(path, _)| effective_aliases(path, &configs)).collect();
        (Manifests { packages, aliases, crates }, problems)
    }

    /// The export conditions that name TypeScript sources, over every package.
    pub fn source_conditions(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for c in self.packages.iter().flat_map(|p| &p.source_conditions) {
            if !out.contains(&c.as_str()) {
                out.push(c);
            }
        }
        out
    }

    /// Whether any `Cargo.toml` named a crate: then a crate name no manifest
    /// names is a dependency's.
    pub fn knows_rust_crates(&self) -> bool {
        !self.crates.is_empty()
    }

    /// Where the root file of the crate that code calls `name` may be, most
    /// likely first: its `[lib] path`, then `src/lib.rs` and `src/main.rs`.
    pub fn rust_crate_roots(&self, name: &str) -> Vec<String> {
        let Some(c) = self.crates.iter().find(|c| c.name == name) else { return Vec::new() };
        let mut roots: Vec<String> = c.lib_path.iter().map(|p| join(&c.dir, p)).collect();
        roots.extend(["src/lib.rs", "src/main.rs"].iter().map(|r| join(&c.dir, r)));
        roots
    }

    /// The workspace paths (extensions as written) a bare import `module` from
    /// the file `from` may name, most likely first: tsconfig aliases of the
    /// nearest tsconfig, then a workspace package of that name.
    pub fn bare_import(&self, from: &str, module: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(aliases) = self.nearest_aliases(from) {
            for (pattern, targets) in best_patterns(&aliases.paths, module) {
                for target in targets {
                    out.push(join(&aliases.base, &substitute(target, &pattern)));
                }
            }
        }
        if let Some((pkg, subpath)) = self.package_for(module) {
            for target in pkg.targets(&subpath) {
                let target = join("", &target);
                out.push(join(&pkg.dir, &target));
                let source = pkg.built_from.as_ref().and_then(|(built, from)| {
                    let rest = target.strip_prefix(built.as_str())?.strip_prefix('/')?;
                    Some(join(from, rest))
                });
                out.extend(source.map(|s| join(&pkg.dir, &s)));
            }
        }
        out
    }

    /// The tsconfig aliases that apply to a file: the deepest tsconfig folder holding it.
    fn nearest_aliases(&self, from: &str) -> Option<&Aliases> {
        self.aliases.iter().filter(|a| inside(from, &a.dir)).max_by_key(|a| a.dir.len())
    }

    /// The package a module specifier names, with the subpath in `./x` form.
    fn package_for(&self, module: &str) -> Option<(&Package, String)> {
        self.packages
            .iter()
            .filter_map(|p| {
                let rest = module.strip_prefix(p.name.as_str())?;
                match rest {
                    "" => Some((p, ".".to_string())),
                    r if r.starts_with('/') => Some((p, format!(".{r}"))),
                    _ => None,
                }
            })
            .max_by_key(|(p, _)| p.name.len())
    }
}

impl Package {
    /// The targets of a subpath, relative to the package folder.
    fn targets(&self, subpath: &str) -> Vec<String> {
        if !self.exports.is_empty() {
            return best_patterns(&self.exports, subpath)
                .into_iter()
                .flat_map(|(captured, targets)| targets.iter().map(move |t| substitute(t, &captured)))
                .collect();
        }
        if subpath == "." {
            let mut out = self.entry.clone();
            out.push("./index".to_string());
            return out;
        }
        vec![subpath.to_string()]
    }
}

/// The entries of a pattern list that match `key`, the most specific first,
/// each with what its `*` captured (`None` for an exact key).
fn best_patterns<'a>(patterns: &'a [(String, Vec<String>)], key: &str) -> Vec<(Option<String>, &'a [String])> {
    let mut matched: Vec<(usize, Option<String>, &[String])> = patterns
        .iter()
        .filter_map(|(pattern, targets)| match pattern.split_once('*') {
            None => (pattern == key).then_some((usize::MAX, None, targets.as_slice())),
            Some((prefix, suffix)) => {
                let middle = key.strip_prefix(prefix)?.strip_suffix(suffix)?;
                (key.len() >= prefix.len() + suffix.len())
                    .then(|| (prefix.len(), Some(middle.to_string()), targets.as_slice()))
            }
        })
        .collect();
    matched.sort_by_key(|m| std::cmp::Reverse(m.0));
    matched.into_iter().map(|(_, captured, targets)| (captured, targets)).collect()
}

fn substitute(target: &str, captured: &Option<String>) -> String {
    match captured {
        Some(middle) => target.replacen('*', middle, 1),
        None => target.to_string(),
    }
}

fn package(dir: String, value: &Value) -> Option<Package> {
    let name = value.get("name")?.as_str()?.to_string();
    let mut exports = Vec::new();
    match value.get("exports") {
        Some(Value::Object(map)) if map.keys().any(|k| k.starts_with('.')) => {
            for (subpath, target) in map.iter().filter(|(k, _)| k.starts_with('.')) {
                exports.push((subpath.clone(), condition_targets(target)));
            }
        }
        // A string, an array or a conditions object is the root's export.
        Some(other @ (Value::String(_) | Value::Array(_) | Value::Object(_))) => {
            exports.push((".".to_string(), condition_targets(other)));
        }
        _ => {}
    }
    let entry = ["source", "types", "typings", "module", "main"]
        .iter()
        .filter_map(|k| value.get(*k).and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    let mut source_conditions = Vec::new();
    if let Some(e) = value.get("exports") {
        collect_source_conditions(e, &mut source_conditions);
    }
    Some(Package { dir, name, exports, entry, source_conditions, built_from: None })
}

/// The condition names whose target is a TypeScript source, not a declaration.
fn collect_source_conditions(value: &Value, out: &mut Vec<String>) {
    const STANDARD: [&str; 8] = ["types", "import", "require", "default", "node", "browser", "module", "development"];
    let Value::Object(map) = value else { return };
    for (key, target) in map {
        if let Value::String(path) = target {
            let source = [".ts", ".tsx", ".mts", ".cts"].iter().any(|e| path.ends_with(e))
                && ![".d.ts", ".d.mts", ".d.cts"].iter().any(|e| path.ends_with(e));
            if source && !key.starts_with('.') && !STANDARD.contains(&key.as_str()) && !out.contains(key) {
                out.push(key.clone());
            }
        }
        collect_source_conditions(target, out);
    }
}

/// Every target a conditional export names, in the order written.
fn condition_targets(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(condition_targets).collect(),
        Value::Object(map) => map.values().flat_map(condition_targets).collect(),
        _ => Vec::new(),
    }
}

/// A `Cargo.toml`'s crate: named as Rust code names its library (`[lib]
/// name`, else the package name with `-` as `_`). A virtual workspace
/// manifest names none.
fn rust_crate(dir: String, table: &toml::Table) -> Option<RustCrate> {
    let lib = |key: &str| table.get("lib").and_then(|l| l.get(key)).and_then(toml::Value::as_str);
    let package = table.get("package").and_then(|p| p.get("name")).and_then(toml::Value::as_str);
    let name = lib("name").or(package)?.replace('-', "_");
    Some(RustCrate { dir, name, lib_path: lib("path").map(str::to_string) })
}

fn tsconfig(value: &Value) -> TsConfig {
    let extends = match value.get("extends") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let options = value.get("compilerOptions");
    let base_url = options.and_then(|o| o.get("baseUrl")).and_then(Value::as_str).map(str::to_string);
    let paths = options.and_then(|o| o.get("paths")).and_then(Value::as_object).map(|map| {
        map.iter()
            .map(|(k, v)| {
                let targets = match v {
                    Value::Array(items) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                    Value::String(s) => vec![s.clone()],
                    _ => Vec::new(),
                };
                (k.clone(), targets)
            })
            .collect()
    });
    let text = |key: &str| options.and_then(|o| o.get(key)).and_then(Value::as_str).map(str::to_string);
    let first_include = value
        .get("include")
        .and_then(Value::as_array)
        .and_then(|items| items.first())
        .and_then(Value::as_str)
        .map(|s| s.split('*').next().unwrap_or(s).trim_end_matches('/').to_string())
        .filter(|s| !s.is_empty());
    TsConfig { extends, base_url, paths, out_dir: text("outDir"), root_dir: text("rootDir").or(first_include) }
}

/// A tsconfig's `paths` after following `extends` through workspace files:
/// the nearest declaration of `paths` and of `baseUrl` wins, each relative to
/// the file that declared it.
fn effective_aliases(path: &str, configs: &[(String, TsConfig)]) -> Option<Aliases> {
    let mut paths: Option<(String, Patterns)> = None;
    let mut base: Option<String> = None;
    let mut current = path.to_string();
    for _ in 0..8 {
        let (_, config) = configs.iter().find(|(p, _)| *p == current)?;
        let here = dir_of(&current);
        if base.is_none() {
            base = config.base_url.as_deref().map(|b| join(here, b));
        }
        if paths.is_none() {
            paths = config.paths.clone().map(|p| (here.to_string(), p));
        }
        if paths.is_some() && base.is_some() {
            break;
        }
        // Only relative `extends` name workspace files; a package's config is outside.
        let Some(next) = config.extends.iter().find(|e| e.starts_with('.')) else { break };
        let next = join(here, next);
        current = if next.ends_with(".json") { next } else { format!("{next}.json") };
    }
    let (declared_in, paths) = paths?;
    Some(Aliases { dir: dir_of(path).to_string(), base: base.unwrap_or(declared_in), paths })
}

fn inside(path: &str, dir: &str) -> bool {
    dir.is_empty() || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

/// Drops `//` and `/* */` comments and trailing commas outside strings: tsconfig is JSON with comments.
fn strip_jsonc(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.get(i + 1) {
                    out.push(*next);
                    i += 1;
                }
            } else if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match (c, chars.get(i + 1)) {
            ('"', _) => {
                in_string = true;
                out.push(c);
                i += 1;
            }
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            (',', _) => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some('}' | ']')) {
                    out.push(c);
                }
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifests(files: &[(&str, &str)]) -> Manifests {
        let owned: Vec<(String, String)> = files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        let (m, problems) = Manifests::parse(&owned);
        assert!(problems.is_empty(), "{problems:?}");
        m
    }

    #[test]
    fn a_package_importing_itself_reaches_its_sources_through_every_export_condition() {
        let m = manifests(&[(
            "package.json",
            r#"{"name": "zod", "exports": {
                ".": {"@zod/source": "./src/index.ts", "types": "./index.d.cts", "import": "./index.js"},
                "./v4": {"@zod/source": "./src/v4/index.ts", "types": "./v4/index.d.cts"},
                "./v4/locales/*": {"@zod/source": "./src/v4/locales/*"},
                "./package.json": "./package.json"}}"#,
        )]);
        // Conditions are alternatives: which one names a source is the resolver's question.
        let set = |v: Vec<String>| v.into_iter().collect::<std::collections::BTreeSet<_>>();
        assert_eq!(
            set(m.bare_import("src/a.test.ts", "zod")),
            set(vec!["src/index.ts".into(), "index.d.cts".into(), "index.js".into()])
        );
        assert_eq!(
            set(m.bare_import("src/a.test.ts", "zod/v4")),
            set(vec!["src/v4/index.ts".into(), "v4/index.d.cts".into()])
        );
        assert_eq!(m.bare_import("x.ts", "zod/v4/locales/en.js"), ["src/v4/locales/en.js"]);
        // Not exported, another package, or a name that only shares a prefix: nothing.
        assert!(m.bare_import("x.ts", "zod/v5").is_empty());
        assert!(m.bare_import("x.ts", "react").is_empty());
        assert!(m.bare_import("x.ts", "zodiac").is_empty());
        assert_eq!(m.source_conditions(), ["@zod/source"]);
    }

    #[test]
    fn monorepo_siblings_resolve_by_name_and_entry_fields_without_exports() {
        let m = manifests(&[
            ("package.json", r#"{"name": "root", "private": true, "workspaces": ["packages/*"]}"#),
            (
                "packages/core/package.json",
                r#"{"name": "@acme/core", "types": "./src/index.ts", "main": "dist/index.js"}"#,
            ),
            ("packages/app/package.json", r#"{"name": "@acme/app", "exports": "./src/main.ts"}"#),
        ]);
        assert_eq!(
            m.bare_import("packages/app/src/main.ts", "@acme/core"),
            ["packages/core/src/index.ts", "packages/core/dist/index.js", "packages/core/index"]
        );
        assert_eq!(m.bare_import("x.ts", "@acme/core/src/money"), ["packages/core/src/money"]);
        assert_eq!(m.bare_import("x.ts", "@acme/app"), ["packages/app/src/main.ts"]);
        assert!(m.bare_import("x.ts", "@acme/app/other").is_empty(), "exports close the package");
    }

    #[test]
    fn a_target_in_the_build_output_also_names_the_source_it_is_built_from() {
        let m = manifests(&[
            ("libs/a/package.json", r#"{"name": "a", "main": "./dist/index.js"}"#),
            ("libs/a/tsconfig.json", r#"{"compilerOptions": {"outDir": "dist"}, "include": ["src/**/*"]}"#),
            ("libs/b/package.json", r#"{"name": "b", "exports": {".": "./out/main.js"}}"#),
            ("libs/b/tsconfig.json", r#"{"compilerOptions": {"outDir": "./out", "rootDir": "./lib"}}"#),
        ]);
        assert_eq!(m.bare_import("x.ts", "a"), ["libs/a/dist/index.js", "libs/a/src/index.js", "libs/a/index"]);
        assert_eq!(m.bare_import("x.ts", "b"), ["libs/b/out/main.js", "libs/b/lib/main.js"]);
    }

    #[test]
    fn tsconfig_paths_apply_to_the_files_under_that_tsconfig_through_extends_and_comments() {
        let m = manifests(&[
            (
                "tsconfig.base.json",
                "{\n // shared\n \"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@lib/*\": [\"libs/*/src\"], \"@/*\": [\"apps/web/src/*\",],},},\n}",
            ),
            ("apps/web/tsconfig.json", r#"{"extends": "../../tsconfig.base", /* own */ "compilerOptions": {"strict": true}}"#),
            ("apps/api/tsconfig.json", r#"{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}"#),
        ]);
        assert_eq!(m.bare_import("apps/web/src/page.ts", "@/util/date"), ["apps/web/src/util/date"]);
        assert_eq!(m.bare_import("apps/web/src/page.ts", "@lib/ui"), ["libs/ui/src"]);
        assert_eq!(m.bare_import("apps/api/src/server.ts", "~/db"), ["apps/api/src/db"]);
        // The api's own tsconfig has no `@/*`, and `~/*` is not the web's.
        assert!(m.bare_import("apps/api/src/server.ts", "@/util").is_empty());
        assert!(m.bare_import("apps/web/src/page.ts", "~/db").is_empty());
    }

    #[test]
    fn the_most_specific_pattern_wins_and_broken_manifests_are_reported() {
        let m = manifests(&[(
            "tsconfig.json",
            r#"{"compilerOptions": {"paths": {"*": ["types/*"], "@app/*": ["src/app/*"], "@app/config": ["src/config.ts"]}}}"#,
        )]);
        assert_eq!(m.bare_import("a.ts", "@app/config"), ["src/config.ts", "src/app/config", "types/@app/config"]);
        let (_, problems) = Manifests::parse(&[
            ("package.json".into(), "{ not json".into()),
            ("node_modules/x/package.json".into(), "{".into()),
        ]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].path, "package.json");
        assert!(!is_manifest("node_modules/x/tsconfig.json"));
        assert!(is_manifest("packages/a/tsconfig.build.json"));
        assert!(!is_manifest("src/data.json"));
    }

    #[test]
    fn rust_crates_are_named_as_code_writes_them() {
        let m = manifests(&[
            ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            ("crates/my-util/Cargo.toml", "[package]\nname = \"my-util\"\nversion = \"0.1.0\"\n"),
            ("crates/core/Cargo.toml", "[package]\nname = \"acme-core\"\n[lib]\nname = \"acme\"\n"),
            ("target/package/x/Cargo.toml", "[package]\nname = \"x\"\n"),
        ]);
        assert!(m.knows_rust_crates());
        assert_eq!(m.rust_crate_roots("my_util"), ["crates/my-util/src/lib.rs", "crates/my-util/src/main.rs"]);
        assert_eq!(m.rust_crate_roots("acme"), ["crates/core/src/lib.rs", "crates/core/src/main.rs"]);
        assert!(m.rust_crate_roots("acme_core").is_empty(), "[lib] name is what code writes");
        assert!(m.rust_crate_roots("serde").is_empty());
        assert!(m.rust_crate_roots("x").is_empty(), "build output is not the workspace");
        let m = manifests(&[("Cargo.toml", "[package]\nname = \"odd\"\n[lib]\npath = \"./lib/odd.rs\"\n")]);
        assert_eq!(m.rust_crate_roots("odd"), ["lib/odd.rs", "src/lib.rs", "src/main.rs"]);
    }

    #[test]
    fn comments_are_dropped_but_strings_that_look_like_comments_stay() {
        let text = "{\"a\": \"http://x/*y*/\", // c\n \"b\": [1, 2,], /* d */ \"c\": \"\\\"//\"}";
        let v: Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(v["a"], "http://x/*y*/");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
        assert_eq!(v["c"], "\"//");
    }
}
