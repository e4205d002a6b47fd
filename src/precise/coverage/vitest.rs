//! TypeScript: the project's own vitest, run once with nerd's setup file
//! (`vitest-setup.mjs`) added to the project's config. Around each test the
//! setup file takes V8's function coverage and maps each function that ran
//! through its module's source map to the line it starts on; what runs while
//! a test file loads counts for each test of that file. Tests map to their
//! symbols by file and line (vitest's task location), else by title.
//! Knows nothing about the store.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::Deserialize;

use super::{add_lines, finish, tail, Collected, Executed, Holders, Observed, Session, TestAt};
use crate::check::tools::{node_bin, node_runner};
use crate::config::Tool;

const HINT: &str = "npm install --save-dev vitest (the workspace's own node_modules, or vitest on PATH)";

/// nerd's setup file, written to the scratch folder for each run.
const SETUP: &str = include_str!("vitest-setup.mjs");

/// The config files vitest looks for, in its order.
const CONFIGS: [&str; 12] = [
    "vitest.config.ts",
    "vitest.config.mts",
    "vitest.config.cts",
    "vitest.config.js",
    "vitest.config.mjs",
    "vitest.config.cjs",
    "vite.config.ts",
    "vite.config.mts",
    "vite.config.cts",
    "vite.config.js",
    "vite.config.mjs",
    "vite.config.cjs",
];

/// The most bytes of records read back: a suite far larger than any seen
/// (zod's 1,432 tests write about 1 MB) is cut here, and says so.
const MAX_RECORD_BYTES: u64 = 256 << 20;

pub(super) fn collect(session: &Session<'_>, holders: &Holders<'_>) -> Result<Collected, String> {
    let root = session.runner.root;
    let manifest = root.join("package.json");
    if !manifest.is_file() {
        return Err("no package.json at the workspace root".into());
    }
    match node_runner(&manifest) {
        Tool::Vitest => {}
        other => {
            return Ok(Collected::Missing(format!(
                "the tests run with {}; nerd observes TypeScript tests under vitest only",
                other.name()
            )))
        }
    }
    let vitest = node_bin(root, "vitest");
    if !session.probe(vec![vitest.clone(), "--version".into()], root) {
        return Ok(Collected::Missing(HINT.to_string()));
    }
    let scratch = session.runner.scratch;
    let records = scratch.join("vitest-coverage");
    std::fs::create_dir_all(&records).map_err(|e| format!("cannot make a folder for the records: {e}"))?;
    let setup = scratch.join("nerd-coverage-setup.mjs");
    std::fs::write(&setup, SETUP).map_err(|e| format!("cannot write the setup file: {e}"))?;
    let config = scratch.join("nerd-vitest.config.mjs");
    let base = CONFIGS.iter().map(|name| root.join(name)).find(|p| p.is_file());
    std::fs::write(&config, wrapper(base.as_deref(), &setup, &scratch.join("vite")))
        .map_err(|e| format!("cannot write the vitest config: {e}"))?;
    // vite names modules by their real paths.
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let argv: Vec<OsString> =
        vec![vitest, "run".into(), "--config".into(), config.into_os_string(), "--reporter=dot".into()];
    let env =
        [("NERD_COVERAGE_OUT", records.clone().into_os_string()), ("NERD_COVERAGE_ROOT", real_root.clone().into())];
    let finished = session.exec(argv, root, &env)?;
    let read = read_records(&records).map_err(|e| format!("unreadable coverage records: {e}"))?;
    if let Some(error) = &read.error {
        return Err(format!("the setup file could not take coverage: {error}"));
    }
    let (mut observed, unmatched) = observe(&read, &real_root, holders);
    if observed.tests == 0 {
        let workspace = ["vitest.workspace.ts", "vitest.workspace.mts", "vitest.workspace.js", "vitest.workspace.mjs"]
            .into_iter()
            .find(|f| root.join(f).is_file())
            .map(|f| format!(" ({f} names projects nerd cannot add its setup file to; inline `test.projects` instead)"))
            .unwrap_or_default();
        return Err(format!(
            "no test of the workspace was seen to run{workspace} (exit {:?}): {}",
            finished.code,
            tail(&finished)
        ));
    }
    let mut notes = Vec::new();
    if !matches!(finished.code, Some(0) | Some(1)) {
        notes.push(format!("vitest exited with {:?}: {}", finished.code, tail(&finished)));
    }
    if read.unreadable > 0 {
        notes.push(format!("{} record lines could not be read", read.unreadable));
    }
    if read.cut {
        notes.push(format!("records past {} MiB were not read", MAX_RECORD_BYTES >> 20));
    }
    if unmatched > 0 {
        notes.push(format!("{unmatched} tests that ran are not test symbols of the index"));
    }
    observed.note = (!notes.is_empty()).then(|| notes.join("; "));
    Ok(Collected::Ran(observed))
}

