//! The fallback boundary, where no mount namespace can be made: Landlock
//! restricts writes to the folders a confinement names, and a seccomp filter
//! refuses sockets other than Unix ones (and io_uring, which could open them).
//! Reads are not restricted here; the bubblewrap boundary masks them.
//! Knows nothing about which program runs.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

// Landlock's user-space ABI (include/uapi/linux/landlock.h).
const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: i32 = 1;
const FS_WRITE_FILE: u64 = 1 << 1;
const FS_REMOVE_DIR: u64 = 1 << 4;
const FS_REMOVE_FILE: u64 = 1 << 5;
const FS_MAKE_ALL: u64 = 0b111_1111 << 6; // char, dir, reg, sock, fifo, block, sym
const FS_REFER: u64 = 1 << 13;
const FS_TRUNCATE: u64 = 1 << 14;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The kernel's Landlock ABI version, if Landlock is enabled.
pub fn landlock_abi() -> Option<i64> {
    // SAFETY: a version query passes no pointers the kernel writes through.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    (v > 0).then_some(v)
}

fn write_rights(abi: i64) -> u64 {
    let mut rights = FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_ALL;
    if abi >= 2 {
        rights |= FS_REFER;
    }
    if abi >= 3 {
        rights |= FS_TRUNCATE;
    }
    rights
}

pub(super) fn ruleset(writable: &[PathBuf]) -> Result<(i32, i64), String> {
    let abi = landlock_abi().ok_or("the kernel does not offer Landlock")?;
    let handled = write_rights(abi);
    let attr = RulesetAttr { handled_access_fs: handled };
    // SAFETY: attr is a valid, initialised struct of the size passed.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            std::mem::size_of::<RulesetAttr>(),
            0u32,
        )
    };
    if fd < 0 {
        return Err(format!("landlock_create_ruleset failed: {}", std::io::Error::last_os_error()));
    }
    let fd = fd as i32;
    for path in writable {
        let Ok(c) = CString::new(path.as_os_str().as_bytes()) else { continue };
        // SAFETY: c is a valid NUL-terminated path.
        let parent = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if parent < 0 {
            continue;
        }
        let is_dir = path.is_dir();
        let allowed = if is_dir { handled } else { handled & (FS_WRITE_FILE | FS_TRUNCATE) };
        let rule = PathBeneathAttr { allowed_access: allowed, parent_fd: parent };
        // SAFETY: rule is valid for the call; fd and parent are open descriptors.
        let r = unsafe {
            libc::syscall(libc::SYS_landlock_add_rule, fd, RULE_PATH_BENEATH, &rule as *const PathBeneathAttr, 0u32)
        };
        // SAFETY: parent is a descriptor we opened.
        unsafe { libc::close(parent) };
        if r < 0 {
            // SAFETY: fd is a descriptor we opened.
            unsafe { libc::close(fd) };
            return Err(format!(
                "landlock_add_rule for {} failed: {}",
                path.display(),
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok((fd, abi))
}

pub(super) fn socket_filter() -> Vec<libc::sock_filter> {
    const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
    const LD_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET: u16 = 0x06; // BPF_RET | BPF_K
    let stmt = |code: u16, k: u32| libc::sock_filter { code, jt: 0, jf: 0, k };
    let jump = |k: u32, jt: u8, jf: u8| libc::sock_filter { code: JEQ, jt, jf, k };
    let deny = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;
    vec![
        stmt(LD_ABS, 4), // arch
        jump(AUDIT_ARCH_X86_64, 1, 0),
        stmt(RET, deny),
        stmt(LD_ABS, 0), // syscall number
        jump(libc::SYS_io_uring_setup as u32, 0, 1),
        stmt(RET, deny),
        jump(libc::SYS_socket as u32, 0, 3),
        stmt(LD_ABS, 16), // args[0], the address family
        jump(libc::AF_UNIX as u32, 1, 0),
        stmt(RET, deny),
        stmt(RET, libc::SECCOMP_RET_ALLOW),
    ]
}
