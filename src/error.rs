//! nerd's user-facing errors: one type with a stable exit code and a hint for
//! each failure a command can meet, built from the domain modules' own typed
//! errors. Knows nothing about how errors are printed.

use nerd_logic::atom::AtomSyntaxError;
use nerd_logic::KernelError;

use crate::agent::session::SessionError;
use crate::agent::setup::SetupError;
use crate::agent::AgentError;
use crate::audit::AuditError;
use crate::check::snapshot::SnapshotError;
use crate::check::CheckError;
use crate::config::ConfigError;
use crate::hook::HookError;
use crate::index::IndexError;
use crate::memory::MemoryError;
use crate::model::ProviderError;
use crate::router::RouterError;
use crate::specialist::delegation::DelegationError;
use crate::specialist::profile::ProfileError;
use crate::specialist::research::ResearchError;
use crate::store::StoreError;
use crate::watch::WatchError;

/// Exit codes, stable for scripts: one table for every command.
pub mod exit {
    /// The command did what was asked.
    pub const SUCCESS: i32 = 0;
    /// Logic said no: the atom is not derived, the commit is blocked, the action is refused.
    pub const LOGIC_SAID_NO: i32 = 1;
    /// The command line, an input or the configuration was wrong.
    pub const USAGE: i32 = 2;
    /// The environment failed: database, filesystem, watcher, terminal.
    pub const RUNTIME: i32 = 3;

    /// `nerd run` extends the table for scripts that run requests: 1 and 2 say
    /// whose problem it was, and a batch can partly fail.
    pub mod run {
        /// The configuration is unusable (`[model]`, provider, key, unknown session).
        pub const CONFIG: i32 = 1;
        /// The task was malformed, or the request did not succeed.
        pub const TASK: i32 = 2;
        /// Some tasks of a batch failed, others succeeded.
        pub const PARTIAL: i32 = 4;
        /// The request ended without a verified result: nothing failed, but no
        /// test ran, a runner is missing, the suite could not collect, or
        /// failures from before the request still fail.
        pub const UNVERIFIED: i32 = 5;
    }
}

