//! Program specifications: for every program the agent may run, the options,
//! subcommands and operands it may be given, what each one does (reads,
//! writes, runs code) and what it costs (read, mutating, critical, denied).
//! Anything a specification does not name is denied, so each program is
//! default-deny inside, not only at its name. The specifications are data
//! (`logic/specs/*.spec`, embedded), parsed here without IO; the runtime
//! reads argv by them and the constitution judges what it found. Each file
//! carries `example` lines that the test suite runs through the real policy.
//! Knows nothing about how an argv is executed.
//!
//! The language, one statement per line (`#` starts a comment):
//!
//! ```text
//! program git                     names of one program (the first is canonical)
//! kind code-runner                code-runner | mutating | high-risk | script-runner
//! style gnu                       gnu (default) | go (single-dash long options) | find (predicates)
//! option -C <dir>                 names joined by `|` are one option; a value `<kind>` or an optional `[=<kind>]`
//! flags -a --all -l               independent options without a value
//! options --sort --time <text>    independent options each taking a value of that kind
//! option -c <text> : deny "why"   an effect: read (default) | mutating | critical | deny "why"
//! option -e <text> fills text     an option that stands for the first operand of that role
//! option --check readonly          markers: readonly (the command only checks: read effect,
//!                                  written operands become read), inplace (read operands are
//!                                  written), listing (operands do not cost their effect), ends
//!                                  (the rest of the line is operands)
//! operands path... out : mutating roles: one, `?` optional, `...` any number
//! effect deny "why"               what running the program at all costs
//! modules pytest pip              the modules `-m` may run (each has a spec of its own)
//! common                          the options that follow apply to every subcommand
//! group diff / use diff           options collected under a name once, used in several places of one file
//! sub stash : mutating            a subcommand (words are a path: `sub stash list : read`)
//! sub install alias i add : critical
//! sub fetch,pull : mutating       several subcommands with one spec
//! example deny query git add .    a command line and the verdict the policy must give
//! ```

use std::fmt;

/// What an option, operand or subcommand costs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cost {
    Read,
    Mutating,
    Critical,
    /// Never allowed, with the reason.
    Deny(String),
}

/// What a value or operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Opaque text: a message, a pattern, a number, a name.
    Text,
    /// A path that is read.
    Path,
    /// A path that is written.
    Out,
    /// A path that is deleted.
    Del,
    /// The directory the program works in.
    Dir,
    /// Code, a command or a program to run.
    Code,
    /// A Python module run with `-m`.
    Module,
    /// A sed script, whose commands can read, write and run.
    Sed,
    /// An awk program, which can run commands and write files.
    Awk,
    /// A jq filter, which can read the environment.
    Jq,
    /// Comma-separated `KIND=PATH` or `KIND:PATH` outputs (`rustc --emit`, `pytest --cov-report`): the paths are written.
    Emit,
    /// A compiled library or a folder of code to load (`rustc --extern NAME=PATH`, `unittest -s`): only from the workspace.
    Library,
    /// A target triple, or a path to a custom target specification that names the linker.
    Target,
    /// sed's backup suffix: with a `/` the backup is written elsewhere.
    Suffix,
    /// A test reporter: a built-in name, or a module that is loaded and run.
    Reporter,
    /// A `python -X` option: `pycache_prefix=PATH` writes there.
    PyX,
    /// A `python -W` filter: a dotted category imports its module.
    PyWarn,
    /// Go's `-mod` mode: `mod` rewrites go.mod.
    GoMod,
    /// git's `--rebase` mode: `interactive` opens an editor.
    Rebase,
    /// grep's `--directories` action: `recurse` reads folders whole.
    GrepDirs,
    /// A `NAME=value` environment assignment.
    Env,
    /// The rest of the command line is another command (wrappers).
    Command,
    /// A git object `<rev>:<path>` (the path is read) or a revision.
    RevPath,
    /// A URL that is fetched.
    Url,
    /// A script file that an interpreter runs.
    Script,
    /// A Go package pattern (`./...` names paths, `fmt` does not).
    Pkg,
    /// A binary from the workspace's `node_modules/.bin`, else a package to download.
    LocalBin,
    /// A git refspec (`+` in front forces the update).
    Refspec,
    /// A git object: `<rev>:<path>` reads the path; a bare object id hides which file it is.
    Object,
    /// A test id, `path::name` (pytest) — the path is read.
    TestId,
    /// A make target, or a `NAME=value` variable that can replace the shell or the compiler.
    MakeArg,
    /// Go tool flags (`-ldflags`, `-gcflags`): `-extld` or `-toolexec` inside run programs.
    GoFlags,
    /// A pytest plugin to load (`-p no:NAME` only disables one).
    PyPlugin,
}

