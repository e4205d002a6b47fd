//! Turns one action into the facts the constitution judges: for an exec, each
//! program of the command line (wrappers read as what they run), whether it
//! is installed and is the one on PATH, suspicious names, and everything its
//! specification says about its arguments (see `argv.rs`); for file actions,
//! the classified path; for network actions, the classified target.
//! Knows nothing about the rules that judge these facts.

use std::path::Path;

use nerd_logic::vocab::Access;
use nerd_logic::Facts;

use super::action::Action;
use super::argv;
use super::record::Recorder;

/// Adds the facts of `action`, as action `id`, to `f`.
pub fn facts(f: &mut Facts, workspace: &Path, id: &str, action: &Action) {
    let mut r = Recorder::new(f, workspace, id, action.kind());
    match action {
        Action::Exec { argv } => argv::read(&mut r, argv, workspace, 0),
        Action::ReadFile { path } => r.touch(path, Access::Read),
        Action::WriteFile { path, .. } => r.touch(path, Access::Write),
        Action::DeleteFile { path } => r.touch(path, Access::Delete),
        Action::Search { path, .. } => r.touch(path.as_deref().unwrap_or("."), Access::Read),
        Action::NetRequest { url, body } => r.request(url, body.as_deref()),
        Action::Browse { url } => r.request(url, None),
        Action::Type { text, .. } => r.typed(text),
        // A click's consequences (a navigation, a form sent) are requests, each judged as it leaves.
        Action::Click { .. } => {}
        Action::Spawn { .. } | Action::Delegate { .. } | Action::Memory { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nerd_logic::Sym;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn facts_of(dir: &Path, argv: &[&str]) -> Facts {
        let mut f = nerd_logic::defaults::policy();
        facts(&mut f, dir, "a", &Action::Exec { argv: strings(argv) });
        f
    }

    fn words(f: &Facts, rows: impl Iterator<Item = Sym>) -> Vec<String> {
        rows.map(|s| f.symbols.resolve(s).to_string()).collect()
    }

    #[test]
    fn options_are_read_in_every_form() {
        let dir = tempfile::tempdir().unwrap();
        let f = facts_of(dir.path(), &["sort", "-rn", "-k2", "-o/tmp/out", "--buffer-size=1M", "x"]);
        let options = words(&f, f.exec_option.iter().map(|r| r.3));
        assert_eq!(options, vec!["-r", "-n", "-k", "-o", "--buffer-size"]);
        let written: Vec<_> =
            f.touches.iter().filter(|t| t.2 == Access::Write).map(|t| f.symbols.resolve(t.1 .0)).collect();
        assert_eq!(written, vec!["/tmp/out"]);
        let f = facts_of(dir.path(), &["python3", "-mhttp.server", "8000"]);
        let modules: Vec<&str> = f.exec_module.iter().map(|(_, _, m)| f.symbols.resolve(*m)).collect();
        assert_eq!(modules, vec!["http.server"]);
        let f = facts_of(dir.path(), &["ls", "--frobnicate"]);
        assert_eq!(words(&f, f.exec_unknown.iter().map(|r| r.2)), vec!["option --frobnicate"]);
    }

    #[test]
    fn wrappers_are_read_as_what_they_run() {
        let dir = tempfile::tempdir().unwrap();
        let f = facts_of(dir.path(), &["env", "-i", "A=1", "timeout", "5", "nice", "-n", "10", "rm", "-rf", "/"]);
        assert_eq!(words(&f, f.exec_program.iter().map(|r| r.1)), vec!["env", "timeout", "nice", "rm"]);
        assert_eq!(words(&f, f.exec_env.iter().map(|r| r.1)), vec!["A"]);
        let f = facts_of(dir.path(), &["env", "-C", "/", "cat", "etc/shadow"]);
        let read: Vec<_> = f.touches.iter().map(|t| f.symbols.resolve(t.1 .0).to_string()).collect();
        assert!(read.contains(&"/etc/shadow".to_string()), "{read:?}");
    }

    #[test]
    fn subcommands_nest_and_aliases_resolve() {
        let dir = tempfile::tempdir().unwrap();
        let f = facts_of(dir.path(), &["git", "stash", "drop"]);
        assert_eq!(words(&f, f.exec_subcommand.iter().map(|r| r.2)), vec!["", "stash drop"]);
        let f = facts_of(dir.path(), &["npm", "i"]);
        assert_eq!(words(&f, f.exec_subcommand.iter().map(|r| r.2)), vec!["", "install"]);
        let f = facts_of(dir.path(), &["git", "frobnicate"]);
        assert_eq!(words(&f, f.exec_unknown.iter().map(|r| r.2)), vec!["subcommand frobnicate"]);
    }
}
