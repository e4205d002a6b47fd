//! The constitution: whether an action is `permitted`, why it is `denied`,
//! its `risk`, and its `route` (auto, sandbox, ask) from risk × autonomy.
//! Default deny: `permitted` holds only for an action with no `denied` reason
//! whose route needs no human, or that a recorded approval covers. Rules read
//! facts the runtime extracts from each action (the program after unwrapping
//! wrappers, flags, subcommand, classified paths and network targets) and
//! policy facts: the compiled-in tables below, seeded by
//! `Facts::with_default_policy`, to which project policy can only add
//! restrictions. Knows nothing about how actions are parsed or carried out.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::max;
use ascent::ascent;

use crate::atom;
use crate::atom::{Atom, Term};
use crate::facts::Facts;
use crate::proof::{Premise, Proof};
use crate::render::Render;
use crate::symbols::{Sym, Symbols};
use crate::vocab::{Access, ActionKind, Autonomy, Category, NetClass, PathClass, Risk, Route};

/// The risk × autonomy matrix. Critical is always `ask`.
pub fn matrix(profile: Autonomy, risk: Risk) -> Route {
    use Risk::*;
    use Route::*;
    match (profile, risk) {
        (_, Critical) => Ask,
        (Autonomy::Cautious, Low) => Sandbox,
        (Autonomy::Cautious, _) => Ask,
        (Autonomy::Balanced, Low) => Auto,
        (Autonomy::Balanced, Medium) => Sandbox,
        (Autonomy::Balanced, High) => Ask,
        (Autonomy::Autonomous, Low) => Auto,
        (Autonomy::Autonomous, _) => Sandbox,
    }
}

/// Programs the agent may run at all (after unwrapping wrappers).
pub const ALLOWED_PROGRAMS: &[&str] = &[
    "cargo", "rustc", "rustfmt", "go", "gofmt", "python3", "python", "pytest", "ruff", "mypy", "pyright", "node",
    "npm", "npx", "tsc", "git", "rg", "grep", "ls", "cat", "head", "tail", "wc", "find", "sed", "sort", "uniq", "diff",
    "echo", "true", "false", "pwd", "mkdir", "touch", "cp", "mv", "rm", "make",
];

/// Programs that run code from the workspace (risk at least medium).
pub const CODE_RUNNERS: &[&str] = &["cargo", "go", "python3", "python", "pytest", "node", "npm", "npx", "make"];

/// Programs that change files whatever their arguments.
pub const MUTATING_PROGRAMS: &[&str] = &["mkdir", "touch", "cp", "mv", "rm", "rustfmt", "gofmt", "node", "npx"];

/// Programs whose effects are hard to undo (risk at least high).
pub const HIGH_RISK_PROGRAMS: &[&str] = &["rm", "mv"];

/// Subcommands that change tracked content or repository state.
pub const MUTATING_SUBCOMMANDS: &[(&str, &str)] = &[
    ("git", "add"),
    ("git", "commit"),
    ("git", "checkout"),
    ("git", "switch"),
    ("git", "restore"),
    ("git", "reset"),
    ("git", "stash"),
    ("git", "merge"),
    ("git", "rebase"),
    ("git", "cherry-pick"),
    ("git", "revert"),
    ("git", "rm"),
    ("git", "mv"),
    ("git", "apply"),
    ("git", "am"),
    ("git", "tag"),
    ("git", "branch"),
    ("git", "init"),
    ("git", "push"),
    ("git", "pull"),
    ("git", "fetch"),
    ("git", "worktree"),
    ("git", "clean"),
    ("git", "gc"),
    ("cargo", "fix"),
    ("cargo", "fmt"),
    ("cargo", "add"),
    ("cargo", "remove"),
    ("cargo", "update"),
    ("cargo", "new"),
    ("cargo", "init"),
    ("go", "mod"),
    ("go", "get"),
    ("go", "generate"),
    ("go", "fmt"),
    ("npm", "install"),
    ("npm", "ci"),
    ("npm", "uninstall"),
    ("npm", "update"),
    ("npm", "run"),
    ("npm", "exec"),
];

