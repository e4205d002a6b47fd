//! Reads one exec's argv by its program's specification (`logic/specs/`):
//! options in every form a real parser accepts (clusters `-rn`, glued values
//! `-ofile` and `-mhttp.server`, `--opt=value`, Go's `-flag=value`, find's
//! predicates), the subcommand path with aliases, and each operand's role.
//! Every value is judged by its kind: paths are recorded with what is done to
//! them (relative to the directory the command runs in, which `-C` and `env
//! -C` move), scripts are read, wrapped commands are read by their own spec.
//! Whatever the spec does not name is recorded as unknown, and so denied.
//! Knows nothing about the rules that judge what it records.

use std::path::{Path, PathBuf};

use nerd_logic::specs::{self, Command, Kind, Marker, Opt, Program, Repeat, Role, Style};
use nerd_logic::vocab::{Access, Effect};

use super::record::Recorder;
use super::scripts;

/// The test reporters built into node --test, vitest and jest; any other
/// reporter name is a module that would be loaded and run.
const BUILT_IN_REPORTERS: &[&str] = &[
    "spec",
    "tap",
    "tap-flat",
    "dot",
    "junit",
    "lcov",
    "json",
    "default",
    "basic",
    "verbose",
    "tree",
    "summary",
    "github-actions",
    "hanging-process",
];

/// How deep wrappers may nest (`env timeout nice cargo test` is four).
const MAX_DEPTH: usize = 8;

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// A wrapped command must look like a program name, not an option or an assignment.
fn is_env_assignment(token: &str) -> bool {
    match token.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(char::is_numeric)
        }
        None => false,
    }
}

/// One program's command line being read.
struct Reading<'s, 'r, 'f> {
    rec: &'r mut Recorder<'f>,
    spec: &'s Program,
    /// The program as invoked (`python`, `egrep`), which the facts and table rows use.
    name: String,
    cwd: PathBuf,
    depth: usize,
    path: Vec<String>,
    readonly: bool,
    listing: bool,
    inplace: bool,
    /// Operand roles options stand for (`sed -e`, `grep -e`).
    filled: Vec<Kind>,
    operands: Vec<String>,
    /// Set when the rest of the line belongs to another command, which was read.
    done: bool,
    /// Folders read are read whole (`grep -r`), and how many paths were read.
    recursive: bool,
    paths_read: usize,
}

/// Reads `argv` (run in `cwd`) into facts.
pub(super) fn read(rec: &mut Recorder<'_>, argv: &[String], cwd: &Path, depth: usize) {
    let Some(first) = argv.first() else { return };
    let name = basename(first).to_string();
    rec.identify(first, &name);
    if depth > MAX_DEPTH {
        rec.refused(&name, "commands are wrapped too deeply to judge");
        return;
    }
    let Some(spec) = specs::program(&name) else {
        // No specification: the program is off the allowlist, and that is the verdict.
        return;
    };
    let mut r = Reading {
        rec,
        spec,
        name,
        cwd: cwd.to_path_buf(),
        depth,
        path: Vec::new(),
        readonly: false,
        listing: false,
        inplace: false,
        filled: Vec::new(),
        operands: Vec::new(),
        done: false,
        recursive: false,
        paths_read: 0,
    };
    r.rec.command(&r.name, &spec.root);
    match spec.style {
        Style::Find => r.find(&argv[1..]),
        _ => r.options_and_operands(&argv[1..]),
    }
    // The subcommand is the whole path read (`stash list`, not `stash` on the way).
    if !r.path.is_empty() {
        let cmd = r.command().clone();
        r.rec.command(&r.name, &cmd);
    }
    if !r.done {
        r.finish();
    }
}

impl<'s> Reading<'s, '_, '_> {
    fn command(&self) -> &Command {
        if self.path.is_empty() {
            &self.spec.root
        } else {
            self.spec.sub(&self.path).unwrap_or(&self.spec.root)
        }
    }

    /// The options that may appear now, with the scope that declares each.
    fn lookup(&self, name: &str) -> Option<(String, &Opt)> {
        let named = |opts: &'s [Opt]| opts.iter().find(|o| o.names.iter().any(|n| n == name));
        if self.path.is_empty() {
            return named(&self.spec.root.options).map(|o| (String::new(), o));
        }
        if let Some(o) = self.spec.sub(&self.path).and_then(|c| named(&c.options)) {
            return Some((self.path.join(" "), o));
        }
        named(&self.spec.common).map(|o| ("*".to_string(), o))
    }

