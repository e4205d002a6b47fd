//! The `nerd` command line: argument parsing, workspace discovery and
//! dispatch to one function per command. Knows nothing about rules or storage
//! beyond the calls each command makes.

mod act;
mod browse;
mod check;
mod context;
mod index;
mod instruct;
mod interactive;
mod memory;
mod output;
mod perceive;
mod policy;
mod query;
pub mod run;
pub mod session;
mod specialist;
mod watch;
mod why;

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use nerd_logic::vocab::{Autonomy, Category};

use crate::error::NerdError;
use crate::policy::Action;

/// A logic-first coding agent: a Datalog kernel decides, a model only transduces.
#[derive(Parser, Debug)]
#[command(name = "nerd", version, about, long_about = None)]
pub struct Cli {
    /// The workspace (default: the nearest ancestor with .nerd/ or .git/, else the current directory).
    #[arg(long, global = true, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// With no command: resume the latest session, or session ID.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,
    #[command(flatten)]
    pub agent: session::AgentArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Handle one request without a conversation (exit 0 success, 1 configuration, 2 task, 3 runtime, 4 partial batch).
    Run(run::RunArgs),
    /// List this workspace's agent sessions, newest first.
    Sessions,
    /// Project the workspace into facts (incremental) and print counts.
    Index {
        /// The workspace to index (overrides --repo).
        path: Option<PathBuf>,
        /// Print the report as one JSON object.
        #[arg(long)]
        json: bool,
        /// Also run the languages' own indexers (scip-python, scip-typescript,
        /// rust-analyzer, gopls) where installed: their call edges (`precise`)
        /// replace the heuristic ones in the files they cover.
        #[arg(long)]
        precise: bool,
        /// Also run the project's tests under coverage (coverage.py for
        /// Python, `go test -cover` for Go), one context per test: what each
        /// test executed becomes `covers(Test, Symbol)` (`observed`).
        #[arg(long)]
        coverage: bool,
    },
    /// Print every atom of a predicate; with no predicate, list them all.
    Query {
        predicate: Option<String>,
        /// One JSON object per line: {"predicate": ..., "args": [...]}.
        #[arg(long)]
        json: bool,
        /// Answer from the stored index without refreshing it first.
        #[arg(long)]
        no_refresh: bool,
    },
    /// Explain a derived atom down to base facts (exit 1 if it does not hold).
    Why {
        /// The atom, e.g. 'impacted("src/lib.rs#parse")'.
        atom: String,
        /// Print the derivation tree as JSON.
        #[arg(long)]
        json: bool,
        /// Answer from the stored index without refreshing it first.
        #[arg(long)]
        no_refresh: bool,
    },
    /// Judge what would be committed: compilers, tests, secrets, project rules (exit 1 if blocked).
    Check {
        /// Judge the git index (the default; what a pre-commit hook needs).
        #[arg(long, conflicts_with = "all")]
        staged: bool,
        /// Judge the working tree as it is.
        #[arg(long)]
        all: bool,
        /// Print the outcome as one JSON object.
        #[arg(long)]
        json: bool,
        /// Let a blocked commit through; the reason is recorded.
        #[arg(long, value_name = "REASON")]
        r#override: Option<String>,
        /// Run every check even when this exact tree was checked before.
        #[arg(long)]
        no_cache: bool,
    },
    /// Install or remove the git pre-commit hook that runs `nerd check --staged`.
    Hook {
        #[command(subcommand)]
        action: HookAction,
    },
    /// Ask the constitution about one action.
    Policy {
        #[command(subcommand)]
        action: PolicyAction,
    },
    /// Read a request into intent facts with the offline transducer, grounded on the index.
    Perceive {
        /// The request, e.g. "fix the failing test in parser_test.go".
        text: String,
        /// The transducer (default: layered config, then environment, then the offline rules).
        #[arg(long, value_enum)]
        provider: Option<crate::config::Provider>,
        /// Print {"category", "verb", "target", "constraints", "confidence", "clarification", ...}.
        #[arg(long)]
        json: bool,
    },
    /// Record a standing instruction ("never use unwrap in library code") as a project rule.
    Instruct {
        /// The instruction, in words.
        text: String,
    },
    /// Harmony Response Format envelopes.
    Hrf {
        #[command(subcommand)]
        action: HrfAction,
    },
    /// Print nerd's version and its constitution's integrity hash.
    Version,
    /// Define a specialist: its topic, the sources it learns from and the tools it may use. Runs nothing
    /// (unless --research); a Claude Code subagent of the same name (.claude/agents/NAME.md) lends its
    /// description and tools.
    DefineAgent {
        name: String,
        /// What the specialist knows about.
        #[arg(long)]
        topic: Option<String>,
        /// A documentation file or folder, or dep:NAME for a dependency as its package manager unpacked it.
        #[arg(long = "source", value_name = "PATH|dep:NAME")]
        sources: Vec<String>,
        /// Tools it may use: read_file, search, exec, write_file, browse, net_request (default: read_file,search).
        #[arg(long, value_delimiter = ',')]
        tools: Vec<String>,
        #[arg(long, value_delimiter = ',')]
        keywords: Vec<String>,
        /// Research its sources at once.
        #[arg(long)]
        research: bool,
        #[arg(long)]
        json: bool,
    },
    /// List the workspace's specialists (nerd's and Claude Code's) and whether each is ready.
    Agents {
        /// One JSON object per specialist.
        #[arg(long)]
        json: bool,
    },
    /// Read a specialist's sources into its knowledge shard (.nerd/agents/NAME.db).
    Research {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Examine a specialist on knowledge held out from its answers (exit 1 if it is not ready).
    Viva {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Run a ready specialist as a separate, delegated process on TASK (exit 1 if refused).
    Spawn {
        name: String,
        task: String,
        /// Workspace globs the child may touch (default: the whole workspace, within its tools).
        #[arg(long = "path", value_name = "GLOB")]
        paths: Vec<String>,
        /// Seconds the child may run.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
        #[arg(long)]
        json: bool,
    },
    /// Load a page in headless Chromium (judged by the constitution; every request the page
    /// makes too), carry out steps, and keep its snapshot as facts for `nerd query` and `nerd why`.
    Browse {
        url: String,
        /// A step, in order: `click TARGET`, `type TARGET TEXT`, `navigate URL`; a target is a node id
        /// (n12), label:TEXT, text:TEXT, name:NAME or #ID.
        #[arg(long = "do", value_name = "STEP")]
        steps: Vec<String>,
        /// Seconds a page may take to load.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        /// Print the snapshot's facts (and the spatial atoms derived from them) as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// List the delegation tokens given to spawned children.
    Delegations {
        #[arg(long)]
        json: bool,
    },
    /// Revoke a delegation token and its whole subtree; running children stop.
    Revoke { id: String },
    /// The spawned side of `nerd spawn` (started by nerd, with its token).
    #[command(hide = true)]
    ShardChild {
        #[arg(long)]
        token_id: String,
    },
    /// Run one action through the router: judged, audited, sandboxed (exit 1 if refused).
    Act {
        #[command(flatten)]
        request: ActionRequest,
        /// Record a human approval of exactly this action first.
        #[arg(long)]
        approve: bool,
        #[arg(long)]
        json: bool,
    },
    /// The hash-chained audit trail of the router.
    Audit {
        #[command(subcommand)]
        action: AuditAction,
    },
    /// Print what a model call would be given for REQUEST, and why each item was chosen.
    Context {
        request: String,
        /// Tokens the context may take (default: [context] budget_tokens, 8000).
        #[arg(long)]
        budget: Option<usize>,
        /// A base fact to add, e.g. 'test_outcome("test_charge", "tests/test_billing.py", 12, "fail")'.
        #[arg(long = "fact", value_name = "ATOM")]
        facts: Vec<String>,
        /// Print {"request", "context": {"budget", "tokens", "seeds", "atoms", "items": [{"id", "kind", "score", "why", "text", ...}]}}.
        #[arg(long)]
        json: bool,
    },
    /// What nerd remembers across sessions: add, search, list, forget, stats.
    Memory {
        #[command(subcommand)]
        action: memory::MemoryAction,
    },
    /// Restore the files the last change wrote or deleted, where they still hold what nerd left.
    Undo {
        /// Restore files edited since as well, first saving their current content under .nerd/undo-conflicts/.
        #[arg(long)]
        force: bool,
    },
    /// Report which confinement layers this machine offers, and the health of .nerd/index.db and .nerd/state.db.
    Doctor,
    /// Run one program as nerd's own are run: judged, audited and confined in the sandbox;
    /// its output is printed and its exit code returned (exit 1 if refused).
    /// The Claude Code hook rewrites allowed commands to run through it.
    SandboxExec {
        /// The intent the program serves.
        #[arg(long, default_value = "mutation", value_parser = word::<Category>(Category::NAMES))]
        intent: Category,
        /// The program and its arguments (after `--`).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        argv: Vec<String>,
    },
    /// Keep the index live and print derived atoms as they appear and disappear.
    Watch {
        /// Print JSON lines instead of text.
        #[arg(long)]
        json: bool,
        /// Quiet period before a burst of file events is processed.
        #[arg(long, default_value_t = 50, value_name = "MS")]
        debounce_ms: u64,
    },
}

#[derive(Subcommand, Debug)]
pub enum HookAction {
    /// Install the hook (refuses to replace a hook nerd did not write).
    Install {
        /// Keep an existing hook as pre-commit.local and run it before nerd.
        #[arg(long)]
        force: bool,
    },
    /// Remove nerd's hook, restoring a chained one.
    Uninstall,
    /// Answer a Claude Code PreToolUse hook (payload on stdin) with nerd's decision.
    ClaudePretooluse,
}

#[derive(Subcommand, Debug)]
pub enum HrfAction {
    /// Validate an envelope (exit 0 valid, 1 invalid with the HRF error as JSON, 2 unreadable).
    Validate { file: std::path::PathBuf },
}

#[derive(Subcommand, Debug)]
pub enum AuditAction {
    /// Check every link and the checkpoint (exit 1 on tampering or truncation).
    Verify,
    /// Print the records.
    Show {
        #[arg(long)]
        json: bool,
    },
    /// Re-derive decision record N from its recorded facts and compare.
    Replay { n: i64 },
    /// After examining a trail the checkpoint no longer vouches for (records
    /// deleted with .nerd/, appended or rewritten outside nerd): go on from
    /// the trail as it is. The old checkpoint is kept and the acceptance recorded.
    Accept,
}

#[derive(Subcommand, Debug)]
pub enum PolicyAction {
    /// Decide one action (exit 0 allow, 1 ask or deny, 2 bad input).
    Check {
        #[command(flatten)]
        request: ActionRequest,
        /// Print {"decision": ..., "reasons": [...]}.
        #[arg(long)]
        json: bool,
    },
}

/// One action with the intent it serves and the autonomy profile, as `nerd act` and
/// `nerd policy check` take it.
#[derive(Args, Debug)]
pub struct ActionRequest {
    /// The action as JSON, e.g. '{"kind":"exec","argv":["cargo","test"]}'.
    #[arg(long, value_name = "JSON")]
    action: String,
    /// The intent the action serves.
    #[arg(long, default_value = "mutation", value_parser = word::<Category>(Category::NAMES))]
    intent: Category,
    /// The autonomy profile.
    #[arg(long, default_value = "balanced", value_parser = word::<Autonomy>(Autonomy::NAMES))]
    autonomy: Autonomy,
}

impl ActionRequest {
    /// The action parsed into its checked type; a malformed one is a usage error.
    fn parse(&self) -> Result<(Action, Category, Autonomy), NerdError> {
        let action = Action::parse(&self.action).map_err(|e| NerdError::Usage(e.to_string()))?;
        Ok((action, self.intent, self.autonomy))
    }
}

/// A command-line value from one of the kernel's closed vocabularies: clap
/// lists the words in `--help` and refuses any other, and the field gets the typed value.
pub(crate) fn word<T>(names: &'static [&'static str]) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr<Err = nerd_logic::vocab::UnknownWord> + Clone + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names).try_map(|s| s.parse::<T>())
}