/// Flags that make a program write (program, flag).
pub const MUTATING_FLAGS: &[(&str, &str)] =
    &[("sed", "-i"), ("sed", "--in-place"), ("ruff", "--fix"), ("gofmt", "-w"), ("cargo", "--fix")];

/// Interpreters that only run a script file: running one changes what it likes.
pub const SCRIPT_RUNNERS: &[&str] = &["python3", "python"];

/// Arguments that are never allowed (program, flag, reason).
pub const DENIED_FLAGS: &[(&str, &str, &str)] = &[
    ("git", "-c", "git -c can set configuration that runs programs"),
    ("git", "--config-env", "git --config-env can set configuration that runs programs"),
    ("git", "--exec-path", "git --exec-path replaces git's own programs"),
    ("git", "--ext-diff", "external diff programs run arbitrary code"),
    ("git", "--textconv", "textconv filters run arbitrary code"),
    ("git", "--upload-pack", "--upload-pack runs an arbitrary program"),
    ("git", "--receive-pack", "--receive-pack runs an arbitrary program"),
    ("git", "--no-verify", "--no-verify skips the hooks and nerd's commit gate"),
    ("git", "--force", "force can destroy history or uncommitted work"),
    ("git", "--force-with-lease", "force-push rewrites shared history"),
    ("git", "-f", "force can destroy history or uncommitted work"),
    ("git", "--hard", "reset --hard destroys uncommitted work"),
    ("git", "--mirror", "--mirror overwrites every remote ref"),
    ("find", "-exec", "find -exec runs arbitrary commands"),
    ("find", "-execdir", "find -execdir runs arbitrary commands"),
    ("find", "-ok", "find -ok runs arbitrary commands"),
    ("find", "-okdir", "find -okdir runs arbitrary commands"),
    ("find", "-delete", "find -delete removes files in bulk"),
    ("find", "-fprint", "find -fprint writes files"),
    ("rg", "--pre", "rg --pre runs an arbitrary preprocessor"),
    ("rg", "--pre-glob", "rg --pre-glob selects files for a preprocessor"),
    ("python3", "-c", "inline code bypasses review"),
    ("python", "-c", "inline code bypasses review"),
    ("node", "-e", "inline code bypasses review"),
    ("node", "--eval", "inline code bypasses review"),
    ("node", "-p", "inline code bypasses review"),
    ("node", "--print", "inline code bypasses review"),
    ("node", "-r", "--require preloads arbitrary code"),
    ("node", "--require", "--require preloads arbitrary code"),
    ("rm", "--no-preserve-root", "removing / is never intended"),
    ("sed", "-e", "sed scripts can write and run files (w, e commands)"),
    ("sed", "-f", "sed scripts can write and run files (w, e commands)"),
    ("cargo", "--config", "cargo --config can set runners and linkers"),
    ("cargo", "-Z", "unstable cargo flags can run arbitrary code"),
    ("npm", "--unsafe-perm", "runs install scripts with elevated permissions"),
    ("make", "-f", "an alternative makefile runs arbitrary recipes"),
    ("make", "--eval", "make --eval runs arbitrary recipes"),
];

/// Flags never allowed with one subcommand (program, subcommand, flag, reason).
pub const DENIED_SUBCOMMAND_FLAGS: &[(&str, &str, &str, &str)] = &[
    ("git", "commit", "-n", "-n skips the hooks and nerd's commit gate"),
    ("git", "branch", "-D", "-D deletes a branch whatever its state"),
    ("git", "checkout", "-B", "-B resets a branch whatever its state"),
    ("git", "stash", "clear", "drops every stash for good"),
    ("git", "stash", "drop", "drops a stash for good"),
];

