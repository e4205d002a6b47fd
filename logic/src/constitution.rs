//! The constitution: whether an action is `permitted`, why it is `denied`,
//! its `risk`, and its `route` (auto, sandbox, ask) from risk × autonomy.
//! Default deny: `permitted` holds only for an action with no `denied` reason
//! whose route needs no human, or that a recorded approval covers. Rules read
//! facts the runtime extracts from each action (the program after unwrapping
//! wrappers, flags, subcommand, classified paths and network targets) and
//! policy facts: the compiled-in tables below, seeded by
//! `defaults::policy`, to which project policy can only add restrictions. Knows nothing about how actions are parsed or carried out.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::max;
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::reasons::Why;
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{PathId, Sym, Symbols};
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

/// The constitution's verdict on one action, as the runtime reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Every rule that refuses the action (empty: none does).
    pub denied: Vec<Why>,
    /// The highest risk any rule gives (`None` for an unknown action).
    pub risk: Option<Risk>,
    /// The most cautious route any rule gives.
    pub route: Option<Route>,
    /// Whether the router may run it now.
    pub permitted: bool,
}

/// Which rule made an action `mutating`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum MutatingRule {
    /// Writing, deleting or spawning changes the world by kind.
    Kind,
    /// The program changes files whatever its arguments.
    Program,
    Subcommand,
    Flag,
    Module,
    /// An interpreter running a script file.
    Script,
}

/// Which rule gave an action a risk level.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum RiskRule {
    /// Every action is at least low risk.
    Any,
    Mutating,
    CodeRunner,
    /// Deleting, network, browsing and spawning are high by kind.
    Kind,
    HighRiskProgram,
    CriticalSubcommand,
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
    relation touches(Sym, PathId, Access);
    relation path_class(PathId, PathClass);
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

    relation w_net_allowed(Sym, Sym);
    relation w_mutating(Sym, MutatingRule, Sym);
    relation w_risk(Sym, Risk, RiskRule);
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
    net_allowed(a), w_net_allowed(a, d) <-- net_domain(a, d), network_allow(d);
    denied(a, Why::Metadata) <-- net_class(a, NetClass::Metadata);
    denied(a, Why::Domain(*h)) <-- net_host(a, h), !net_allowed(a);
    denied(a, Why::Exfiltration(*why)) <-- exfiltration(a, why);

    // Intent: without a mutation intent, nothing that changes the world.
    mutation_intent() <-- user_intent_category(Category::Mutation);
    mutating(a), w_mutating(a, MutatingRule::Kind, a) <--
        action(a, k), if matches!(k, ActionKind::WriteFile | ActionKind::DeleteFile | ActionKind::Spawn);
    mutating(a), w_mutating(a, MutatingRule::Program, p) <-- exec_program(a, p), mutating_program(p);
    mutating(a), w_mutating(a, MutatingRule::Subcommand, s) <--
        exec_program(a, p), exec_subcommand(a, s), mutating_subcommand(p, s);
    mutating(a), w_mutating(a, MutatingRule::Flag, f) <-- exec_program(a, p), exec_flag(a, f), mutating_flag(p, f);
    mutating(a), w_mutating(a, MutatingRule::Module, m) <--
        exec_program(a, p), exec_module(a, m), mutating_module(p, m);
    mutating(a), w_mutating(a, MutatingRule::Script, p) <-- exec_program(a, p), exec_script(a), script_runner(p);
    denied(a, Why::NoMutationIntent) <-- mutating(a), !mutation_intent();
    denied(a, Why::Stopped) <-- action(a, _), session_stopped();
    any_denied(a) <-- denied(a, _);

    // Risk: the highest level any rule gives.
    risk_at_least(a, Risk::Low), w_risk(a, Risk::Low, RiskRule::Any) <-- action(a, _);
    risk_at_least(a, Risk::Medium), w_risk(a, Risk::Medium, RiskRule::Mutating) <-- mutating(a);
    risk_at_least(a, Risk::Medium), w_risk(a, Risk::Medium, RiskRule::CodeRunner) <-- exec_program(a, p), code_runner(p);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, RiskRule::Kind) <--
        action(a, k), if matches!(k, ActionKind::DeleteFile | ActionKind::NetRequest | ActionKind::Browse | ActionKind::Spawn);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, RiskRule::HighRiskProgram) <--
        exec_program(a, p), high_risk_program(p);
    risk_at_least(a, Risk::Critical), w_risk(a, Risk::Critical, RiskRule::CriticalSubcommand) <--
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
        allowed_binary: relation::allowed_binary(f),
        code_runner: relation::code_runner(f),
        mutating_program: relation::mutating_program(f),
        high_risk_program: relation::high_risk_program(f),
        script_runner: relation::script_runner(f),
        shell: relation::shell(f),
        mutating_subcommand: relation::mutating_subcommand(f),
        mutating_flag: relation::mutating_flag(f),
        allowed_module: relation::allowed_module(f),
        mutating_module: relation::mutating_module(f),
        critical_subcommand: relation::critical_subcommand(f),
        denied_flag: relation::denied_flag(f),
        denied_subcommand: relation::denied_subcommand(f),
        denied_subcommand_flag: relation::denied_subcommand_flag(f),
        network_allow: relation::network_allow(f),
        project_denied_program: relation::project_denied_program(f),
        policy_ask: relation::policy_ask(f),
        action: relation::action(f),
        exec_program: relation::exec_program(f),
        exec_unresolved: relation::exec_unresolved(f),
        exec_flag: relation::exec_flag(f),
        exec_subcommand: relation::exec_subcommand(f),
        exec_module: relation::exec_module(f),
        exec_script: relation::exec_script(f),
        exec_suspicious: relation::exec_suspicious(f),
        touches: relation::touches(f),
        path_class: relation::path_class(f),
        net_host: relation::net_host(f),
        net_domain: relation::net_domain(f),
        net_class: relation::net_class(f),
        exfiltration: relation::exfiltration(f),
        autonomy: relation::autonomy(f),
        session_stopped: if session_stopped { vec![()] } else { vec![] },
        approval: relation::approval(f),
        user_intent_category: f.user_intent.iter().map(|t| (t.1,)).collect(),
        ..Default::default()
    };
    p.run();
    p
}

