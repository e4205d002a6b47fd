//! nerd's own reads and writes of files it has judged: the path is opened
//! with `openat2(RESOLVE_NO_SYMLINKS)`, so a symlink swapped in after the
//! policy resolved the path makes the open fail instead of following it, and
//! the opened file itself is judged (a hard link to a protected file is
//! refused by its inode). Writes go through a temp file created beside the
//! target in the directory opened the same way, then renamed: readers never
//! see half a file and the rename cannot be redirected.
//! Knows nothing about policy beyond the inodes it is asked to refuse.

use std::ffi::CString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

// openat2(2)'s `struct open_how` and resolve flags (include/uapi/linux/openat2.h).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}
const RESOLVE_NO_MAGICLINKS: u64 = 0x02;
const RESOLVE_NO_SYMLINKS: u64 = 0x04;

fn c_path(path: &Path) -> std::io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| std::io::Error::other("a path with a NUL byte"))
}

fn openat2(dir: libc::c_int, path: &Path, flags: i32, mode: u32) -> std::io::Result<OwnedFd> {
    let c = c_path(path)?;
    let how = OpenHow {
        flags: (flags | libc::O_CLOEXEC) as u64,
        mode: mode as u64,
        resolve: RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    // SAFETY: c and how are valid for the call; the kernel reads `size_of::<OpenHow>()` bytes of how.
    let fd = unsafe {
        libc::syscall(libc::SYS_openat2, dir, c.as_ptr(), &how as *const OpenHow, std::mem::size_of::<OpenHow>())
    };
    if fd >= 0 {
        // SAFETY: the kernel returned a new descriptor that nothing else owns.
        return Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) });
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::ENOSYS) {
        // Kernels before 5.6: O_NOFOLLOW guards the last component only.
        // SAFETY: c is a valid NUL-terminated path.
        let fd = unsafe { libc::openat(dir, c.as_ptr(), flags | libc::O_CLOEXEC | libc::O_NOFOLLOW, mode) };
        if fd >= 0 {
            // SAFETY: as above.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        return Err(std::io::Error::last_os_error());
    }
    if err.raw_os_error() == Some(libc::ELOOP) {
        return Err(std::io::Error::other(format!(
            "{} has a symlink on its path that was not there when it was judged",
            path.display()
        )));
    }
    Err(err)
}

/// The (device, inode) pairs of files nerd refuses to open whatever name they are reached by.
#[derive(Debug, Default)]
pub struct Refused(Vec<(u64, u64)>);

impl Refused {
    /// The files at `paths`, and those directly inside the folders among them (two levels).
    pub fn files(paths: &[PathBuf]) -> Refused {
        let mut ids = Vec::new();
        let mut stack: Vec<(PathBuf, u32)> = paths.iter().map(|p| (p.clone(), 0)).collect();
        while let Some((p, depth)) = stack.pop() {
            match std::fs::metadata(&p) {
                Ok(m) if m.is_file() => ids.push((m.dev(), m.ino())),
                Ok(m) if m.is_dir() && depth < 2 => {
                    let entries = std::fs::read_dir(&p).into_iter().flatten().flatten();
                    stack.extend(entries.map(|e| (e.path(), depth + 1)));
                }
                _ => {}
            }
        }
        Refused(ids)
    }

    /// Whether the file `m` describes is one of these.
    pub fn holds(&self, m: &std::fs::Metadata) -> bool {
        self.0.contains(&(m.dev(), m.ino()))
    }
}

/// Opens `path` (absolute, already judged) for reading, refusing symlinks on the way and refused inodes.
pub fn open_read(path: &Path, refused: &Refused) -> std::io::Result<File> {
    let fd = openat2(libc::AT_FDCWD, path, libc::O_RDONLY | libc::O_NOCTTY, 0)?;
    let file = File::from(fd);
    let meta = file.metadata()?;
    if refused.holds(&meta) {
        return Err(std::io::Error::other(format!("{} is a link to a protected file", path.display())));
    }
    if !meta.is_file() {
        return Err(std::io::Error::other(format!("{} is not a regular file", path.display())));
    }
    Ok(file)
}

