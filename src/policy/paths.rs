//! Classifies a path for the constitution after normalisation and symlink
//! resolution (dangling links followed): inside the workspace, outside it, a
//! secret, protected (read-only to the agent: any `.git`, nerd's own
//! `.nerd/`), a persistence file tools run later, or a harmless device.
//! Names are compared without case, as a case-insensitive file system would.
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

/// Resolves symlinks in the longest existing prefix of `path` (the rest does
/// not exist yet). A dangling symlink is followed too: writing through it
/// would create its target.
pub fn resolve(path: &Path) -> PathBuf {
    resolve_within(path, 0)
}

fn resolve_within(path: &Path, depth: usize) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        let rebuilt = |base: PathBuf, rest: &[std::ffi::OsString]| {
            let mut out = base;
            for part in rest.iter().rev() {
                out.push(part);
            }
            out
        };
        if let Ok(real) = existing.canonicalize() {
            return rebuilt(real, &rest);
        }
        // A symlink whose target does not exist: resolve the target instead (40 hops, like the kernel).
        if depth < 40 && existing.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
            if let Ok(target) = std::fs::read_link(&existing) {
                let parent = existing.parent().map(Path::to_path_buf).unwrap_or_default();
                let followed = normalise(&parent, &target.to_string_lossy());
                return resolve_within(&rebuilt(followed, &rest), depth + 1);
            }
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

/// Device files that are harmless to read or write.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Folders under the home folder that hold credentials.
pub const SECRET_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".azure",
    ".password-store",
    ".terraform.d",
];

/// Files that hold credentials wherever they are (names compared without case).
const SECRET_NAMES: &[&str] = &[
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".netrc",
    "_netrc",
    ".pgpass",
    "credentials",
    "secrets.yaml",
    "secrets.yml",
    "secrets.json",
    "secrets.toml",
    "kubeconfig",
    ".dockercfg",
    "terraform.tfstate",
    "terraform.tfstate.backup",
];

/// Files that tools run or obey later (CI, editors, build tools, direnv, git,
/// other agents): writing one is a change a human must approve. Relative to
/// the workspace, compared without case; a folder ends with `/`.
const PERSISTENCE: &[&str] = &[
    ".github/workflows/",
    ".github/actions/",
    ".gitlab-ci.yml",
    ".circleci/",
    ".travis.yml",
    "jenkinsfile",
    "azure-pipelines.yml",
    ".buildkite/",
    ".drone.yml",
    ".gitpod.yml",
    ".vscode/",
    ".idea/",
    ".devcontainer/",
    ".gitmodules",
    ".pre-commit-config.yaml",
    ".husky/",
    "lefthook.yml",
    ".lefthook.yml",
    ".git-blame-ignore-revs",
    ".lfsconfig",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".mcp.json",
    ".cursor/",
];

/// Files that tools obey in whichever folder they stand (cargo reads
/// `.cargo/config.toml` in every folder above where it runs, direnv `.envrc`,
/// git `.gitattributes`...): persistence at any depth. Compared without case.
const PERSISTENCE_ANYWHERE: &[&str] = &[
    ".cargo/config.toml",
    ".cargo/config",
    ".envrc",
    ".gitattributes",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".python-version",
    ".nvmrc",
    ".node-version",
    ".tool-versions",
    ".mise.toml",
    "mise.toml",
    ".npmrc",
    ".pdbrc",
    ".pythonrc",
    "sitecustomize.py",
    "usercustomize.py",
];

/// Another agent's own configuration, which can switch its guards (nerd's hook among them) off.
const AGENT_CONFIG: &[&str] = &[".claude/settings.json", ".claude/settings.local.json", ".claude/hooks/"];

/// Whether `name` is a secret by its file name alone (compared without case).
fn secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    secret_file(&lower).is_some()
        || SECRET_NAMES.contains(&lower.as_str())
        || lower.ends_with(".tfstate")
        || lower.ends_with(".tfvars")
}

/// What a confined program may read but not write inside the workspace, and
/// what it may not read at all ([`secret_locations`]), for the sandbox: every
/// existing `.git` and `.nerd` at the top and the persistence files that exist.
pub fn sandbox_layout(workspace: &Path, secret_paths: &[String]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut readonly: Vec<PathBuf> = [".git", ".nerd"].iter().map(|p| workspace.join(p)).collect();
    let top = PERSISTENCE.iter().chain(PERSISTENCE_ANYWHERE).chain(AGENT_CONFIG);
    readonly.extend(top.map(|p| workspace.join(p.trim_end_matches('/'))));
    (readonly, secret_locations(workspace, secret_paths))
}

