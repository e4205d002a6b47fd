//! Runs an external program for a check: argv only (never a shell string),
//! an allowlisted environment, stdin from /dev/null, its own process group
//! killed whole on timeout, and output capped (head and tail kept, marked).
//! Knows nothing about what the program is for; the sandboxed router of the
//! agent builds on the same rules.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Environment variables a tool may see; everything else (tokens, keys,
/// `LD_PRELOAD`, `GIT_SSH_COMMAND`, `BASH_ENV`...) is dropped.
const ENV_ALLOWLIST: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "TERM",
    "CARGO_HOME",
    "CARGO_NET_OFFLINE",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "GOPATH",
    "GOROOT",
    "GOCACHE",
    "GOMODCACHE",
    "GOFLAGS",
    "GOPROXY",
    "GOTOOLCHAIN",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "NODE_PATH",
];

/// Bytes of each stream kept from the start and from the end.
pub const OUTPUT_KEEP: usize = 2 * 1024 * 1024;

/// One program to run.
pub struct Job {
    pub argv: Vec<OsString>,
    pub cwd: PathBuf,
    /// Variables set on top of the allowlisted environment.
    pub env: Vec<(String, OsString)>,
    pub timeout: Duration,
    /// Confinement applied in the child before exec (the router's sandbox).
    pub confine: Option<std::sync::Arc<crate::sandbox::Prepared>>,
    /// When this turns true (Ctrl-C), the program and its children are killed.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// What a finished program left.
#[derive(Debug)]
pub struct Finished {
    /// Exit code; `None` when killed by a signal (including our timeout).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    /// Whether either stream was longer than kept.
    pub truncated: bool,
    pub elapsed: Duration,
    /// What it asked nerd's proxy for (allowed or refused), when one served it.
    pub connections: Vec<crate::sandbox::Connection>,
    /// Requests beyond those kept in `connections`.
    pub connections_unlogged: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("`{0}` is not installed or not on PATH")]
    NotFound(String),
    #[error("cannot run `{program}`: {source}")]
    Spawn { program: String, source: std::io::Error },
}

