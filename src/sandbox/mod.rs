//! Confinement for programs the router runs. The boundary is bubblewrap's
//! namespaces where this machine allows them (`bwrap`): writes only where the
//! confinement says, protected paths read-only, secrets masked, loopback-only
//! network, its own PID namespace. Elsewhere the fallback is Landlock (writes)
//! and, for the network, a user and network namespace of the child's own with
//! loopback up (`netns`) where the kernel allows it, else a seccomp socket
//! filter (`landlock`). rlimits and `no_new_privs` apply
//! in both. Everything is prepared before `fork`; the child only makes
//! syscalls. A layer the machine does not offer is reported, never pretended.
//! Hosts the user allows (`allow_hosts`) are reached through nerd's proxy
//! (`proxy`), never by opening the namespace.
//! Knows nothing about which program runs or why a path is protected.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

mod bwrap;
mod landlock;
mod netns;
mod proxy;
mod refusal;

use std::os::fd::{AsRawFd, OwnedFd};

pub use landlock::landlock_abi;
pub use proxy::{Connection, Proxy};
pub use refusal::{network_refusal, NetworkRefusal};

use crate::hosts::HostAllowance;

/// What a confined program may do.
#[derive(Clone, Debug, Default)]
pub struct Confinement {
    /// Folders (and files) it may write to.
    pub writable: Vec<PathBuf>,
    /// Paths inside the writable folders it may only read (`.git`, `.nerd`, persistence files).
    pub readonly: Vec<PathBuf>,
    /// Files and folders it may not even read (the user's credentials).
    pub masked: Vec<PathBuf>,
    /// Whether it may reach the network beyond loopback.
    pub network: bool,
    /// Hosts it may reach through nerd's proxy while the network is confined.
    pub hosts: HostAllowance,
    pub cpu_seconds: u64,
}

/// Which layers are in force, for `nerd doctor` and the audit record.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Layers {
    /// The mount/PID/network namespaces, or why there are none.
    pub namespaces: String,
    pub landlock: String,
    pub seccomp: String,
    pub rlimits: String,
    /// What it can reach: loopback only, the hosts through nerd's proxy, or everything.
    pub network: String,
}

impl Layers {
    /// Whether the namespace boundary (read-only `.git`, masked secrets, own PID namespace) is in force.
    pub fn boundary(&self) -> bool {
        self.namespaces.starts_with("bubblewrap")
    }
}

/// A confinement ready to apply in a child.
pub struct Prepared {
    /// Runs the program inside bubblewrap: the argv prefix, ending with `--`.
    wrapper: Option<Vec<OsString>>,
    ruleset: Option<i32>,
    /// A network namespace made in the child, loopback only: the fallback's,
    /// or, under bubblewrap, the one that holds the proxy's listener.
    netns: Option<netns::Plan>,
    /// The socket pair the proxy's listener comes back on, and the hosts it serves.
    relay: Option<Relay>,
    filter: Option<Vec<libc::sock_filter>>,
    cpu_seconds: u64,
    pub layers: Layers,
}

/// Where the proxy's listener comes back from the child.
struct Relay {
    parent: OwnedFd,
    child: OwnedFd,
    hosts: HostAllowance,
}

impl Relay {
    /// A relay for `hosts`, when there are any and the network is confined; or why none can be had.
    fn new(c: &Confinement) -> Option<Result<Relay, String>> {
        if c.network || c.hosts.is_empty() {
            return None;
        }
        Some(netns::available().and_then(|()| {
            let (parent, child) = std::os::unix::net::UnixDatagram::pair()
                .map_err(|e| format!("cannot make the proxy's socket pair: {e}"))?;
            Ok(Relay { parent: parent.into(), child: child.into(), hosts: c.hosts.clone() })
        }))
    }
}

/// The `network` line of the layers.
fn network_line(c: &Confinement, relay: &Option<Result<Relay, String>>, loopback: bool) -> String {
    let inside = if loopback { "loopback only" } else { "none, loopback included" };
    match relay {
        _ if c.network => "allowed by policy".into(),
        None => format!("{inside}; no host allowed (add hosts to {})", crate::hosts::WHERE_ALLOWED),
        Some(Ok(r)) => format!("{inside}, and through nerd's proxy (127.0.0.1:{}): {}", proxy::PORT, r.hosts),
        Some(Err(why)) => format!("{inside}; allow_hosts ({}) cannot be served: {why}", c.hosts),
    }
}

/// The address space one confined process may map. It bounds a runaway
/// allocation, not resident memory: V8 reserves about 10 GiB of it for each
/// WebAssembly memory (its guard regions), and a Node test runner whose main
/// thread and a worker each load a Wasm module (vitest through vite) needs
/// more than 20 GiB. At 16 GiB such runs died before any test ran.
const ADDRESS_SPACE: u64 = 64 << 30;

