//! `nerd index --coverage`: runs the project's own tests under a coverage
//! tool (coverage.py with per-test contexts for Python, one `go test -cover`
//! run per test for Go, LLVM source-based coverage per test for Rust, V8's
//! function coverage around each vitest or jest test for TypeScript) in the
//! sandbox, maps each test's executed lines to the
//! symbols that hold them, and stores `covers(Test, Symbol)` (provenance
//! `observed`). What the confined run wrote is read as untrusted data.
//! Knows nothing about the kernel's rules.

mod go;
mod node;
mod python;
mod rust;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

use nerd_logic::vocab::SymbolKind;

use super::Runner;
use crate::config::IndexConfig;
use crate::exec::{self, ExecError};
use crate::scratch::Scratch;
use crate::store::{Store, StoreError};
use crate::world::lang::Lang;
use crate::world::project::FileProjection;

/// A coverage tool nerd can run the tests under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Collector {
    /// coverage.py around pytest, one dynamic context per test function.
    CoveragePy,
    /// `go test -cover`, one run of the package's test binary per test.
    GoCover,
    /// `cargo test` built with `-C instrument-coverage`, one run per test.
    LlvmCov,
    /// vitest with nerd's setup file: V8's function coverage around each test.
    Vitest,
    /// jest with nerd's setup file, the same way.
    Jest,
}

impl Collector {
    pub const ALL: [Collector; 5] =
        [Collector::CoveragePy, Collector::GoCover, Collector::LlvmCov, Collector::Vitest, Collector::Jest];

    pub fn name(self) -> &'static str {
        match self {
            Collector::CoveragePy => "coverage.py",
            Collector::GoCover => "go test -cover",
            Collector::LlvmCov => "llvm-cov",
            Collector::Vitest => "vitest",
            Collector::Jest => "jest",
        }
    }

    pub fn lang(self) -> Lang {
        match self {
            Collector::CoveragePy => Lang::Python,
            Collector::GoCover => Lang::Go,
            Collector::LlvmCov => Lang::Rust,
            Collector::Vitest | Collector::Jest => Lang::TypeScript,
        }
    }
}

/// What one collector did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The tests ran; `tests` of them were seen to execute `links` symbols in all.
    Ran { tests: usize, links: usize, elapsed: Duration, note: Option<String> },
    /// The tool is not installed: what to install.
    Missing { hint: String },
    /// It could not run or wrote nothing readable; what was stored before stands.
    Failed { message: String },
}

/// What `nerd index --coverage` did, per collector of a language the workspace has.
#[derive(Debug, Default)]
pub struct CoverageReport {
    pub runs: Vec<(Collector, Outcome)>,
}

/// What one collector observed: `(test, symbol)` pairs over the tests that ran.
struct Observed {
    tests: usize,
    covers: Vec<(String, String)>,
    note: Option<String>,
}

/// What a collector returns: it ran, or its tool is missing.
enum Collected {
    Ran(Observed),
    Missing(String),
}