impl Kind {
    fn parse(word: &str) -> Option<Kind> {
        Some(match word {
            "text" => Kind::Text,
            "path" => Kind::Path,
            "out" => Kind::Out,
            "del" => Kind::Del,
            "dir" => Kind::Dir,
            "code" => Kind::Code,
            "module" => Kind::Module,
            "sed" => Kind::Sed,
            "awk" => Kind::Awk,
            "jq" => Kind::Jq,
            "emit" => Kind::Emit,
            "library" => Kind::Library,
            "target" => Kind::Target,
            "suffix" => Kind::Suffix,
            "reporter" => Kind::Reporter,
            "pyx" => Kind::PyX,
            "pywarn" => Kind::PyWarn,
            "gomod" => Kind::GoMod,
            "rebase" => Kind::Rebase,
            "grepdirs" => Kind::GrepDirs,
            "env" => Kind::Env,
            "command" => Kind::Command,
            "revpath" => Kind::RevPath,
            "url" => Kind::Url,
            "script" => Kind::Script,
            "pkg" => Kind::Pkg,
            "localbin" => Kind::LocalBin,
            "refspec" => Kind::Refspec,
            "object" => Kind::Object,
            "testid" => Kind::TestId,
            "makearg" => Kind::MakeArg,
            "goflags" => Kind::GoFlags,
            "pyplugin" => Kind::PyPlugin,
            _ => return None,
        })
    }
}

/// How many operands a role takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeat {
    One,
    Optional,
    Many,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    pub kind: Kind,
    pub repeat: Repeat,
}

/// The value an option takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// What each value is; more than one are separate arguments (`jq --arg NAME VALUE`).
    pub kinds: Vec<Kind>,
    /// Only attached (`--opt=value`, `-ovalue`), never the next argument.
    pub optional: bool,
}

/// What an option does to the rest of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// The command only checks (`--check`, `--noEmit`): read effect; written operands are read.
    Readonly,
    /// Operands read are written in place (`sed -i`, `gofmt -w`).
    Inplace,
    /// Operands are patterns to list (`git tag -l`): they do not cost their effect.
    Listing,
    /// The rest of the command line is operands (`go test -args`).
    Ends,
    /// Folders among the paths read are read whole, hidden files included (`grep -r`).
    Recursive,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    /// `-o`, `--output`; the first is canonical.
    pub names: Vec<String>,
    pub value: Option<Value>,
    pub effect: Cost,
    /// The option stands for the first operand of this kind (`sed -e SCRIPT`, `grep -e PATTERN`).
    pub fills: Option<Kind>,
    pub markers: Vec<Marker>,
}

/// What a command (a program or one of its subcommands) accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The subcommand's words, empty for the program itself.
    pub path: Vec<String>,
    /// Other names of the last word (`npm i` for `npm install`).
    pub aliases: Vec<String>,
    pub effect: Cost,
    pub options: Vec<Opt>,
    /// `None`: no operands at all.
    pub operands: Option<Vec<Role>>,
    /// What having any operand costs (`git branch NAME` creates a branch).
    pub operand_effect: Cost,
}

/// How options are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `-abc` clusters of short options, `--long[=value]`.
    Gnu,
    /// Go's flag package: `-name`, `--name`, `-name=value`, no clusters.
    Go,
    /// find: starting points, then an expression of `-predicate` words.
    Find,
}

/// The verdict an example must get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Allow,
    Ask,
    Deny,
}

/// A command line and what the policy must say about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub expect: Expect,
    /// `true` for a query intent, `false` for a mutation.
    pub query: bool,
    pub argv: Vec<String>,
    /// Where the example is written, for failure messages.
    pub line: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub names: Vec<String>,
    pub kinds: Vec<String>,
    pub style: Style,
    /// `cargo +nightly build`: a `+toolchain` word before the subcommand.
    pub plus_toolchain: bool,
    /// The program itself: its options before any subcommand, its operands when it has no subcommands.
    pub root: Command,
    /// Options every subcommand accepts.
    pub common: Vec<Opt>,
    pub subs: Vec<Command>,
    pub examples: Vec<Example>,
    /// The modules `-m` may run; each has a spec of its own, which reads the rest of the line.
    pub modules: Vec<String>,
}

impl Program {
    pub fn name(&self) -> &str {
        &self.names[0]
    }