/// Where the user's secrets live: the credential folders and files in the
/// home folder, the system's password hashes, and the project's own
/// `[policy] secret_paths` (relative to `workspace`).
pub fn secret_locations(workspace: &Path, secret_paths: &[String]) -> Vec<PathBuf> {
    let mut masked: Vec<PathBuf> = vec!["/etc/shadow".into(), "/etc/gshadow".into()];
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from).filter(|h| h.is_absolute()) {
        masked.extend(SECRET_DIRS.iter().map(|d| home.join(d)));
        masked.extend(SECRET_NAMES.iter().filter(|n| !n.contains('/')).map(|n| home.join(n)));
        masked
            .extend([".cargo/credentials", ".cargo/credentials.toml", ".config/git/credentials"].map(|n| home.join(n)));
    }
    masked.extend(secret_paths.iter().map(|p| normalise(workspace, p)));
    // The key that signs delegation tokens: no confined program or agent read may see it.
    masked.push(workspace.join(".nerd").join("delegation.key"));
    masked
}

/// Whether a workspace-relative path is a secret by its name alone (no IO):
/// the file name, or a folder named for secrets on the way.
pub fn secret_by_name(rel: &str) -> bool {
    secret_name(rel.rsplit('/').next().unwrap_or(rel)) || secret_file(&rel.to_ascii_lowercase()).is_some()
}

/// Whether `path` is a second name of one of the user's secret files (a hard link has no target to resolve).
fn hard_link_to_secret(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.nlink() > 1 => {
            crate::files::Refused::files(&secret_locations(Path::new("/"), &[])).holds(&m)
        }
        _ => false,
    }
}

/// Where a path stands; `workspace` must be canonical.
pub fn classify(workspace: &Path, path: &str) -> (PathBuf, PathClass) {
    let normal = normalise(workspace, path);
    if DEVICES.iter().any(|d| normal == Path::new(d)) {
        return (normal, PathClass::Device);
    }
    let real = resolve(&normal);
    if DEVICES.iter().any(|d| real == Path::new(d)) {
        return (real, PathClass::Device);
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let in_secret_dir = !home.is_empty() && SECRET_DIRS.iter().any(|d| real.starts_with(Path::new(&home).join(d)));
    let name = real.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    if in_secret_dir || secret_name(&name) || real == Path::new("/etc/shadow") || real == Path::new("/etc/gshadow") {
        return (real, PathClass::Secret);
    }
    if hard_link_to_secret(&real) {
        return (real, PathClass::Secret);
    }
    let Ok(rel) = real.strip_prefix(workspace) else {
        return (real, PathClass::Outside);
    };
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase()).collect();
    // Any repository's `.git` (a nested one, or a gitdir file named `.git`), and nerd's own state.
    if parts.iter().any(|p| p == ".git") || parts.first().is_some_and(|p| p == ".nerd") {
        return (real, PathClass::Protected);
    }
    let rel_lower = parts.join("/");
    if secret_file(&rel_lower).is_some() {
        return (real, PathClass::Secret);
    }
    let matches = |p: &str| match p.strip_suffix('/') {
        Some(dir) => rel_lower == dir || rel_lower.starts_with(p),
        None => rel_lower == p,
    };
    if AGENT_CONFIG.iter().any(|p| matches(p)) {
        return (real, PathClass::Protected);
    }
    let anywhere = PERSISTENCE_ANYWHERE.iter().any(|p| rel_lower == *p || rel_lower.ends_with(&format!("/{p}")));
    if anywhere || PERSISTENCE.iter().any(|p| matches(p)) {
        return (real, PathClass::Persistence);
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
        assert_eq!(class(".GIT/hooks/pre-commit"), PathClass::Protected, "case variants");
        assert_eq!(class("vendor/lib/.git/config"), PathClass::Protected, "a nested repository");
        assert_eq!(class(".ENV"), PathClass::Secret);
        assert_eq!(class("deploy/secrets.yaml"), PathClass::Secret);
        assert_eq!(class("infra/terraform.tfstate"), PathClass::Secret);
        assert_eq!(class(".cargo/config.toml"), PathClass::Persistence);
        assert_eq!(class(".github/workflows/ci.yml"), PathClass::Persistence);
        assert_eq!(class(".vscode/tasks.json"), PathClass::Persistence);
        assert_eq!(class(".envrc"), PathClass::Persistence);
        assert_eq!(class("/dev/null"), PathClass::Device);
        // A dangling symlink is judged by where it points.
        std::os::unix::fs::symlink("/nonexistent-nerd-target/authorized_keys", ws.join("src/dangling")).unwrap();
        assert_eq!(class("src/dangling"), PathClass::Outside);
    }
}
