//! Python: pytest under coverage.py with one dynamic context per test
//! function (`dynamic_context = test_function`), read back from the SQLite
//! data file coverage.py wrote (tables `file`, `context`, `line_bits`).
//! Knows nothing about the store.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{add_lines, finish, tail, Collected, Holders, Observed, Session};
use crate::config::IndexConfig;

/// What to install when coverage.py or pytest is missing.
const HINT: &str = "pip install coverage pytest (into the interpreter the tests run with: [index] coverage_python)";

/// pytest's exit status when it collected no test at all.
const NO_TESTS: i32 = 5;

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
    // Paths are recorded relative to the workspace, and only its own code is measured.
    let settings = format!(
        "[run]\ndynamic_context = test_function\nrelative_files = True\nsource = .\ndata_file = {}\n",
        data.display()
    );
    std::fs::write(&rc, settings).map_err(|e| format!("cannot write the coverage settings: {e}"))?;
    let mut argv: Vec<OsString> = vec![python.clone(), "-m".into(), "coverage".into(), "run".into()];
    argv.push(format!("--rcfile={}", rc.display()).into());
    argv.extend(["-m", "pytest", "-q", "-p", "no:cacheprovider"].map(OsString::from));
    argv.extend(config.coverage_pytest_args.iter().map(OsString::from));
    let finished = session.exec(argv, root, &[("PYTHONPATH", python_path(root))])?;
    if finished.code == Some(NO_TESTS) {
        return Err("pytest collected no tests".into());
    }
    if !data.is_file() {
        return Err(format!("coverage.py wrote no data (exit {:?}): {}", finished.code, tail(&finished)));
    }
    let mut observed = read(&data, root, holders).map_err(|e| format!("unreadable coverage data: {e}"))?;
    if observed.tests == 0 {
        return Err(format!(
            "no test of the workspace was seen to run (exit {:?}; do the tests import an installed copy?): {}",
            finished.code,
            tail(&finished)
        ));
    }
    if !matches!(finished.code, Some(0) | Some(1)) {
        observed.note = Some(format!("pytest exited with {:?}: {}", finished.code, tail(&finished)));
    }
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
/// the workspace's code rather than an installed copy of it.
fn python_path(root: &Path) -> OsString {
    let mut parts: Vec<PathBuf> = Vec::new();
    if root.join("src").is_dir() {
        parts.push(root.join("src"));
    }
    if let Some(existing) = std::env::var_os("PYTHONPATH") {
        parts.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(parts).unwrap_or_default()
}

/// Reads coverage.py's data file: per context (a test function, by its
/// module and qualified name), the lines executed per file.
fn read(data: &Path, root: &Path, holders: &Holders<'_>) -> Result<Observed, rusqlite::Error> {
    use rusqlite::OpenFlags;
    // Written by confined code: read-only, and nothing in its schema trusted.
    let conn = rusqlite::Connection::open_with_flags(data, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.pragma_update(None, "trusted_schema", "OFF")?;
    let tests = test_keys(holders);
    let mut files: HashMap<i64, String> = HashMap::new();
    let root_prefix = format!("{}/", root.display());
    for row in conn.prepare("SELECT id, path FROM file")?.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))? {
        let (id, path): (i64, String) = row?;
        let path = path.strip_prefix(&root_prefix).unwrap_or(&path).trim_start_matches("./").to_string();
        files.insert(id, path);
    }
    let mut contexts: HashMap<i64, &[&str]> = HashMap::new();
    for row in conn.prepare("SELECT id, context FROM context")?.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))? {
        let (id, name): (i64, String) = row?;
        if let Some(ids) = tests.get(name.as_str()) {
            contexts.insert(id, ids.as_slice());
        }
    }
    let mut covers = Vec::new();
    let mut ran = std::collections::HashSet::new();
    let mut stmt = conn.prepare("SELECT file_id, context_id, numbits FROM line_bits")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let (file, context): (i64, i64) = (r.get(0)?, r.get(1)?);
        let (Some(path), Some(ids)) = (files.get(&file), contexts.get(&context)) else { continue };
        let bits: Vec<u8> = r.get(2)?;
        let lines: Vec<u32> = numbits(&bits).collect();
        for test in ids.iter() {
            ran.insert(*test);
            add_lines(holders, test, path, lines.iter().copied(), &mut covers);
        }
    }
    Ok(Observed { tests: ran.len(), covers: finish(covers), note: None })
}

/// The lines a coverage.py `numbits` blob holds: bit `i` of byte `j` is line `8j + i`.
fn numbits(bits: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bits.iter()
        .enumerate()
        .flat_map(|(j, byte)| (0..8u32).filter(move |i| byte & (1 << i) != 0).map(move |i| j as u32 * 8 + i))
}

/// The names coverage.py may give each test's context (`module.Class.test`,
/// where `module` is the file's dotted path or any tail of it, as pytest's
/// import modes name it) and the test symbols each may mean.
fn test_keys<'a>(holders: &Holders<'a>) -> HashMap<String, Vec<&'a str>> {
    let mut keys: HashMap<String, Vec<&str>> = HashMap::new();
    for (path, tests) in &holders.tests {
        let Some(module) = path.strip_suffix(".py") else { continue };
        let parts: Vec<&str> = module.split('/').collect();
        for start in 0..parts.len() {
            let module = parts[start..].join(".");
            for test in tests {
                keys.entry(format!("{module}.{}", test.qualified)).or_default().push(test.id);
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbits_read_as_coverage_py_writes_them() {
        // Lines 1, 3 and 10: byte 0 holds bits 1 and 3, byte 1 bit 2.
        assert_eq!(numbits(&[0b0000_1010, 0b0000_0100]).collect::<Vec<_>>(), vec![1, 3, 10]);
        assert_eq!(numbits(&[]).count(), 0);
    }
}