    /// The canonical word for `word` as the next word after `prefix` (an alias resolved), if any.
    pub fn child(&self, prefix: &[String], word: &str) -> Option<&str> {
        self.subs
            .iter()
            .filter(|c| c.path.len() == prefix.len() + 1 && c.path[..prefix.len()] == *prefix)
            .find(|c| c.path[prefix.len()] == word || c.aliases.iter().any(|a| a == word))
            .map(|c| c.path[prefix.len()].as_str())
    }

    /// The subcommand whose canonical path is `path`.
    pub fn sub(&self, path: &[String]) -> Option<&Command> {
        self.subs.iter().find(|c| c.path == path)
    }

    /// Whether some subcommand lies below `path`.
    pub fn has_children(&self, path: &[String]) -> bool {
        self.subs.iter().any(|c| c.path.len() > path.len() && c.path[..path.len()] == *path)
    }
}

/// A specification that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for SpecError {}

/// Every specification file, embedded: (name, text).
pub const FILES: &[(&str, &str)] = &[
    ("coreutils.spec", include_str!("../specs/coreutils.spec")),
    ("search.spec", include_str!("../specs/search.spec")),
    ("wrappers.spec", include_str!("../specs/wrappers.spec")),
    ("git.spec", include_str!("../specs/git.spec")),
    ("rust.spec", include_str!("../specs/rust.spec")),
    ("go.spec", include_str!("../specs/go.spec")),
    ("python.spec", include_str!("../specs/python.spec")),
    ("node.spec", include_str!("../specs/node.spec")),
    ("make.spec", include_str!("../specs/make.spec")),
];

/// Splits a line into words; `"..."` and `'...'` quote, `#` outside quotes starts a comment.
pub fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '#' if !in_word => break,
            '"' | '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => match chars.next() {
                            Some('n') => word.push('\n'),
                            Some(e) => word.push(e),
                            None => return Err("unterminated quote".into()),
                        },
                        Some(x) => word.push(x),
                        None => return Err("unterminated quote".into()),
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    Ok(out)
}

/// Parses `: EFFECT` at the start of `rest`; returns the effect and the words after it.
fn effect(rest: &[String]) -> Result<(Cost, &[String]), String> {
    match rest {
        [colon, word, tail @ ..] if colon == ":" => match word.as_str() {
            "read" => Ok((Cost::Read, tail)),
            "mutating" => Ok((Cost::Mutating, tail)),
            "critical" => Ok((Cost::Critical, tail)),
            "deny" => match tail {
                [why, tail @ ..] => Ok((Cost::Deny(why.clone()), tail)),
                [] => Err("`deny` needs a reason".into()),
            },
            other => Err(format!("unknown effect `{other}`")),
        },
        [colon] if colon == ":" => Err("`:` needs an effect".into()),
        _ => Ok((Cost::Read, rest)),
    }
}

fn kind_of(token: &str) -> Result<Kind, String> {
    let inner =
        token.strip_prefix('<').and_then(|t| t.strip_suffix('>')).ok_or_else(|| format!("`{token}` is not <kind>"))?;
    Kind::parse(inner).ok_or_else(|| format!("unknown kind `{inner}`"))
}

fn option(words: &[String]) -> Result<Opt, String> {
    let mut names = Vec::new();
    let mut value: Option<Value> = None;
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if w == "|" {
            i += 1;
            continue;
        }
        if w.starts_with('<') || w == ":" || w == "fills" || marker(w).is_some() {
            break;
        }
        // `--porcelain[=<text>]`: an optional value, attached only.
        if let Some((name, tail)) = w.split_once("[=") {
            let kind = kind_of(tail.strip_suffix(']').ok_or_else(|| format!("`{w}` lacks `]`"))?)?;
            value = Some(Value { kinds: vec![kind], optional: true });
            names.push(name.to_string());
        } else {
            names.extend(w.split('|').filter(|n| !n.is_empty()).map(str::to_string));
        }
        i += 1;
    }
    if names.is_empty() {
        return Err("an option needs a name".into());
    }
    if let Some(bad) =
        names.iter().find(|n| !(n.starts_with('-') || n.starts_with('+') || ["(", ")", "!", ","].contains(&n.as_str())))
    {
        return Err(format!("`{bad}` is not an option name (options start with - or +)"));
    }
    let mut kinds = Vec::new();
    while let Some(w) = words.get(i).filter(|w| w.starts_with('<')) {
        kinds.push(kind_of(w)?);
        i += 1;
    }
    if !kinds.is_empty() {
        if value.is_some() {
            return Err("an option takes either an optional value or required ones".into());
        }
        value = Some(Value { kinds, optional: false });
    }
    let mut rest = &words[i..];
    let mut cost = Cost::Read;
    let mut fills = None;
    let mut markers = Vec::new();
    while let Some((w, tail)) = rest.split_first() {
        if w == ":" {
            let (c, after) = effect(rest)?;
            cost = c;
            rest = after;
        } else if w == "fills" {
            let (kind, tail) = tail.split_first().ok_or("`fills` needs a kind")?;
            fills = Some(Kind::parse(kind).ok_or_else(|| format!("unknown kind `{kind}`"))?);
            rest = tail;
        } else if let Some(m) = marker(w) {
            markers.push(m);
            rest = tail;
        } else {
            return Err(format!("unexpected `{}`", rest.join(" ")));
        }
    }
    Ok(Opt { names, value, effect: cost, fills, markers })
}

