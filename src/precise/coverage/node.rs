//! TypeScript: the project's own test runner, vitest or jest, run once with
//! nerd's setup file added to the project's own configuration. Around each
//! test the setup file (`coverage-core.cjs`, loaded by `vitest-setup.mjs` or
//! `jest-setup.cjs`) takes V8's function coverage and maps each function that
//! ran through its module's source map to the line it starts on; what runs
//! while a test file loads counts for each test of that file. vitest tests map
//! to their symbols by file and line (the task's location), else by title;
//! jest tests by the title that ends their full name.
//! Knows nothing about the store.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{add_lines, finish, tail, Collected, Executed, Holders, Observed, Session, TestAt};
use crate::check::tools::{node_bin, node_runner};
use crate::config::Tool;

/// nerd's scripts, written to the scratch folder for each run.
const CORE: &str = include_str!("coverage-core.cjs");
const VITEST_SETUP: &str = include_str!("vitest-setup.mjs");
const JEST_SETUP: &str = include_str!("jest-setup.cjs");

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

/// The runner a workspace's TypeScript tests run with (its `package.json`
/// says), `None` without a manifest.
pub(super) fn runner(root: &Path) -> Option<Tool> {
    let manifest = root.join("package.json");
    manifest.is_file().then(|| node_runner(&manifest))
}

/// Runs the workspace's tests under `runner` (vitest or jest) with nerd's setup file.
pub(super) fn collect(session: &Session<'_>, holders: &Holders<'_>, runner: Tool) -> Result<Collected, String> {
    let root = session.runner.root;
    let name = runner.name();
    if !matches!(runner, Tool::Vitest | Tool::Jest) {
        return Ok(Collected::Missing(format!(
            "the tests run with {name}; nerd observes TypeScript tests under vitest or jest"
        )));
    }
    let bin = node_bin(root, name);
    if !session.probe(vec![bin.clone(), "--version".into()], root) {
        return Ok(Collected::Missing(format!(
            "npm install --save-dev {name} (the workspace's own node_modules, or {name} on PATH)"
        )));
    }
    let scratch = session.runner.scratch;
    let records = scratch.join("coverage-records");
    std::fs::create_dir_all(&records).map_err(|e| format!("cannot make a folder for the records: {e}"))?;
    let core = scratch.join("nerd-coverage-core.cjs");
    std::fs::write(&core, CORE).map_err(|e| format!("cannot write the coverage core: {e}"))?;
    let argv = match runner {
        Tool::Jest => jest_argv(session, bin)?,
        _ => vitest_argv(root, scratch, bin)?,
    };
    // vite and jest name modules by their real paths.
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let env = [
        ("NERD_COVERAGE_OUT", records.clone().into_os_string()),
        ("NERD_COVERAGE_ROOT", real_root.clone().into()),
        ("NERD_COVERAGE_CORE", core.into_os_string()),
    ];
    let finished = session.exec(argv, root, &env)?;
    let read = read_records(&records).map_err(|e| format!("unreadable coverage records: {e}"))?;
    if let Some(error) = &read.error {
        return Err(format!("the setup file could not take coverage: {error}"));
    }
    let (mut observed, unmatched) = observe(&read, &real_root, holders);
    if observed.tests == 0 {
        let workspace = ["vitest.workspace.ts", "vitest.workspace.mts", "vitest.workspace.js", "vitest.workspace.mjs"]
            .into_iter()
            .find(|f| runner == Tool::Vitest && root.join(f).is_file())
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
        notes.push(format!("{name} exited with {:?}: {}", finished.code, tail(&finished)));
    }
    if read.unreadable > 0 {
        notes.push(format!("{} record lines could not be read", read.unreadable));
    }
    if read.cut {
        notes.push(format!("records past {} MiB were not read", MAX_RECORD_BYTES >> 20));
    }
    if unmatched > 0 {
        notes.push(format!("{unmatched} tests that ran are not test symbols of the index (or not one alone)"));
    }
    observed.note = (!notes.is_empty()).then(|| notes.join("; "));
    Ok(Collected::Ran(observed))
}