impl ConstitutionProgram {
    /// The premises of a denial, read off its reason.
    fn denial_premises(&self, s: &Symbols, a: Sym, why: Why) -> Vec<Premise> {
        let h = Premise::Holds;
        let program = |p: Sym| h(atoms::exec_program(s, (a, p)));
        match why {
            Why::NotAllowlisted(p) => vec![program(p), Premise::Absent(atoms::allowed_binary(s, p))],
            Why::ProjectDenied(p) => vec![program(p), h(atoms::project_denied_program(s, p))],
            Why::NotOnPath => vec![h(atoms::exec_unresolved(s, a))],
            Why::Suspicious(r) => vec![h(atoms::exec_suspicious(s, (a, r)))],
            Why::Flag(p, f, r) => {
                vec![program(p), h(atoms::exec_flag(s, (a, f))), h(atoms::denied_flag(s, (p, f, r)))]
            }
            Why::Subcommand(p, x, r) => {
                vec![program(p), h(atoms::exec_subcommand(s, (a, x))), h(atoms::denied_subcommand(s, (p, x, r)))]
            }
            Why::SubcommandFlag(p, x, f, r) => vec![
                program(p),
                h(atoms::exec_subcommand(s, (a, x))),
                h(atoms::exec_flag(s, (a, f))),
                h(atoms::denied_subcommand_flag(s, (p, x, f, r))),
            ],
            Why::Shell(p) => vec![program(p), h(atoms::shell(s, p))],
            Why::Module(p, m) => {
                vec![program(p), h(atoms::exec_module(s, (a, m))), Premise::Absent(atoms::allowed_module(s, (p, m)))]
            }
            Why::Path(path, class, how) => {
                vec![h(atoms::touches(s, (a, path, how))), h(atoms::path_class(s, (path, class)))]
            }
            Why::Metadata => vec![h(atoms::net_class(s, (a, NetClass::Metadata)))],
            Why::Domain(host) => vec![h(atoms::net_host(s, (a, host))), Premise::Absent(atoms::net_allowed(s, a))],
            Why::Exfiltration(r) => vec![h(atoms::exfiltration(s, (a, r)))],
            Why::NoMutationIntent => {
                vec![h(atoms::mutating(s, a)), Premise::Check("no user_intent of category mutation".to_string())]
            }
            Why::Stopped => vec![
                h(atoms::action(s, (a, self.kind(a)))),
                Premise::Check("watchdog_stop holds for this session".to_string()),
            ],
        }
    }

    /// The premises of one `mutating` witness, read off the rule that fired.
    fn mutating_premises(&self, s: &Symbols, a: Sym, rule: MutatingRule, x: Sym) -> Vec<Premise> {
        let h = Premise::Holds;
        let program = self.exec_program.iter().find(|(b, _)| *b == a).map(|&(_, p)| p);
        let with_program = |p: Sym, premises: Vec<Premise>| {
            let mut v = vec![h(atoms::exec_program(s, (a, p)))];
            v.extend(premises);
            v
        };
        match (rule, program) {
            (MutatingRule::Kind, _) => vec![h(atoms::action(s, (a, self.kind(a))))],
            (MutatingRule::Program, _) => with_program(x, vec![h(atoms::mutating_program(s, x))]),
            (MutatingRule::Script, _) => {
                with_program(x, vec![h(atoms::exec_script(s, a)), h(atoms::script_runner(s, x))])
            }
            (MutatingRule::Subcommand, Some(p)) => {
                with_program(p, vec![h(atoms::exec_subcommand(s, (a, x))), h(atoms::mutating_subcommand(s, (p, x)))])
            }
            (MutatingRule::Flag, Some(p)) => {
                with_program(p, vec![h(atoms::exec_flag(s, (a, x))), h(atoms::mutating_flag(s, (p, x)))])
            }
            (MutatingRule::Module, Some(p)) => {
                with_program(p, vec![h(atoms::exec_module(s, (a, x))), h(atoms::mutating_module(s, (p, x)))])
            }
            (_, None) => vec![Premise::Check(format!("{} runs no program", s.resolve(a)))],
        }
    }