/// Finds `program` on PATH (or takes it as a path), as an absolute path.
pub fn which(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Keeps the first and last `OUTPUT_KEEP` bytes of a stream.
fn capped(mut reader: impl Read) -> (Vec<u8>, bool) {
    let mut head = Vec::new();
    let mut tail: std::collections::VecDeque<u8> = std::collections::VecDeque::new();
    let mut buf = [0u8; 64 * 1024];
    let mut dropped = false;
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 {
            break;
        }
        let mut chunk = &buf[..n];
        if head.len() < OUTPUT_KEEP {
            let take = (OUTPUT_KEEP - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        tail.extend(chunk);
        while tail.len() > OUTPUT_KEEP {
            tail.pop_front();
            dropped = true;
        }
    }
    if dropped {
        head.extend_from_slice(b"\n[... output truncated by nerd ...]\n");
    }
    head.extend(tail);
    (head, dropped)
}

/// The command for a job, in its own process group, with the allowlisted
/// environment and the confinement applied in the child; stdio is the caller's.
pub fn command(job: &Job) -> Result<Command, ExecError> {
    let program = job.argv.first().map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
    let resolved = which(&program).ok_or_else(|| ExecError::NotFound(program.clone()))?;
    let (spawned, args) = match &job.confine {
        Some(prepared) => prepared.command_line(&resolved, &job.argv[1..]),
        None => (resolved.into_os_string(), job.argv[1..].to_vec()),
    };
    let mut cmd = Command::new(spawned);
    cmd.args(args).current_dir(&job.cwd).env_clear().process_group(0);
    for key in ENV_ALLOWLIST {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    for (k, v) in &job.env {
        cmd.env(k, v);
    }
    for (k, v) in job.confine.iter().flat_map(|p| p.env()) {
        cmd.env(k, v);
    }
    if let Some(prepared) = job.confine.clone() {
        // SAFETY: apply_in_child only makes syscalls (setrlimit, prctl, landlock, seccomp).
        unsafe {
            cmd.pre_exec(move || prepared.apply_in_child());
        }
    }
    Ok(cmd)
}

/// Runs a job to completion or timeout.
pub fn run(job: &Job) -> Result<Finished, ExecError> {
    let program = job.argv.first().map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
    let mut cmd = command(job)?;
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(|source| ExecError::Spawn { program: program.clone(), source })?;
    // The child handed out its proxy listener before exec, so it is there to serve now.
    let proxy = job.confine.as_ref().and_then(|p| p.serve());
    let pid = child.id() as i32;
    let out = child.stdout.take().map(|s| std::thread::spawn(move || capped(s)));
    let err = child.stderr.take().map(|s| std::thread::spawn(move || capped(s)));
    let mut timed_out = false;
    // Poll quickly at first (most tools finish fast), then back off to 20 ms.
    let mut pause = Duration::from_micros(200);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if job.cancel.as_ref().is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst)) => {
                // SAFETY: kill(2) on our own child's process group; no memory is touched.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                break child.wait().ok();
            }
            Ok(None) if started.elapsed() >= job.timeout => {
                // SAFETY: kill(2) on our own child's process group; no memory is touched.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                timed_out = true;
                break child.wait().ok();
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(_) => break None,
        }
    };
    // Descendants that outlived the leader must not keep the pipes open.
    // SAFETY: as above; ESRCH when the group is already gone is fine.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    let join = |h: Option<std::thread::JoinHandle<(Vec<u8>, bool)>>| h.and_then(|h| h.join().ok()).unwrap_or_default();
    let (stdout, t1) = join(out);
    let (stderr, t2) = join(err);
    let (connections, connections_unlogged) = proxy.map(|p| p.finish()).unwrap_or_default();
    Ok(Finished {
        code: status.and_then(|s| s.code()),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        timed_out,
        truncated: t1 || t2,
        elapsed: started.elapsed(),
        connections,
        connections_unlogged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(argv: &[&str], timeout_ms: u64) -> Job {
        Job {
            argv: argv.iter().map(OsString::from).collect(),
            cwd: std::env::temp_dir(),
            env: vec![],
            timeout: Duration::from_millis(timeout_ms),
            confine: None,
            cancel: None,
        }
    }

    #[test]
    fn a_cancelled_job_is_killed_long_before_its_timeout() {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let setter = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            setter.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        let started = std::time::Instant::now();
        let out = run(&Job { cancel: Some(flag), ..job(&["sleep", "30"], 60_000) }).unwrap();
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        assert_eq!((out.code, out.timed_out), (None, false));
    }

    #[test]
    fn runs_argv_without_a_shell_and_scrubs_the_environment() {
        std::env::set_var("NERD_TEST_SECRET_TOKEN", "hunter2");
        let out =
            run(&job(&["sh", "-c", "echo \"$NERD_TEST_SECRET_TOKEN|$PATH\"; echo err >&2; exit 3"], 5000)).unwrap();
        assert_eq!(out.code, Some(3));
        assert!(out.stdout.starts_with('|'), "token leaked: {}", out.stdout);
        assert_eq!(out.stderr.trim(), "err");
        let out = run(&job(&["echo", "a; rm -rf /"], 5000)).unwrap();
        assert_eq!(out.stdout, "a; rm -rf /\n");
    }

    #[test]
    fn a_hang_is_killed_with_its_children() {
        let out = run(&job(&["sh", "-c", "sleep 30 & sleep 30"], 300)).unwrap();
        assert!(out.timed_out);
        assert!(out.elapsed < Duration::from_secs(5), "{:?}", out.elapsed);
    }

    #[test]
    fn endless_output_is_capped() {
        let out = run(&job(&["sh", "-c", "yes nerd | head -c 8000000"], 20_000)).unwrap();
        assert!(out.truncated);
        assert!(out.stdout.len() <= 2 * OUTPUT_KEEP + 100);
        assert!(out.stdout.contains("[... output truncated by nerd ...]"));
    }

    #[test]
    fn a_missing_program_is_a_clear_error() {
        let err = run(&job(&["definitely-not-a-tool-nerd"], 1000)).unwrap_err();
        assert_eq!(err.to_string(), "`definitely-not-a-tool-nerd` is not installed or not on PATH");
    }
}