/// Prepares a confinement in the parent, for a program that will run in `cwd`.
pub fn prepare(c: &Confinement, cwd: &Path) -> Prepared {
    let rlimits =
        format!("processes 4096, address space {} GiB, CPU {} s, file size 1 GiB", ADDRESS_SPACE >> 30, c.cpu_seconds);
    match bwrap::usable() {
        Ok(path) => {
            let relay = Relay::new(c);
            let network = network_line(c, &relay, true);
            let relay = relay.and_then(Result::ok);
            // With a relay the namespace is made before bwrap runs, and bwrap keeps it.
            let netns = relay.as_ref().map(|r| netns::Plan::new(Some(r.child.as_raw_fd()), false));
            let namespaces = format!(
                "bubblewrap ({}): mount, PID, IPC{} namespaces; {} path(s) read-only, {} masked; no capabilities",
                path.display(),
                if c.network { "" } else { ", network (loopback only)" },
                c.readonly.iter().filter(|p| p.exists()).count(),
                c.masked.iter().filter(|p| p.exists()).count(),
            );
            Prepared {
                wrapper: Some(bwrap::wrapper(&path, c, cwd, netns.is_some())),
                ruleset: None,
                netns,
                relay,
                filter: None,
                cpu_seconds: c.cpu_seconds,
                layers: Layers {
                    namespaces,
                    landlock: "not needed: the mount namespace confines writes".into(),
                    seccomp: "not needed: the network namespace has loopback only".into(),
                    rlimits,
                    network,
                },
            }
        }
        Err(why) => fallback(c, format!("unavailable: {why}"), rlimits),
    }
}

fn fallback(c: &Confinement, namespaces: String, rlimits: String) -> Prepared {
    let (ruleset, landlock) = match landlock::ruleset(&c.writable) {
        Ok((fd, abi)) => (Some(fd), format!("writes confined to the workspace and a temp dir (Landlock ABI {abi})")),
        Err(why) => (None, format!("unavailable: {why}")),
    };
    // The namespace probe runs only when the network is to be confined.
    let relay = Relay::new(c);
    let child_end = relay.as_ref().and_then(|r| r.as_ref().ok()).map(|r| r.child.as_raw_fd());
    let (netns, filter, seccomp) = if c.network {
        (None, None, "network allowed by policy".to_string())
    } else {
        match netns::available() {
            Ok(()) => (
                Some(netns::Plan::new(child_end, true)),
                None,
                "not needed: a user and network namespace of its own has loopback only".to_string(),
            ),
            Err(why) if cfg!(target_arch = "x86_64") => (
                None,
                Some(landlock::socket_filter()),
                format!("network sockets refused, loopback included (seccomp filter; no network namespace: {why})"),
            ),
            Err(why) => (None, None, format!("unavailable: the socket filter is built for x86_64 only, and {why}")),
        }
    };
    let network = network_line(c, &relay, filter.is_none());
    Prepared {
        wrapper: None,
        ruleset,
        netns,
        relay: relay.and_then(Result::ok),
        filter,
        cpu_seconds: c.cpu_seconds,
        layers: Layers { namespaces, landlock, seccomp, rlimits, network },
    }
}

impl Prepared {
    /// The program and arguments to spawn for `program args…`: itself, or inside the boundary.
    pub fn command_line(&self, program: &Path, args: &[OsString]) -> (OsString, Vec<OsString>) {
        match &self.wrapper {
            Some(w) => {
                let mut rest: Vec<OsString> = w[1..].to_vec();
                rest.push(program.into());
                rest.extend(args.iter().cloned());
                (w[0].clone(), rest)
            }
            None => (program.into(), args.to_vec()),
        }
    }

    /// Variables that point the program's HTTP clients at nerd's proxy (none without one).
    /// Loopback stays direct, so a suite's local servers are reached as before.
    pub fn env(&self) -> Vec<(String, OsString)> {
        if self.relay.is_none() {
            return Vec::new();
        }
        let url = OsString::from(format!("http://127.0.0.1:{}", proxy::PORT));
        let direct = OsString::from("localhost,127.0.0.1,::1");
        let mut env: Vec<(String, OsString)> = ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"]
            .iter()
            .map(|k| (k.to_string(), url.clone()))
            .collect();
        env.extend(["no_proxy", "NO_PROXY"].iter().map(|k| (k.to_string(), direct.clone())));
        env
    }

    /// Starts the proxy on the listener the child handed out; call right after spawn.
    pub fn serve(&self) -> Option<Proxy> {
        let relay = self.relay.as_ref()?;
        let listener = netns::receive_fd(relay.parent.as_raw_fd())?;
        proxy::serve(listener, relay.hosts.clone()).ok()
    }

    /// Applies the confinement; runs in the child between fork and exec.
    pub fn apply_in_child(&self) -> std::io::Result<()> {
        if let Some(plan) = &self.netns {
            plan.enter()?;
        }
        let set = |resource, value: u64| {
            let lim = libc::rlimit { rlim_cur: value, rlim_max: value };
            // SAFETY: setrlimit with a valid struct; async-signal-safe.
            unsafe { libc::setrlimit(resource, &lim) }
        };
        set(libc::RLIMIT_NPROC, 4096);
        set(libc::RLIMIT_AS, ADDRESS_SPACE);
        set(libc::RLIMIT_CPU, self.cpu_seconds.max(1));
        set(libc::RLIMIT_FSIZE, 1 << 30);
        // SAFETY: prctl and raw syscalls with valid arguments; no allocation happens here.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(fd) = self.ruleset {
                if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some(filter) = &self.filter {
                let prog =
                    libc::sock_fprog { len: filter.len() as u16, filter: filter.as_ptr() as *mut libc::sock_filter };
                if libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog as *const libc::sock_fprog) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        if let Some(fd) = self.ruleset {
            // SAFETY: closing the ruleset descriptor this struct owns.
            unsafe { libc::close(fd) };
        }
    }
}