/// The config vitest runs with: the workspace's own (imported, so that its
/// aliases, includes and plugins hold) with nerd's setup file added, test
/// locations on, its own coverage off, and vite's cache in the scratch folder.
fn wrapper(base: Option<&Path>, setup: &Path, cache: &Path) -> String {
    let literal = |p: &Path| serde_json::Value::from(p.to_string_lossy().into_owned()).to_string();
    let import = match base {
        Some(path) => format!(
            "import * as imported from {};\nconst loaded = imported.default;\n\
             const base = (typeof loaded === 'function' ? await loaded({{ command: 'serve', mode: 'test' }}) : await loaded) ?? {{}};\n",
            literal(path)
        ),
        None => "const base = {};\n".to_string(),
    };
    // Inline projects (`test.projects`) do not inherit the root's setup files: each gets nerd's too.
    format!(
        "// Written by nerd for `nerd index --coverage`.\n{import}\
         const list = (x) => (x == null ? [] : Array.isArray(x) ? x : [x]);\n\
         const observed = (test) => ({{ ...test, setupFiles: [...list(test?.setupFiles), {setup}], includeTaskLocation: true }});\n\
         const inline = (p) => p !== null && typeof p === 'object' && !Array.isArray(p);\n\
         const test = base.test ?? {{}};\n\
         const projects = Array.isArray(test.projects)\n  \
         ? {{ projects: test.projects.map((p) => (inline(p) ? {{ ...p, test: observed(p.test) }} : p)) }}\n  : {{}};\n\
         export default {{\n  ...base,\n  cacheDir: {cache},\n  test: {{\n    ...observed(test),\n    ...projects,\n    \
         watch: false,\n    coverage: {{ ...test.coverage, enabled: false }},\n  }},\n}};\n",
        cache = literal(cache),
        setup = literal(setup),
    )
}

/// One line the setup file wrote. Written by confined code: every field is checked before use.
#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    file: Option<String>,
    /// The test's title; absent for what ran between tests.
    #[serde(default)]
    test: Option<String>,
    /// The line the test is declared on.
    #[serde(default)]
    line: Option<u32>,
    #[serde(default)]
    lines: BTreeMap<String, Vec<u32>>,
    /// The setup file could not start the inspector.
    #[serde(default)]
    error: Option<String>,
}

/// What the records say, before tests are matched to symbols.
#[derive(Default)]
struct Records {
    /// Per test file (absolute, as vitest names it), what ran between its tests.
    loading: HashMap<String, Executed>,
    /// Each test that ran: its file, title, declared line, and what it ran.
    tests: Vec<(String, String, Option<u32>, Executed)>,
    unreadable: usize,
    cut: bool,
    error: Option<String>,
}

fn read_records(dir: &Path) -> std::io::Result<Records> {
    let mut read = Records::default();
    let mut budget = MAX_RECORD_BYTES;
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    files.sort();
    for path in files {
        let file = std::fs::File::open(&path)?;
        let size = file.metadata()?.len();
        if size > budget {
            read.cut = true;
        }
        let reader = BufReader::new(file.take(budget));
        budget = budget.saturating_sub(size);
        for line in reader.lines() {
            let Ok(line) = line else {
                read.unreadable += 1;
                continue;
            };
            match serde_json::from_str::<Record>(&line) {
                Ok(record) => add(&mut read, record),
                Err(_) => read.unreadable += 1,
            }
        }
        if budget == 0 {
            break;
        }
    }
    Ok(read)
}

