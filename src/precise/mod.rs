//! `nerd index --precise`: runs the languages' own indexers (`scip-python`,
//! `scip-typescript`, `rust-analyzer scip`, `gopls`) over the workspace, each
//! through `exec` with an argv array, a timeout and the sandbox (writes only
//! to a scratch folder, no network, secrets masked), reads what they wrote as
//! untrusted data, and stores it as the precise tier of call edges. A missing
//! indexer is reported with its install hint and leaves its language on the
//! heuristic tier; it is never an error. `coverage` runs the project's tests
//! under coverage tools the same way, for the `observed` tier.
//! Knows nothing about the kernel's rules.

pub mod coverage;
mod gopls;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::exec::{self, ExecError, Job};
use crate::sandbox::{self, Confinement};
use crate::scratch::Scratch;
use crate::store::{FileRecord, Store, StoreError};
use crate::world::lang::Lang;
use crate::world::packages::Manifests;
use crate::world::project::FileProjection;
use crate::world::resolve::precise::{from_scip, PreciseFile, SourceFile};
use crate::world::scip;

/// A language's own indexer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Indexer {
    ScipPython,
    ScipTypescript,
    RustAnalyzer,
    Gopls,
}

impl Indexer {
    pub const ALL: [Indexer; 4] = [Indexer::ScipPython, Indexer::ScipTypescript, Indexer::RustAnalyzer, Indexer::Gopls];

    pub fn name(self) -> &'static str {
        match self {
            Indexer::ScipPython => "scip-python",
            Indexer::ScipTypescript => "scip-typescript",
            Indexer::RustAnalyzer => "rust-analyzer",
            Indexer::Gopls => "gopls",
        }
    }

    /// The language it indexes, by name.
    pub fn lang(self) -> Lang {
        match self {
            Indexer::ScipPython => Lang::Python,
            Indexer::ScipTypescript => Lang::TypeScript,
            Indexer::RustAnalyzer => Lang::Rust,
            Indexer::Gopls => Lang::Go,
        }
    }

    /// Whether it indexes files of `lang`.
    pub fn covers(self, lang: Lang) -> bool {
        lang == self.lang() || (self == Indexer::ScipTypescript && lang == Lang::Tsx)
    }

    /// What to run to install it.
    pub fn hint(self) -> &'static str {
        match self {
            Indexer::ScipPython => "npm install -g @sourcegraph/scip-python",
            Indexer::ScipTypescript => "npm install -g @sourcegraph/scip-typescript",
            Indexer::RustAnalyzer => "rustup component add rust-analyzer",
            Indexer::Gopls => "apt-get install gopls (or go install golang.org/x/tools/gopls@latest)",
        }
    }
}

/// What one indexer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It ran; its edges now stand for the files it covered. A note says
    /// what it could not see (rust-analyzer without the crate's dependencies).
    Ran { files: usize, calls: usize, elapsed: Duration, note: Option<String> },
    /// It is not installed; the language stays on the heuristic tier.
    Missing { hint: &'static str },
    /// It ran and failed, timed out, or wrote something unreadable; nothing of it was stored.
    Failed { message: String },
}

/// What `nerd index --precise` did, per indexer of a language the workspace has.
#[derive(Debug, Default)]
pub struct PreciseReport {
    pub runs: Vec<(Indexer, Outcome)>,
}

/// How long one indexer may run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs every installed indexer for the languages the index holds and
/// stores what each said. The index must be current: edges are recorded with
/// the content hash of the file as read now.
pub fn run(
    root: &Path,
    store: &mut Store,
    timeout: Duration,
    secret_paths: &[String],
) -> Result<PreciseReport, StoreError> {
    let files = store.files()?;
    let projections: BTreeMap<String, (Lang, FileProjection)> =
        store.projections(&|_| false, false)?.into_iter().map(|(p, l, proj)| (p, (l, proj))).collect();
    let mut report = PreciseReport::default();
    for indexer in Indexer::ALL {
        if !projections.values().any(|(l, _)| indexer.covers(*l)) {
            continue;
        }
        let scratch = match Scratch::new("precise") {
            Ok(s) => s,
            Err(e) => {
                report.runs.push((indexer, Outcome::Failed { message: format!("cannot make a scratch folder: {e}") }));
                continue;
            }
        };
        let runner = Runner { root, scratch: scratch.path(), timeout, secret_paths };
        let started = Instant::now();
        let note = (indexer == Indexer::RustAnalyzer).then(|| runner.cargo_cannot_load()).flatten();
        let outcome = match runner.index(indexer, &files, &projections) {
            Ok(Some(precise)) => {
                let calls = precise.iter().map(|(f, _)| f.calls.len()).sum();
                let covered = precise.len();
                store.replace_precise(indexer.name(), &precise)?;
                Outcome::Ran { files: covered, calls, elapsed: started.elapsed(), note }
            }
            Ok(None) => Outcome::Missing { hint: indexer.hint() },
            Err(message) => Outcome::Failed { message },
        };
        report.runs.push((indexer, outcome));
    }
    Ok(report)
}

