//! Which checks run on a tree, how each is invoked (argv, environment), and
//! how its output becomes findings. Detection reads marker files (Cargo.toml,
//! go.mod, tsconfig.json, Python project files); configuration can list tools
//! explicitly. A missing tool is reported with an install hint, never a crash.
//! Knows nothing about git or the logic.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nerd_logic::vocab::Severity;
use serde::{Deserialize, Serialize};

use super::parse::{self, Finding, Found};
use crate::config::{CheckConfig, Tool};
use crate::exec::{self, ExecError, Job};

/// How one tool's run went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// It ran; `code` is its exit status (`None`: killed).
    Ran {
        code: Option<i32>,
    },
    /// Not installed: what to do about it.
    Missing {
        hint: String,
    },
    TimedOut,
}

/// One tool's report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToolReport {
    pub tool: String,
    pub status: Status,
    pub elapsed_ms: f64,
    pub findings: Vec<Finding>,
}

/// The tools to run on `dir`: the configured list, or what the tree's marker files call for.
pub fn detect(dir: &Path, config: &CheckConfig, has_python: bool) -> Vec<Tool> {
    if let Some(tools) = &config.tools {
        return tools.clone();
    }
    let has = |f: &str| dir.join(f).is_file();
    let mut tools = Vec::new();
    if has("Cargo.toml") {
        tools.push(Tool::CargoCheck);
        tools.push(Tool::CargoTest);
    }
    if has("go.mod") {
        tools.extend([Tool::GoBuild, Tool::GoVet, Tool::GoTest]);
    }
    if has("tsconfig.json") {
        tools.push(Tool::Tsc);
    }
    if has("package.json") {
        tools.push(node_runner(&dir.join("package.json")));
    }
    let python_project = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"].iter().any(|f| has(f));
    if python_project || has_python {
        tools.push(Tool::Ruff);
        tools.push(Tool::Pytest);
    }
    tools.retain(|t| config.tests || !t.is_test_runner());
    tools
}

/// The test runner a Node project uses: the one its `test` script runs, else
/// the one it depends on (vitest before jest), else Node's own `node --test`.
/// A manifest that cannot be read names none, and Node's runner stands in.
pub fn node_runner(manifest: &Path) -> Tool {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Manifest {
        scripts: std::collections::BTreeMap<String, serde_json::Value>,
        dependencies: std::collections::BTreeMap<String, serde_json::Value>,
        #[serde(rename = "devDependencies")]
        dev_dependencies: std::collections::BTreeMap<String, serde_json::Value>,
    }
    let Some(m) = std::fs::read(manifest).ok().and_then(|b| serde_json::from_slice::<Manifest>(&b).ok()) else {
        return Tool::NodeTest;
    };
    let words: Vec<&str> = match m.scripts.get("test").and_then(|t| t.as_str()) {
        Some(script) => script.split(|c: char| c.is_whitespace() || c == '&' || c == ';').collect(),
        None => vec![],
    };
    let named = |runner: &str| words.iter().any(|w| w.rsplit('/').next() == Some(runner));
    let depends = |runner: &str| m.dependencies.contains_key(runner) || m.dev_dependencies.contains_key(runner);
    match () {
        _ if named("vitest") => Tool::Vitest,
        _ if named("jest") => Tool::Jest,
        _ if depends("vitest") => Tool::Vitest,
        _ if depends("jest") => Tool::Jest,
        _ => Tool::NodeTest,
    }
}

/// What to install when a tool is missing.
pub fn hint(tool: Tool) -> &'static str {
    match tool {
        Tool::CargoCheck | Tool::Clippy | Tool::CargoTest => {
            "install Rust with rustup (and `rustup component add clippy`)"
        }
        Tool::GoBuild | Tool::GoVet | Tool::GoTest => "install Go (Debian: apt-get install golang-go)",
        Tool::Tsc => "npm install --save-dev typescript",
        Tool::NodeTest => "install Node.js (Debian: apt-get install nodejs)",
        Tool::Vitest => "npm install --save-dev vitest (the project's tests use it)",
        Tool::Jest => "npm install --save-dev jest (the project's tests use it)",
        Tool::Ruff => "pip install ruff",
        Tool::Pytest => "pip install pytest",
    }
}

/// The argv of a tool, resolving where it lives; `None` when it is not installed.
pub fn argv(tool: Tool, workspace: &Path) -> Option<Vec<OsString>> {
    argv_in(tool, workspace, false)
}