fn add(read: &mut Records, record: Record) {
    if let Some(error) = record.error {
        read.error.get_or_insert(error);
        return;
    }
    let Some(file) = record.file else { return };
    let lines: Executed = record.lines.into_iter().map(|(p, ls)| (p, ls.into_iter().collect())).collect();
    match record.test {
        Some(title) => read.tests.push((file, title, record.line, lines)),
        None => {
            let loading = read.loading.entry(file).or_default();
            for (path, ls) in lines {
                loading.entry(path).or_default().extend(ls);
            }
        }
    }
}

/// `(test, symbol)` pairs for every test the records name that is a test
/// symbol, and how many tests that ran are none.
fn observe(read: &Records, root: &Path, holders: &Holders<'_>) -> (Observed, usize) {
    let prefix = format!("{}/", root.display());
    let mut covers = Vec::new();
    let mut ran = BTreeSet::new();
    let mut unmatched = 0;
    for (file, title, line, lines) in &read.tests {
        let Some(symbol) = file.strip_prefix(&prefix).and_then(|rel| test_symbol(holders, rel, title, *line)) else {
            unmatched += 1;
            continue;
        };
        ran.insert(symbol);
        let loading = read.loading.get(file);
        for (path, executed) in lines.iter().chain(loading.into_iter().flatten()) {
            add_lines(holders, symbol, path, executed.iter().copied(), &mut covers);
        }
    }
    (Observed { tests: ran.len(), covers: finish(covers), note: None }, unmatched)
}

