//! nerd's user-facing errors: one type with a stable exit code and a hint for
//! each failure a command can meet. Knows nothing about how errors are printed.

use nerd_logic::atom::AtomSyntaxError;
use nerd_logic::KernelError;

use crate::check::snapshot::SnapshotError;
use crate::check::CheckError;
use crate::hook::HookError;
use crate::index::IndexError;
use crate::store::StoreError;

/// Exit codes, stable for scripts.
pub mod exit {
    /// The command did what was asked.
    pub const SUCCESS: i32 = 0;
    /// Logic said no: the atom is not derived, the commit is blocked.
    pub const LOGIC_SAID_NO: i32 = 1;
    /// The command line or an input was wrong.
    pub const USAGE: i32 = 2;
    /// The environment failed: database, filesystem, watcher.
    pub const RUNTIME: i32 = 3;
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
    Index(#[from] IndexError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("file watching failed: {0}")]
    Watch(String),
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
    #[error(transparent)]
    Check(#[from] crate::check::CheckError),
    #[error(transparent)]
    Hook(#[from] crate::hook::HookError),
}

impl NerdError {
    pub fn exit_code(&self) -> i32 {
        match self {
            NerdError::Kernel(KernelError::NotDerived { .. }) => exit::LOGIC_SAID_NO,
            NerdError::Usage(_) | NerdError::AtomSyntax { .. } | NerdError::Kernel(_) => exit::USAGE,
            NerdError::Index(IndexError::NotADirectory(_)) => exit::USAGE,
            NerdError::Index(_) | NerdError::Store(_) | NerdError::Watch(_) | NerdError::Output(_) => exit::RUNTIME,
            NerdError::Check(CheckError::Store(_) | CheckError::Link { .. }) => exit::RUNTIME,
            NerdError::Check(CheckError::Snapshot(SnapshotError::Io { .. })) => exit::RUNTIME,
            NerdError::Check(_) => exit::USAGE,
            NerdError::Hook(HookError::Io { .. }) => exit::RUNTIME,
            NerdError::Hook(_) => exit::USAGE,
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<&'static str> {
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
            NerdError::Store(StoreError::TooNew { .. }) => Some("this database was written by a newer nerd"),
            NerdError::Store(StoreError::Open { .. } | StoreError::Corrupt(_)) => {
                Some("the index is a cache: delete .nerd/nerd.db and run `nerd index` again")
            }
            NerdError::Check(CheckError::Snapshot(SnapshotError::NotAGitRepo))
            | NerdError::Hook(HookError::NotAGitRepo) => Some("run it inside a git repository"),
            NerdError::Check(CheckError::Config(_)) => Some("fix .nerd/config.toml; the README shows every key"),
            NerdError::Check(CheckError::Snapshot(SnapshotError::Conflict(_))) => {
                Some("resolve the merge conflict and `git add` the result first")
            }
            NerdError::Hook(HookError::Exists(_)) => {
                Some("`nerd hook install --force` keeps it as pre-commit.local and runs it before nerd")
            }
            _ => None,
        }
    }
}
