//! `nerd run`: one request without a conversation, or task files for
//! automation. Its exit codes extend the common table (`error::exit::run`):
//! 0 success, 1 configuration error, 2 task error (the task was malformed or
//! did not succeed), 3 runtime error, 4 some tasks of a batch failed,
//! 5 done but not verified (no test ran, a runner missing, a suite that
//! cannot collect, failures from before still failing).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use serde::Deserialize;
use serde_json::json;

use super::session::{self, AgentArgs, ApprovalMode, JsonLines, SetupError, Text};
use crate::agent::{Agent, Collect, Report, Session};
use crate::config::Provider;
use crate::error::NerdError;
use nerd_logic::vocab::Autonomy;

/// `nerd run`'s exit codes: the common table, extended (`error::exit::run`).
pub mod code {
    pub use crate::error::exit::run::{CONFIG, PARTIAL, TASK, UNVERIFIED};
    pub use crate::error::exit::{RUNTIME, SUCCESS};
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The request, e.g. "what calls parse_config" or "fix the failing test".
    pub request: Option<String>,
    /// Print JSON lines of events: perceived intent, decisions, actions, results, the answer.
    #[arg(long)]
    pub json: bool,
    /// Derive and print the plan without acting.
    #[arg(long)]
    pub dry_run: bool,
    /// Continue session ID (see `nerd sessions`).
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Run the task described by a JSON file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["request", "tasks_dir"])]
    pub task_file: Option<PathBuf>,
    /// Where the task's result goes (default: stdout).
    #[arg(long, value_name = "FILE", requires = "task_file")]
    pub output_file: Option<PathBuf>,
    /// Run every *.json task file of a folder.
    #[arg(long, value_name = "DIR", conflicts_with = "request", requires = "output_dir")]
    pub tasks_dir: Option<PathBuf>,
    /// Where batch results go, one file per task, named after the task id.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Tasks run at once in a batch.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub max_parallel: usize,
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// A task file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct TaskFile {
    /// Names the result file.
    id: Option<String>,
    request: String,
    /// The repository to work in, relative to the task file (default: the current workspace).
    workspace: Option<PathBuf>,
    approval: Option<ApprovalMode>,
    #[serde(default)]
    dry_run: bool,
    /// Renames reach docs and comments too.
    #[serde(default)]
    include_docs: bool,
    seed: Option<u64>,
    provider: Option<String>,
    /// Recorded model outputs, relative to the task file.
    transcript: Option<PathBuf>,
    autonomy: Option<String>,
    retry_budget: Option<u32>,
}

fn exit_for(report: &Report) -> i32 {
    if report.status.is_success() {
        code::SUCCESS
    } else if report.status == crate::agent::Status::Unverified {
        code::UNVERIFIED
    } else {
        code::TASK
    }
}

fn print_setup_error(e: SetupError) {
    let e = NerdError::from(e);
    eprintln!("error: {e}");
    if let Some(hint) = e.hint() {
        eprintln!("hint: {hint}");
    }
}

pub fn run(root: &Path, args: RunArgs) -> Result<i32, NerdError> {
    if let Some(dir) = &args.tasks_dir {
        let out = args.output_dir.as_deref().unwrap_or(dir);
        return batch(root, dir, out, args.max_parallel.max(1), &args.agent);
    }
    if let Some(file) = &args.task_file {
        let (result, exit) = run_task(root, file, &args.agent);
        let text = serde_json::to_string_pretty(&result).unwrap_or_default();
        match &args.output_file {
            Some(path) => {
                if let Err(e) = crate::router::write_atomic(path, format!("{text}\n").as_bytes()) {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    return Ok(code::RUNTIME);
                }
            }
            None => println!("{text}"),
        }
        return Ok(exit);
    }
    let Some(request) = args.request.as_deref().filter(|r| !r.trim().is_empty()) else {
        return Err(NerdError::Usage(
            "give a request: nerd run \"what calls parse\" (or --task-file / --tasks-dir)".into(),
        ));
    };
    let setup = match session::setup(root, &args.agent, args.dry_run) {
        Ok(s) => s,
        Err(e) => {
            print_setup_error(e);
            return Ok(code::CONFIG);
        }
    };
    let store = crate::store::StateDb::open(root)?;
    let session = match &args.resume {
        Some(id) => match Session::resume(&store, Some(id)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                eprintln!("hint: `nerd sessions` lists this workspace's sessions");
                return Ok(code::CONFIG);
            }
        },
        None => Session::new(args.agent.seed),
    };
    drop(store);
    let mut approver = session::approver(&args.agent);
    let mut json_sink = JsonLines(std::io::stdout());
    let mut text_sink = Text { out: std::io::stderr(), verbose: false, answers: false };
    let sink: &mut dyn crate::agent::Sink = if args.json { &mut json_sink } else { &mut text_sink };
    let mut agent =
        match Agent::new(root, setup.perceiver, setup.patcher, approver.as_mut(), sink, setup.options, session) {
            Ok(a) => a.with_explainer(setup.explainer),
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(code::CONFIG);
            }
        };
    match agent.handle(request) {
        Ok(report) => {
            if !args.json {
                // The kernel chose the surface: the answer, with its diff for one small change, or a summary.
                println!("{}", report.shown);
                eprintln!("session {} (resume with: nerd run --resume {} \"...\")", agent.session.id, agent.session.id);
            }
            Ok(exit_for(&report))
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(code::RUNTIME)
        }
    }
}