/// Subcommands that are never allowed (program, subcommand, reason).
pub const DENIED_SUBCOMMANDS: &[(&str, &str, &str)] = &[
    ("git", "clean", "git clean deletes untracked work"),
    ("git", "filter-branch", "rewrites all history"),
    ("git", "filter-repo", "rewrites all history"),
    ("git", "update-ref", "moves refs behind git's back"),
    ("git", "config", "repository configuration is read-only to the agent"),
    ("git", "gc", "garbage collection can drop unreachable work for good"),
    ("git", "reflog", "the reflog is the last way back; leave it alone"),
    ("cargo", "publish", "publishing is a human decision"),
    ("cargo", "install", "installs programs outside the workspace"),
    ("cargo", "login", "credentials are not the agent's"),
    ("npm", "publish", "publishing is a human decision"),
    ("npm", "login", "credentials are not the agent's"),
    ("npm", "adduser", "credentials are not the agent's"),
    ("go", "install", "installs programs outside the workspace"),
];

/// Modules an interpreter may run with `-m`.
pub const ALLOWED_MODULES: &[(&str, &str)] = &[
    ("python3", "pytest"),
    ("python", "pytest"),
    ("python3", "unittest"),
    ("python", "unittest"),
    ("python3", "ruff"),
    ("python", "ruff"),
    ("python3", "mypy"),
    ("python", "mypy"),
    ("python3", "pip"),
    ("python", "pip"),
];

/// Modules that change the environment.
pub const MUTATING_MODULES: &[(&str, &str)] = &[("python3", "pip"), ("python", "pip")];

/// Shells: never run, whatever the arguments (a script is judged as the script's commands, by the caller).
pub const SHELLS: &[&str] =
    &["sh", "bash", "zsh", "dash", "ksh", "csh", "tcsh", "fish", "busybox", "toybox", "pwsh", "powershell"];

/// Subcommands that are critical: a human is always asked.
pub const CRITICAL_SUBCOMMANDS: &[(&str, &str)] =
    &[("git", "push"), ("git", "rebase"), ("git", "reset"), ("git", "merge"), ("npm", "install")];

/// Domains the network allowlist holds by default: package registries.
pub const NETWORK_ALLOW: &[&str] = &[
    "crates.io",
    "static.crates.io",
    "index.crates.io",
    "pypi.org",
    "files.pythonhosted.org",
    "registry.npmjs.org",
    "proxy.golang.org",
    "sum.golang.org",
];

/// Why an action is denied, holding what its rule matched.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Why {
    NotAllowlisted(Sym),
    ProjectDenied(Sym),
    NotOnPath,
    Suspicious(Sym),
    Flag(Sym, Sym, Sym),
    Subcommand(Sym, Sym, Sym),
    SubcommandFlag(Sym, Sym, Sym, Sym),
    Shell(Sym),
    Module(Sym, Sym),
    Path(Sym, PathClass, Access),
    Metadata,
    Domain(Sym),
    Exfiltration(Sym),
    NoMutationIntent,
    Stopped,
}

impl Render for Why {
    fn term(&self, s: &Symbols) -> Term {
        let r = |x: Sym| s.resolve(x).to_string();
        Term::Str(match *self {
            Why::NotAllowlisted(p) => format!("`{}` is not on the program allowlist", r(p)),
            Why::ProjectDenied(p) => format!("the project's policy denies `{}`", r(p)),
            Why::NotOnPath => "the program is not installed".to_string(),
            Why::Suspicious(why) => r(why),
            Why::Flag(p, f, why) => format!("{} {}: {}", r(p), r(f), r(why)),
            Why::Subcommand(p, sub, why) => format!("{} {}: {}", r(p), r(sub), r(why)),
            Why::SubcommandFlag(p, sub, f, why) => format!("{} {} {}: {}", r(p), r(sub), r(f), r(why)),
            Why::Shell(p) => format!("`{}` is a shell; commands are judged one argv at a time", r(p)),
            Why::Module(p, m) => format!("`{} -m {}` is not an allowed module", r(p), r(m)),
            Why::Path(path, PathClass::Outside, _) => format!("{} is outside the workspace", r(path)),
            Why::Path(path, PathClass::Secret, _) => format!("{} holds secrets", r(path)),
            Why::Path(path, _, access) => format!("{} is read-only to the agent ({access})", r(path)),
            Why::Metadata => "cloud metadata addresses are never reachable".to_string(),
            Why::Domain(h) => format!("{} is not on the network allowlist", r(h)),
            Why::Exfiltration(why) => format!("looks like exfiltration: {}", r(why)),
            Why::NoMutationIntent => "no mutation was asked for: a query never changes anything".to_string(),
            Why::Stopped => "the watchdog stopped this session".to_string(),
        })
    }
}