fn marker(word: &str) -> Option<Marker> {
    Some(match word {
        "readonly" => Marker::Readonly,
        "inplace" => Marker::Inplace,
        "listing" => Marker::Listing,
        "ends" => Marker::Ends,
        "recursive" => Marker::Recursive,
        _ => return None,
    })
}

fn operands(words: &[String]) -> Result<(Option<Vec<Role>>, Cost), String> {
    let end = words.iter().position(|w| w == ":").unwrap_or(words.len());
    let (effect, rest) = effect(&words[end..])?;
    if !rest.is_empty() {
        return Err(format!("unexpected `{}`", rest.join(" ")));
    }
    if words[..end] == ["none".to_string()] {
        return Ok((None, effect));
    }
    let mut roles = Vec::new();
    for w in &words[..end] {
        let (name, repeat) = if let Some(n) = w.strip_suffix("...") {
            (n, Repeat::Many)
        } else if let Some(n) = w.strip_suffix('?') {
            (n, Repeat::Optional)
        } else {
            (w.as_str(), Repeat::One)
        };
        let kind = Kind::parse(name).ok_or_else(|| format!("unknown operand role `{name}`"))?;
        roles.push(Role { kind, repeat });
    }
    // A command takes the rest of the line, so it may follow a repeated role (`env... command...`).
    let repeating = roles.iter().filter(|r| r.repeat == Repeat::Many && r.kind != Kind::Command).count();
    if repeating > 1 {
        return Err("at most one role may repeat".into());
    }
    if roles.iter().position(|r| r.kind == Kind::Command).is_some_and(|i| i + 1 != roles.len()) {
        return Err("a command takes the rest of the line: it must be the last role".into());
    }
    Ok((Some(roles), effect))
}

/// The options one `option`, `flags`, `options` or `use` statement declares.
fn options_of(
    keyword: &str,
    rest: &[String],
    groups: &std::collections::HashMap<String, Vec<Opt>>,
) -> Result<Vec<Opt>, String> {
    match keyword {
        "option" => Ok(vec![option(rest)?]),
        "flags" => rest.iter().map(|n| option(std::slice::from_ref(n))).collect(),
        "use" => match rest {
            [name] => groups.get(name).cloned().ok_or_else(|| format!("no group `{name}` above")),
            _ => Err("`use` needs one group name".into()),
        },
        _ => {
            let split = rest.iter().position(|w| w.starts_with('<')).unwrap_or(rest.len());
            let (names, kinds) = rest.split_at(split);
            if names.is_empty() || kinds.is_empty() || kinds.iter().any(|k| !k.starts_with('<')) {
                return Err("`options` needs names, then one or more <kind>".into());
            }
            names.iter().map(|n| option(&[std::slice::from_ref(n), kinds].concat())).collect()
        }
    }
}

fn command(path: Vec<String>) -> Command {
    Command { path, aliases: vec![], effect: Cost::Read, options: vec![], operands: None, operand_effect: Cost::Read }
}