    /// The premises of one `risk_at_least` witness, read off the rule that fired.
    fn risk_premises(&self, s: &Symbols, a: Sym, rule: RiskRule) -> Vec<Premise> {
        let h = Premise::Holds;
        let Some(p) = self.exec_program.iter().find(|(b, _)| *b == a).map(|&(_, p)| p) else {
            return match rule {
                RiskRule::Mutating => vec![h(atoms::mutating(s, a))],
                _ => vec![h(atoms::action(s, (a, self.kind(a))))],
            };
        };
        let program = h(atoms::exec_program(s, (a, p)));
        match rule {
            RiskRule::Any | RiskRule::Kind => vec![h(atoms::action(s, (a, self.kind(a))))],
            RiskRule::Mutating => vec![h(atoms::mutating(s, a))],
            RiskRule::CodeRunner => vec![program, h(atoms::code_runner(s, p))],
            RiskRule::HighRiskProgram => vec![program, h(atoms::high_risk_program(s, p))],
            RiskRule::CriticalSubcommand => {
                let sub = self
                    .exec_subcommand
                    .iter()
                    .find(|&&(b, x)| b == a && self.critical_subcommand.contains(&(p, x)))
                    .map(|&(_, x)| x);
                match sub {
                    Some(x) => {
                        vec![program, h(atoms::exec_subcommand(s, (a, x))), h(atoms::critical_subcommand(s, (p, x)))]
                    }
                    None => vec![program],
                }
            }
        }
    }

    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        let mut push =
            |head: Atom, rule: &'static str, premises: Vec<Premise>| out.push((head, Proof { rule, premises }));
        for &(a, why) in &self.denied {
            push(atoms::denied(s, (a, why)), "constitution/deny", self.denial_premises(s, a, why));
            push(atoms::any_denied(s, a), "constitution/any-denial", vec![Premise::Holds(atoms::denied(s, (a, why)))]);
        }
        for &(a, d) in &self.w_net_allowed {
            let premises =
                vec![Premise::Holds(atoms::net_domain(s, (a, d))), Premise::Holds(atoms::network_allow(s, d))];
            push(atoms::net_allowed(s, a), "constitution/allowed-domain", premises);
        }
        for &(a, rule, x) in &self.w_mutating {
            push(atoms::mutating(s, a), "constitution/mutating", self.mutating_premises(s, a, rule, x));
        }
        for &(a, r) in &self.risk {
            let Some(&(_, _, rule)) = self.w_risk.iter().find(|(b, l, _)| *b == a && *l == r) else {
                continue;
            };
            let mut premises = self.risk_premises(s, a, rule);
            premises.push(Premise::Check(format!("{r} is the highest risk any rule gives")));
            push(atoms::risk(s, (a, r)), "constitution/risk", premises);
        }
        for &(a, r) in &self.route {
            let mut premises = Vec::new();
            if let Some(&(_, risk, profile)) = self.w_route_matrix.iter().find(|(b, _, _)| *b == a) {
                premises.push(Premise::Holds(atoms::risk(s, (a, risk))));
                premises.push(Premise::Holds(atoms::autonomy(s, profile)));
            }
            if let Some(&(_, k)) = self.w_route_policy.iter().find(|(b, _)| *b == a) {
                premises.push(Premise::Holds(atoms::policy_ask(s, k)));
            }
            premises.push(Premise::Check(format!("{r} is the most cautious route any rule gives")));
            push(atoms::route(s, (a, r)), "constitution/route", premises);
        }
        // An undenied action is permitted by its route or by a recorded approval.
        let by_route =
            self.w_permitted_route.iter().map(|&(a, r)| (a, atoms::route(s, (a, r)), "constitution/permitted"));
        let by_approval = self
            .w_permitted_approval
            .iter()
            .map(|&(a, src)| (a, atoms::approval(s, (a, src)), "constitution/approved"));
        for (a, grant, rule) in by_route.chain(by_approval) {
            let premises = vec![
                Premise::Holds(atoms::action(s, (a, self.kind(a)))),
                Premise::Absent(atoms::any_denied(s, a)),
                Premise::Holds(grant),
            ];
            push(atoms::permitted(s, a), rule, premises);
        }
    }

    fn kind(&self, a: Sym) -> ActionKind {
        self.action.iter().find(|(b, _)| *b == a).map_or(ActionKind::Exec, |(_, k)| *k)
    }
}