ascent! {
    /// The constitution over the actions of one turn.
    pub struct ConstitutionProgram;

    relation allowed_binary(Sym);
    relation code_runner(Sym);
    relation mutating_program(Sym);
    relation high_risk_program(Sym);
    relation mutating_subcommand(Sym, Sym);
    relation mutating_flag(Sym, Sym);
    relation script_runner(Sym);
    relation denied_flag(Sym, Sym, Sym);
    relation denied_subcommand(Sym, Sym, Sym);
    relation denied_subcommand_flag(Sym, Sym, Sym, Sym);
    relation allowed_module(Sym, Sym);
    relation mutating_module(Sym, Sym);
    relation shell(Sym);
    relation critical_subcommand(Sym, Sym);
    relation network_allow(Sym);
    relation project_denied_program(Sym);
    relation autonomy(Autonomy);
    relation policy_ask(ActionKind);
    relation approval(Sym, Sym);
    relation user_intent_category(Category);
    relation session_stopped();

    relation action(Sym, ActionKind);
    relation exec_program(Sym, Sym);
    relation exec_unresolved(Sym);
    relation exec_flag(Sym, Sym);
    relation exec_subcommand(Sym, Sym);
    relation exec_module(Sym, Sym);
    relation exec_script(Sym);
    relation exec_suspicious(Sym, Sym);
    relation touches(Sym, Sym, Access);
    relation path_class(Sym, PathClass);
    relation net_host(Sym, Sym);
    relation net_domain(Sym, Sym);
    relation net_class(Sym, NetClass);
    relation exfiltration(Sym, Sym);

    relation mutation_intent();
    relation denied(Sym, Why);
    relation any_denied(Sym);
    relation net_allowed(Sym);
    relation mutating(Sym);
    relation risk_at_least(Sym, Risk);
    relation risk(Sym, Risk);
    relation route_by(Sym, Route);
    relation route(Sym, Route);
    relation permitted(Sym);

    relation w_mutating(Sym, u8, Sym);
    relation w_risk(Sym, Risk, u8);
    relation w_route_matrix(Sym, Risk, Autonomy);
    relation w_route_policy(Sym, ActionKind);
    relation w_permitted_route(Sym, Route);
    relation w_permitted_approval(Sym, Sym);

    // Programs and their arguments.
    denied(a, Why::NotAllowlisted(*p)) <-- exec_program(a, p), !allowed_binary(p);
    denied(a, Why::ProjectDenied(*p)) <-- exec_program(a, p), project_denied_program(p);
    denied(a, Why::NotOnPath) <-- exec_unresolved(a);
    denied(a, Why::Suspicious(*why)) <-- exec_suspicious(a, why);
    denied(a, Why::Flag(*p, *f, *why)) <-- exec_program(a, p), exec_flag(a, f), denied_flag(p, f, why);
    denied(a, Why::Subcommand(*p, *s, *why)) <-- exec_program(a, p), exec_subcommand(a, s), denied_subcommand(p, s, why);
    denied(a, Why::SubcommandFlag(*p, *s, *f, *why)) <--
        exec_program(a, p), exec_subcommand(a, s), exec_flag(a, f), denied_subcommand_flag(p, s, f, why);
    denied(a, Why::Shell(*p)) <-- exec_program(a, p), shell(p);
    denied(a, Why::Module(*p, *m)) <-- exec_program(a, p), exec_module(a, m), !allowed_module(p, m);

    // Paths: confinement, secrets, and files that are read-only to the agent.
    denied(a, Why::Path(*path, *c, *how)) <--
        touches(a, path, how), path_class(path, c), if *c == PathClass::Outside || *c == PathClass::Secret;
    denied(a, Why::Path(*path, PathClass::Protected, *how)) <--
        touches(a, path, how), path_class(path, PathClass::Protected), if *how != Access::Read;

    // Network: default deny, metadata addresses always, exfiltration heuristics.
    net_allowed(a) <-- net_domain(a, d), network_allow(d);
    denied(a, Why::Metadata) <-- net_class(a, NetClass::Metadata);
    denied(a, Why::Domain(*h)) <-- net_host(a, h), !net_allowed(a);
    denied(a, Why::Exfiltration(*why)) <-- exfiltration(a, why);

    // Intent: without a mutation intent, nothing that changes the world.
    mutation_intent() <-- user_intent_category(Category::Mutation);
    mutating(a), w_mutating(a, 0, x) <-- action(a, k), if matches!(k, ActionKind::WriteFile | ActionKind::DeleteFile | ActionKind::Spawn), let x = *a;
    mutating(a), w_mutating(a, 1, p) <-- exec_program(a, p), mutating_program(p);
    mutating(a), w_mutating(a, 2, s) <-- exec_program(a, p), exec_subcommand(a, s), mutating_subcommand(p, s);
    mutating(a), w_mutating(a, 3, f) <-- exec_program(a, p), exec_flag(a, f), mutating_flag(p, f);
    mutating(a), w_mutating(a, 4, m) <-- exec_program(a, p), exec_module(a, m), mutating_module(p, m);
    mutating(a), w_mutating(a, 5, p) <-- exec_program(a, p), exec_script(a), script_runner(p);
    denied(a, Why::NoMutationIntent) <-- mutating(a), !mutation_intent();
    denied(a, Why::Stopped) <-- action(a, _), session_stopped();
    any_denied(a) <-- denied(a, _);

    // Risk: the highest level any rule gives.
    risk_at_least(a, Risk::Low), w_risk(a, Risk::Low, 0) <-- action(a, _);
    risk_at_least(a, Risk::Medium), w_risk(a, Risk::Medium, 1) <-- mutating(a);
    risk_at_least(a, Risk::Medium), w_risk(a, Risk::Medium, 2) <-- exec_program(a, p), code_runner(p);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, 3) <--
        action(a, k), if matches!(k, ActionKind::DeleteFile | ActionKind::NetRequest | ActionKind::Browse | ActionKind::Spawn);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, 4) <-- exec_program(a, p), high_risk_program(p);
    risk_at_least(a, Risk::Critical), w_risk(a, Risk::Critical, 5) <--
        exec_program(a, p), exec_subcommand(a, s), critical_subcommand(p, s);
    risk(a, r) <-- action(a, _), agg r = max(l) in risk_at_least(a, l);

    // Route: the matrix, moved towards ask by project policy, never away from it.
    route_by(a, matrix(*p, *r)), w_route_matrix(a, r, p) <-- risk(a, r), autonomy(p);
    route_by(a, Route::Ask), w_route_policy(a, k) <-- action(a, k), policy_ask(k);
    route(a, r) <-- action(a, _), agg r = max(x) in route_by(a, x);

    // Default deny: only what no rule denies and no human must approve, or what a human approved.
    permitted(a), w_permitted_route(a, r) <-- action(a, _), !any_denied(a), route(a, r), if *r != Route::Ask;
    permitted(a), w_permitted_approval(a, src) <-- action(a, _), !any_denied(a), approval(a, src);
}

