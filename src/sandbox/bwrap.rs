//! The real boundary: bubblewrap (Debian's `bubblewrap`) puts the program in
//! its own mount, PID, IPC and network namespaces with every capability
//! dropped. The file system is read-only except the folders a confinement
//! names; protected paths inside them (`.git`, `.nerd`, persistence files) are
//! bound read-only on top; the user's secrets are masked (an empty folder, or
//! `/dev/null` for a file); the network is loopback only; and when the program
//! ends, or nerd dies, everything it started dies with its PID namespace.
//! Knows nothing about which program runs or why a path is protected.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::Confinement;

/// `bwrap` as found on PATH, if it can make namespaces on this machine.
pub fn usable() -> Result<PathBuf, String> {
    static PROBE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PROBE.get_or_init(probe).clone()
}

fn probe() -> Result<PathBuf, String> {
    if std::env::var("NERD_SANDBOX").is_ok_and(|v| v == "landlock") {
        return Err("NERD_SANDBOX=landlock chose the fallback".into());
    }
    let bwrap = ["/usr/bin/bwrap", "/bin/bwrap"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or("bubblewrap is not installed (Debian package `bubblewrap`)")?;
    let status = Command::new(&bwrap)
        .args(["--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--cap-drop", "ALL"])
        .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bwrap.display()))?;
    if status.status.success() {
        Ok(bwrap)
    } else {
        let why = String::from_utf8_lossy(&status.stderr).trim().to_string();
        Err(format!("bubblewrap cannot make namespaces here: {why}"))
    }
}

/// The argv prefix that runs a program inside the boundary (ends with `--`);
/// `own_netns`: the child already made its loopback-only network namespace.
pub fn wrapper(bwrap: &Path, c: &Confinement, cwd: &Path, own_netns: bool) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![bwrap.into()];
    let mut add = |parts: &[&str]| argv.extend(parts.iter().map(OsString::from));
    add(&["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]);
    add(&["--unshare-cgroup-try", "--cap-drop", "ALL"]);
    if !c.network && !own_netns {
        // A network namespace of its own: loopback up, nothing else.
        add(&["--unshare-net"]);
    }
    add(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"]);
    // Sockets of services running outside (container engines, agents) are not reachable.
    if Path::new("/run").is_dir() {
        add(&["--tmpfs", "/run"]);
    }
    fn bind(argv: &mut Vec<OsString>, how: &str, src: &Path, dst: &Path) {
        argv.extend([how.into(), src.into(), dst.into()]);
    }
    // `--dev` already made the harmless devices; binding one again would mount it `nodev`.
    for w in c.writable.iter().filter(|p| p.exists() && !p.starts_with("/dev")) {
        bind(&mut argv, "--bind", w, w);
    }
    // Mounted after the writable folders, so they cover what lies inside them. A
    // symlink is not followed: binding its target would cover another file.
    for r in c.readonly.iter().filter(|p| p.symlink_metadata().is_ok_and(|m| !m.file_type().is_symlink())) {
        bind(&mut argv, "--ro-bind", r, r);
    }
    for m in &c.masked {
        match m.symlink_metadata() {
            Ok(meta) if meta.is_dir() => argv.extend(["--tmpfs".into(), m.into()]),
            Ok(_) => bind(&mut argv, "--ro-bind", Path::new("/dev/null"), m),
            Err(_) => {}
        }
    }
    argv.push("--chdir".into());
    argv.push(cwd.into());
    argv.push("--".into());
    argv
}