/// Reads at most `limit` bytes of `path`; also says whether there was more.
pub fn read_capped(path: &Path, limit: usize, refused: &Refused) -> std::io::Result<(Vec<u8>, bool)> {
    let file = open_read(path, refused)?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    let more = bytes.len() > limit;
    bytes.truncate(limit);
    Ok((bytes, more))
}

/// Reads all of `path`, or `None` when it does not exist.
pub fn read_existing(path: &Path, refused: &Refused) -> std::io::Result<Option<Vec<u8>>> {
    match open_read(path, refused) {
        Ok(mut f) => {
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes)?;
            Ok(Some(bytes))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn open_dir(dir: &Path) -> std::io::Result<OwnedFd> {
    openat2(libc::AT_FDCWD, dir, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_PATH, 0)
        .or_else(|_| openat2(libc::AT_FDCWD, dir, libc::O_RDONLY | libc::O_DIRECTORY, 0))
}

/// Writes `bytes` to `path` through a temp file in the same folder and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let parent = path.parent().ok_or_else(|| std::io::Error::other("no parent folder"))?;
    let name = path.file_name().ok_or_else(|| std::io::Error::other("no file name"))?;
    std::fs::create_dir_all(parent)?;
    let dir = open_dir(parent)?;
    let tmp = PathBuf::from(format!(".{}.nerd-tmp-{}", name.to_string_lossy(), std::process::id()));
    let fd = openat2(dir.as_raw_fd(), &tmp, libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_NOFOLLOW, 0o644)?;
    let mut file = File::from(fd);
    file.write_all(bytes)?;
    file.sync_all()?;
    let (from, to) = (c_path(&tmp)?, c_path(Path::new(name))?);
    // SAFETY: both names are valid C strings relative to the open directory.
    if unsafe { libc::renameat(dir.as_raw_fd(), from.as_ptr(), dir.as_raw_fd(), to.as_ptr()) } != 0 {
        let err = std::io::Error::last_os_error();
        // SAFETY: as above.
        unsafe { libc::unlinkat(dir.as_raw_fd(), from.as_ptr(), 0) };
        return Err(err);
    }
    Ok(())
}

/// Deletes `path`, refusing a symlink on the way.
pub fn remove(path: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let parent = path.parent().ok_or_else(|| std::io::Error::other("no parent folder"))?;
    let name = c_path(Path::new(path.file_name().ok_or_else(|| std::io::Error::other("no file name"))?))?;
    let dir = open_dir(parent)?;
    // SAFETY: name is a valid C string relative to the open directory.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_on_the_path_and_hard_links_to_refused_files_are_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let secret = root.join("secret");
        std::fs::create_dir(&secret).unwrap();
        std::fs::write(secret.join("id_rsa"), "key").unwrap();
        std::fs::create_dir(root.join("ws")).unwrap();
        std::fs::write(root.join("ws/a.txt"), "text").unwrap();
        let refused = Refused::files(std::slice::from_ref(&secret));
        assert_eq!(read_existing(&root.join("ws/a.txt"), &refused).unwrap().unwrap(), b"text");
        assert_eq!(read_existing(&root.join("ws/none.txt"), &refused).unwrap(), None);
        // A symlink as the last component, or a folder swapped for a symlink.
        std::os::unix::fs::symlink(secret.join("id_rsa"), root.join("ws/link")).unwrap();
        assert!(open_read(&root.join("ws/link"), &refused).is_err());
        std::os::unix::fs::symlink(&secret, root.join("ws/sub")).unwrap();
        assert!(open_read(&root.join("ws/sub/id_rsa"), &refused).is_err());
        // A hard link is judged by the file it opens.
        std::fs::hard_link(secret.join("id_rsa"), root.join("ws/innocent.txt")).unwrap();
        assert!(open_read(&root.join("ws/innocent.txt"), &refused).is_err());
        // Writes cannot be redirected through a symlinked folder.
        assert!(write_atomic(&root.join("ws/sub/planted"), b"x").is_err());
        assert!(!secret.join("planted").exists());
        write_atomic(&root.join("ws/new/b.txt"), b"b").unwrap();
        assert_eq!(std::fs::read(root.join("ws/new/b.txt")).unwrap(), b"b");
        remove(&root.join("ws/new/b.txt")).unwrap();
        assert!(!root.join("ws/new/b.txt").exists());
    }
}