/// Adds the compiled-in tables to a fact base as policy facts.
pub fn seed(f: &mut Facts) {
    fn one(f: &mut Facts, list: &[&str]) -> Vec<Sym> {
        list.iter().map(|x| f.sym(x)).collect()
    }
    fn two(f: &mut Facts, list: &[(&str, &str)]) -> Vec<(Sym, Sym)> {
        list.iter().map(|(x, y)| (f.sym(x), f.sym(y))).collect()
    }
    fn three(f: &mut Facts, list: &[(&str, &str, &str)]) -> Vec<(Sym, Sym, Sym)> {
        list.iter().map(|(x, y, z)| (f.sym(x), f.sym(y), f.sym(z))).collect()
    }
    f.allowed_binary = one(f, ALLOWED_PROGRAMS);
    f.code_runner = one(f, CODE_RUNNERS);
    f.mutating_program = one(f, MUTATING_PROGRAMS);
    f.high_risk_program = one(f, HIGH_RISK_PROGRAMS);
    f.script_runner = one(f, SCRIPT_RUNNERS);
    f.shell = one(f, SHELLS);
    f.network_allow = one(f, NETWORK_ALLOW);
    f.mutating_subcommand = two(f, MUTATING_SUBCOMMANDS);
    f.mutating_flag = two(f, MUTATING_FLAGS);
    f.allowed_module = two(f, ALLOWED_MODULES);
    f.mutating_module = two(f, MUTATING_MODULES);
    f.critical_subcommand = two(f, CRITICAL_SUBCOMMANDS);
    f.denied_flag = three(f, DENIED_FLAGS);
    f.denied_subcommand = three(f, DENIED_SUBCOMMANDS);
    f.denied_subcommand_flag =
        DENIED_SUBCOMMAND_FLAGS.iter().map(|(p, s, x, r)| (f.sym(p), f.sym(s), f.sym(x), f.sym(r))).collect();
}

