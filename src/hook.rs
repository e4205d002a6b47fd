//! `nerd hook install|uninstall`: the git pre-commit hook that runs
//! `nerd check --staged`. Honours `core.hooksPath`; never overwrites a hook it
//! did not write: without `--force` it refuses, with `--force` it keeps the
//! existing hook as `pre-commit.local` and runs it first (chaining).
//! Knows nothing about what the check does.

use std::path::{Path, PathBuf};

/// The marker that identifies a hook nerd wrote.
const MARKER: &str = "# nerd pre-commit hook";

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("not inside a git work tree")]
    NotAGitRepo,
    #[error("{0} already exists and was not written by nerd")]
    Exists(PathBuf),
    #[error("{0} was not written by nerd; leaving it alone")]
    Foreign(PathBuf),
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// The hooks folder git uses for the repository containing `dir`.
pub fn hooks_dir(dir: &Path) -> Result<PathBuf, HookError> {
    let out = crate::world::git::run(dir, &["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .map_err(|_| HookError::NotAGitRepo)?;
    Ok(PathBuf::from(out.trim()))
}

fn script(nerd: &Path) -> String {
    let quoted = nerd.display().to_string().replace('\'', r"'\''");
    format!(
        "#!/bin/sh\n{MARKER}: refuses commits that nerd's kernel blocks.\n\
         # Written by `nerd hook install`; remove with `nerd hook uninstall`.\n\
         # Commit anyway (recorded): nerd check --override \"reason\"\n\
         local_hook=\"$(dirname \"$0\")/pre-commit.local\"\n\
         if [ -x \"$local_hook\" ]; then \"$local_hook\" \"$@\" || exit $?; fi\n\
         exec '{quoted}' check --staged\n"
    )
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> HookError + '_ {
    move |source| HookError::Io { path: path.to_path_buf(), source }
}

/// Installs the hook; returns its path and whether an existing hook was chained.
pub fn install(dir: &Path, nerd: &Path, force: bool) -> Result<(PathBuf, bool), HookError> {
    let hooks = hooks_dir(dir)?;
    std::fs::create_dir_all(&hooks).map_err(io(&hooks))?;
    let hook = hooks.join("pre-commit");
    let mut chained = false;
    if let Ok(existing) = std::fs::read_to_string(&hook) {
        if !existing.contains(MARKER) {
            if !force {
                return Err(HookError::Exists(hook));
            }
            let local = hooks.join("pre-commit.local");
            std::fs::rename(&hook, &local).map_err(io(&local))?;
            chained = true;
        }
    } else if hook.exists() {
        // Present but unreadable (e.g. a binary hook): treat as foreign.
        if !force {
            return Err(HookError::Exists(hook));
        }
        let local = hooks.join("pre-commit.local");
        std::fs::rename(&hook, &local).map_err(io(&local))?;
        chained = true;
    }
    let tmp = hooks.join(".pre-commit.nerd-tmp");
    std::fs::write(&tmp, script(nerd)).map_err(io(&tmp))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).map_err(io(&tmp))?;
    }
    std::fs::rename(&tmp, &hook).map_err(io(&hook))?;
    Ok((hook, chained))
}

/// Removes nerd's hook, restoring a chained one; refuses to touch a foreign hook.
pub fn uninstall(dir: &Path) -> Result<Option<PathBuf>, HookError> {
    let hooks = hooks_dir(dir)?;
    let hook = hooks.join("pre-commit");
    match std::fs::read_to_string(&hook) {
        Ok(text) if text.contains(MARKER) => {
            std::fs::remove_file(&hook).map_err(io(&hook))?;
            let local = hooks.join("pre-commit.local");
            if local.exists() {
                std::fs::rename(&local, &hook).map_err(io(&hook))?;
            }
            Ok(Some(hook))
        }
        Ok(_) => Err(HookError::Foreign(hook)),
        Err(_) if !hook.exists() => Ok(None),
        Err(_) => Err(HookError::Foreign(hook)),
    }
}
