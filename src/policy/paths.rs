//! Classifies a path for the constitution after normalisation and symlink
//! resolution: inside the workspace, outside it, a secret, or protected
//! (read-only to the agent: `.git/`, nerd's own `.nerd/`).
//! Knows nothing about which action touches the path.

use std::path::{Component, Path, PathBuf};

use nerd_logic::vocab::PathClass;

use crate::secrets::secret_file;

/// Lexically normalises `path` against `base` (`.` and `..` resolved, no IO).
pub fn normalise(base: &Path, path: &str) -> PathBuf {
    let expanded = match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/root"));
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(path),
    };
    let joined = if expanded.is_absolute() { expanded } else { base.join(expanded) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Resolves symlinks in the longest existing prefix of `path` (the rest does not exist yet).
pub fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.file_name().map(|n| n.to_os_string()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Where a path stands; `workspace` must be canonical.
pub fn classify(workspace: &Path, path: &str) -> (PathBuf, PathClass) {
    let real = resolve(&normalise(workspace, path));
    let text = real.to_string_lossy().to_string();
    let home = std::env::var("HOME").unwrap_or_default();
    let secret_dirs = [".ssh", ".aws", ".gnupg", ".kube", ".docker", ".config/gcloud", ".azure", ".password-store"];
    let in_secret_dir = !home.is_empty() && secret_dirs.iter().any(|d| real.starts_with(Path::new(&home).join(d)));
    let secret_name = secret_file(&text).is_some()
        || [".npmrc", ".pypirc", ".git-credentials"].iter().any(|n| text.ends_with(&format!("/{n}")));
    if in_secret_dir || secret_name {
        return (real, PathClass::Secret);
    }
    let Ok(rel) = real.strip_prefix(workspace) else {
        return (real, PathClass::Outside);
    };
    let first = rel.components().next().map(|c| c.as_os_str().to_string_lossy().to_string());
    if matches!(first.as_deref(), Some(".git") | Some(".nerd")) {
        return (real, PathClass::Protected);
    }
    (real, PathClass::Inside)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_resolved_and_classified() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::os::unix::fs::symlink("/etc", ws.join("src/escape")).unwrap();
        let class = |p: &str| classify(&ws, p).1;
        assert_eq!(class("src/lib.rs"), PathClass::Inside);
        assert_eq!(class("src/../src/new/file.rs"), PathClass::Inside);
        assert_eq!(class("../outside.txt"), PathClass::Outside);
        assert_eq!(class("/etc/passwd"), PathClass::Outside);
        assert_eq!(class("src/escape/passwd"), PathClass::Outside, "a symlink out of the workspace");
        assert_eq!(class("src/a/../../../x"), PathClass::Outside);
        assert_eq!(class(".env"), PathClass::Secret);
        assert_eq!(class("~/.ssh/id_ed25519"), PathClass::Secret);
        assert_eq!(class(".git/hooks/pre-commit"), PathClass::Protected);
        assert_eq!(class(".nerd/config.toml"), PathClass::Protected);
        assert_eq!(class("."), PathClass::Inside);
    }
}
