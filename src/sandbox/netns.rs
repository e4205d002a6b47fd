//! The fallback's network boundary: where bubblewrap is not usable but the
//! kernel lets an unprivileged process make a user and a network namespace,
//! the child makes its own, maps its own user and group ids onto themselves,
//! brings `lo` up and drops every capability before exec. Programs then reach
//! loopback (a suite's local servers) and nothing else. Where the kernel
//! refuses, the seccomp socket filter stays the layer. Everything the child
//! writes is prepared here in the parent; the child only makes syscalls.
//! With a relay, the child also listens on loopback inside its namespace and
//! hands that socket to nerd (`SCM_RIGHTS`), which serves it as the proxy to
//! the allowed hosts; under bubblewrap the namespace is made here and bwrap
//! keeps it, so capabilities are left for bwrap to drop.
//! Knows nothing about which program runs.

use std::sync::OnceLock;

/// What the child needs to make its namespace, prepared before `fork`.
pub(super) struct Plan {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// The child's end of the socket pair the listener is handed out on.
    relay: Option<std::os::fd::RawFd>,
    /// Whether the child drops every capability (not when bubblewrap runs next).
    drop_caps: bool,
}

/// Whether this kernel lets an unprivileged process make a user and network namespace.
pub(super) fn available() -> Result<(), String> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE.get_or_init(probe).clone()
}

/// Tries it in a forked child that exits at once: the parent's namespaces never change.
fn probe() -> Result<(), String> {
    // SAFETY: the child makes async-signal-safe calls only (unshare, _exit); the parent waits for it.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(format!("cannot fork to probe: {}", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            let ok = libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) == 0;
            libc::_exit(if ok { 0 } else { 1 });
        }
        let mut status = 0;
        if libc::waitpid(pid, &mut status, 0) != pid {
            return Err(format!("cannot wait for the probe: {}", std::io::Error::last_os_error()));
        }
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            Ok(())
        } else {
            Err("the kernel refuses unprivileged user namespaces here".into())
        }
    }
}

impl Plan {
    pub(super) fn new(relay: Option<std::os::fd::RawFd>, drop_caps: bool) -> Plan {
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Plan {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            relay,
            drop_caps,
        }
    }

    /// Runs in the child between fork and exec: the namespaces, the id maps,
    /// `lo` up, the proxy's listener handed out, then no capabilities left.
    pub(super) fn enter(&self) -> std::io::Result<()> {
        // SAFETY: raw syscalls on buffers prepared in the parent; nothing allocates.
        unsafe {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            write_proc(c"/proc/self/setgroups", b"deny")?;
            write_proc(c"/proc/self/uid_map", &self.uid_map)?;
            write_proc(c"/proc/self/gid_map", &self.gid_map)?;
            loopback_up()?;
            if let Some(relay) = self.relay {
                hand_out_listener(relay)?;
            }
            if self.drop_caps {
                drop_capabilities()?;
            }
            Ok(())
        }
    }
}

/// Listens on `127.0.0.1:PORT` inside the new namespace and sends that socket
/// over `relay`; the child's own copy closes at exec.
unsafe fn hand_out_listener(relay: std::os::fd::RawFd) -> std::io::Result<()> {
    let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let addr = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: super::proxy::PORT.to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from_be_bytes([127, 0, 0, 1]).to_be() },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    if libc::bind(fd, (&addr as *const libc::sockaddr_in).cast(), len) != 0 || libc::listen(fd, 128) != 0 {
        let e = std::io::Error::last_os_error();
        libc::close(fd);
        return Err(e);
    }
    let sent = send_fd(relay, fd);
    libc::close(fd);
    sent
}

/// Room for one descriptor's control message, aligned for `cmsghdr`.
type Control = [u64; 4];

/// A message carrying `iov` with the whole of `control` for ancillary data; both must outlive it.
fn message(iov: &mut libc::iovec, control: &mut Control) -> libc::msghdr {
    // SAFETY: an all-zero msghdr is a valid empty message; the fields set below point at the caller's buffers.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of::<Control>() as _;
    msg
}

/// Sends `fd` over the Unix socket `over` (`SCM_RIGHTS`), with one byte of data.
unsafe fn send_fd(over: std::os::fd::RawFd, fd: std::os::fd::RawFd) -> std::io::Result<()> {
    let mut byte = [1u8];
    let mut iov = libc::iovec { iov_base: byte.as_mut_ptr().cast(), iov_len: 1 };
    let mut control: Control = [0; 4];
    let mut msg = message(&mut iov, &mut control);
    msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) as _;
    let cmsg = libc::CMSG_FIRSTHDR(&msg);
    if cmsg.is_null() {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    (*cmsg).cmsg_level = libc::SOL_SOCKET;
    (*cmsg).cmsg_type = libc::SCM_RIGHTS;
    (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
    std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>(), fd);
    if libc::sendmsg(over, &msg, 0) != 1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Receives the descriptor the child sent over `over`; `None` when none came.
pub(super) fn receive_fd(over: std::os::fd::RawFd) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: recvmsg into buffers owned here; the descriptor taken is new to this process.
    unsafe {
        let mut byte = [0u8];
        let mut iov = libc::iovec { iov_base: byte.as_mut_ptr().cast(), iov_len: 1 };
        let mut control: Control = [0; 4];
        let mut msg = message(&mut iov, &mut control);
        if libc::recvmsg(over, &mut msg, libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC) != 1 {
            return None;
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() || (*cmsg).cmsg_level != libc::SOL_SOCKET || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return None;
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>());
        (fd >= 0).then(|| std::os::fd::OwnedFd::from_raw_fd(fd))
    }
}

unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    libc::close(fd);
    if written != bytes.len() as isize {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

unsafe fn loopback_up() -> std::io::Result<()> {
    let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut req: libc::ifreq = std::mem::zeroed();
    for (dst, src) in req.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    let result = if libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut req) != 0 {
        Err(std::io::Error::last_os_error())
    } else {
        req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        if libc::ioctl(fd, libc::SIOCSIFFLAGS, &req) != 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    };
    libc::close(fd);
    result
}

/// Empties every capability set the new user namespace granted, and the bounding set.
unsafe fn drop_capabilities() -> std::io::Result<()> {
    for cap in 0..=libc::c_ulong::from(63u8) {
        // Capabilities past the kernel's last one fail with EINVAL, which is fine.
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    let header = Header { version: VERSION_3, pid: 0 };
    let data =
        [Data { effective: 0, permitted: 0, inheritable: 0 }, Data { effective: 0, permitted: 0, inheritable: 0 }];
    if libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr()) != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
