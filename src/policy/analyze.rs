//! Turns one action into the facts the constitution judges: for an exec, the
//! program after unwrapping wrappers (`env`, `timeout`, `nice`, `xargs`,
//! `busybox`...), whether it is installed and is the one on PATH, suspicious
//! names, every flag (combined short flags split), the subcommand, an
//! interpreter's module or script, and the paths its arguments name; for file
//! actions, the classified path; for network actions, the classified target.
//! Knows nothing about the rules that judge these facts.

use std::path::Path;

use nerd_logic::vocab::{Access, PathClass};
use nerd_logic::{Facts, Sym};

use super::action::Action;
use super::paths::classify;
use super::url;
use crate::exec::which;

/// Wrappers that run another command, judged as what they run.
const WRAPPERS: &[&str] = &[
    "env", "timeout", "nice", "nohup", "time", "xargs", "busybox", "stdbuf", "ionice", "setsid", "command", "exec",
    "chrt",
];

/// Options of wrappers that take a separate value (wrapper, option).
const WRAPPER_VALUE_OPTIONS: &[(&str, &str)] = &[
    ("env", "-u"),
    ("env", "--unset"),
    ("env", "-C"),
    ("env", "--chdir"),
    ("timeout", "-s"),
    ("timeout", "--signal"),
    ("timeout", "-k"),
    ("timeout", "--kill-after"),
    ("nice", "-n"),
    ("nice", "--adjustment"),
    ("xargs", "-n"),
    ("xargs", "-I"),
    ("xargs", "-P"),
    ("xargs", "-L"),
    ("xargs", "-d"),
    ("xargs", "-a"),
    ("xargs", "-E"),
    ("xargs", "-s"),
    ("ionice", "-c"),
    ("ionice", "-n"),
    ("chrt", "-p"),
];

/// Programs whose first non-option argument is a subcommand.
const SUBCOMMAND_PROGRAMS: &[&str] = &["git", "cargo", "go", "npm", "npx"];

/// Global options that take a separate value, per program.
const VALUE_OPTIONS: &[(&str, &str)] = &[
    ("git", "-C"),
    ("git", "-c"),
    ("git", "--git-dir"),
    ("git", "--work-tree"),
    ("git", "--namespace"),
    ("cargo", "--manifest-path"),
    ("cargo", "-p"),
    ("cargo", "--package"),
    ("cargo", "--target-dir"),
    ("cargo", "--config"),
    ("cargo", "-Z"),
    ("python3", "-W"),
    ("python3", "-X"),
    ("python", "-W"),
    ("python", "-X"),
    ("make", "-C"),
    ("make", "-f"),
    ("grep", "-e"),
    ("grep", "-f"),
    ("rg", "-e"),
    ("rg", "-g"),
    ("rg", "--glob"),
    ("rg", "-t"),
    ("rg", "--type"),
    ("find", "-name"),
    ("find", "-iname"),
    ("find", "-path"),
    ("find", "-type"),
    ("find", "-maxdepth"),
    ("find", "-mindepth"),
    ("head", "-n"),
    ("tail", "-n"),
    ("git", "-m"),
    ("git", "--message"),
    ("sed", "-e"),
    ("sort", "-k"),
    ("sort", "-t"),
];

/// Options whose value is a path that is written.
const OUTPUT_OPTIONS: &[&str] = &["-o", "--output", "--out", "--out-dir", "--target-dir", "--output-file"];

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// Strips wrappers; returns the wrapped argv (possibly empty) and the wrappers seen.
fn unwrap(argv: &[String], suspicious: &mut Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut args = argv.to_vec();
    let mut seen = Vec::new();
    while let Some(first) = args.first() {
        let name = basename(first).to_string();
        if !WRAPPERS.contains(&name.as_str()) {
            break;
        }
        let mut i = 1;
        let mut duration_taken = false;
        while i < args.len() {
            let a = args[i].as_str();
            if a == "--" {
                i += 1;
                break;
            }
            if name == "env" && (a == "-S" || a.starts_with("--split-string")) {
                suspicious.push("env -S splits a string into a command".to_string());
            }
            if a.starts_with('-') && a.len() > 1 {
                let opt = a.split('=').next().unwrap_or(a);
                i += if WRAPPER_VALUE_OPTIONS.contains(&(name.as_str(), opt)) && !a.contains('=') { 2 } else { 1 };
            } else if name == "env" && a.contains('=') {
                i += 1;
            } else if name == "timeout" && !duration_taken {
                duration_taken = true;
                i += 1;
            } else {
                break;
            }
        }
        seen.push(name);
        args = args[i.min(args.len())..].to_vec();
    }
    (args, seen)
}