/// Runs the tests of every language the index holds under its coverage
/// tool and stores what each test executed.
pub fn run(
    root: &Path,
    store: &mut Store,
    config: &IndexConfig,
    secret_paths: &[String],
) -> Result<CoverageReport, StoreError> {
    let projections: BTreeMap<String, (Lang, FileProjection)> =
        store.projections(&|_| false, false)?.into_iter().map(|(p, l, proj)| (p, (l, proj))).collect();
    let holders = Holders::new(&projections);
    let mut report = CoverageReport::default();
    let has = |lang: Lang| projections.values().any(|(l, _)| l.family() == lang);
    // TypeScript tests run under one runner: jest's collector for jest, vitest's for any other.
    let node_runner = if has(Lang::TypeScript) { node::runner(root) } else { None };
    let jest = node_runner == Some(crate::config::Tool::Jest);
    for collector in Collector::ALL {
        let other_runner = match collector {
            Collector::Vitest => jest,
            Collector::Jest => !jest,
            _ => false,
        };
        if !has(collector.lang()) || other_runner {
            continue;
        }
        let scratch = match Scratch::new("coverage") {
            Ok(s) => s,
            Err(e) => {
                report
                    .runs
                    .push((collector, Outcome::Failed { message: format!("cannot make a scratch folder: {e}") }));
                continue;
            }
        };
        let timeout = Duration::from_secs(config.coverage_timeout_secs);
        let runner = Runner { root, scratch: scratch.path(), timeout, secret_paths };
        let session = Session { runner, deadline: Instant::now() + timeout };
        let started = Instant::now();
        let collected = match collector {
            Collector::CoveragePy => python::collect(&session, config, &holders),
            Collector::GoCover => go::collect(&session, &holders),
            Collector::LlvmCov => rust::collect(&session, &holders),
            Collector::Vitest | Collector::Jest => match node_runner {
                Some(runner) => node::collect(&session, &holders, runner),
                None => Ok(Collected::Missing("no package.json at the workspace root names the tests' runner".into())),
            },
        };
        let outcome = match collected {
            Ok(Collected::Ran(observed)) => {
                store.replace_coverage(collector.name(), observed.tests, &observed.covers)?;
                Outcome::Ran {
                    tests: observed.tests,
                    links: observed.covers.len(),
                    elapsed: started.elapsed(),
                    note: observed.note,
                }
            }
            Ok(Collected::Missing(hint)) => Outcome::Missing { hint },
            Err(message) => Outcome::Failed { message },
        };
        report.runs.push((collector, outcome));
    }
    Ok(report)
}

/// One collector's run: the confined runner and the time left to it.
struct Session<'a> {
    runner: Runner<'a>,
    deadline: Instant,
}

impl Session<'_> {
    /// Runs `argv` confined in `cwd` (workspace-relative), with `env` on top of
    /// the runner's, within the time left.
    fn exec(&self, argv: Vec<OsString>, cwd: &Path, env: &[(&str, OsString)]) -> Result<exec::Finished, String> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!("out of time ([index] coverage_timeout_secs = {})", self.runner.timeout.as_secs()));
        }
        let mut job = self.runner.job_in(argv, cwd);
        job.timeout = left;
        job.env.extend(env.iter().map(|(k, v)| (k.to_string(), v.clone())));
        match exec::run(&job) {
            Ok(f) if f.timed_out => {
                Err(format!("timed out ([index] coverage_timeout_secs = {})", self.runner.timeout.as_secs()))
            }
            Ok(f) => Ok(f),
            Err(ExecError::NotFound(p)) => Err(format!("{p} is not installed")),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Whether `argv` runs and exits 0.
    fn probe(&self, argv: Vec<OsString>, cwd: &Path) -> bool {
        self.exec(argv, cwd, &[]).is_ok_and(|f| f.code == Some(0))
    }
}

/// Which callable holds each line of each file, and which symbols are tests:
/// executed lines become `(test, symbol)` pairs through it.
struct Holders<'a> {
    /// Per file, per line (index), the innermost function or method there.
    lines: HashMap<&'a str, Vec<Option<&'a str>>>,
    /// Every test symbol, by file.
    tests: BTreeMap<&'a str, Vec<TestAt<'a>>>,
}

/// A test symbol: its id, its name within its file, and the line it is declared on.
struct TestAt<'a> {
    id: &'a str,
    qualified: &'a str,
    line: u32,
}

impl<'a> Holders<'a> {
    fn new(projections: &'a BTreeMap<String, (Lang, FileProjection)>) -> Self {
        let mut lines = HashMap::with_capacity(projections.len());
        let mut tests: BTreeMap<&str, Vec<TestAt<'_>>> = BTreeMap::new();
        for (path, (_, projection)) in projections {
            let mut callables: Vec<_> = projection.symbols.iter().filter(|s| s.kind.is_code()).collect();
            for t in projection.symbols.iter().filter(|s| s.kind == SymbolKind::Test) {
                let qualified = t.id.split_once('#').map_or(t.name.as_str(), |(_, q)| q);
                tests.entry(path.as_str()).or_default().push(TestAt { id: t.id.as_str(), qualified, line: t.line });
            }
            if callables.is_empty() {
                continue;
            }
            // Outer spans first, so that an inner definition's lines end up its own.
            callables.sort_by_key(|s| (s.depth, s.line));
            let end = callables.iter().map(|s| s.end_line as usize).max().unwrap_or(0);
            let mut holder: Vec<Option<&str>> = vec![None; end + 1];
            for s in callables {
                let (lo, hi) = (s.line as usize, (s.end_line as usize).min(end));
                for slot in holder.iter_mut().take(hi + 1).skip(lo) {
                    *slot = Some(s.id.as_str());
                }
            }
            lines.insert(path.as_str(), holder);
        }
        Holders { lines, tests }
    }