/// The argv of `tool`; `snapshot`: it runs in one of nerd's materialised trees,
/// which hold only tracked files (and may sit under nerd's own ignored folder,
/// when there is no home for them). Elsewhere the tools respect `.gitignore`
/// and never look into `.nerd/`.
fn argv_in(tool: Tool, workspace: &Path, snapshot: bool) -> Option<Vec<OsString>> {
    let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
    let python_module = |module: &str, rest: &[&str]| -> Option<Vec<OsString>> {
        let probe = exec::run(&Job {
            argv: os(&["python3", "-m", module, "--version"]),
            cwd: std::env::temp_dir(),
            env: vec![],
            timeout: Duration::from_secs(20),
            confine: None,
            cancel: None,
        });
        probe.ok().filter(|f| f.code == Some(0)).map(|_| {
            let mut v = os(&["python3", "-m", module]);
            v.extend(rest.iter().map(OsString::from));
            v
        })
    };
    Some(match tool {
        // `--keep-going`: a target that fails on HEAD already (a nightly-only bench) must
        // not stop cargo before it reaches the targets this commit changed.
        Tool::CargoCheck => {
            os(&["cargo", "check", "--workspace", "--all-targets", "--keep-going", "--message-format=json", "--quiet"])
        }
        Tool::Clippy => {
            os(&["cargo", "clippy", "--workspace", "--all-targets", "--keep-going", "--message-format=json", "--quiet"])
        }
        // Not `--quiet`: it makes libtest terse, dropping the `test x ... FAILED` lines.
        Tool::CargoTest => os(&["cargo", "test", "--workspace", "--no-fail-fast", "--message-format=json"]),
        Tool::GoBuild => os(&["go", "build", "./..."]),
        Tool::GoVet => os(&["go", "vet", "./..."]),
        Tool::GoTest => os(&["go", "test", "-json", "./..."]),
        Tool::Tsc => {
            vec![
                node_bin(workspace, "tsc"),
                "--noEmit".into(),
                "--pretty".into(),
                "false".into(),
                "-p".into(),
                ".".into(),
            ]
        }
        Tool::NodeTest => os(&["node", "--test", "--test-reporter=tap"]),
        // The JSON reports of both carry every test's outcome, its describe
        // path and the line it is declared at; `--ci` keeps jest from writing snapshots.
        Tool::Vitest => {
            let mut v = vec![node_bin(workspace, "vitest")];
            v.extend(["run", "--reporter=json", "--includeTaskLocation"].map(OsString::from));
            v
        }
        Tool::Jest => {
            let mut v = vec![node_bin(workspace, "jest")];
            v.extend(["--ci", "--json", "--testLocationInResults"].map(OsString::from));
            v
        }
        Tool::Ruff => {
            let mut args = vec!["check", "--output-format", "json-lines", "--exit-zero", "--no-cache"];
            args.extend(if snapshot { &["--no-respect-gitignore"][..] } else { &["--extend-exclude", ".nerd"][..] });
            args.push(".");
            if exec::which("ruff").is_some() {
                let mut v = os(&["ruff"]);
                v.extend(args.iter().map(OsString::from));
                v
            } else {
                return python_module("ruff", &args);
            }
        }
        Tool::Pytest => return python_module("pytest", &["-q", "-rfEp", "--tb=line", "-p", "no:cacheprovider"]),
    })
    .filter(|v| exec::which(&v[0].to_string_lossy()).is_some())
}

/// The workspace's own copy of a Node tool (what `npx NAME` runs), else the one on PATH.
pub fn node_bin(workspace: &Path, name: &str) -> OsString {
    let local: PathBuf = workspace.join("node_modules/.bin").join(name);
    if local.is_file() {
        local.into_os_string()
    } else {
        OsString::from(name)
    }
}

/// The major version of the vitest that `program` (a path, or a name on PATH)
/// runs, read from the `package.json` of the package its launcher lives in.
pub fn vitest_major(program: &str) -> Option<u32> {
    let launcher = std::fs::canonicalize(exec::which(program)?).ok()?;
    launcher.ancestors().skip(1).take(3).find_map(|dir| {
        let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
        let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
        let version = manifest["version"].as_str().filter(|_| manifest["name"] == "vitest")?;
        version.split('.').next()?.parse().ok()
    })
}