#[derive(Debug, thiserror::Error)]
pub enum NerdError {
    #[error("{0}")]
    Usage(String),
    #[error("`{text}` is not an atom: {source}")]
    AtomSyntax { text: String, source: AtomSyntaxError },
    #[error(transparent)]
    Kernel(#[from] KernelError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Memory(#[from] MemoryError),
    #[error(transparent)]
    Watch(#[from] WatchError),
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Router(#[from] RouterError),
    #[error(transparent)]
    Audit(#[from] AuditError),
    #[error(transparent)]
    Check(#[from] CheckError),
    #[error(transparent)]
    Hook(#[from] HookError),
    #[error(transparent)]
    Profile(#[from] crate::specialist::profile::ProfileError),
    #[error(transparent)]
    Research(#[from] crate::specialist::research::ResearchError),
    #[error(transparent)]
    Delegation(#[from] crate::specialist::delegation::DelegationError),
    #[error("the terminal failed: {0}")]
    Terminal(String),
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
}

fn store_code(e: &StoreError) -> i32 {
    match e {
        StoreError::TooNew { .. } => exit::USAGE,
        _ => exit::RUNTIME,
    }
}

fn router_code(e: &RouterError) -> i32 {
    match e {
        RouterError::Workspace { .. } | RouterError::Config(_) => exit::USAGE,
        RouterError::Store(s) => store_code(s),
        RouterError::Audit(_) | RouterError::Record(_) | RouterError::Undo(_) => exit::RUNTIME,
    }
}

impl NerdError {
    pub fn exit_code(&self) -> i32 {
        match self {
            NerdError::Kernel(KernelError::NotDerived { .. }) => exit::LOGIC_SAID_NO,
            NerdError::Usage(_) | NerdError::AtomSyntax { .. } | NerdError::Kernel(_) => exit::USAGE,
            NerdError::Config(ConfigError::Read { .. }) => exit::RUNTIME,
            NerdError::Config(_) | NerdError::Provider(_) => exit::USAGE,
            NerdError::Setup(SetupError::Config(ConfigError::Read { .. })) => exit::RUNTIME,
            NerdError::Setup(_) => exit::USAGE,
            NerdError::Session(SessionError::Store(s)) => store_code(s),
            NerdError::Session(_) => exit::USAGE,
            NerdError::Index(IndexError::NotADirectory(_)) => exit::USAGE,
            NerdError::Index(IndexError::Store(s)) | NerdError::Store(s) => store_code(s),
            NerdError::Memory(MemoryError::Store(s)) => store_code(s),
            NerdError::Memory(MemoryError::Stored(_) | MemoryError::StoredRule(_)) => exit::RUNTIME,
            NerdError::Agent(AgentError::Memory(MemoryError::Stored(_) | MemoryError::StoredRule(_))) => exit::RUNTIME,
            NerdError::Memory(_) | NerdError::Agent(AgentError::Memory(_)) => exit::USAGE,
            // A trail whose records were edited: nerd refuses to vouch for it, as `audit verify` exits 1.
            NerdError::Audit(AuditError::Edited { .. }) => exit::LOGIC_SAID_NO,
            NerdError::Index(_) | NerdError::Watch(_) | NerdError::Audit(_) => exit::RUNTIME,
            NerdError::Terminal(_) | NerdError::Output(_) => exit::RUNTIME,
            NerdError::Router(r) | NerdError::Agent(AgentError::Router(r)) => router_code(r),
            NerdError::Agent(AgentError::Store(s)) => store_code(s),
            NerdError::Agent(AgentError::Index(IndexError::NotADirectory(_))) => exit::USAGE,
            NerdError::Agent(AgentError::Index(_)) => exit::RUNTIME,
            NerdError::Agent(AgentError::Config(ConfigError::Read { .. })) => exit::RUNTIME,
            NerdError::Agent(AgentError::Config(_)) => exit::USAGE,
            NerdError::Check(CheckError::Store(_) | CheckError::Link { .. }) => exit::RUNTIME,
            NerdError::Check(CheckError::Snapshot(SnapshotError::Io { .. })) => exit::RUNTIME,
            NerdError::Check(_) => exit::USAGE,
            NerdError::Hook(HookError::Io { .. }) => exit::RUNTIME,
            NerdError::Hook(_) => exit::USAGE,
            NerdError::Profile(ProfileError::Read { .. } | ProfileError::Write { .. }) => exit::RUNTIME,
            NerdError::Profile(_) => exit::USAGE,
            NerdError::Research(ResearchError::Store(s)) => store_code(s),
            NerdError::Research(_) => exit::USAGE,
            NerdError::Delegation(DelegationError::Store(s)) => store_code(s),
            NerdError::Delegation(DelegationError::Key { .. }) => exit::RUNTIME,
            NerdError::Delegation(_) => exit::LOGIC_SAID_NO,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
        const CONFIG: &str = "fix .nerd/config.toml; the README shows every key";
        const MODEL: &str = "check [model] in .nerd/config.toml and ~/.config/nerd/config.toml, and the provider's environment variables";
        const CACHE: &str = "the index is a cache: delete .nerd/index.db and nerd rebuilds it (the audit trail, \
                             sessions and undo checkpoints are in .nerd/state.db)";
        const STATE: &str = "`nerd doctor` says what can be recovered; copy .nerd/state.db aside before trying \
                             `sqlite3 .nerd/state.db .recover`";
        const TRAIL: &str =
            "`nerd audit verify` checks the trail and `nerd audit accept` goes on from it as it is; its checkpoint \
             lives in $XDG_STATE_HOME/nerd/audit (or ~/.local/state)";
        let store = |s: &StoreError| match s {
            StoreError::TooNew { .. } => Some("this database was written by a newer nerd"),
            StoreError::StateDamaged { .. } => Some(STATE),
            StoreError::Open { .. } | StoreError::Corrupt(_) => Some(CACHE),
            _ => None,
        };
        match self {
            NerdError::AtomSyntax { .. } => Some(
                "write atoms as predicate(\"string\", 42), quoted for the shell: nerd why 'impacted(\"src/a.rs\")'",
            ),
            NerdError::Kernel(KernelError::UnknownPredicate { .. }) => {
                Some("`nerd query` with no argument lists every predicate")
            }
            NerdError::Kernel(KernelError::WrongArity { .. }) => Some("`nerd query` lists each predicate's columns"),
            NerdError::Kernel(KernelError::NotDerived { .. }) => {
                Some("`nerd query PREDICATE` lists the atoms that do hold")
            }
            NerdError::Config(_) | NerdError::Agent(AgentError::Config(_)) => Some(CONFIG),
            NerdError::Router(RouterError::Config(_))
            | NerdError::Agent(AgentError::Router(RouterError::Config(_))) => Some(CONFIG),
            NerdError::Provider(_) | NerdError::Setup(_) => Some(MODEL),
            NerdError::Session(SessionError::Store(s)) => store(s),
            NerdError::Session(_) => Some("`nerd sessions` lists this workspace's sessions"),
            NerdError::Store(s) | NerdError::Index(IndexError::Store(s)) => store(s),
            NerdError::Memory(MemoryError::Store(s)) => store(s),
            NerdError::Memory(MemoryError::NoSuchMemory(_)) => Some("`nerd memory list` shows the ids"),
            NerdError::Memory(MemoryError::NoSuchRule(_)) => Some("`nerd memory rules --all` shows the ids"),
            NerdError::Agent(AgentError::Store(s)) | NerdError::Router(RouterError::Store(s)) => store(s),
            NerdError::Audit(_) | NerdError::Router(RouterError::Audit(_)) => Some(TRAIL),
            NerdError::Agent(AgentError::Router(RouterError::Audit(_))) => Some(TRAIL),
            NerdError::Watch(WatchError::Watcher(_)) => {
                Some("raise fs.inotify.max_user_watches, or watch a smaller folder with --repo")
            }
            NerdError::Check(CheckError::Snapshot(SnapshotError::NotAGitRepo))
            | NerdError::Hook(HookError::NotAGitRepo) => Some("run it inside a git repository"),
            NerdError::Check(CheckError::Config(_)) => Some(CONFIG),
            NerdError::Check(CheckError::Snapshot(SnapshotError::Conflict(_))) => {
                Some("resolve the merge conflict and `git add` the result first")
            }
            NerdError::Profile(ProfileError::Read { .. }) => {
                Some("fix or remove the file; `nerd define-agent NAME --topic ...` writes a valid profile")
            }
            NerdError::Research(ResearchError::Store(s)) | NerdError::Delegation(DelegationError::Store(s)) => store(s),
            NerdError::Hook(HookError::Exists(_)) => {
                Some("`nerd hook install --force` keeps it as pre-commit.local and runs it before nerd")
            }
            _ => None,
        }
    }
}