/// Flags of one token: the option name, and each letter of combined short flags.
fn flags_of(token: &str) -> Vec<String> {
    let name = token.split('=').next().unwrap_or(token).to_string();
    let mut out = vec![name.clone()];
    let body = &name[1..];
    if !name.starts_with("--") && body.len() > 1 {
        if body.chars().all(|c| c.is_ascii_alphabetic()) {
            out.extend(body.chars().map(|c| format!("-{c}")));
        } else if body.starts_with(|c: char| c.is_ascii_alphabetic()) {
            // `-i.bak`, `-n5`: a letter with its value attached.
            out.push(name[..2].to_string());
        }
    }
    out
}

/// Whether an argument names a path.
fn looks_like_path(workspace: &Path, arg: &str) -> bool {
    arg.contains('/') || arg.starts_with('.') || arg.starts_with('~') || workspace.join(arg).exists()
}

struct Recorder<'a> {
    f: &'a mut Facts,
    id: Sym,
    workspace: &'a Path,
}

impl Recorder<'_> {
    fn touch(&mut self, path: &str, access: Access) {
        let (real, class) = classify(self.workspace, path);
        let shown = match (class, real.strip_prefix(self.workspace)) {
            (PathClass::Inside | PathClass::Protected, Ok(rel)) if !rel.as_os_str().is_empty() => {
                rel.display().to_string()
            }
            (PathClass::Inside, Ok(_)) => ".".to_string(),
            _ => real.display().to_string(),
        };
        let p = self.f.path(&shown);
        self.f.touches.push((self.id, p, access));
        if !self.f.path_class.iter().any(|(q, _)| *q == p) {
            self.f.path_class.push((p, class));
        }
    }

    fn pair(&mut self, value: &str) -> (Sym, Sym) {
        (self.id, self.f.sym(value))
    }
}

/// Adds the facts of `action`, as action `id`, to `f`.
pub fn facts(f: &mut Facts, workspace: &Path, id: &str, action: &Action) {
    let id_sym = f.sym(id);
    f.action.push((id_sym, action.kind()));
    let mut r = Recorder { f, id: id_sym, workspace };
    match action {
        Action::Exec { argv } => exec(&mut r, argv),
        Action::ReadFile { path } => r.touch(path, Access::Read),
        Action::WriteFile { path, .. } => r.touch(path, Access::Write),
        Action::DeleteFile { path } => r.touch(path, Access::Delete),
        Action::Search { path, .. } => r.touch(path.as_deref().unwrap_or("."), Access::Read),
        Action::NetRequest { url, body } => network(&mut r, url, body.as_deref()),
        Action::Browse { url } => network(&mut r, url, None),
        Action::Spawn { .. } | Action::Memory { .. } => {}
    }
}

fn network(r: &mut Recorder<'_>, url_text: &str, body: Option<&str>) {
    match url::target(url_text, body) {
        Ok(t) => {
            let host = r.pair(&t.host);
            r.f.net_host.push(host);
            for d in &t.domains {
                let row = r.pair(d);
                r.f.net_domain.push(row);
            }
            r.f.net_class.push((r.id, t.class));
            for why in &t.exfiltration {
                let row = r.pair(why);
                r.f.exfiltration.push(row);
            }
        }
        Err(e) => {
            let row = r.pair(&format!("unreadable URL: {e}"));
            r.f.exfiltration.push(row);
        }
    }
}