    /// The function or method holding `line` of `path`, if any.
    fn at(&self, path: &str, line: u32) -> Option<&'a str> {
        self.lines.get(path).and_then(|h| h.get(line as usize).copied().flatten())
    }

    /// Whether `id` is a test symbol (a test's own lines are not something it covers).
    fn is_test(&self, id: &str) -> bool {
        let path = id.split_once('#').map_or(id, |(p, _)| p);
        self.tests.get(path).is_some_and(|ts| ts.iter().any(|t| t.id == id))
    }
}

/// Adds `(test, holder)` for every executed line, leaving out tests' own lines.
fn add_lines<'a>(
    holders: &Holders<'a>,
    test: &str,
    path: &str,
    lines: impl IntoIterator<Item = u32>,
    out: &mut Vec<(String, String)>,
) {
    let mut last: Option<&str> = None;
    for line in lines {
        let Some(symbol) = holders.at(path, line) else { continue };
        if last == Some(symbol) || holders.is_test(symbol) {
            continue;
        }
        last = Some(symbol);
        out.push((test.to_string(), symbol.to_string()));
    }
}

/// Executed lines per workspace-relative file, in order.
type Executed = BTreeMap<String, std::collections::BTreeSet<u32>>;

/// Sorts `(test, symbol)` pairs and removes duplicates.
fn finish(mut covers: Vec<(String, String)>) -> Vec<(String, String)> {
    covers.sort_unstable();
    covers.dedup();
    covers
}

/// The last lines of what a failed program printed.
fn tail(finished: &exec::Finished) -> String {
    super::tail(&finished.stderr, &finished.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::project::ProjectedSymbol;

    fn symbol(id: &str, kind: SymbolKind, line: u32, end_line: u32, depth: u32) -> ProjectedSymbol {
        ProjectedSymbol::spanning(id, kind, line, end_line, depth)
    }

    #[test]
    fn executed_lines_map_to_the_innermost_callable_and_never_to_tests() {
        let mut projections = BTreeMap::new();
        let lib = FileProjection {
            symbols: vec![
                symbol("lib.py#Parser", SymbolKind::Class, 1, 20, 0),
                symbol("lib.py#Parser.parse", SymbolKind::Method, 3, 12, 1),
                symbol("lib.py#Parser.parse.inner", SymbolKind::Function, 5, 7, 2),
                symbol("lib.py#helper", SymbolKind::Function, 22, 25, 0),
            ],
            ..Default::default()
        };
        let tests = FileProjection {
            symbols: vec![symbol("test_lib.py#test_parse", SymbolKind::Test, 1, 4, 0)],
            ..Default::default()
        };
        projections.insert("lib.py".to_string(), (Lang::Python, lib));
        projections.insert("test_lib.py".to_string(), (Lang::Python, tests));
        let holders = Holders::new(&projections);
        let mut out = Vec::new();
        let test = "test_lib.py#test_parse";
        add_lines(&holders, test, "lib.py", [1, 2, 4, 6, 8, 21, 23, 99], &mut out);
        add_lines(&holders, test, "test_lib.py", [2, 3], &mut out);
        let got: std::collections::BTreeSet<(String, String)> = finish(out).into_iter().collect();
        let want: std::collections::BTreeSet<(String, String)> =
            ["lib.py#Parser.parse", "lib.py#Parser.parse.inner", "lib.py#helper"]
                .iter()
                .map(|s| (test.to_string(), s.to_string()))
                .collect();
        assert_eq!(got, want);
    }
}