    fn unknown(&mut self, what: String) {
        let name = self.name.clone();
        self.rec.unknown(&name, &what);
    }

    fn options_and_operands(&mut self, args: &[String]) {
        let go = self.spec.style == Style::Go;
        let mut ended = false;
        let mut i = 0;
        while i < args.len() && !self.done {
            let tok = &args[i];
            i += 1;
            if !ended && tok == "--" {
                ended = true;
                continue;
            }
            // A check flag passed on to the tool a command drives (`cargo fmt -- --check`) still only checks.
            if ended && self.lookup(tok).is_some_and(|(_, o)| o.markers.contains(&Marker::Readonly)) {
                self.readonly = true;
            }
            // Files the test binary is told to write (`cargo test -- --logfile F`, `go test -args -test.trace=F`).
            if ended {
                if let Some((path, took)) = test_binary_output(tok, args.get(i)) {
                    self.touch(&path, Access::Write);
                    i += took;
                    continue;
                }
            }
            if !ended && tok.starts_with('-') && tok.len() > 1 {
                let used = if go { self.go_option(tok, &args[i..]) } else { self.gnu_option(tok, &args[i..]) };
                match used {
                    Used::Values(n) => i += n,
                    Used::Ends => ended = true,
                    Used::Rest => return,
                }
                continue;
            }
            if self.spec.plus_toolchain && self.path.is_empty() && tok.starts_with('+') {
                if tok.contains('/') {
                    let program = self.name.clone();
                    self.rec.refused(&program, "a toolchain given as a path runs whatever is there");
                }
                continue;
            }
            if !ended && self.spec.has_children(&self.path) {
                if let Some(child) = self.spec.child(&self.path, tok) {
                    self.path.push(child.to_string());
                    continue;
                }
                if self.command().operands.is_none() {
                    self.unknown(format!("subcommand {tok}"));
                    self.done = true;
                    return;
                }
            }
            if self.operand(tok, &args[i..]) {
                return;
            }
        }
    }

    /// One operand, read at once when the roles put a command or a binary at
    /// its place (the rest of the line is then that command's); `true` when so.
    fn operand(&mut self, tok: &str, rest: &[String]) -> bool {
        let roles = self.roles();
        let Some(stop) = roles.iter().position(|r| matches!(r.kind, Kind::Command | Kind::LocalBin)) else {
            self.operands.push(tok.to_string());
            return false;
        };
        // Walk the roles before the command over the operands seen so far, then place this one.
        let skip = |pos: &mut usize, t: &str| {
            while *pos < stop && roles[*pos].repeat == Repeat::Many && !fits(roles[*pos].kind, t) {
                *pos += 1;
            }
        };
        let mut pos = 0;
        for t in &self.operands {
            skip(&mut pos, t);
            if pos < stop && roles[pos].repeat != Repeat::Many {
                pos += 1;
            }
        }
        skip(&mut pos, tok);
        if pos < stop {
            self.operands.push(tok.to_string());
            return false;
        }
        // This operand starts the command: judge what came before, then read the rest.
        let before = std::mem::take(&mut self.operands);
        self.judge_operands(&roles[..stop], &before);
        let rest: Vec<String> = std::iter::once(tok.to_string()).chain(rest.iter().cloned()).collect();
        match roles[stop].kind {
            Kind::LocalBin => self.local_bin(&rest),
            _ => read(self.rec, &rest, &self.cwd, self.depth + 1),
        }
        self.done = true;
        true
    }

    /// `npx NAME ...`: a tool from the workspace's node_modules, else a package to download.
    fn local_bin(&mut self, rest: &[String]) {
        let bin = &rest[0];
        let local = self.rec.workspace().join("node_modules/.bin").join(bin);
        if !local.exists() || bin.contains('/') || bin.contains('@') {
            self.rec.effect(Effect::Critical, &format!("npx would download and run the package `{bin}`"));
            // A name nerd knows as a program (or a shell) is judged as the command it reads as.
            let shell = matches!(bin.as_str(), "sh" | "bash" | "dash" | "zsh" | "fish" | "ksh");
            if !bin.contains('/') && !bin.contains('@') && (shell || specs::program(bin).is_some()) {
                read(self.rec, rest, &self.cwd, self.depth + 1);
            }
        } else if specs::program(bin).is_some() {
            // The workspace's own binary runs, not one on PATH.
            let argv: Vec<String> =
                std::iter::once(local.display().to_string()).chain(rest[1..].iter().cloned()).collect();
            read(self.rec, &argv, &self.cwd, self.depth + 1);
        } else {
            self.rec.effect(Effect::Mutating, &format!("`{bin}` is a workspace tool nerd has no specification for"));
        }
    }