/// Runs one tool in `dir` and reads its findings.
pub fn run(tool: Tool, dir: &Path, workspace: &Path, target_dir: &Path, timeout: Duration) -> ToolReport {
    let report = |status, elapsed: Duration, findings| ToolReport {
        tool: tool.name().to_string(),
        status,
        elapsed_ms: elapsed.as_secs_f64() * 1000.0,
        findings,
    };
    let Some(argv) = argv_in(tool, workspace, dir != workspace) else {
        return report(Status::Missing { hint: hint(tool).to_string() }, Duration::ZERO, vec![]);
    };
    let env = vec![
        ("CARGO_TARGET_DIR".to_string(), target_dir.as_os_str().to_os_string()),
        ("CARGO_TERM_COLOR".to_string(), OsString::from("never")),
        ("NO_COLOR".to_string(), OsString::from("1")),
    ];
    let finished = match exec::run(&Job { argv, cwd: dir.to_path_buf(), env, timeout, confine: None, cancel: None }) {
        Ok(f) => f,
        Err(ExecError::NotFound(_)) => {
            return report(Status::Missing { hint: hint(tool).to_string() }, Duration::ZERO, vec![])
        }
        Err(e) => {
            let failure = failure(tool, &e.to_string());
            return report(Status::Ran { code: None }, Duration::ZERO, vec![failure]);
        }
    };
    if finished.timed_out {
        let f = failure(tool, &format!("timed out after {} s", timeout.as_secs()));
        return report(Status::TimedOut, finished.elapsed, vec![f]);
    }
    let mut findings = findings(tool, dir, finished.code, &finished.stdout, &finished.stderr);
    let mut elapsed = finished.elapsed;
    if finished.truncated && tool == Tool::Ruff {
        // More output than nerd reads: an error in the part not read must still be
        // seen, so ruff runs again for the codes that block only.
        findings.retain(|f| !matches!(&f.found, Found::Diagnostic { severity: Severity::Error, .. }));
        let (errors, again) = errors_only(argv_in(tool, workspace, dir != workspace), dir, timeout);
        elapsed += again;
        match errors {
            Some(errors) => findings.extend(parse::ruff(dir, &errors)),
            None => {
                findings.push(failure(tool, "its output was too large to read whole, and the errors-only run failed"))
            }
        }
    }
    report(Status::Ran { code: finished.code }, elapsed, findings)
}

/// Ruff again, selecting only the codes that are errors (`ruff_severity`): its
/// output, or `None` when it failed, and how long it ran either way.
fn errors_only(argv: Option<Vec<OsString>>, dir: &Path, timeout: Duration) -> (Option<String>, Duration) {
    let Some(mut argv) = argv else { return (None, Duration::ZERO) };
    let at = argv.len() - 1;
    argv.insert(at, OsString::from("--select=E9,F63,F7,F82"));
    let job = Job { argv, cwd: dir.to_path_buf(), env: vec![], timeout, confine: None, cancel: None };
    match exec::run(&job) {
        Ok(f) if !f.truncated && !f.timed_out => (Some(f.stdout), f.elapsed),
        Ok(f) => (None, f.elapsed),
        Err(_) => (None, Duration::ZERO),
    }
}

/// Reads one finished run of `tool` in `dir` into findings. A failing exit
/// with nothing readable is itself an error finding (`<tool>-failed`): a broken
/// manifest or a crashed tool must never look like a pass.
pub fn findings(tool: Tool, dir: &Path, code: Option<i32>, stdout: &str, stderr: &str) -> Vec<Finding> {
    let mut findings = match tool {
        Tool::CargoCheck | Tool::Clippy | Tool::CargoTest => parse::cargo(dir, stdout, tool.name()),
        Tool::GoBuild | Tool::GoVet => parse::go_text(dir, stderr, tool.name()),
        Tool::GoTest => parse::go_test(dir, stdout),
        Tool::Tsc => parse::tsc(dir, stdout),
        Tool::NodeTest => parse::node_tap(dir, stdout),
        Tool::Vitest | Tool::Jest => super::jest::findings(dir, stdout, tool.name()),
        Tool::Ruff => parse::ruff(dir, stdout),
        Tool::Pytest => parse::pytest(dir, stdout),
    };
    let failed = code != Some(0) && !(tool == Tool::Pytest && code == Some(5));
    let blocking_found = findings.iter().any(|f| match &f.found {
        Found::Diagnostic { severity, .. } => *severity == Severity::Error,
        _ => true,
    });
    if failed && !blocking_found {
        let tail: Vec<&str> = stderr.lines().rev().filter(|l| !l.trim().is_empty()).take(3).collect();
        let detail: Vec<&str> = tail.into_iter().rev().collect();
        let code = code.map_or("a signal".to_string(), |c| format!("status {c}"));
        findings.push(failure(tool, &format!("exited with {code}: {}", detail.join(" | "))));
    }
    findings
}

fn failure(tool: Tool, message: &str) -> Finding {
    Finding {
        found: Found::Diagnostic {
            severity: Severity::Error,
            code: format!("{}-failed", tool.name()),
            message: message.to_string(),
        },
        path: String::new(),
        line: 0,
        source: tool.name().to_string(),
    }
}