/// Runs one task file; returns its result document and exit code.
fn run_task(default_root: &Path, file: &Path, base: &AgentArgs) -> (serde_json::Value, i32) {
    let started = Instant::now();
    let fail = |id: &Option<String>, kind: &str, message: String, exit: i32| {
        let result = json!({
            "id": id,
            "task_file": file.display().to_string(),
            "status": kind,
            "exit_code": exit,
            "error": message,
        });
        (result, exit)
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(&None, "invalid_task", format!("cannot read {}: {e}", file.display()), code::TASK),
    };
    let task: TaskFile = match serde_json::from_str(&text) {
        Ok(t) => t,
        Err(e) => return fail(&None, "invalid_task", format!("{}: {e}", file.display()), code::TASK),
    };
    let id = task.id.clone();
    if task.request.trim().is_empty() {
        return fail(&id, "invalid_task", format!("{}: `request` is empty", file.display()), code::TASK);
    }
    let here = file.parent().unwrap_or(Path::new("."));
    let root = match &task.workspace {
        Some(w) => here.join(w),
        None => default_root.to_path_buf(),
    };
    let root = match root.canonicalize() {
        Ok(r) => r,
        Err(e) => return fail(&id, "configuration_error", format!("workspace {}: {e}", root.display()), code::CONFIG),
    };
    // The task file's words are checked here, as configuration.
    let provider = match task.provider.as_deref().map(str::parse::<Provider>).transpose() {
        Ok(p) => p.or(base.provider),
        Err(e) => return fail(&id, "configuration_error", e, code::CONFIG),
    };
    let autonomy = match task.autonomy.as_deref().map(str::parse::<Autonomy>).transpose() {
        Ok(a) => a.unwrap_or(base.autonomy),
        Err(e) => return fail(&id, "configuration_error", format!("autonomy: {e}"), code::CONFIG),
    };
    let args = AgentArgs {
        approval: task.approval.unwrap_or(match base.approval {
            ApprovalMode::Ask => ApprovalMode::Never,
            other => other,
        }),
        provider,
        autonomy,
        retry_budget: task.retry_budget.unwrap_or(base.retry_budget),
        seed: task.seed.or(base.seed),
        transcript: task.transcript.as_ref().map(|t| here.join(t)).or_else(|| base.transcript.clone()),
        include_docs: task.include_docs || base.include_docs,
        allow_unsafe_refactor: base.allow_unsafe_refactor,
    };
    let setup = match session::setup(&root, &args, task.dry_run) {
        Ok(s) => s,
        Err(e) => return fail(&id, "configuration_error", e.to_string(), code::CONFIG),
    };
    let mut approver = session::approver(&args);
    let mut events = Collect::default();
    let session = Session::new(args.seed);
    let session_id = session.id.clone();
    let outcome =
        Agent::new(&root, setup.perceiver, setup.patcher, approver.as_mut(), &mut events, setup.options, session)
            .and_then(|agent| agent.with_explainer(setup.explainer).handle(&task.request));
    let report = match outcome {
        Ok(r) => r,
        Err(e) => return fail(&id, "runtime_error", e.to_string(), code::RUNTIME),
    };
    let exit = exit_for(&report);
    let changes: Vec<serde_json::Value> = report
        .changes
        .iter()
        .map(|c| json!({"path": c.path, "added": c.added, "removed": c.removed, "diff": c.diff}))
        .collect();
    let result = json!({
        "id": task.id,
        "task_file": file.display().to_string(),
        "workspace": root.display().to_string(),
        "request": task.request,
        "status": report.status.as_str(),
        "exit_code": exit,
        "answer": report.answer,
        "changes": changes,
        "turns": report.turns,
        "session": session_id,
        "provider": setup.choice.provider,
        "elapsed_ms": started.elapsed().as_secs_f64() * 1000.0,
        "events": events.0,
    });
    (result, exit)
}