/// The source of the constitution (rules and tables), for its integrity hash.
pub const SOURCE: &str = include_str!("constitution.rs");

/// Runs the constitution on a fresh instance.
pub fn run(f: &Facts, session_stopped: bool) -> ConstitutionProgram {
    let mut p = ConstitutionProgram {
        allowed_binary: f.allowed_binary.iter().map(|&x| (x,)).collect(),
        code_runner: f.code_runner.iter().map(|&x| (x,)).collect(),
        mutating_program: f.mutating_program.iter().map(|&x| (x,)).collect(),
        high_risk_program: f.high_risk_program.iter().map(|&x| (x,)).collect(),
        script_runner: f.script_runner.iter().map(|&x| (x,)).collect(),
        shell: f.shell.iter().map(|&x| (x,)).collect(),
        mutating_subcommand: f.mutating_subcommand.clone(),
        mutating_flag: f.mutating_flag.clone(),
        allowed_module: f.allowed_module.clone(),
        mutating_module: f.mutating_module.clone(),
        critical_subcommand: f.critical_subcommand.clone(),
        denied_flag: f.denied_flag.clone(),
        denied_subcommand: f.denied_subcommand.clone(),
        denied_subcommand_flag: f.denied_subcommand_flag.clone(),
        network_allow: f.network_allow.iter().map(|&x| (x,)).collect(),
        project_denied_program: f.project_denied_program.iter().map(|&x| (x,)).collect(),
        policy_ask: f.policy_ask.iter().map(|&x| (x,)).collect(),
        action: f.action.clone(),
        exec_program: f.exec_program.clone(),
        exec_unresolved: f.exec_unresolved.iter().map(|&x| (x,)).collect(),
        exec_flag: f.exec_flag.clone(),
        exec_subcommand: f.exec_subcommand.clone(),
        exec_module: f.exec_module.clone(),
        exec_script: f.exec_script.iter().map(|&x| (x,)).collect(),
        exec_suspicious: f.exec_suspicious.clone(),
        touches: f.touches.clone(),
        path_class: f.path_class.clone(),
        net_host: f.net_host.clone(),
        net_domain: f.net_domain.clone(),
        net_class: f.net_class.clone(),
        exfiltration: f.exfiltration.clone(),
        autonomy: vec![(f.autonomy,)],
        session_stopped: if session_stopped { vec![()] } else { vec![] },
        approval: f.approval.clone(),
        user_intent_category: f.user_intent.iter().map(|t| (t.1,)).collect(),
        ..Default::default()
    };
    p.run();
    p
}