/// `vitest run` with a config of nerd's that wraps the workspace's own.
fn vitest_argv(root: &Path, scratch: &Path, bin: OsString) -> Result<Vec<OsString>, String> {
    let setup = scratch.join("nerd-coverage-setup.mjs");
    std::fs::write(&setup, VITEST_SETUP).map_err(|e| format!("cannot write the setup file: {e}"))?;
    let config = scratch.join("nerd-vitest.config.mjs");
    let base = CONFIGS.iter().map(|name| root.join(name)).find(|p| p.is_file());
    std::fs::write(&config, wrapper(base.as_deref(), &setup, &scratch.join("vite")))
        .map_err(|e| format!("cannot write the vitest config: {e}"))?;
    Ok(vec![bin, "run".into(), "--config".into(), config.into_os_string(), "--reporter=dot".into()])
}

/// `jest` with nerd's setup file after the project's own: jest says what
/// those are (`--showConfig`, whatever file or key configures it), since a
/// setup file given on the command line replaces the configured ones.
fn jest_argv(session: &Session<'_>, bin: OsString) -> Result<Vec<OsString>, String> {
    let root = session.runner.root;
    let setup = session.runner.scratch.join("nerd-coverage-setup.cjs");
    std::fs::write(&setup, JEST_SETUP).map_err(|e| format!("cannot write the setup file: {e}"))?;
    let shown = session.exec(vec![bin.clone(), "--showConfig".into()], root, &[])?;
    if shown.code != Some(0) {
        return Err(format!("jest --showConfig failed: {}", tail(&shown)));
    }
    let mut setups = jest_setup_files(&shown.stdout)?;
    setups.push(setup);
    let mut argv: Vec<OsString> = vec![bin, "--ci".into(), "--coverage=false".into(), "--no-watchman".into()];
    argv.push("--setupFilesAfterEnv".into());
    argv.extend(setups.into_iter().map(PathBuf::into_os_string));
    Ok(argv)
}

/// The setup files (after the environment) of the one project jest's
/// `--showConfig` prints; several projects are not observed.
fn jest_setup_files(shown: &str) -> Result<Vec<PathBuf>, String> {
    #[derive(Deserialize)]
    struct Shown {
        configs: Vec<Project>,
    }
    #[derive(Deserialize)]
    struct Project {
        #[serde(default, rename = "setupFilesAfterEnv")]
        setup_files_after_env: Vec<PathBuf>,
    }
    let json = shown.find('{').map_or("", |at| &shown[at..]);
    let shown: Shown = serde_json::from_str(json).map_err(|e| format!("jest --showConfig printed no config: {e}"))?;
    match <[Project; 1]>::try_from(shown.configs) {
        Ok([project]) => Ok(project.setup_files_after_env),
        Err(configs) => Err(format!("jest runs {} projects; nerd observes a single-project jest only", configs.len())),
    }
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
    /// The test's title (vitest); absent for what ran between tests.
    #[serde(default)]
    test: Option<String>,
    /// The line the test is declared on (vitest).
    #[serde(default)]
    line: Option<u32>,
    /// The test's describe titles and its own, joined by spaces (jest).
    #[serde(default)]
    full: Option<String>,
    #[serde(default)]
    lines: BTreeMap<String, Vec<u32>>,
    /// The setup file could not start the inspector.
    #[serde(default)]
    error: Option<String>,
}

/// How a runner names a test that ran.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Named {
    /// vitest: its own title, and the line it is declared on.
    Title(String, Option<u32>),
    /// jest: its describe titles and its own, joined by spaces.
    Full(String),
}

/// What the records say, before tests are matched to symbols.
#[derive(Default)]
struct Records {
    /// Per test file (absolute, as the runner names it), what ran between its tests.
    loading: HashMap<String, Executed>,
    /// Each test that ran: its file, how the runner named it, and what it ran.
    tests: Vec<(String, Named, Executed)>,
    unreadable: usize,
    cut: bool,
    error: Option<String>,
}

/// Reads every record file the setup files wrote into `dir`, at most
/// `MAX_RECORD_BYTES` in all, counting the lines that do not parse.
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

