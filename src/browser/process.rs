//! The Chromium process: found on PATH (or `NERD_CHROMIUM`), started headless
//! in its own process group with a fresh profile directory, no debugging
//! port (the protocol runs over two pipes on fds 3 and 4), a proxy that
//! refuses every host the allowlist does not bypass, no pop-ups and no
//! downloads; killed with its whole group when dropped, and when nerd dies
//! (parent-death signal). Knows nothing about the protocol spoken on the pipes.

use std::fs::File;
use std::io::Read;
use std::net::TcpListener;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::BrowserError;

/// Names the browser goes by on PATH, in the order they are tried.
const NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];

/// The browser binary: `NERD_CHROMIUM`, else the first of `NAMES` on PATH.
pub fn find() -> Result<PathBuf, BrowserError> {
    if let Some(p) = std::env::var_os("NERD_CHROMIUM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(BrowserError::NotInstalled(format!("NERD_CHROMIUM={}", p.display())))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in NAMES {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(BrowserError::NotInstalled("no chromium on PATH".into()))
}

/// A running browser.
pub struct Process {
    child: Child,
    profile: PathBuf,
}

/// A pipe whose ends close on exec.
fn pipe() -> Result<(OwnedFd, OwnedFd), BrowserError> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two new descriptors into the array, which we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(BrowserError::Launch(format!("pipe: {}", std::io::Error::last_os_error())));
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Removes the profile directories of browsers whose nerd was killed
/// (`nerd-browser-PID-…` where no process PID runs any more).
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = name.strip_prefix("nerd-browser-").and_then(|rest| rest.split('-').next()) else { continue };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A fresh, private profile directory under the temporary directory.
fn profile_dir() -> Result<PathBuf, BrowserError> {
    let base = std::env::temp_dir();
    sweep(&base);
    for attempt in 0..16u32 {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!("nerd-browser-{}-{nanos:x}-{attempt}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(BrowserError::Launch(format!("profile directory: {e}"))),
        }
    }
    Err(BrowserError::Launch("no fresh profile directory could be made".into()))
}

/// A proxy that answers nothing: every connection is closed at once. Hosts
/// the allowlist does not bypass are sent here, so a request that escapes
/// the protocol's gate (a worker, a socket) still reaches no one.
fn refusing_proxy() -> Result<u16, BrowserError> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| BrowserError::Launch(format!("proxy: {e}")))?;
    let port = listener.local_addr().map_err(|e| BrowserError::Launch(format!("proxy: {e}")))?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            drop(stream);
        }
    });
    Ok(port)
}

impl Process {
    /// Starts `binary` headless; `bypass` lists the proxy bypass entries
    /// (`host`, `host:port`, `*.domain`) of the hosts the allowlist holds.
    /// Returns the browser with the pipe it reads commands from and the one it writes to.
    pub fn start(binary: &Path, bypass: &[String]) -> Result<(Process, File, File), BrowserError> {
        let profile = profile_dir()?;
        let (commands_read, commands_write) = pipe()?;
        let (events_read, events_write) = pipe()?;
        let proxy = refusing_proxy()?;
        // Loopback is bypassed implicitly; only an allowlist entry may reach it.
        // Chromium reads the rules in order, so the subtraction comes first.
        let rules: Vec<String> = std::iter::once("<-loopback>".to_string()).chain(bypass.iter().cloned()).collect();
        let mut cmd = Command::new(binary);
        cmd.args([
            "--headless",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--disable-extensions",
            "--no-first-run",
            "--no-default-browser-check",
            "--mute-audio",
            "--hide-scrollbars",
            "--block-new-web-contents",
            "--window-size=1280,800",
            "--remote-debugging-pipe",
        ]);
        // The browser's own sandbox cannot start as root; as anyone else it stays on.
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            cmd.arg("--no-sandbox");
        }
        cmd.arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--proxy-server=http://127.0.0.1:{proxy}"))
            .arg(format!("--proxy-bypass-list={}", rules.join(";")))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(File::create(profile.join("stderr.log")).map_or(Stdio::null(), Stdio::from))
            .process_group(0);
        let (r, w) = (commands_read.as_raw_fd(), events_write.as_raw_fd());
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: between fork and exec only async-signal-safe calls are made
        // (fcntl, dup2, prctl, getppid), on descriptors this process owns.
        unsafe {
            cmd.pre_exec(move || {
                // Move both ends above 3 and 4 first, so neither dup2 clobbers the other.
                let r2 = libc::fcntl(r, libc::F_DUPFD_CLOEXEC, 10);
                let w2 = libc::fcntl(w, libc::F_DUPFD_CLOEXEC, 10);
                if r2 < 0 || w2 < 0 || libc::dup2(r2, 3) < 0 || libc::dup2(w2, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The browser dies with nerd, however nerd dies.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 || libc::getppid() != parent {
                    return Err(std::io::Error::other("the parent is gone"));
                }
                Ok(())
            });
        }
        let child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profile);
                return Err(BrowserError::Launch(format!("{}: {e}", binary.display())));
            }
        };
        drop(commands_read);
        drop(events_write);
        Ok((Process { child, profile }, File::from(commands_write), File::from(events_read)))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the browser process still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The last lines the browser wrote to stderr, for an error message.
    pub fn stderr_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = File::open(self.profile.join("stderr.log")) {
            let _ = f.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(3)..].join("\n")
    }
}

/// Whether a process of group `pgid` still runs (zombies waiting for a reaper do not count).
fn group_runs(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else { return false };
    entries.flatten().any(|e| {
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // After the command name's closing parenthesis: state, parent, process group.
        let mut fields = stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace()).into_iter().flatten();
        let state = fields.next();
        let group = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
        group == Some(pgid) && state != Some("Z")
    })
}

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process group this child leads; no memory is involved.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGKILL);
        }
        let _ = self.child.wait();
        // The group's other processes (renderers, the zygote) die with the same signal;
        // give them a moment to be gone before their profile directory is removed.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while group_runs(self.child.id()) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
