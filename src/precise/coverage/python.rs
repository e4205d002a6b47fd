//! Python: pytest under coverage.py, with nerd's pytest plugin
//! (`pytest_contexts.py`) naming one context per test (its fixtures included)
//! and one per test module's loading, read back from the SQLite data file
//! coverage.py wrote (tables `file`, `context`, `line_bits`). What a module's
//! loading ran counts for each of its tests that ran. Knows nothing about the store.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{add_lines, finish, tail, Collected, Holders, Observed, Session};
use crate::config::IndexConfig;

/// What to install when coverage.py or pytest is missing.
const HINT: &str = "pip install coverage pytest (into the interpreter the tests run with: [index] coverage_python)";

/// pytest's exit status when it collected no test at all.
const NO_TESTS: i32 = 5;

/// The plugin that names the contexts, loaded by its module name from scratch.
const PLUGIN: &str = include_str!("pytest_contexts.py");
const PLUGIN_MODULE: &str = "nerd_pytest_contexts";

pub(super) fn collect(session: &Session<'_>, config: &IndexConfig, holders: &Holders<'_>) -> Result<Collected, String> {
    let root = session.runner.root;
    let python = interpreter(root, config);
    for module in ["coverage", "pytest"] {
        let argv = vec![python.clone(), "-m".into(), module.into(), "--version".into()];
        if !session.probe(argv, root) {
            return Ok(Collected::Missing(format!(
                "{module} is not installed for {}: {HINT}",
                python.to_string_lossy()
            )));
        }
    }
    let scratch = session.runner.scratch;
    let data = scratch.join("coverage.db");
    let rc = scratch.join("coveragerc");
    // Paths are recorded relative to the workspace, and only its own code is
    // measured; the plugin, not coverage.py's `dynamic_context`, names contexts.
    let settings = format!("[run]\nrelative_files = True\nsource = .\ndata_file = {}\n", data.display());
    std::fs::write(&rc, settings).map_err(|e| format!("cannot write the coverage settings: {e}"))?;
    let plugins = scratch.join("plugins");
    std::fs::create_dir_all(&plugins)
        .and_then(|()| std::fs::write(plugins.join(format!("{PLUGIN_MODULE}.py")), PLUGIN))
        .map_err(|e| format!("cannot write nerd's pytest plugin: {e}"))?;
    let mut argv: Vec<OsString> = vec![python.clone(), "-m".into(), "coverage".into(), "run".into()];
    argv.push(format!("--rcfile={}", rc.display()).into());
    argv.extend(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", PLUGIN_MODULE].map(OsString::from));
    argv.extend(config.coverage_pytest_args.iter().map(OsString::from));
    let finished = session.exec(argv, root, &[("PYTHONPATH", python_path(root, &plugins))])?;
    if finished.code == Some(NO_TESTS) {
        return Err("pytest collected no tests".into());
    }
    if !data.is_file() {
        return Err(format!("coverage.py wrote no data (exit {:?}): {}", finished.code, tail(&finished)));
    }
    let (mut observed, unmatched) = read(&data, root, holders).map_err(|e| format!("unreadable coverage data: {e}"))?;
    if observed.tests == 0 {
        return Err(format!(
            "no test of the workspace was seen to run (exit {:?}; do the tests import an installed copy?): {}",
            finished.code,
            tail(&finished)
        ));
    }
    let mut notes = Vec::new();
    if !matches!(finished.code, Some(0) | Some(1)) {
        notes.push(format!("pytest exited with {:?}: {}", finished.code, tail(&finished)));
    }
    if unmatched > 0 {
        notes.push(format!("{unmatched} tests that ran are not test symbols of the index"));
    }
    observed.note = (!notes.is_empty()).then(|| notes.join("; "));
    Ok(Collected::Ran(observed))
}

/// The interpreter the tests run with: the configured one, else the
/// workspace's virtual environment, else `python3` on PATH.
fn interpreter(root: &Path, config: &IndexConfig) -> OsString {
    if let Some(p) = &config.coverage_python {
        return p.into();
    }
    [".venv/bin/python", "venv/bin/python"]
        .iter()
        .map(|v| root.join(v))
        .find(|p| p.is_file())
        .map_or_else(|| OsString::from("python3"), PathBuf::into_os_string)
}

/// `PYTHONPATH` with a `src/` layout's folder first, so that the tests import
/// the workspace's code rather than an installed copy of it, then nerd's plugins.
fn python_path(root: &Path, plugins: &Path) -> OsString {
    let mut parts: Vec<PathBuf> = Vec::new();
    if root.join("src").is_dir() {
        parts.push(root.join("src"));
    }
    parts.push(plugins.to_path_buf());
    if let Some(existing) = std::env::var_os("PYTHONPATH") {
        parts.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(parts).unwrap_or_default()
}

/// What one coverage.py context names: a test, or a test module's loading.
#[derive(Debug, PartialEq, Eq)]
enum Context<'a> {
    /// A test symbol of the index.
    Test(&'a str),
    /// A test that is no test symbol (a doctest, a test the index does not see).
    Unmatched,
    /// The loading of the test module at this workspace-relative path.
    Loading(String),
}

/// Reads a context name the plugin wrote: `test:PATH::Class::name[id]` or
/// `load:PATH`; anything else (the empty context) is `None`.
fn context<'a>(name: &str, holders: &Holders<'a>) -> Option<Context<'a>> {
    if let Some(path) = name.strip_prefix("load:") {
        return Some(Context::Loading(path.to_string()));
    }
    let (path, name) = name.strip_prefix("test:")?.split_once("::")?;
    // A parametrised test's id follows its name in brackets.
    let qualified = name.split('[').next().unwrap_or(name).replace("::", ".");
    let test = holders.tests.get(path).and_then(|tests| tests.iter().find(|t| t.qualified == qualified));
    Some(test.map_or(Context::Unmatched, |t| Context::Test(t.id)))
}