/// Runs indexers for one workspace.
struct Runner<'a> {
    root: &'a Path,
    scratch: &'a Path,
    timeout: Duration,
    secret_paths: &'a [String],
}

impl Runner<'_> {
    /// The precise files of one indexer and their content hashes; `None` when it is not installed.
    fn index(
        &self,
        indexer: Indexer,
        files: &HashMap<String, FileRecord>,
        projections: &BTreeMap<String, (Lang, FileProjection)>,
    ) -> Result<Option<Vec<(PreciseFile, String)>>, String> {
        let texts = read_sources(self.root, indexer, projections);
        let sources: BTreeMap<&str, SourceFile<'_>> = texts
            .iter()
            .filter(|(p, (_, sha))| files.get(*p).is_some_and(|f| &f.sha256 == sha))
            .map(|(p, (text, _))| (p.as_str(), SourceFile { text, symbols: &projections[p].1.symbols }))
            .collect();
        let precise = match indexer {
            Indexer::Gopls => match gopls::index(self, &sources)? {
                Some(files) => files,
                None => return Ok(None),
            },
            _ => {
                let Some(index) = self.scip(indexer, &texts)? else { return Ok(None) };
                from_scip(&index, &sources)
            }
        };
        Ok(Some(
            precise
                .into_iter()
                .filter_map(|f| texts.get(&f.path).map(|(_, sha)| sha.clone()).map(|sha| (f, sha)))
                .collect(),
        ))
    }

    /// Runs a SCIP indexer and decodes what it wrote; `None` when it is not installed.
    /// `texts` are the sources of its language as read (path, then text and hash).
    fn scip(
        &self,
        indexer: Indexer,
        texts: &BTreeMap<String, (String, String)>,
    ) -> Result<Option<scip::Index>, String> {
        let output = self.scratch.join("index.scip");
        let out = output.as_os_str().to_os_string();
        let mut cwd = self.root.to_path_buf();
        let argv: Vec<OsString> = match indexer {
            Indexer::ScipPython => {
                // pyright resolves `import pkg` against the interpreter's
                // installed packages unless the project says where its own
                // code lives; the project file goes with a copy of the
                // sources, so the workspace is never written to.
                cwd = self.scratch.join("workspace");
                copy_python_sources(self.root, &cwd, texts).map_err(|e| format!("cannot copy the sources: {e}"))?;
                let name = self.root.file_name().map_or("workspace".into(), |n| n.to_string_lossy().into_owned());
                let mut argv: Vec<OsString> = vec!["scip-python".into(), "index".into(), "--quiet".into()];
                argv.extend(["--project-name".into(), name.into(), "--project-version".into(), "0".into()]);
                argv.extend(["--cwd".into(), cwd.clone().into_os_string(), "--output".into(), out]);
                argv
            }
            Indexer::ScipTypescript => {
                let mut argv: Vec<OsString> =
                    vec!["scip-typescript".into(), "index".into(), "--no-progress-bar".into(), "--output".into(), out];
                if !self.root.join("tsconfig.json").is_file() {
                    // The workspace is not written to: a project file in the scratch folder names its sources.
                    let project = self.scratch.join("project");
                    std::fs::create_dir(&project).map_err(|e| e.to_string())?;
                    std::fs::write(project.join("tsconfig.json"), inferred_tsconfig(self.root))
                        .map_err(|e| e.to_string())?;
                    argv.push(project.into_os_string());
                }
                argv
            }
            Indexer::RustAnalyzer => {
                if !self.root.join("Cargo.toml").is_file() {
                    return Err("no Cargo.toml at the workspace root".into());
                }
                if !self.probe(&["rust-analyzer", "--version"]) {
                    return Ok(None);
                }
                vec!["rust-analyzer".into(), "scip".into(), self.root.as_os_str().into(), "--output".into(), out]
            }
            Indexer::Gopls => return Err("gopls writes no SCIP index".into()),
        };
        let finished = match exec::run(&self.job_in(argv, &cwd)) {
            Ok(f) => f,
            Err(ExecError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        if finished.timed_out {
            return Err(format!("timed out after {} s", self.timeout.as_secs()));
        }
        if finished.code != Some(0) || !output.is_file() {
            return Err(format!("exited with {:?}: {}", finished.code, tail(&finished.stderr, &finished.stdout)));
        }
        let bytes = std::fs::read(&output).map_err(|e| e.to_string())?;
        scip::decode(&bytes).map(Some).map_err(|e| format!("unreadable index: {e}"))
    }

    /// Why cargo, confined as rust-analyzer will be (the workspace read-only,
    /// offline), cannot load the crate's dependencies: a missing `Cargo.lock`
    /// it may not write, a dependency not downloaded or not unpacked. `None`
    /// when it can, or when there is no cargo to ask.
    fn cargo_cannot_load(&self) -> Option<String> {
        if !self.root.join("Cargo.toml").is_file() {
            return None;
        }
        let argv = ["cargo", "metadata", "--offline", "--format-version", "1"].map(OsString::from).to_vec();
        let finished = exec::run(&self.job(argv)).ok()?;
        if finished.code == Some(0) || finished.timed_out {
            return None;
        }
        let why =
            finished.stderr.lines().map(str::trim).find(|l| l.starts_with("error")).unwrap_or("cargo metadata failed");
        Some(format!(
            "cargo cannot load the crate here ({}), so rust-analyzer may have indexed it without its dependencies: \
             run `cargo metadata --format-version 1` once in the workspace, outside nerd (it writes Cargo.lock and \
             unpacks the dependencies' sources), then `nerd index --precise` again",
            why.chars().take(200).collect::<String>()
        ))
    }

    /// Whether a program runs and exits 0 (a rustup proxy without its component does not).
    fn probe(&self, argv: &[&str]) -> bool {
        self.exec(argv.iter().map(OsString::from).collect()).is_ok_and(|f| f.code == Some(0))
    }

    /// Runs an indexer in the workspace to completion.
    fn exec(&self, argv: Vec<OsString>) -> Result<exec::Finished, ExecError> {
        exec::run(&self.job(argv))
    }

    /// An indexer's job in the workspace, confined: it writes only to the
    /// scratch folder and reaches no network.
    fn job(&self, argv: Vec<OsString>) -> Job {
        self.job_in(argv, self.root)
    }

    /// The same job, run in `cwd` (the confinement changes into it).
    fn job_in(&self, argv: Vec<OsString>, cwd: &Path) -> Job {
        let (readonly, masked) = crate::policy::paths::sandbox_layout(self.root, self.secret_paths);
        let confinement = Confinement {
            writable: vec![self.scratch.to_path_buf(), PathBuf::from("/dev/null")],
            readonly,
            masked,
            network: false,
            hosts: Default::default(),
            // Indexers are multi-threaded: CPU time runs ahead of the wall clock.
            cpu_seconds: self.timeout.as_secs() * 4 + 5,
        };
        let cache = self.scratch.join("cache");
        let env = vec![
            ("TMPDIR".to_string(), self.scratch.as_os_str().to_os_string()),
            ("XDG_CACHE_HOME".to_string(), cache.clone().into_os_string()),
            ("GOCACHE".to_string(), cache.join("go").into_os_string()),
            ("CARGO_TARGET_DIR".to_string(), self.scratch.join("target").into_os_string()),
            ("CARGO_NET_OFFLINE".to_string(), "true".into()),
            ("PYTHONDONTWRITEBYTECODE".to_string(), "1".into()),
            ("NO_COLOR".to_string(), "1".into()),
            ("GOPROXY".to_string(), "off".into()),
        ];
        Job {
            argv,
            cwd: cwd.to_path_buf(),
            env,
            timeout: self.timeout,
            confine: Some(Arc::new(sandbox::prepare(&confinement, cwd))),
            cancel: None,
        }
    }
}

/// The sources of one language, with their content hashes, as they are now.
fn read_sources(
    root: &Path,
    indexer: Indexer,
    projections: &BTreeMap<String, (Lang, FileProjection)>,
) -> BTreeMap<String, (String, String)> {
    projections
        .iter()
        .filter(|(_, (l, _))| indexer.covers(*l))
        .filter_map(|(path, _)| {
            let bytes = std::fs::read(root.join(path)).ok()?;
            let sha = crate::digest::sha256_hex(&bytes);
            Some((path.clone(), (String::from_utf8(bytes).ok()?, sha)))
        })
        .collect()
}

/// Python project files pyright reads for its settings.
const PYTHON_PROJECT_FILES: [&str; 3] = ["pyrightconfig.json", "pyproject.toml", "setup.cfg"];

/// Writes the Python sources (as read) and the project's settings files into
/// `dest`; when the project has no pyright settings of its own, adds one that
/// puts a `src/` layout's packages ahead of installed copies.
fn copy_python_sources(root: &Path, dest: &Path, texts: &BTreeMap<String, (String, String)>) -> std::io::Result<()> {
    for (path, (text, _)) in texts {
        let to = dest.join(path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(to, text)?;
    }
    std::fs::create_dir_all(dest)?;
    for name in PYTHON_PROJECT_FILES {
        if let Ok(text) = std::fs::read_to_string(root.join(name)) {
            std::fs::write(dest.join(name), text)?;
        }
    }
    // The project's own settings (pyrightconfig.json wins over pyproject's
    // [tool.pyright], as in pyright), with the source folders added and the
    // whole copy included.
    let own = std::fs::read_to_string(dest.join("pyrightconfig.json"))
        .ok()
        .map(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .unwrap_or_else(|| {
            let text = std::fs::read_to_string(dest.join("pyproject.toml")).ok()?;
            let table: toml::Table = toml::from_str(&text).ok()?;
            serde_json::to_value(table.get("tool")?.get("pyright")?).ok()
        });
    let Some(mut settings) = own.or_else(|| Some(serde_json::json!({}))).filter(|v| v.is_object()) else {
        // A pyrightconfig.json this reader cannot parse (comments) is left as the project wrote it.
        return Ok(());
    };
    let mut extra: Vec<serde_json::Value> = settings["extraPaths"].as_array().cloned().unwrap_or_default();
    for folder in ["src", "lib"].into_iter().filter(|d| dest.join(d).is_dir()) {
        if !extra.iter().any(|e| e == folder) {
            extra.push(folder.into());
        }
    }
    settings["extraPaths"] = serde_json::Value::Array(extra);
    // Type checking may cover part of the project; the call graph covers every
    // file nerd indexed, which is exactly what was copied.
    if let Some(map) = settings.as_object_mut() {
        map.remove("include");
        map.remove("exclude");
        map.remove("ignore");
    }
    std::fs::write(dest.join("pyrightconfig.json"), settings.to_string())
}

/// A TypeScript project file for a workspace that has none: every TypeScript
/// source under the root, dependencies and build output left out.
/// A package's export conditions that name sources (`"@zod/source"`) are
/// turned on, so that a package importing itself reaches its sources, not the
/// declarations it publishes.
fn inferred_tsconfig(root: &Path) -> String {
    let (manifests, _) = Manifests::load(root, ["package.json"]);
    let conditions = manifests.source_conditions();
    let root = root.display().to_string();
    let under = |glob: &str| serde_json::Value::String(format!("{root}/{glob}"));
    serde_json::json!({
        "compilerOptions": {
            "strict": true, "skipLibCheck": true, "noEmit": true, "allowJs": false,
            "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "jsx": "preserve",
            "customConditions": conditions
        },
        "include": [under("**/*.ts"), under("**/*.tsx"), under("**/*.mts"), under("**/*.cts")],
        "exclude": [under("**/node_modules"), under("**/.nerd"), under("**/dist"), under("**/target")]
    })
    .to_string()
}

/// The last lines of what a failed program printed.
fn tail(stderr: &str, stdout: &str) -> String {
    let text = if stderr.trim().is_empty() { stdout } else { stderr };
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" | ")
}