    /// Reads one option token of a GNU-style program; `rest` holds the arguments after it.
    fn gnu_option(&mut self, tok: &str, rest: &[String]) -> Used {
        if let Some(long) = tok.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v.to_string())),
                None => (tok.to_string(), None),
            };
            return self.apply(&name, attached, rest);
        }
        // A whole-token name first (`-OO`, `-print`), then numbers (`head -5`), then a cluster.
        if self.lookup(tok).is_some() {
            return self.apply(tok, None, rest);
        }
        if tok[1..].chars().all(|c| c.is_ascii_digit()) && self.lookup("-#").is_some() {
            return self.apply("-#", None, rest);
        }
        let body: Vec<char> = tok[1..].chars().collect();
        for (j, c) in body.iter().enumerate() {
            let name = format!("-{c}");
            let Some((_, opt)) = self.lookup(&name) else {
                self.unknown(format!("option {name}"));
                return Used::Values(0);
            };
            if opt.value.is_some() {
                let glued: String = body[j + 1..].iter().collect();
                return self.apply(&name, (!glued.is_empty()).then_some(glued), rest);
            }
            match self.apply(&name, None, rest) {
                Used::Values(_) => {}
                other => return other,
            }
        }
        Used::Values(0)
    }

    /// Go's flag package: `-name`, `--name`, `-name=value`, `-name value`; no clusters.
    fn go_option(&mut self, tok: &str, rest: &[String]) -> Used {
        let bare = tok.trim_start_matches('-');
        let (name, attached) = match bare.split_once('=') {
            Some((n, v)) => (format!("-{n}"), Some(v.to_string())),
            None => (format!("-{bare}"), None),
        };
        if let (Some((_, opt)), Some(v)) = (self.lookup(&name), &attached) {
            // Boolean flags may be written `-v=true`; `-n=false` is the flag switched off.
            if opt.value.is_none() && matches!(v.as_str(), "false" | "0") {
                return Used::Values(0);
            }
            if opt.value.is_none() && matches!(v.as_str(), "true" | "1") {
                return self.apply(&name, None, rest);
            }
        }
        self.apply(&name, attached, rest)
    }

    /// Records option `name` (with its value attached, if any), judges its
    /// values and applies its markers; says how many following arguments it took.
    fn apply(&mut self, name: &str, attached: Option<String>, rest: &[String]) -> Used {
        let Some((scope, opt)) = self.lookup(name) else {
            self.unknown(format!("option {name}"));
            return Used::Values(0);
        };
        let opt = opt.clone();
        let program = self.name.clone();
        self.rec.option(&program, &scope, &opt);
        let mut taken = 0;
        let mut values: Vec<(Kind, String)> = Vec::new();
        match (&opt.value, attached) {
            (None, Some(_)) => self.unknown(format!("value given to {name}, which takes none")),
            (None, None) => {}
            (Some(v), attached) if v.optional => values.extend(attached.map(|a| (v.kinds[0], a))),
            (Some(v), attached) => {
                let mut kinds = v.kinds.iter();
                if let Some(a) = attached {
                    values.extend(kinds.next().map(|k| (*k, a)));
                }
                for k in kinds {
                    if *k == Kind::Command {
                        // find -exec ... ;  — up to the terminator.
                        let end = rest[taken..]
                            .iter()
                            .position(|t| t == ";" || t == "+")
                            .map_or(rest.len(), |p| taken + p + 1);
                        values.push((*k, rest[taken..end].join(" ")));
                        taken = end;
                    } else if let Some(t) = rest.get(taken) {
                        values.push((*k, t.clone()));
                        taken += 1;
                    }
                }
            }
        }
        let denied = matches!(opt.effect, specs::Cost::Deny(_));
        for (kind, value) in values {
            if kind == Kind::Module {
                // `-m MODULE ...`: the rest of the line is the module's, read by its own spec.
                self.rec.module(&program, &value);
                let module_args = &rest[taken..];
                if self.spec.modules.contains(&value) && specs::program(&value).is_some() {
                    let argv: Vec<String> = std::iter::once(value).chain(module_args.iter().cloned()).collect();
                    read(self.rec, &argv, &self.cwd, self.depth + 1);
                }
                self.done = true;
                return Used::Rest;
            }
            if !(denied && kind == Kind::Code) {
                self.judge(kind, &value, name);
            }
        }
        if let Some(kind) = opt.fills {
            self.filled.push(kind);
        }
        for m in &opt.markers {
            match m {
                Marker::Readonly => self.readonly = true,
                Marker::Listing => self.listing = true,
                Marker::Inplace => self.inplace = true,
                Marker::Ends => return Used::Ends,
                Marker::Recursive => self.recursive = true,
            }
        }
        Used::Values(taken)
    }

    /// find: starting points, then an expression of predicates and their arguments.
    fn find(&mut self, args: &[String]) {
        let mut expression = false;
        let mut i = 0;
        while i < args.len() {
            let tok = &args[i];
            i += 1;
            let predicate = (tok.starts_with('-') && tok.len() > 1) || ["(", ")", "!", ","].contains(&tok.as_str());
            if predicate {
                if !["-L", "-H", "-P"].contains(&tok.as_str()) {
                    expression = true;
                }
                match self.apply(tok, None, &args[i..]) {
                    Used::Values(n) => i += n,
                    _ => return,
                }
            } else if expression {
                self.unknown(format!("expression word {tok}"));
            } else {
                self.operands.push(tok.clone());
            }
        }
    }

    /// The operand roles now in force: the command's, less those options filled, adjusted by markers.
    fn roles(&self) -> Vec<Role> {
        let mut roles = self.command().operands.clone().unwrap_or_default();
        for kind in &self.filled {
            if let Some(i) = roles.iter().position(|r| r.kind == *kind) {
                roles.remove(i);
            }
        }
        for r in &mut roles {
            if self.inplace && r.kind == Kind::Path {
                r.kind = Kind::Out;
            }
            if self.readonly && r.kind == Kind::Out {
                r.kind = Kind::Path;
            }
        }
        roles
    }

    /// Judges the operands, records the command's flags, after the whole line is read.
    fn finish(&mut self) {
        let operands = std::mem::take(&mut self.operands);
        let program = self.name.clone();
        let path = self.path.join(" ");
        if self.command().operands.is_none() {
            if let Some(first) = operands.first() {
                self.unknown(format!("operand {first}"));
            }
        } else {
            let roles = self.roles();
            // An interpreter given no program (no script, no -m or -c) reads one from standard input.
            let interactive = self.spec.kinds.iter().any(|k| k == "script-runner")
                && self.path.is_empty()
                && operands.is_empty()
                && !self.readonly
                && roles.first().is_some_and(|r| r.kind == Kind::Script);
            if interactive {
                self.rec.refused(&program, "the program would be read from standard input, which nerd cannot see");
            }
            // A wrapper given no command prints the environment it would pass on, secrets included.
            if !self.done && roles.iter().any(|r| r.kind == Kind::Command) && self.spec.name() == "env" {
                self.rec.refused(&program, "env without a command prints the environment, where secrets live");
            }
            self.judge_operands(&roles, &operands);
        }
        if !operands.is_empty() {
            self.rec.operands(&program, &path);
        }
        // A recursive read with no path reads the working directory.
        if self.recursive && self.paths_read == 0 {
            self.touch_secrets_beneath(".");
        }
        if self.readonly {
            self.rec.readonly(&program, &path);
        }
        if self.listing {
            self.rec.listing(&program, &path);
        }
    }

    /// Gives each operand its role: fixed roles from both ends, optional ones
    /// left to right, the repeated one the rest; an operand no role takes is unknown.
    fn judge_operands(&mut self, roles: &[Role], operands: &[String]) {
        let required = roles.iter().filter(|r| r.repeat == Repeat::One).count();
        let mut spare = operands.len().saturating_sub(required);
        let mut assigned: Vec<Kind> = Vec::new();
        for r in roles {
            match r.repeat {
                Repeat::One => assigned.push(r.kind),
                Repeat::Optional if spare > 0 => {
                    spare -= 1;
                    assigned.push(r.kind);
                }
                Repeat::Optional => {}
                Repeat::Many => {
                    assigned.extend(std::iter::repeat_n(r.kind, spare));
                    spare = 0;
                }
            }
        }
        for (n, tok) in operands.iter().enumerate() {
            match assigned.get(n) {
                Some(kind) => self.judge(*kind, tok, "operand"),
                None => self.unknown(format!("operand {tok}")),
            }
        }
    }

    /// Judges one value by its kind.
    fn judge(&mut self, kind: Kind, value: &str, context: &str) {
        let program = self.name.clone();
        match kind {
            // A value that is a URL is a network target, whatever the program calls it
            // (text that merely mentions one, such as a commit message, is not).
            Kind::Text if is_url(value) => {
                if let Some(url) = url_of(value) {
                    self.rec.network(&url);
                }
            }
            Kind::Text | Kind::Module => {}
            Kind::Path => {
                self.touch(value, Access::Read);
                self.paths_read += 1;
                if self.recursive {
                    self.touch_secrets_beneath(value);
                }
            }
            Kind::Pkg => {
                if is_path_pattern(value) {
                    self.touch(value.trim_end_matches("/..."), Access::Read);
                }
                // A module path whose host is an address literal is fetched from there.
                let host = value.split('/').next().unwrap_or_default();
                if value.contains('/') && host.parse::<std::net::IpAddr>().is_ok() {
                    self.rec.network(&format!("https://{host}/"));
                }
                // `go run example.com/cmd@latest` downloads a module and runs it.
                if value.contains('@') {
                    let why = format!("`{value}` is a remote module that would be downloaded and run");
                    self.rec.effect(Effect::Critical, &why);
                }
            }
            Kind::Out => self.touch(value, Access::Write),
            Kind::Del => self.touch(value, Access::Delete),
            Kind::Dir => {
                self.touch(value, Access::Read);
                self.cwd = self.rec.absolute(&self.cwd, value);
            }
            Kind::Code => self.rec.refused(&program, &format!("{context} takes code to run")),
            Kind::Env => {
                if let Some((name, _)) = value.split_once('=') {
                    self.rec.env(name);
                }
            }
            Kind::Command => {
                let argv: Vec<String> = value.split_whitespace().map(str::to_string).collect();
                if !argv.is_empty() {
                    read(self.rec, &argv, &self.cwd, self.depth + 1);
                }
            }
            Kind::Sed => {
                let found = scripts::sed(value);
                if let Some(why) = found.refused {
                    self.rec.refused(&program, &why);
                }
                for f in found.reads {
                    self.touch(&f, Access::Read);
                }
                for f in found.writes {
                    self.touch(&f, Access::Write);
                }
            }
            Kind::Awk => {
                if let Some(why) = scripts::awk(value) {
                    self.rec.refused(&program, &why);
                }
            }
            Kind::Emit => {
                for item in value.split(',') {
                    if let Some((_, path)) = item.split_once(['=', ':']).filter(|(_, p)| !p.is_empty()) {
                        self.touch(path, Access::Write);
                    }
                }
            }
            Kind::Library => {
                let path = value.split_once('=').map_or(value, |(_, p)| p);
                let full = self.rec.absolute(&self.cwd, path);
                if super::paths::resolve(&full).starts_with(self.rec.workspace()) {
                    self.touch(path, Access::Read);
                } else {
                    self.rec.refused(&program, &format!("`{path}` is code from outside the workspace"));
                }
            }
            Kind::Target => {
                if value.contains('/') || value.ends_with(".json") {
                    self.rec.refused(&program, "a custom target specification can name any linker");
                }
            }
            Kind::Suffix => {
                if value.contains('/') {
                    self.rec.refused(&program, "a backup suffix with `/` writes the backup somewhere else");
                }
            }
            Kind::Reporter => {
                if !BUILT_IN_REPORTERS.contains(&value) {
                    self.rec
                        .refused(&program, &format!("the reporter `{value}` is a module that would be loaded and run"));
                }
            }
            Kind::PyX => {
                if let Some(path) = value.strip_prefix("pycache_prefix=") {
                    self.touch(path, Access::Write);
                }
            }
            Kind::PyWarn => {
                if value.split(':').nth(2).is_some_and(|category| category.contains('.')) {
                    self.rec.refused(&program, "a warning category with a module path imports that module");
                }
            }
            Kind::GoMod => {
                if value == "mod" {
                    self.rec.effect(Effect::Mutating, "-mod=mod updates go.mod and go.sum");
                }
            }
            Kind::Rebase => {
                if value.starts_with('i') {
                    self.rec.refused(&program, "an interactive rebase opens an editor");
                }
            }
            Kind::GrepDirs => {
                if value == "recurse" {
                    self.recursive = true;
                }
            }
            Kind::Jq => {
                if let Some(why) = scripts::jq(value) {
                    self.rec.refused(&program, &why);
                }
            }
            Kind::RevPath | Kind::Object => self.revpath(kind, value),
            Kind::Url => {
                // git's `ext::` and `fd::` transports run a command or speak over a descriptor.
                if value.starts_with("ext::") || value.starts_with("fd::") {
                    self.rec.refused(&program, "the ext:: and fd:: transports run commands");
                }
                if let Some(url) = url_of(value) {
                    self.rec.network(&url);
                }
            }
            Kind::Script => {
                if value == "-" {
                    self.rec.refused(&program, "the program would be read from standard input, which nerd cannot see");
                } else {
                    self.touch(value, Access::Read);
                    self.rec.script(&program);
                }
            }
            Kind::LocalBin => self.local_bin(&[value.to_string()]),
            Kind::Refspec => {
                if value.starts_with('+') {
                    self.rec.refused(&program, "a refspec starting with + forces the update");
                }
                if value.starts_with(':') {
                    self.rec.refused(&program, "a refspec starting with : deletes the remote ref");
                }
            }
            Kind::TestId => {
                let path = value.split("::").next().unwrap_or(value);
                self.touch(path, Access::Read);
            }
            Kind::MakeArg => {
                if is_env_assignment(value) {
                    self.rec.refused(
                        &program,
                        "make variables given on the command line can replace the shell or the compiler",
                    );
                }
                // Targets that by convention delete, install or publish.
                match value {
                    "clean" | "distclean" | "mrproper" | "realclean" | "maintainer-clean" | "install" | "uninstall" => {
                        self.rec.effect(Effect::Mutating, &format!("`make {value}` changes files by convention"));
                    }
                    "publish" | "release" | "deploy" | "upload" | "push" => {
                        self.rec.effect(Effect::Critical, &format!("`make {value}` publishes by convention"));
                    }
                    _ => {}
                }
            }
            Kind::GoFlags => {
                if value.contains("extld") || value.contains("toolexec") || value.contains("-linkmode=external") {
                    self.rec.refused(&program, "these tool flags name an external program to run");
                }
            }
            Kind::PyPlugin => {
                if !value.starts_with("no:") {
                    self.rec.refused(&program, "loading a pytest plugin runs its code");
                }
            }
        }
    }

    /// A git object or revision: `<rev>:<path>` names a path (from the top of the
    /// repository, or from here with `./`); a bare object id hides which file it
    /// is; an existing path is a pathspec; anything else is a revision.
    fn revpath(&mut self, kind: Kind, value: &str) {
        if value.contains("://") {
            return;
        }
        if let Some((rev, path)) = value.split_once(':') {
            // `:0:path` (an index stage) and `:path` name index entries.
            let path = match rev {
                "" => path.split_once(':').filter(|(stage, _)| stage.len() == 1).map_or(path, |(_, p)| p),
                _ => path,
            };
            if path.is_empty() {
                return;
            }
            let from_top = !(path.starts_with("./") || path.starts_with("../"));
            let base = if from_top { self.rec.workspace().to_path_buf() } else { self.cwd.clone() };
            let full = self.rec.absolute(&base, path);
            self.rec.touch_absolute(&full, Access::Read);
            return;
        }
        // git takes any unambiguous prefix of four or more hex digits.
        let hex = value.len() >= 4 && value.chars().all(|c| c.is_ascii_hexdigit());
        if kind == Kind::Object && hex {
            let program = self.name.clone();
            self.rec.refused(&program, "an object id hides which file it reads; name it as <rev>:<path>");
            return;
        }
        if self.rec.absolute(&self.cwd, value).symlink_metadata().is_ok() {
            self.touch(value, Access::Read);
        }
    }

    fn touch(&mut self, path: &str, access: Access) {
        let full = self.rec.absolute(&self.cwd, path);
        self.rec.touch_absolute(&full, access);
    }

    /// A folder read whole reads the secrets inside it: each found (a bounded walk,
    /// symlinks not followed, `.git` and dependency folders skipped) is touched as read.
    /// Files are judged by name, and by inode when they have other names (hard links);
    /// a symlink by where it points.
    fn touch_secrets_beneath(&mut self, dir: &str) {
        use std::os::unix::fs::MetadataExt;
        const MAX_ENTRIES: usize = 50_000;
        let root = self.rec.absolute(&self.cwd, dir);
        let workspace = self.rec.workspace().to_path_buf();
        let refused = crate::files::Refused::files(&super::paths::secret_locations(&workspace, &[]));
        let mut stack = vec![root];
        let (mut seen, mut found) = (0, Vec::new());
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else { continue };
            for entry in entries.flatten() {
                seen += 1;
                let (path, name) = (entry.path(), entry.file_name().to_string_lossy().to_string());
                let rel = path.strip_prefix(&workspace).unwrap_or(&path).to_string_lossy().to_string();
                let secret = match entry.file_type() {
                    Ok(t) if t.is_dir() => {
                        // A credential folder (`~/.ssh` under a recursive read of the home folder) is read whole.
                        let class = super::paths::classify(&workspace, &path.to_string_lossy()).1;
                        let skipped = matches!(name.as_str(), ".git" | "node_modules" | "target" | ".venv");
                        if class != nerd_logic::vocab::PathClass::Secret && !skipped {
                            stack.push(path.clone());
                        }
                        class == nerd_logic::vocab::PathClass::Secret
                    }
                    Ok(t) if t.is_file() => {
                        super::paths::secret_by_name(&rel)
                            || entry.metadata().is_ok_and(|m| m.nlink() > 1 && refused.holds(&m))
                    }
                    Ok(t) if t.is_symlink() => {
                        let class = super::paths::classify(&workspace, &path.to_string_lossy()).1;
                        class == nerd_logic::vocab::PathClass::Secret
                    }
                    _ => false,
                };
                if secret {
                    found.push(path);
                }
                if seen >= MAX_ENTRIES || found.len() >= 8 {
                    stack.clear();
                    break;
                }
            }
        }
        for path in found {
            self.rec.touch_absolute(&path, Access::Read);
        }
    }
}