/// Finds the workspace root for commands that do not name one.
pub fn discover_root(explicit: Option<&Path>) -> Result<PathBuf, NerdError> {
    if let Some(p) = explicit {
        return p.canonicalize().map_err(|e| NerdError::Usage(format!("cannot use workspace {}: {e}", p.display())));
    }
    let cwd = std::env::current_dir().map_err(|e| NerdError::Usage(format!("no current directory: {e}")))?;
    let found = cwd.ancestors().find(|d| d.join(".nerd").is_dir() || d.join(".git").exists());
    Ok(found.unwrap_or(&cwd).to_path_buf())
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<i32, NerdError> {
    let Some(command) = cli.command else {
        let root = discover_root(cli.repo.as_deref())?;
        let resume = cli.resume.map(|id| (!id.is_empty()).then_some(id));
        return interactive::run(&root, &cli.agent, resume);
    };
    match command {
        Command::Run(args) => run::run(&discover_root(cli.repo.as_deref())?, args),
        Command::Sessions => sessions(&discover_root(cli.repo.as_deref())?),
        Command::Index { path, json, precise, coverage } => {
            let root = discover_root(path.as_deref().or(cli.repo.as_deref()))?;
            index::run(&root, json, index::Tiers { precise, coverage })
        }
        Command::Query { predicate, json, no_refresh } => {
            let root = discover_root(cli.repo.as_deref())?;
            query::run(&root, predicate.as_deref(), json, !no_refresh)
        }
        Command::Why { atom, json, no_refresh } => {
            let root = discover_root(cli.repo.as_deref())?;
            why::run(&root, &atom, json, !no_refresh)
        }
        Command::Check { staged: _, all, json, r#override, no_cache } => {
            let dir = match &cli.repo {
                Some(p) => p.clone(),
                None => std::env::current_dir().map_err(|e| NerdError::Usage(format!("no current directory: {e}")))?,
            };
            let mode = if all { crate::check::Mode::All } else { crate::check::Mode::Staged };
            check::run(&dir, mode, json, r#override.as_deref(), !no_cache)
        }
        Command::Policy { action: PolicyAction::Check { request, json } } => {
            let root = discover_root(cli.repo.as_deref())?;
            policy::check(&root, &request, json)
        }
        Command::Version => policy::version(),
        Command::DefineAgent { name, topic, sources, tools, keywords, research, json } => specialist::define(
            &discover_root(cli.repo.as_deref())?,
            specialist::Define {
                name: &name,
                topic: topic.as_deref(),
                sources: &sources,
                tools: &tools,
                keywords: &keywords,
                research,
                json,
            },
        ),
        Command::Agents { json } => specialist::list(&discover_root(cli.repo.as_deref())?, json),
        Command::Research { name, json } => specialist::run_research(&discover_root(cli.repo.as_deref())?, &name, json),
        Command::Viva { name, json } => specialist::run_viva(&discover_root(cli.repo.as_deref())?, &name, json),
        Command::Spawn { name, task, paths, timeout, json } => specialist::spawn(
            &discover_root(cli.repo.as_deref())?,
            specialist::SpawnArgs {
                name: &name,
                task: &task,
                paths: &paths,
                timeout: std::time::Duration::from_secs(timeout),
                json,
            },
        ),
        Command::Browse { url, steps, timeout, json } => browse::run(
            &discover_root(cli.repo.as_deref())?,
            browse::BrowseArgs { url: &url, steps: &steps, timeout: std::time::Duration::from_secs(timeout), json },
        ),
        Command::Delegations { json } => specialist::delegations(&discover_root(cli.repo.as_deref())?, json),
        Command::Revoke { id } => specialist::revoke(&discover_root(cli.repo.as_deref())?, &id),
        Command::ShardChild { token_id } => specialist::shard_child(&discover_root(cli.repo.as_deref())?, &token_id),
        Command::Instruct { text } => instruct::run(&discover_root(cli.repo.as_deref())?, &text),
        Command::Hrf { action: HrfAction::Validate { file } } => hrf_validate(&file),
        Command::Perceive { text, provider, json } => {
            perceive::run(&discover_root(cli.repo.as_deref())?, &text, provider, json)
        }
        Command::Act { request, approve, json } => {
            let root = discover_root(cli.repo.as_deref())?;
            act::act(&root, &request, approve, json)
        }
        Command::Audit { action } => {
            let root = discover_root(cli.repo.as_deref())?;
            match action {
                AuditAction::Verify => act::verify(&root),
                AuditAction::Show { json } => act::show(&root, json),
                AuditAction::Replay { n } => act::replay(&root, n),
                AuditAction::Accept => act::accept(&root),
            }
        }
        Command::Context { request, budget, facts, json } => context::run(
            &discover_root(cli.repo.as_deref())?,
            context::ContextArgs { request: &request, budget, facts: &facts, json },
        ),
        Command::Memory { action } => memory::run(&discover_root(cli.repo.as_deref())?, action),
        Command::Undo { force } => act::undo(&discover_root(cli.repo.as_deref())?, force),
        Command::Doctor => act::doctor(&discover_root(cli.repo.as_deref())?),
        Command::SandboxExec { intent, argv } => act::sandbox_exec(&discover_root(cli.repo.as_deref())?, intent, argv),
        Command::Hook { action } => {
            let dir = match &cli.repo {
                Some(p) => p.clone(),
                None => std::env::current_dir().map_err(|e| NerdError::Usage(format!("no current directory: {e}")))?,
            };
            check::hook(&dir, action)
        }
        Command::Watch { json, debounce_ms } => {
            let root = discover_root(cli.repo.as_deref())?;
            watch::run(&root, json, debounce_ms)
        }
    }
}

/// `nerd sessions`.
fn sessions(root: &Path) -> Result<i32, NerdError> {
    use std::io::Write;
    let store = crate::store::StateDb::open(root)?;
    let mut out = std::io::stdout().lock();
    for (id, updated_ns, state) in store.sessions()? {
        let state: crate::agent::session::State = serde_json::from_str(&state).unwrap_or_default();
        let last = state.last_request.as_deref().unwrap_or("");
        let status = state.last_status.map_or("-", |s| s.as_str());
        let when = run::utc_stamp(updated_ns);
        writeln!(out, "{id}  {when}  {} request(s)  {status}  {last}", state.requests)?;
    }
    Ok(crate::error::exit::SUCCESS)
}

/// `nerd hrf validate FILE`.
fn hrf_validate(file: &Path) -> Result<i32, NerdError> {
    use std::io::Write;
    let text =
        std::fs::read_to_string(file).map_err(|e| NerdError::Usage(format!("cannot read {}: {e}", file.display())))?;
    let mut out = std::io::stdout().lock();
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            let error = crate::hrf::HarmonyError {
                code: crate::hrf::ENVELOPE_FAILED,
                message: format!("not JSON: {e}"),
                details: vec![],
            };
            writeln!(out, "{}", serde_json::json!({"error": error}))?;
            return Ok(crate::error::exit::LOGIC_SAID_NO);
        }
    };
    match crate::hrf::validate(&value) {
        Ok(report) => {
            writeln!(out, "valid")?;
            for w in report.warnings {
                writeln!(out, "warning: {w}")?;
            }
            Ok(crate::error::exit::SUCCESS)
        }
        Err(error) => {
            writeln!(out, "{}", serde_json::json!({"error": error}))?;
            Ok(crate::error::exit::LOGIC_SAID_NO)
        }
    }
}