/// Parses one specification file.
pub fn parse(file: &str, text: &str) -> Result<Vec<Program>, SpecError> {
    let mut programs: Vec<Program> = Vec::new();
    // Where `option` and `operands` lines go: the root, the common block or the last subcommand.
    #[derive(PartialEq)]
    enum Target {
        Root,
        Common,
        /// The subcommands the last `sub` statement declared (one, or several sharing a spec).
        Subs(usize),
        Group(String),
    }
    let mut target = Target::Root;
    let mut groups: std::collections::HashMap<String, Vec<Opt>> = std::collections::HashMap::new();
    for (n, raw) in text.lines().enumerate() {
        let err = |message: String| SpecError { file: file.to_string(), line: n + 1, message };
        let words = words(raw).map_err(err)?;
        let Some((keyword, rest)) = words.split_first() else { continue };
        if keyword == "group" {
            let [name] = rest else { return Err(err("`group` needs one name".into())) };
            groups.insert(name.clone(), Vec::new());
            target = Target::Group(name.clone());
            continue;
        }
        if keyword == "program" {
            if rest.is_empty() {
                return Err(err("`program` needs a name".into()));
            }
            programs.push(Program {
                names: rest.to_vec(),
                kinds: vec![],
                style: Style::Gnu,
                plus_toolchain: false,
                root: command(vec![]),
                common: vec![],
                subs: vec![],
                examples: vec![],
                modules: vec![],
            });
            target = Target::Root;
            continue;
        }
        // Options of a group need no program yet.
        if let Target::Group(name) = &target {
            if matches!(keyword.as_str(), "option" | "flags" | "options" | "use") {
                let opts = options_of(keyword, rest, &groups).map_err(err)?;
                groups.get_mut(name).ok_or_else(|| err("no such group".into()))?.extend(opts);
                continue;
            }
        }
        let program = programs.last_mut().ok_or_else(|| err(format!("`{keyword}` before any `program`")))?;
        match keyword.as_str() {
            "kind" => {
                for k in rest {
                    if !matches!(k.as_str(), "code-runner" | "mutating" | "high-risk" | "script-runner") {
                        return Err(err(format!("unknown kind `{k}`")));
                    }
                    program.kinds.push(k.clone());
                }
            }
            "style" => {
                for s in rest {
                    match s.as_str() {
                        "gnu" => program.style = Style::Gnu,
                        "go" => program.style = Style::Go,
                        "find" => program.style = Style::Find,
                        "plus-toolchain" => program.plus_toolchain = true,
                        other => return Err(err(format!("unknown style `{other}`"))),
                    }
                }
            }
            "common" => target = Target::Common,
            "modules" => program.modules.extend(rest.iter().cloned()),
            "effect" => {
                let with_colon: Vec<String> = std::iter::once(":".to_string()).chain(rest.iter().cloned()).collect();
                let (cost, tail) = effect(&with_colon).map_err(err)?;
                if !tail.is_empty() {
                    return Err(err(format!("unexpected `{}`", tail.join(" "))));
                }
                program.root.effect = cost;
            }
            "option" | "flags" | "options" | "use" => {
                let opts = options_of(keyword, rest, &groups).map_err(err)?;
                match &target {
                    Target::Root | Target::Group(_) => program.root.options.extend(opts),
                    Target::Common => program.common.extend(opts),
                    Target::Subs(n) => {
                        let from = program.subs.len() - n;
                        program.subs[from..].iter_mut().for_each(|c| c.options.extend(opts.iter().cloned()));
                    }
                }
            }
            "operands" => {
                let (roles, effect) = operands(rest).map_err(err)?;
                let from = match target {
                    Target::Subs(n) => program.subs.len() - n,
                    _ => program.subs.len(),
                };
                let cmds: Vec<&mut Command> = if from < program.subs.len() {
                    program.subs[from..].iter_mut().collect()
                } else {
                    vec![&mut program.root]
                };
                for cmd in cmds {
                    cmd.operands = roles.clone();
                    cmd.operand_effect = effect.clone();
                }
            }
            "sub" => {
                let end = rest.iter().position(|w| w == ":" || w == "alias").unwrap_or(rest.len());
                if end == 0 {
                    return Err(err("`sub` needs a name".into()));
                }
                let (prefix, last) = rest[..end].split_at(end - 1);
                let mut tail = &rest[end..];
                let mut aliases = Vec::new();
                if tail.first().is_some_and(|w| w == "alias") {
                    let stop = tail.iter().position(|w| w == ":").unwrap_or(tail.len());
                    aliases = tail[1..stop].to_vec();
                    tail = &tail[stop..];
                }
                let (e, after) = effect(tail).map_err(err)?;
                if !after.is_empty() {
                    return Err(err(format!("unexpected `{}`", after.join(" "))));
                }
                let names: Vec<&str> = last[0].split(',').filter(|n| !n.is_empty()).collect();
                if names.len() > 1 && !aliases.is_empty() {
                    return Err(err("aliases go with one subcommand, not several".into()));
                }
                for name in &names {
                    let mut cmd = command(prefix.iter().cloned().chain([name.to_string()]).collect());
                    cmd.aliases = aliases.clone();
                    cmd.effect = e.clone();
                    program.subs.push(cmd);
                }
                target = Target::Subs(names.len());
            }
            "example" => {
                let (expect, tail) = match rest.split_first() {
                    Some((e, tail)) => (
                        match e.as_str() {
                            "allow" => Expect::Allow,
                            "ask" => Expect::Ask,
                            "deny" => Expect::Deny,
                            other => return Err(err(format!("unknown verdict `{other}`"))),
                        },
                        tail,
                    ),
                    None => return Err(err("`example` needs a verdict".into())),
                };
                let (query, argv) = match tail.split_first() {
                    Some((i, argv)) if i == "query" => (true, argv),
                    Some((i, argv)) if i == "mutation" => (false, argv),
                    _ => (false, tail),
                };
                if argv.is_empty() {
                    return Err(err("`example` needs a command line".into()));
                }
                program.examples.push(Example {
                    expect,
                    query,
                    argv: argv.to_vec(),
                    line: format!("{file}:{}", n + 1),
                });
            }
            other => return Err(err(format!("unknown statement `{other}`"))),
        }
    }
    Ok(programs)
}