/// The test symbol of `path` a vitest test is: the one declared on its line,
/// else the one with its title (a repeated title is `title~N` in the index),
/// nearest to its line when there are several.
fn test_symbol<'a>(holders: &Holders<'a>, path: &str, title: &str, line: Option<u32>) -> Option<&'a str> {
    let tests = holders.tests.get(path)?;
    let titled = |t: &&TestAt<'a>| {
        t.qualified == title || t.qualified.strip_prefix(title).is_some_and(|rest| rest.starts_with('~'))
    };
    let on_line: Vec<&TestAt<'a>> = tests.iter().filter(|t| Some(t.line) == line).collect();
    match on_line[..] {
        [one] => return Some(one.id),
        [_, _, ..] => {
            let both: Vec<_> = on_line.into_iter().filter(titled).collect();
            return (both.len() == 1).then(|| both[0].id);
        }
        [] => {}
    }
    let same: Vec<&TestAt<'a>> = tests.iter().filter(titled).collect();
    match (same.len(), line) {
        (0, _) => None,
        (1, _) => Some(same[0].id),
        (_, Some(line)) => same.into_iter().min_by_key(|t| t.line.abs_diff(line)).map(|t| t.id),
        (_, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::lang::Lang;
    use crate::world::project::{FileProjection, ProjectedSymbol};
    use nerd_logic::vocab::SymbolKind;

    fn projections() -> BTreeMap<String, (Lang, FileProjection)> {
        let symbol = |id: &str, kind, line, end_line| ProjectedSymbol::spanning(id, kind, line, end_line, 0);
        let cart = FileProjection {
            symbols: vec![
                symbol("src/cart.ts#price", SymbolKind::Function, 1, 3),
                symbol("src/cart.ts#table", SymbolKind::Function, 5, 7),
            ],
            ..Default::default()
        };
        let tests = FileProjection {
            symbols: vec![
                symbol("test/cart.test.ts#sums", SymbolKind::Test, 6, 9),
                symbol("test/cart.test.ts#sums~2", SymbolKind::Test, 13, 15),
                symbol("test/cart.test.ts#nothing", SymbolKind::Test, 18, 20),
            ],
            ..Default::default()
        };
        BTreeMap::from([
            ("src/cart.ts".to_string(), (Lang::TypeScript, cart)),
            ("test/cart.test.ts".to_string(), (Lang::TypeScript, tests)),
        ])
    }

    #[test]
    fn a_test_is_the_symbol_on_its_line_else_the_one_with_its_title() {
        let projections = projections();
        let holders = Holders::new(&projections);
        let at = |title: &str, line| test_symbol(&holders, "test/cart.test.ts", title, line);
        // The same title twice: the line tells them apart.
        assert_eq!(at("sums", Some(6)), Some("test/cart.test.ts#sums"));
        assert_eq!(at("sums", Some(13)), Some("test/cart.test.ts#sums~2"));
        // No location: a unique title still matches, a repeated one does not guess.
        assert_eq!(at("nothing", None), Some("test/cart.test.ts#nothing"));
        assert_eq!(at("sums", None), None);
        // A line off by some (a formatted title): the nearest with the title.
        assert_eq!(at("sums", Some(12)), Some("test/cart.test.ts#sums~2"));
        assert_eq!(at("renamed", Some(30)), None);
        assert_eq!(test_symbol(&holders, "test/other.test.ts", "sums", Some(6)), None);
    }

    #[test]
    fn records_become_links_with_what_loading_ran_counted_for_every_test_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new("/work/shop");
        let lines = [
            // Loading the file ran `table`.
            r#"{"file":"/work/shop/test/cart.test.ts","lines":{"src/cart.ts":[5]}}"#,
            r#"{"file":"/work/shop/test/cart.test.ts","test":"sums","line":6,"lines":{"src/cart.ts":[1],"test/cart.test.ts":[6]}}"#,
            "not json",
            r#"{"file":"/work/shop/test/cart.test.ts","test":"sums","line":13,"lines":{}}"#,
            // A file outside the workspace, and a test the index does not know.
            r#"{"file":"/elsewhere/x.test.ts","test":"sums","line":6,"lines":{"src/cart.ts":[1]}}"#,
            r#"{"file":"/work/shop/test/cart.test.ts","test":"dynamic","line":40,"lines":{"src/cart.ts":[1]}}"#,
            r#"{"file":"/work/shop/test/cart.test.ts","test":"nothing","line":18,"lines":{"src/cart.ts":[99]}}"#,
        ];
        std::fs::write(dir.path().join("1-0.jsonl"), lines.join("\n")).unwrap();
        std::fs::create_dir(dir.path().join("not-a-file")).unwrap();
        let records = read_records(dir.path()).unwrap();
        assert_eq!((records.unreadable, records.cut, records.error.is_none()), (1, false, true));
        let projections = projections();
        let holders = Holders::new(&projections);
        let (observed, unmatched) = observe(&records, root, &holders);
        assert_eq!((observed.tests, unmatched), (3, 2));
        let got: BTreeSet<(String, String)> = observed.covers.into_iter().collect();
        let want: BTreeSet<(String, String)> = [
            ("test/cart.test.ts#sums", "src/cart.ts#price"),
            ("test/cart.test.ts#sums", "src/cart.ts#table"),
            ("test/cart.test.ts#sums~2", "src/cart.ts#table"),
            ("test/cart.test.ts#nothing", "src/cart.ts#table"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_setup_file_that_could_not_start_says_why() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1-0.jsonl"), "{\"error\":\"inspector is not available\"}\n").unwrap();
        let records = read_records(dir.path()).unwrap();
        assert_eq!(records.error.as_deref(), Some("inspector is not available"));
    }

    #[test]
    fn the_wrapper_imports_the_workspace_config_and_adds_the_setup_file() {
        let with = wrapper(Some(Path::new("/w/vitest.config.ts")), Path::new("/s/setup.mjs"), Path::new("/s/vite"));
        assert!(with.contains("import * as imported from \"/w/vitest.config.ts\";"), "{with}");
        assert!(with.contains("setupFiles: [...list(test?.setupFiles), \"/s/setup.mjs\"]"), "{with}");
        assert!(with.contains("cacheDir: \"/s/vite\""), "{with}");
        let without = wrapper(None, Path::new("/s/a\"b.mjs"), Path::new("/s/vite"));
        assert!(!without.contains("import"), "{without}");
        // Paths are JSON string literals, so a quote in one cannot end the string.
        assert!(without.contains(r#""/s/a\"b.mjs""#), "{without}");
    }
}