/// Reads coverage.py's data file: the lines each test executed, and what its
/// module's loading executed. Returns the links and how many tests that ran
/// are no test symbol.
fn read(data: &Path, root: &Path, holders: &Holders<'_>) -> Result<(Observed, usize), rusqlite::Error> {
    use rusqlite::OpenFlags;
    // Written by confined code: read-only, and nothing in its schema trusted.
    let conn = rusqlite::Connection::open_with_flags(data, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.pragma_update(None, "trusted_schema", "OFF")?;
    let mut files: HashMap<i64, String> = HashMap::new();
    let root_prefix = format!("{}/", root.display());
    for row in conn.prepare("SELECT id, path FROM file")?.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))? {
        let (id, path): (i64, String) = row?;
        let path = path.strip_prefix(&root_prefix).unwrap_or(&path).trim_start_matches("./").to_string();
        files.insert(id, path);
    }
    let mut contexts = HashMap::new();
    let mut unmatched = 0;
    for row in conn.prepare("SELECT id, context FROM context")?.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))? {
        let (id, name): (i64, String) = row?;
        match context(&name, holders) {
            Some(Context::Unmatched) => unmatched += 1,
            Some(c) => {
                contexts.insert(id, c);
            }
            None => {}
        }
    }
    let mut covers = Vec::new();
    let mut ran = BTreeSet::new();
    // Per test module, the lines its loading executed, per file.
    let mut loading: HashMap<&str, Vec<(&str, Vec<u32>)>> = HashMap::new();
    let mut stmt = conn.prepare("SELECT file_id, context_id, numbits FROM line_bits")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (file, context): (i64, i64) = (r.get(0)?, r.get(1)?);
        let (Some(path), Some(context)) = (files.get(&file), contexts.get(&context)) else { continue };
        let bits: Vec<u8> = r.get(2)?;
        let lines: Vec<u32> = numbits(&bits).collect();
        match context {
            Context::Test(test) => {
                ran.insert(*test);
                add_lines(holders, test, path, lines, &mut covers);
            }
            Context::Loading(module) => loading.entry(module.as_str()).or_default().push((path.as_str(), lines)),
            Context::Unmatched => {}
        }
    }
    // What a test module's loading ran (a table built at import, a helper a
    // decorator calls) breaks each of its tests when it breaks.
    for test in &ran {
        let module = test.split_once('#').map_or(*test, |(path, _)| path);
        for (path, lines) in loading.get(module).into_iter().flatten() {
            add_lines(holders, test, path, lines.iter().copied(), &mut covers);
        }
    }
    Ok((Observed { tests: ran.len(), covers: finish(covers), note: None }, unmatched))
}

/// The lines a coverage.py `numbits` blob holds: bit `i` of byte `j` is line `8j + i`.
fn numbits(bits: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bits.iter()
        .enumerate()
        .flat_map(|(j, byte)| (0..8u32).filter(move |i| byte & (1 << i) != 0).map(move |i| j as u32 * 8 + i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::lang::Lang;
    use crate::world::project::{FileProjection, ProjectedSymbol};
    use nerd_logic::vocab::SymbolKind;
    use std::collections::BTreeMap;

    #[test]
    fn the_plugin_s_contexts_name_tests_and_test_modules_loading() {
        let symbols = ["tests/test_cli.py#test_echo", "tests/test_cli.py#TestGroup.test_add"]
            .map(|id| ProjectedSymbol::spanning(id, SymbolKind::Test, 1, 2, 0))
            .to_vec();
        let projections = BTreeMap::from([(
            "tests/test_cli.py".to_string(),
            (Lang::Python, FileProjection { symbols, ..Default::default() }),
        )]);
        let holders = Holders::new(&projections);
        let read = |name: &str| context(name, &holders);
        assert_eq!(read("test:tests/test_cli.py::test_echo"), Some(Context::Test("tests/test_cli.py#test_echo")));
        // A class's test, parametrised (the id may hold `::` and dots).
        assert_eq!(
            read("test:tests/test_cli.py::TestGroup::test_add[a::b-1.5]"),
            Some(Context::Test("tests/test_cli.py#TestGroup.test_add"))
        );
        assert_eq!(read("load:tests/test_cli.py"), Some(Context::Loading("tests/test_cli.py".into())));
        // A test the index does not see, a doctest, another file: counted, never guessed.
        assert_eq!(read("test:tests/test_cli.py::test_gone"), Some(Context::Unmatched));
        assert_eq!(read("test:src/cli.py::cli.echo"), Some(Context::Unmatched));
        // The empty context (conftest, session fixtures) and anything else: nothing.
        assert_eq!(read(""), None);
        assert_eq!(read("tests.test_cli.test_echo"), None);
    }

    #[test]
    fn numbits_read_as_coverage_py_writes_them() {
        // Lines 1, 3 and 10: byte 0 holds bits 1 and 3, byte 1 bit 2.
        assert_eq!(numbits(&[0b0000_1010, 0b0000_0100]).collect::<Vec<_>>(), vec![1, 3, 10]);
        assert_eq!(numbits(&[]).count(), 0);
    }
}