/// Keeps file names to letters, digits, `-`, `_` and `.`.
fn sanitize(id: &str) -> String {
    let s: String = id.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() {
        "task".into()
    } else {
        s
    }
}

/// `YYYYMMDDTHHMMSSZ` for a time in nanoseconds since the epoch (UTC).
pub fn utc_stamp(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Creates the result file: `<id>.json` (else `<stem>_result.json`), with a
/// timestamp suffix when that name is taken. Never overwrites.
fn create_result(dir: &Path, id: Option<&str>, stem: &str, text: &str) -> std::io::Result<PathBuf> {
    let base = match id {
        Some(id) => sanitize(id),
        None => format!("{}_result", sanitize(stem)),
    };
    let stamp = utc_stamp(crate::timing::now_ns());
    let candidates = std::iter::once(format!("{base}.json"))
        .chain(std::iter::once(format!("{base}_{stamp}.json")))
        .chain((2..1000).map(|n| format!("{base}_{stamp}_{n}.json")));
    for name in candidates {
        let path = dir.join(name);
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut f) => {
                f.write_all(text.as_bytes())?;
                f.sync_all()?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free result file name"))
}

fn batch(root: &Path, dir: &Path, out: &Path, parallel: usize, base: &AgentArgs) -> Result<i32, NerdError> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
            .collect(),
        Err(e) => return Err(NerdError::Usage(format!("cannot read tasks folder {}: {e}", dir.display()))),
    };
    files.sort();
    if files.is_empty() {
        eprintln!("error: no *.json task files in {}", dir.display());
        return Ok(code::TASK);
    }
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("error: cannot create {}: {e}", out.display());
        return Ok(code::RUNTIME);
    }
    let next = AtomicUsize::new(0);
    let exits = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(files.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(file) = files.get(i) else { break };
                let (result, exit) = run_task(root, file, base);
                let text = format!("{}\n", serde_json::to_string_pretty(&result).unwrap_or_default());
                let stem = file.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
                let exit = match create_result(out, result["id"].as_str(), &stem, &text) {
                    Ok(path) => {
                        eprintln!(
                            "{}: {} → {}",
                            file.display(),
                            result["status"].as_str().unwrap_or("?"),
                            path.display()
                        );
                        exit
                    }
                    Err(e) => {
                        eprintln!("{}: cannot write its result: {e}", file.display());
                        code::RUNTIME
                    }
                };
                if let Ok(mut v) = exits.lock() {
                    v.push(exit);
                }
            });
        }
    });
    let exits = exits.into_inner().unwrap_or_default();
    let ok = exits.iter().filter(|e| **e == code::SUCCESS).count();
    Ok(if ok == exits.len() {
        code::SUCCESS
    } else if ok > 0 {
        code::PARTIAL
    } else if exits.iter().all(|e| *e == code::CONFIG) {
        code::CONFIG
    } else if exits.iter().all(|e| *e == code::RUNTIME) {
        code::RUNTIME
    } else {
        code::TASK
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_civil_times() {
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        // 2026-11-22 09:15:30 UTC.
        assert_eq!(utc_stamp(1_795_338_930 * 1_000_000_000), "20261122T091530Z");
        assert_eq!(utc_stamp(951_782_400 * 1_000_000_000), "20000229T000000Z");
    }

    #[test]
    fn result_names_come_from_the_id_then_the_stem_and_never_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let a = create_result(dir.path(), Some("fix/login bug"), "t1", "{}").unwrap();
        assert_eq!(a.file_name().unwrap(), "fix_login_bug.json");
        let b = create_result(dir.path(), None, "t2", "{}").unwrap();
        assert_eq!(b.file_name().unwrap(), "t2_result.json");
        let c = create_result(dir.path(), Some("fix/login bug"), "t3", "{}").unwrap();
        let name = c.file_name().unwrap().to_string_lossy().to_string();
        assert!(name.starts_with("fix_login_bug_") && name.ends_with("Z.json"), "{name}");
        assert_eq!(sanitize("../../etc"), "_.._etc");
    }
}
