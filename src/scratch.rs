//! A private scratch folder under the system's temp dir (mode 0700), removed
//! with everything in it when its owner drops it. Knows nothing of what is
//! written there.

use std::path::{Path, PathBuf};

/// A folder that lives as long as this value.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new, empty folder named `nerd-{purpose}-{pid}-{clock}`, readable by this user only.
    pub fn new(purpose: &str) -> std::io::Result<Scratch> {
        use std::os::unix::fs::DirBuilderExt;
        let name = format!("nerd-{purpose}-{}-{}", std::process::id(), crate::timing::now_ns());
        let dir = std::env::temp_dir().join(name);
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        Ok(Scratch(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_folder_and_its_contents_go_when_dropped() {
        let scratch = Scratch::new("test").unwrap();
        let dir = scratch.path().to_path_buf();
        std::fs::create_dir_all(dir.join("gocache/ab")).unwrap();
        std::fs::write(dir.join("gocache/ab/x"), b"x").unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        drop(scratch);
        assert!(!dir.exists());
    }
}