fn exec(r: &mut Recorder<'_>, argv: &[String]) {
    let mut suspicious = Vec::new();
    let (args, _wrappers) = unwrap(argv, &mut suspicious);
    let Some(first) = args.first() else {
        // A wrapper with nothing to run is judged as the wrapper itself.
        let program = r.pair(basename(&argv[0]));
        r.f.exec_program.push(program);
        return;
    };
    let program = basename(first).to_string();
    if !first.is_ascii() || first.chars().any(|c| c.is_control()) {
        suspicious.push("the command name is not plain ASCII".to_string());
    }
    match which(&program) {
        None => r.f.exec_unresolved.push(r.id),
        Some(on_path) if first.contains('/') => {
            // An explicit path must be the very program PATH would run.
            let same = std::fs::canonicalize(first).ok() == std::fs::canonicalize(&on_path).ok();
            if !same {
                suspicious.push(format!("`{first}` is not the `{program}` on PATH"));
            }
        }
        Some(_) => {}
    }
    let p = r.pair(&program);
    r.f.exec_program.push(p);
    for why in suspicious {
        let row = r.pair(&why);
        r.f.exec_suspicious.push(row);
    }

    let value_option = |opt: &str| VALUE_OPTIONS.contains(&(program.as_str(), opt));
    let mut positional: Vec<&str> = Vec::new();
    let mut i = 1;
    let mut flags_done = false;
    while i < args.len() {
        let a = args[i].as_str();
        if !flags_done && a == "--" {
            flags_done = true;
        } else if !flags_done && a.starts_with('-') && a.len() > 1 {
            for flag in flags_of(a) {
                let row = r.pair(&flag);
                r.f.exec_flag.push(row);
            }
            let opt = a.split('=').next().unwrap_or(a);
            let attached = a.split_once('=').map(|(_, v)| v);
            let python_module = opt == "-m" && matches!(program.as_str(), "python3" | "python");
            let takes_value =
                (value_option(opt) || OUTPUT_OPTIONS.contains(&opt) || python_module) && attached.is_none();
            let value = if takes_value { args.get(i + 1).map(String::as_str) } else { attached };
            if let Some(v) = value {
                if OUTPUT_OPTIONS.contains(&opt) {
                    r.touch(v, Access::Write);
                } else if matches!(opt, "-C" | "--git-dir" | "--work-tree" | "--manifest-path" | "--target-dir" | "-f")
                {
                    r.touch(v, Access::Read);
                } else if python_module {
                    let row = r.pair(v);
                    r.f.exec_module.push(row);
                }
            }
            if takes_value {
                i += 1;
            }
        } else if program.starts_with("cargo") && a.starts_with('+') && positional.is_empty() {
            // `cargo +nightly test`: a toolchain, not a subcommand.
        } else {
            positional.push(a);
        }
        i += 1;
    }
    let mut operands = positional.as_slice();
    if SUBCOMMAND_PROGRAMS.contains(&program.as_str()) {
        if let Some((sub, rest)) = operands.split_first() {
            let row = r.pair(sub);
            r.f.exec_subcommand.push(row);
            operands = rest;
        }
    }
    let is_python = matches!(program.as_str(), "python3" | "python");
    if is_python && !r.f.exec_module.iter().any(|(a, _)| *a == r.id) && !operands.is_empty() {
        r.f.exec_script.push(r.id);
    }
    // Paths the operands name, with what the program does to them.
    let in_place = program == "sed" && args.iter().any(|a| a.starts_with("-i") || a == "--in-place");
    let workspace = r.workspace;
    let paths: Vec<&str> = operands.iter().copied().filter(|a| looks_like_path(workspace, a)).collect();
    for (n, path) in paths.iter().enumerate() {
        let last = n + 1 == paths.len();
        let access = match program.as_str() {
            "rm" => Access::Delete,
            "mv" if last => Access::Write,
            "mv" => Access::Delete,
            "cp" if last => Access::Write,
            "mkdir" | "touch" => Access::Write,
            "sed" if in_place => Access::Write,
            _ => Access::Read,
        };
        r.touch(path, access);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn wrappers_are_unwrapped() {
        let mut sus = Vec::new();
        let (args, seen) = unwrap(
            &strings(&["env", "-i", "A=1", "timeout", "-s", "KILL", "5", "nice", "-n", "10", "rm", "-rf", "/"]),
            &mut sus,
        );
        assert_eq!(args, strings(&["rm", "-rf", "/"]));
        assert_eq!(seen, strings(&["env", "timeout", "nice"]));
        let (args, _) = unwrap(&strings(&["xargs", "-0", "-n", "1", "rm"]), &mut sus);
        assert_eq!(args, strings(&["rm"]));
        let (args, _) = unwrap(&strings(&["/usr/bin/env", "-S", "rm -rf /"]), &mut sus);
        assert_eq!(args, strings(&["rm -rf /"]));
        assert!(sus.iter().any(|s| s.contains("-S")));
    }

    #[test]
    fn interpreter_modules_and_scripts_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let facts_of = |argv: &[&str]| {
            let mut f = nerd_logic::defaults::policy();
            facts(&mut f, dir.path(), "a", &Action::Exec { argv: strings(argv) });
            f
        };
        let f = facts_of(&["python3", "-m", "http.server", "8000"]);
        let modules: Vec<&str> = f.exec_module.iter().map(|(_, m)| f.symbols.resolve(*m)).collect();
        assert_eq!(modules, vec!["http.server"]);
        assert!(f.exec_script.is_empty());
        let f = facts_of(&["python3", "-W", "ignore", "tool.py"]);
        assert_eq!(f.exec_script.len(), 1);
        assert!(f.exec_module.is_empty());
    }

    #[test]
    fn flags_are_split() {
        assert_eq!(flags_of("-fdx"), strings(&["-fdx", "-f", "-d", "-x"]));
        assert_eq!(flags_of("--force=yes"), strings(&["--force"]));
        assert_eq!(flags_of("-i.bak"), strings(&["-i.bak", "-i"]));
        assert_eq!(flags_of("-c"), strings(&["-c"]));
    }
}