/// Files one record: an error, a test that ran, or what ran between tests.
fn add(read: &mut Records, record: Record) {
    if let Some(error) = record.error {
        read.error.get_or_insert(error);
        return;
    }
    let Some(file) = record.file else { return };
    let lines: Executed = record.lines.into_iter().map(|(p, ls)| (p, ls.into_iter().collect())).collect();
    let named = match (record.test, record.full) {
        (Some(title), _) => Some(Named::Title(title, record.line)),
        (None, Some(full)) => Some(Named::Full(full)),
        (None, None) => None,
    };
    match named {
        Some(named) => read.tests.push((file, named, lines)),
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
    for (file, named, lines) in &read.tests {
        let symbol = file.strip_prefix(&prefix).and_then(|rel| match named {
            Named::Title(title, line) => test_symbol(holders, rel, title, *line),
            Named::Full(full) => test_named(holders, rel, full),
        });
        let Some(symbol) = symbol else {
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
    let titled = |t: &&TestAt<'a>| title_of(t) == title;
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

/// A test symbol's title: its name without the `~N` the index gives a repeated one.
fn title_of<'a>(test: &TestAt<'a>) -> &'a str {
    match test.qualified.rsplit_once('~') {
        Some((title, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => title,
        _ => test.qualified,
    }
}

/// The test symbol of `path` a jest test is: the one whose title ends the
/// test's full name (its describe titles and its own, joined by spaces), the
/// longest such title, and only if one symbol has it (a repeated title,
/// `title~N` in the index, cannot be told apart by name).
fn test_named<'a>(holders: &Holders<'a>, path: &str, full: &str) -> Option<&'a str> {
    let ends = |title: &str| full == title || full.strip_suffix(title).is_some_and(|rest| rest.ends_with(' '));
    let tests = holders.tests.get(path)?;
    let longest = tests.iter().map(title_of).filter(|t| ends(t)).max_by_key(|t| t.len())?;
    let mut with: Vec<&TestAt<'a>> = tests.iter().filter(|t| title_of(t) == longest).collect();
    match with.len() {
        1 => with.pop().map(|t| t.id),
        _ => None,
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
                symbol("test/cart.test.ts#ends~well", SymbolKind::Test, 22, 24),
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
        // A `~` in a title is the title's own; only `~N` marks a repeat.
        assert_eq!(at("ends~well", None), Some("test/cart.test.ts#ends~well"));
        assert_eq!(at("ends", None), None);
        assert_eq!(test_symbol(&holders, "test/other.test.ts", "sums", Some(6)), None);
    }

    #[test]
    fn a_jest_test_is_the_symbol_whose_title_ends_its_full_name_when_one_symbol_has_it() {
        let projections = projections();
        let holders = Holders::new(&projections);
        let named = |full: &str| test_named(&holders, "test/cart.test.ts", full);
        assert_eq!(named("nothing"), Some("test/cart.test.ts#nothing"));
        assert_eq!(named("cart totals nothing"), Some("test/cart.test.ts#nothing"));
        // A title only ends the name at a word: "something" is not "nothing".
        assert_eq!(named("something"), None);
        // "sums" and "sums~2" are two tests titled alike: no name tells them apart.
        assert_eq!(named("cart sums"), None);
        assert_eq!(test_named(&holders, "test/other.test.ts", "nothing"), None);
    }

    #[test]
    fn jest_says_which_setup_files_its_one_project_has() {
        let shown = "warning\n{\"configs\": [{\"rootDir\": \"/w\", \"setupFilesAfterEnv\": [\"/w/test/setup.ts\"]}], \"globalConfig\": {}}";
        assert_eq!(jest_setup_files(shown), Ok(vec![PathBuf::from("/w/test/setup.ts")]));
        assert_eq!(jest_setup_files("{\"configs\": [{}]}"), Ok(vec![]));
        assert!(jest_setup_files("{\"configs\": [{}, {}]}").unwrap_err().contains("2 projects"));
        assert!(jest_setup_files("no json").is_err());
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
            // jest's record names a test in full, with no line.
            r#"{"file":"/work/shop/test/cart.test.ts","full":"cart nothing","lines":{"src/cart.ts":[2]}}"#,
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
            ("test/cart.test.ts#nothing", "src/cart.ts#price"),
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