/// How many arguments after an option it took, or what it did to the line.
enum Used {
    Values(usize),
    /// The rest of the line is operands.
    Ends,
    /// The rest of the line belongs to another command, already read.
    Rest,
}

/// Whether `token` can take a repeated role before a command (`env A=1 cmd`).
fn fits(kind: Kind, token: &str) -> bool {
    match kind {
        Kind::Env => is_env_assignment(token),
        _ => false,
    }
}

/// Go package patterns that name directories.
/// A file a test binary writes, from its own options (libtest's `--logfile`, Go's
/// `-test.*profile`, `-test.trace`, `-test.outputdir`), and how many more arguments it took.
fn test_binary_output(tok: &str, next: Option<&String>) -> Option<(String, usize)> {
    if tok == "--logfile" {
        return next.map(|p| (p.clone(), 1));
    }
    if let Some(p) = tok.strip_prefix("--logfile=") {
        return Some((p.to_string(), 0));
    }
    let (name, value) = tok.trim_start_matches('-').split_once('=')?;
    let writes = name
        .strip_prefix("test.")
        .is_some_and(|n| n.ends_with("profile") || matches!(n, "trace" | "outputdir" | "testlogfile"));
    writes.then(|| (value.to_string(), 0))
}

fn is_path_pattern(value: &str) -> bool {
    value == "." || value.starts_with("./") || value.starts_with("../") || value.starts_with('/')
}

/// A URL to judge, from a URL or a scp-like git address (`git@host:path`).
/// Whether the whole of `value` is an absolute URL (`scheme://…`).
fn is_url(value: &str) -> bool {
    value.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

fn url_of(value: &str) -> Option<String> {
    if value.contains("://") {
        return Some(value.to_string());
    }
    let (user_host, path) = value.split_once(':')?;
    let host = user_host.rsplit('@').next()?;
    let scp = user_host.contains('@') || host.contains('.');
    (scp && !host.is_empty() && !path.starts_with("//")).then(|| format!("ssh://{user_host}/{path}"))
}