impl ConstitutionProgram {
    pub fn atoms(&self, predicate: &str, s: &Symbols) -> Option<Vec<Atom>> {
        Some(match predicate {
            "denied" => self.denied.iter().map(|(a, w)| atom!(s, predicate, *a, *w)).collect(),
            "mutating" => self.mutating.iter().map(|(a,)| atom!(s, predicate, *a)).collect(),
            "risk" => self.risk.iter().map(|(a, r)| atom!(s, predicate, *a, *r)).collect(),
            "route" => self.route.iter().map(|(a, r)| atom!(s, predicate, *a, *r)).collect(),
            "permitted" => self.permitted.iter().map(|(a,)| atom!(s, predicate, *a)).collect(),
            _ => return None,
        })
    }

    /// The premises of a denial, read off its reason.
    fn denial_premises(&self, s: &Symbols, a: Sym, why: Why) -> Vec<Premise> {
        let h = |atom: Atom| Premise::Holds(atom);
        match why {
            Why::NotAllowlisted(p) => {
                vec![h(atom!(s, "exec_program", a, p)), Premise::Absent(atom!(s, "allowed_binary", p))]
            }
            Why::ProjectDenied(p) => vec![h(atom!(s, "exec_program", a, p)), h(atom!(s, "project_denied_program", p))],
            Why::NotOnPath => vec![h(atom!(s, "exec_unresolved", a))],
            Why::Suspicious(r) => vec![h(atom!(s, "exec_suspicious", a, r))],
            Why::Flag(p, f, r) => vec![
                h(atom!(s, "exec_program", a, p)),
                h(atom!(s, "exec_flag", a, f)),
                h(atom!(s, "denied_flag", p, f, r)),
            ],
            Why::Subcommand(p, x, r) => vec![
                h(atom!(s, "exec_program", a, p)),
                h(atom!(s, "exec_subcommand", a, x)),
                h(atom!(s, "denied_subcommand", p, x, r)),
            ],
            Why::SubcommandFlag(p, x, f, r) => vec![
                h(atom!(s, "exec_program", a, p)),
                h(atom!(s, "exec_subcommand", a, x)),
                h(atom!(s, "exec_flag", a, f)),
                h(atom!(s, "denied_subcommand_flag", p, x, f, r)),
            ],
            Why::Shell(p) => vec![h(atom!(s, "exec_program", a, p)), h(atom!(s, "shell", p))],
            Why::Module(p, m) => vec![
                h(atom!(s, "exec_program", a, p)),
                h(atom!(s, "exec_module", a, m)),
                Premise::Absent(atom!(s, "allowed_module", p, m)),
            ],
            Why::Path(path, class, how) => {
                vec![h(atom!(s, "touches", a, path, how)), h(atom!(s, "path_class", path, class))]
            }
            Why::Metadata => vec![h(atom!(s, "net_class", a, NetClass::Metadata))],
            Why::Domain(host) => vec![h(atom!(s, "net_host", a, host)), Premise::Absent(atom!(s, "net_allowed", a))],
            Why::Exfiltration(r) => vec![h(atom!(s, "exfiltration", a, r))],
            Why::NoMutationIntent => {
                vec![h(atom!(s, "mutating", a)), Premise::Check("no user_intent of category mutation".to_string())]
            }
            Why::Stopped => vec![Premise::Check("watchdog_stop holds for this session".to_string())],
        }
    }

    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        let mut push =
            |head: Atom, rule: &'static str, premises: Vec<Premise>| out.push((head, Proof { rule, premises }));
        for &(a, why) in &self.denied {
            push(atom!(s, "denied", a, why), "constitution/deny", self.denial_premises(s, a, why));
        }
        for &(a, rule, x) in &self.w_mutating {
            let premises = match rule {
                0 => vec![Premise::Holds(atom!(s, "action", a, self.kind(a)))],
                1 => vec![
                    Premise::Holds(atom!(s, "exec_program", a, x)),
                    Premise::Holds(atom!(s, "mutating_program", x)),
                ],
                5 => vec![
                    Premise::Holds(atom!(s, "exec_program", a, x)),
                    Premise::Holds(atom!(s, "exec_script", a)),
                    Premise::Holds(atom!(s, "script_runner", x)),
                ],
                _ => {
                    let (column, table) = match rule {
                        2 => ("exec_subcommand", "mutating_subcommand"),
                        3 => ("exec_flag", "mutating_flag"),
                        _ => ("exec_module", "mutating_module"),
                    };
                    let p = self.exec_program.iter().find(|(b, _)| *b == a).map(|(_, p)| *p);
                    let mut v = vec![Premise::Holds(atom!(s, column, a, x))];
                    if let Some(p) = p {
                        v.insert(0, Premise::Holds(atom!(s, "exec_program", a, p)));
                        v.push(Premise::Holds(atom!(s, table, p, x)));
                    }
                    v
                }
            };
            push(atom!(s, "mutating", a), "constitution/mutating", premises);
        }
        for &(a, r) in &self.risk {
            let why = self.w_risk.iter().find(|(b, l, _)| *b == a && *l == r).map_or(0, |(_, _, w)| *w);
            let premise = match why {
                0 => Premise::Holds(atom!(s, "action", a, self.kind(a))),
                1 => Premise::Holds(atom!(s, "mutating", a)),
                3 => Premise::Holds(atom!(s, "action", a, self.kind(a))),
                _ => Premise::Check(format!("{} runs a program of {} risk", s.resolve(a), r)),
            };
            let highest = Premise::Check(format!("{r} is the highest risk any rule gives"));
            push(atom!(s, "risk", a, r), "constitution/risk", vec![premise, highest]);
        }
        for &(a, r) in &self.route {
            let mut premises = Vec::new();
            if let Some((_, risk, profile)) = self.w_route_matrix.iter().find(|(b, _, _)| *b == a) {
                premises.push(Premise::Holds(atom!(s, "risk", a, *risk)));
                premises.push(Premise::Holds(atom!(s, "autonomy", *profile)));
            }
            if let Some((_, k)) = self.w_route_policy.iter().find(|(b, _)| *b == a) {
                premises.push(Premise::Holds(atom!(s, "policy_ask", *k)));
            }
            premises.push(Premise::Check(format!("{r} is the most cautious route any rule gives")));
            push(atom!(s, "route", a, r), "constitution/route", premises);
        }
        // An undenied action is permitted by its route or by a recorded approval.
        let by_route =
            self.w_permitted_route.iter().map(|&(a, r)| (a, atom!(s, "route", a, r), "constitution/permitted"));
        let by_approval = self
            .w_permitted_approval
            .iter()
            .map(|&(a, src)| (a, atom!(s, "approval", a, src), "constitution/approved"));
        for (a, grant, rule) in by_route.chain(by_approval) {
            let premises = vec![
                Premise::Holds(atom!(s, "action", a, self.kind(a))),
                Premise::Absent(atom!(s, "denied", a)),
                Premise::Holds(grant),
            ];
            push(atom!(s, "permitted", a), rule, premises);
        }
    }

    fn kind(&self, a: Sym) -> ActionKind {
        self.action.iter().find(|(b, _)| *b == a).map_or(ActionKind::Exec, |(_, k)| *k)
    }
}
