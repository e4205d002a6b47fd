//! Where the facts of one action go while it is analysed: typed helpers that
//! add a program, an option with its table rows, an unknown argument, a
//! touched path with its class, a network target. Knows nothing about how
//! command lines are read or what the facts mean.

use std::path::{Path, PathBuf};

use nerd_logic::specs::{Command, Opt};
use nerd_logic::vocab::{Access, ActionKind, Effect, PathClass};
use nerd_logic::{Facts, Sym};

use super::paths::{classify, normalise};
use super::url;
use crate::exec::which;

/// Where the facts of one action go.
pub(super) struct Recorder<'f> {
    f: &'f mut Facts,
    id: Sym,
    workspace: &'f Path,
}

impl<'f> Recorder<'f> {
    /// Records the action `id` of `kind` and returns where its facts go.
    pub(super) fn new(f: &'f mut Facts, workspace: &'f Path, id: &str, kind: ActionKind) -> Recorder<'f> {
        let id = f.sym(id);
        f.action.push((id, kind));
        Recorder { f, id, workspace }
    }

    pub(super) fn workspace(&self) -> &Path {
        self.workspace
    }

    /// `path` made absolute against `cwd`, `.` and `..` resolved, `~` expanded.
    pub(super) fn absolute(&self, cwd: &Path, path: &str) -> PathBuf {
        normalise(cwd, path)
    }

    /// Records that the action touches `path` (absolute) with `access`, and the path's class.
    pub(super) fn touch_absolute(&mut self, path: &Path, access: Access) {
        let (real, mut class) = classify(self.workspace, &path.to_string_lossy());
        // Deleting the workspace itself (`rm -rf .`, `src/..`) takes `.git` and `.nerd` with it.
        if access == Access::Delete && real == self.workspace {
            class = PathClass::Protected;
        }
        let shown = match (class, real.strip_prefix(self.workspace)) {
            (PathClass::Inside | PathClass::Protected | PathClass::Persistence, Ok(rel))
                if !rel.as_os_str().is_empty() =>
            {
                rel.display().to_string()
            }
            (PathClass::Inside, Ok(_)) => ".".to_string(),
            _ => real.display().to_string(),
        };
        let p = self.f.path(&shown);
        self.f.touches.push((self.id, p, access));
        match self.f.path_class.iter_mut().find(|(q, _)| *q == p) {
            Some((_, known)) if class == PathClass::Protected => *known = class,
            Some(_) => {}
            None => self.f.path_class.push((p, class)),
        }
    }

    /// Records that the action touches `path` (relative to the workspace) with `access`.
    pub(super) fn touch(&mut self, path: &str, access: Access) {
        let full = normalise(self.workspace, path);
        self.touch_absolute(&full, access);
    }

    fn pair(&mut self, value: &str) -> (Sym, Sym) {
        (self.id, self.f.sym(value))
    }

    fn triple(&mut self, a: &str, b: &str) -> (Sym, Sym, Sym) {
        (self.id, self.f.sym(a), self.f.sym(b))
    }

    /// Records a program of the command line: installed, the one on PATH, a plain name.
    pub(super) fn identify(&mut self, first: &str, program: &str) {
        let mut suspicious = Vec::new();
        if !first.is_ascii() || first.chars().any(|c| c.is_control()) {
            suspicious.push("the command name is not plain ASCII".to_string());
        }
        // The workspace's own node tools (what `npx NAME` runs) are themselves, whatever PATH holds.
        let local_bin = self.workspace.join("node_modules/.bin").join(program);
        let found = if first.contains('/') && Path::new(first) == local_bin && local_bin.is_file() {
            Some(local_bin.clone())
        } else {
            which(program)
        };
        match found {
            None => self.f.exec_unresolved.push(self.id),
            Some(local) if local == local_bin => {}
            Some(on_path) if first.contains('/') => {
                // An explicit path must be the very program PATH would run.
                let same = std::fs::canonicalize(first).ok() == std::fs::canonicalize(&on_path).ok();
                if !same {
                    suspicious.push(format!("`{first}` is not the `{program}` on PATH"));
                }
            }
            Some(_) => {}
        }
        let row = self.pair(program);
        self.f.exec_program.push(row);
        for why in suspicious {
            let row = self.pair(&why);
            self.f.exec_suspicious.push(row);
        }
    }

    /// Records a (sub)command of `program` and its table rows.
    pub(super) fn command(&mut self, program: &str, cmd: &Command) {
        let row = self.triple(program, &cmd.path.join(" "));
        self.f.exec_subcommand.push(row);
        nerd_logic::constitution::seed_command(self.f, program, cmd);
    }

    /// Records an option of `program` declared in `scope`, and its table rows.
    pub(super) fn option(&mut self, program: &str, scope: &str, opt: &Opt) {
        let (a, p, s, o) = (self.id, self.f.sym(program), self.f.sym(scope), self.f.sym(&opt.names[0]));
        if !self.f.exec_option.contains(&(a, p, s, o)) {
            self.f.exec_option.push((a, p, s, o));
            nerd_logic::constitution::seed_option(self.f, program, scope, opt);
        }
    }

    pub(super) fn unknown(&mut self, program: &str, what: &str) {
        let row = self.triple(program, what);
        self.f.exec_unknown.push(row);
    }

    pub(super) fn refused(&mut self, program: &str, why: &str) {
        let row = self.triple(program, why);
        self.f.exec_refused.push(row);
    }

    pub(super) fn env(&mut self, variable: &str) {
        let row = self.pair(variable);
        self.f.exec_env.push(row);
    }

    pub(super) fn effect(&mut self, effect: Effect, why: &str) {
        let why = self.f.sym(why);
        self.f.exec_effect.push((self.id, effect, why));
    }

    pub(super) fn module(&mut self, program: &str, module: &str) {
        let row = self.triple(program, module);
        self.f.exec_module.push(row);
    }

    pub(super) fn script(&mut self, program: &str) {
        let row = self.pair(program);
        self.f.exec_script.push(row);
    }

    pub(super) fn operands(&mut self, program: &str, path: &str) {
        let row = self.triple(program, path);
        self.f.exec_operands.push(row);
    }

    pub(super) fn readonly(&mut self, program: &str, path: &str) {
        let row = self.triple(program, path);
        self.f.exec_readonly.push(row);
    }

    pub(super) fn listing(&mut self, program: &str, path: &str) {
        let row = self.triple(program, path);
        self.f.exec_listing.push(row);
    }

    /// Records the network target a URL names.
    pub(super) fn network(&mut self, url_text: &str) {
        self.request(url_text, None);
    }

    /// Records the network target of a request and what its body carries.
    /// Text typed into a page leaves with the page's next request: a secret in it is exfiltration.
    pub(super) fn typed(&mut self, text: &str) {
        if url::holds_secret(text) {
            let row = self.pair("a secret typed into a page");
            self.f.exfiltration.push(row);
        }
    }

    pub(super) fn request(&mut self, url_text: &str, body: Option<&str>) {
        match url::target(url_text, body) {
            Ok(t) => {
                let host = self.pair(&t.host);
                self.f.net_host.push(host);
                for d in &t.domains {
                    let row = self.pair(d);
                    self.f.net_domain.push(row);
                }
                self.f.net_class.push((self.id, t.class));
                self.f.net_port.push((self.id, u32::from(t.port)));
                for why in &t.exfiltration {
                    let row = self.pair(why);
                    self.f.exfiltration.push(row);
                }
            }
            Err(e) => {
                let row = self.pair(&format!("unreadable URL: {e}"));
                self.f.exfiltration.push(row);
            }
        }
    }
}