/// Every program of every embedded file; the first error, if any file is malformed.
pub fn all() -> Result<&'static [Program], SpecError> {
    static SPECS: std::sync::OnceLock<Result<Vec<Program>, SpecError>> = std::sync::OnceLock::new();
    SPECS
        .get_or_init(|| {
            let mut out = Vec::new();
            for (file, text) in FILES {
                out.extend(parse(file, text)?);
            }
            Ok(out)
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// The specification of the program called `name` (by any of its names).
pub fn program(name: &str) -> Option<&'static Program> {
    all().ok()?.iter().find(|p| p.names.iter().any(|n| n == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_specification_parses() {
        for (file, text) in FILES {
            parse(file, text).unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(all().unwrap().len() > 30);
    }

    #[test]
    fn the_language_reads_options_subcommands_operands_and_examples() {
        let text = r#"
program git
option -C <dir>
option -c <text> : deny "runs programs"
common
option -q | --quiet
sub status : read
option --porcelain[=<text>]
operands path...
sub stash : mutating
sub stash list : read
sub branch
operands text... : mutating
sub install alias i add : critical
example deny query git -c x=y log   # a comment
"#;
        let p = &parse("t.spec", text).unwrap()[0];
        assert_eq!(p.root.options[1].effect, Cost::Deny("runs programs".into()));
        assert_eq!(p.common[0].names, vec!["-q", "--quiet"]);
        let status = p.sub(&["status".to_string()]).unwrap();
        assert_eq!(status.options[0].value, Some(Value { kinds: vec![Kind::Text], optional: true }));
        assert_eq!(status.operands, Some(vec![Role { kind: Kind::Path, repeat: Repeat::Many }]));
        assert_eq!(p.sub(&["stash".into(), "list".into()]).unwrap().effect, Cost::Read);
        assert_eq!(p.child(&[], "i"), Some("install"));
        assert_eq!(p.child(&["stash".into()], "list"), Some("list"));
        assert_eq!(p.child(&[], "frob"), None);
        assert_eq!(p.sub(&["branch".into()]).unwrap().operand_effect, Cost::Mutating);
        assert!(p.has_children(&["stash".into()]));
        assert_eq!(p.examples[0].argv, vec!["git", "-c", "x=y", "log"]);
        assert!(p.examples[0].query);
        let text = "program jq\noption --arg <text> <text>\noption --check readonly fills text\neffect deny \"no\"\nmodules pytest\n";
        let jq = &parse("t.spec", text).unwrap()[0];
        assert_eq!(jq.root.options[0].value, Some(Value { kinds: vec![Kind::Text, Kind::Text], optional: false }));
        assert_eq!(
            (jq.root.options[1].fills, jq.root.options[1].markers.clone()),
            (Some(Kind::Text), vec![Marker::Readonly])
        );
        assert_eq!((jq.root.effect.clone(), jq.modules.clone()), (Cost::Deny("no".into()), vec!["pytest".to_string()]));
        for bad in [
            "option",
            "program",
            "sub",
            "option -x <nope>",
            "operands path... text...",
            "frob",
            "option -x : deny",
            "option -x bogus",
        ] {
            let text = format!("program x\n{bad}\n");
            assert!(parse("t.spec", &text).is_err(), "{bad}");
        }
    }
}
