//! The constitution: whether an action is `permitted`, why it is `denied`,
//! its `risk`, and its `route` (auto, sandbox, ask) from risk × autonomy.
//! Default deny, down to each argument: `permitted` holds only for an action
//! with no `denied` reason whose route needs no human, or that a recorded
//! approval covers; a program is denied unless it has a specification, and
//! every option, subcommand or operand its specification does not name is
//! denied by name. Rules read facts the runtime extracts from each action (each
//! program of a wrapped command line, its subcommand, options, operands,
//! refused arguments, environment assignments, classified paths and network
//! targets) and policy facts: the tables seeded from `logic/specs/` and the
//! few below, to which project policy can only add restrictions.
//! Knows nothing about how actions are parsed or carried out.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::max;
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::reasons::Why;
use crate::schema::{atoms, relation, Facts};
use crate::specs::{self, Cost, Opt};

use crate::symbols::{PathId, Sym, Symbols};
use crate::vocab::{Access, ActionKind, Autonomy, Category, Effect, NetClass, PathClass, Risk, Route};

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

/// Shells: never run, whatever the arguments (a script is judged as the script's commands, by the caller).
pub const SHELLS: &[&str] =
    &["sh", "bash", "zsh", "dash", "ksh", "csh", "tcsh", "fish", "busybox", "toybox", "pwsh", "powershell"];

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

/// Variables a wrapper (`env NAME=value cmd`) may set: they change output,
/// logging or targets, never which program, library, configuration or plugin
/// runs. Every other variable is denied (`GIT_*`, `LD_*`, `*_RUNNER`,
/// `RUSTC_WRAPPER`, `NODE_OPTIONS`, `PYTHONPATH`, `PATH`, `HOME`...).
pub const ENV_ALLOWED: &[&str] = &[
    "RUST_BACKTRACE",
    "RUST_LOG",
    "RUST_TEST_THREADS",
    "RUST_MIN_STACK",
    "CARGO_TERM_COLOR",
    "CARGO_TERM_VERBOSE",
    "CARGO_TERM_QUIET",
    "CARGO_INCREMENTAL",
    "CARGO_BUILD_JOBS",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TERM",
    "COLUMNS",
    "LINES",
    "CI",
    "TZ",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_COLLATE",
    "LC_NUMERIC",
    "LC_TIME",
    "SOURCE_DATE_EPOCH",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED",
    "PYTHONUNBUFFERED",
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "PYTHONFAULTHANDLER",
    "PY_COLORS",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "CGO_ENABLED",
    "GOOS",
    "GOARCH",
    "GOAMD64",
    "GOMAXPROCS",
    "GOTRACEBACK",
    "GOGC",
    "NODE_ENV",
];

/// Which rule made an action `mutating`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum MutatingRule {
    /// Writing, deleting or spawning a child that may act changes the world by kind.
    Kind,
    /// The program changes files whatever its arguments.
    Program,
    /// The command line's spec says so (a subcommand, an option, operands).
    Effect,
    /// It writes or deletes a path.
    Touch,
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
    /// Deleting, network, browsing and spawning a child that may act are high by kind.
    Kind,
    /// A child whose token allows only reading and searching starts a process, nothing more.
    ReadOnlySpawn,
    HighRiskProgram,
    /// The command line's spec says it is critical.
    Critical,
    /// It changes a file that tools run later.
    Persistence,
}

/// Which rule gave a command line its effect.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum EffectRule {
    Command,
    Option,
    Operands,
    Argument,
}

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

ascent! {
    /// The constitution over the actions of one turn.
    pub struct ConstitutionProgram;

    relation allowed_binary(Sym);
    relation code_runner(Sym);
    relation mutating_program(Sym);
    relation high_risk_program(Sym);
    relation script_runner(Sym);
    relation shell(Sym);
    relation command_effect(Sym, Sym, Effect);
    relation command_denied(Sym, Sym, Sym);
    relation option_effect(Sym, Sym, Sym, Effect);
    relation option_denied(Sym, Sym, Sym, Sym);
    relation operand_effect(Sym, Sym, Effect);
    relation allowed_module(Sym, Sym);
    relation env_allowed(Sym);
    relation network_allow(Sym);
    relation allow_host(Sym, u32);
    relation allow_subdomains(Sym, u32);
    relation project_denied_program(Sym);
    relation autonomy(Autonomy);
    relation policy_ask(ActionKind);
    relation approval(Sym, Sym);
    relation user_intent_category(Category);
    relation session_stopped();
    relation request_constraint(Sym, Sym);
    relation constraint_forbids(Sym, PathId);
    relation spawn_target(Sym, Sym);
    relation spawn_kind(Sym, ActionKind);
    relation shard_ready(Sym);
    relation delegated(Sym);
    relation delegation_kind(Sym, ActionKind);
    relation delegation_program(Sym, Sym);
    relation delegation_host(Sym, Sym);
    relation delegation_covers(Sym, PathId);
    relation delegation_void(Sym, Sym);

    relation action(Sym, ActionKind);
    relation exec_program(Sym, Sym);
    relation exec_unresolved(Sym);
    relation exec_subcommand(Sym, Sym, Sym);
    relation exec_option(Sym, Sym, Sym, Sym);
    relation exec_operands(Sym, Sym, Sym);
    relation exec_readonly(Sym, Sym, Sym);
    relation exec_listing(Sym, Sym, Sym);
    relation exec_unknown(Sym, Sym, Sym);
    relation exec_refused(Sym, Sym, Sym);
    relation exec_env(Sym, Sym);
    relation exec_effect(Sym, Effect, Sym);
    relation exec_module(Sym, Sym, Sym);
    relation exec_script(Sym, Sym);
    relation exec_suspicious(Sym, Sym);
    relation touches(Sym, PathId, Access);
    relation path_class(PathId, PathClass);
    relation created_here(PathId);
    relation own_creation(Sym);
    relation net_host(Sym, Sym);
    relation net_domain(Sym, Sym);
    relation net_port(Sym, u32);
    relation net_class(Sym, NetClass);
    relation exfiltration(Sym, Sym);

    relation mutation_intent();
    relation spawn_acts(Sym);
    relation spawn_reads_only(Sym);
    relation denied(Sym, Why);
    relation any_denied(Sym);
    relation net_allowed(Sym);
    relation action_effect(Sym, Effect);
    relation mutating(Sym);
    relation risk_at_least(Sym, Risk);
    relation risk(Sym, Risk);
    relation route_by(Sym, Route);
    relation route(Sym, Route);
    relation permitted(Sym);

    relation w_net_allowed(Sym, Sym);
    relation w_host_allowed(Sym, Sym, u32, u32);
    relation w_subdomain_allowed(Sym, Sym, u32, u32);
    relation w_effect(Sym, Effect, EffectRule, Sym, Sym, Sym);
    relation w_mutating(Sym, MutatingRule, Sym);
    relation w_risk(Sym, Risk, RiskRule);
    relation w_route_matrix(Sym, Risk, Autonomy);
    relation w_route_policy(Sym, ActionKind);
    relation w_permitted_route(Sym, Route);
    relation w_permitted_approval(Sym, Sym);

    // Programs: only those with a specification, none a shell or the project forbids.
    denied(a, Why::NotAllowlisted(*p)) <-- exec_program(a, p), !allowed_binary(p);
    denied(a, Why::ProjectDenied(*p)) <-- exec_program(a, p), project_denied_program(p);
    denied(a, Why::NotOnPath) <-- exec_unresolved(a);
    denied(a, Why::Suspicious(*why)) <-- exec_suspicious(a, why);
    denied(a, Why::Shell(*p)) <-- exec_program(a, p), shell(p);

    // Arguments: default deny inside each program.
    denied(a, Why::Unknown(*p, *what)) <-- exec_unknown(a, p, what);
    denied(a, Why::Command(*p, *s, *why)) <-- exec_subcommand(a, p, s), command_denied(p, s, why);
    denied(a, Why::Option(*p, *s, *o, *why)) <-- exec_option(a, p, s, o), option_denied(p, s, o, why);
    denied(a, Why::Refused(*p, *why)) <-- exec_refused(a, p, why);
    denied(a, Why::Env(*v)) <-- exec_env(a, v), !env_allowed(v);
    denied(a, Why::Module(*p, *m)) <-- exec_module(a, p, m), !allowed_module(p, m);

    // Paths: confinement, secrets, and files that are read-only to the agent.
    denied(a, Why::Path(*path, *c, *how)) <--
        touches(a, path, how), path_class(path, c), if *c == PathClass::Outside || *c == PathClass::Secret;
    denied(a, Why::Path(*path, PathClass::Protected, *how)) <--
        touches(a, path, how), path_class(path, PathClass::Protected), if *how != Access::Read;

    // Network: default deny, metadata addresses always, exfiltration heuristics.
    net_allowed(a), w_net_allowed(a, d) <-- net_domain(a, d), network_allow(d);
    // The user's own entries: a host exactly, or a domain's subdomains, on a port (0: 80 and 443).
    net_allowed(a), w_host_allowed(a, h, p, q) <--
        net_host(a, h), net_port(a, p), allow_host(h, q), if port_covered(*p, *q);
    net_allowed(a), w_subdomain_allowed(a, d, p, q) <--
        net_host(a, h), net_domain(a, d), if d != h, net_port(a, p), allow_subdomains(d, q), if port_covered(*p, *q);
    denied(a, Why::Metadata) <-- net_class(a, NetClass::Metadata);
    denied(a, Why::Domain(*h)) <-- net_host(a, h), !net_allowed(a);
    denied(a, Why::Exfiltration(*why)) <-- exfiltration(a, why);

    // What the command line costs, by its specification.
    action_effect(a, *e), w_effect(a, *e, EffectRule::Command, *p, *s, *s) <--
        exec_subcommand(a, p, s), command_effect(p, s, e), !exec_readonly(a, p, s);
    action_effect(a, *e), w_effect(a, *e, EffectRule::Option, *p, *s, *o) <--
        exec_option(a, p, s, o), option_effect(p, s, o, e);
    action_effect(a, *e), w_effect(a, *e, EffectRule::Operands, *p, *s, *s) <--
        exec_operands(a, p, s), operand_effect(p, s, e), !exec_listing(a, p, s);
    action_effect(a, *e), w_effect(a, *e, EffectRule::Argument, *why, *why, *why) <-- exec_effect(a, e, why);

    // Intent: without a mutation intent, nothing that changes the world.
    mutation_intent() <-- user_intent_category(Category::Mutation);
    // A child that may only read and search (every kind its token allows) changes nothing;
    // a spawn whose kinds are not stated is taken to act.
    spawn_acts(a) <-- spawn_kind(a, k), if !matches!(k, ActionKind::ReadFile | ActionKind::Search);
    spawn_reads_only(a) <-- action(a, ActionKind::Spawn), spawn_kind(a, _), !spawn_acts(a);
    mutating(a), w_mutating(a, MutatingRule::Kind, a) <--
        action(a, k), if matches!(k, ActionKind::WriteFile | ActionKind::DeleteFile);
    mutating(a), w_mutating(a, MutatingRule::Kind, a) <-- action(a, ActionKind::Spawn), !spawn_reads_only(a);
    mutating(a), w_mutating(a, MutatingRule::Program, p) <-- exec_program(a, p), mutating_program(p);
    mutating(a), w_mutating(a, MutatingRule::Effect, a) <-- action_effect(a, e), if *e >= Effect::Mutating;
    mutating(a), w_mutating(a, MutatingRule::Touch, path.0) <-- touches(a, path, how), if *how != Access::Read;
    mutating(a), w_mutating(a, MutatingRule::Script, p) <-- exec_script(a, p), script_runner(p);
    denied(a, Why::NoMutationIntent) <-- mutating(a), !mutation_intent();
    // The request's own constraints: a write that breaks one is denied, whoever approves.
    denied(a, Why::Constraint(*c, *said, *path, *how)) <--
        touches(a, path, how), if *how != Access::Read, constraint_forbids(c, path), request_constraint(c, said);
    denied(a, Why::Stopped) <-- action(a, _), session_stopped();
    // Specialists: only one whose viva voce passed on its current knowledge is spawned.
    denied(a, Why::NotReady(*n)) <-- spawn_target(a, n), !shard_ready(n);
    // Delegation: a spawned child acts only inside its token's scope, and only while the token holds.
    denied(a, Why::DelegationKind(*t, *k)) <-- action(a, k), delegated(t), !delegation_kind(t, k);
    denied(a, Why::DelegationPath(*t, *path)) <-- touches(a, path, _), delegated(t), !delegation_covers(t, path);
    denied(a, Why::DelegationProgram(*t, *p)) <-- exec_program(a, p), delegated(t), !delegation_program(t, p);
    denied(a, Why::DelegationHost(*t, *h)) <-- net_host(a, h), delegated(t), !delegation_host(t, h);
    denied(a, Why::DelegationVoid(*t, *why)) <-- action(a, _), delegated(t), delegation_void(t, why);
    any_denied(a) <-- denied(a, _);

    // Risk: the highest level any rule gives.
    risk_at_least(a, Risk::Low), w_risk(a, Risk::Low, RiskRule::Any) <-- action(a, _);
    risk_at_least(a, Risk::Medium), w_risk(a, Risk::Medium, RiskRule::Mutating) <-- mutating(a);
    risk_at_least(a, Risk::Medium), w_risk(a, Risk::Medium, RiskRule::CodeRunner) <--
        exec_program(a, p), code_runner(p);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, RiskRule::Kind) <--
        action(a, k), if matches!(k, ActionKind::NetRequest | ActionKind::Browse);
    // Deleting a file nerd itself created this session takes its own write back (a rolled-back
    // change, withdrawn tests): mutating, but not high by kind. Any other delete is.
    own_creation(a) <-- action(a, ActionKind::DeleteFile), touches(a, path, Access::Delete), created_here(path);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, RiskRule::Kind) <--
        action(a, ActionKind::DeleteFile), !own_creation(a);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, RiskRule::Kind) <--
        action(a, ActionKind::Spawn), !spawn_reads_only(a);
    risk_at_least(a, Risk::Medium), w_risk(a, Risk::Medium, RiskRule::ReadOnlySpawn) <-- spawn_reads_only(a);
    risk_at_least(a, Risk::High), w_risk(a, Risk::High, RiskRule::HighRiskProgram) <--
        exec_program(a, p), high_risk_program(p);
    risk_at_least(a, Risk::Critical), w_risk(a, Risk::Critical, RiskRule::Critical) <--
        action_effect(a, Effect::Critical);
    risk_at_least(a, Risk::Critical), w_risk(a, Risk::Critical, RiskRule::Persistence) <--
        touches(a, path, how), path_class(path, PathClass::Persistence), if *how != Access::Read;
    risk(a, r) <-- action(a, _), agg r = max(l) in risk_at_least(a, l);

    // Route: the matrix, moved towards ask by project policy, never away from it.
    route_by(a, matrix(*p, *r)), w_route_matrix(a, r, p) <-- risk(a, r), autonomy(p);
    route_by(a, Route::Ask), w_route_policy(a, k) <-- action(a, k), policy_ask(k);
    route(a, r) <-- action(a, _), agg r = max(x) in route_by(a, x);

    // Default deny: only what no rule denies and no human must approve, or what a human approved.
    permitted(a), w_permitted_route(a, r) <-- action(a, _), !any_denied(a), route(a, r), if *r != Route::Ask;
    permitted(a), w_permitted_approval(a, src) <-- action(a, _), !any_denied(a), approval(a, src);
}

/// The effect and, for a denial, the reason of a spec cost.
fn split(cost: &Cost) -> (Option<Effect>, Option<&str>) {
    match cost {
        Cost::Read => (None, None),
        Cost::Mutating => (Some(Effect::Mutating), None),
        Cost::Critical => (Some(Effect::Critical), None),
        Cost::Deny(why) => (None, Some(why.as_str())),
    }
}

/// Adds the policy tables every evaluation needs: shells, the network
/// allowlist, the variables wrappers may set, and from the specifications
/// which programs may run, their kinds and modules. The rows for one
/// command's subcommand and options are added by `seed_command` and
/// `seed_option` for the command lines that use them.
pub fn seed(f: &mut Facts) {
    for s in SHELLS {
        let s = f.sym(s);
        f.shell.push(s);
    }
    for d in NETWORK_ALLOW {
        let d = f.sym(d);
        f.network_allow.push(d);
    }
    for v in ENV_ALLOWED {
        let v = f.sym(v);
        f.env_allowed.push(v);
    }
    // A malformed specification allows nothing: no program is then allowlisted.
    let Ok(programs) = specs::all() else { return };
    for program in programs {
        for name in &program.names {
            let p = f.sym(name);
            f.allowed_binary.push(p);
            for kind in &program.kinds {
                let table = match kind.as_str() {
                    "code-runner" => &mut f.code_runner,
                    "mutating" => &mut f.mutating_program,
                    "high-risk" => &mut f.high_risk_program,
                    _ => &mut f.script_runner,
                };
                table.push(p);
            }
            for m in &program.modules {
                let m = f.sym(m);
                f.allowed_module.push((p, m));
            }
        }
    }
}

/// Adds the table rows of one (sub)command of `program`: what running it and giving it operands cost.
pub fn seed_command(f: &mut Facts, program: &str, cmd: &specs::Command) {
    let (p, s) = (f.sym(program), f.sym(&cmd.path.join(" ")));
    let (effect, why) = split(&cmd.effect);
    if let Some(e) = effect {
        f.command_effect.push((p, s, e));
    }
    if let Some(why) = why {
        let why = f.sym(why);
        f.command_denied.push((p, s, why));
    }
    if let (Some(e), _) = split(&cmd.operand_effect) {
        f.operand_effect.push((p, s, e));
    }
}

/// Adds the table rows of one option of `program` declared in `scope`.
pub fn seed_option(f: &mut Facts, program: &str, scope: &str, opt: &Opt) {
    let (p, scope, name) = (f.sym(program), f.sym(scope), f.sym(&opt.names[0]));
    let (effect, why) = split(&opt.effect);
    if let Some(e) = effect {
        f.option_effect.push((p, scope, name, e));
    }
    if let Some(why) = why {
        let why = f.sym(why);
        f.option_denied.push((p, scope, name, why));
    }
}

/// The source of the constitution (rules, tables and program specifications), for its integrity hash.
pub fn source() -> impl Iterator<Item = &'static str> {
    std::iter::once(include_str!("constitution.rs")).chain(specs::FILES.iter().map(|(_, text)| *text))
}

/// Whether an allowlist entry's port (0: the web's, 80 and 443) covers the port reached.
fn port_covered(reached: u32, entry: u32) -> bool {
    if entry == 0 {
        reached == 80 || reached == 443
    } else {
        reached == entry
    }
}

/// Runs the constitution on a fresh instance.
pub fn run(f: &Facts, session_stopped: bool, shard_ready: &[(Sym,)]) -> ConstitutionProgram {
    let mut p = ConstitutionProgram {
        allowed_binary: relation::allowed_binary(f),
        code_runner: relation::code_runner(f),
        mutating_program: relation::mutating_program(f),
        high_risk_program: relation::high_risk_program(f),
        script_runner: relation::script_runner(f),
        shell: relation::shell(f),
        command_effect: relation::command_effect(f),
        command_denied: relation::command_denied(f),
        option_effect: relation::option_effect(f),
        option_denied: relation::option_denied(f),
        operand_effect: relation::operand_effect(f),
        allowed_module: relation::allowed_module(f),
        env_allowed: relation::env_allowed(f),
        network_allow: relation::network_allow(f),
        allow_host: relation::allow_host(f),
        allow_subdomains: relation::allow_subdomains(f),
        project_denied_program: relation::project_denied_program(f),
        policy_ask: relation::policy_ask(f),
        action: relation::action(f),
        exec_program: relation::exec_program(f),
        exec_unresolved: relation::exec_unresolved(f),
        exec_subcommand: relation::exec_subcommand(f),
        exec_option: relation::exec_option(f),
        exec_operands: relation::exec_operands(f),
        exec_readonly: relation::exec_readonly(f),
        exec_listing: relation::exec_listing(f),
        exec_unknown: relation::exec_unknown(f),
        exec_refused: relation::exec_refused(f),
        exec_env: relation::exec_env(f),
        exec_effect: relation::exec_effect(f),
        exec_module: relation::exec_module(f),
        exec_script: relation::exec_script(f),
        exec_suspicious: relation::exec_suspicious(f),
        touches: relation::touches(f),
        path_class: relation::path_class(f),
        created_here: relation::created_here(f),
        net_host: relation::net_host(f),
        net_domain: relation::net_domain(f),
        net_port: relation::net_port(f),
        net_class: relation::net_class(f),
        exfiltration: relation::exfiltration(f),
        autonomy: relation::autonomy(f),
        session_stopped: if session_stopped { vec![()] } else { vec![] },
        approval: relation::approval(f),
        user_intent_category: f.user_intent.iter().map(|t| (t.1,)).collect(),
        request_constraint: relation::request_constraint(f),
        constraint_forbids: relation::constraint_forbids(f),
        spawn_target: relation::spawn_target(f),
        spawn_kind: relation::spawn_kind(f),
        shard_ready: shard_ready.to_vec(),
        delegated: relation::delegated(f),
        delegation_kind: relation::delegation_kind(f),
        delegation_program: relation::delegation_program(f),
        delegation_host: relation::delegation_host(f),
        delegation_covers: relation::delegation_covers(f),
        delegation_void: relation::delegation_void(f),
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
            Why::Shell(p) => vec![program(p), h(atoms::shell(s, p))],
            Why::Unknown(p, what) => vec![h(atoms::exec_unknown(s, (a, p, what)))],
            Why::Command(p, x, r) => {
                vec![h(atoms::exec_subcommand(s, (a, p, x))), h(atoms::command_denied(s, (p, x, r)))]
            }
            Why::Option(p, x, o, r) => {
                vec![h(atoms::exec_option(s, (a, p, x, o))), h(atoms::option_denied(s, (p, x, o, r)))]
            }
            Why::Refused(p, r) => vec![h(atoms::exec_refused(s, (a, p, r)))],
            Why::Env(v) => vec![h(atoms::exec_env(s, (a, v))), Premise::Absent(atoms::env_allowed(s, v))],
            Why::Module(p, m) => {
                vec![h(atoms::exec_module(s, (a, p, m))), Premise::Absent(atoms::allowed_module(s, (p, m)))]
            }
            Why::Path(path, class, how) => {
                vec![h(atoms::touches(s, (a, path, how))), h(atoms::path_class(s, (path, class)))]
            }
            Why::Metadata => vec![h(atoms::net_class(s, (a, NetClass::Metadata)))],
            Why::Domain(host) => vec![h(atoms::net_host(s, (a, host))), Premise::Absent(atoms::net_allowed(s, a))],
            Why::Exfiltration(r) => vec![h(atoms::exfiltration(s, (a, r)))],
            Why::Constraint(c, said, path, how) => vec![
                h(atoms::touches(s, (a, path, how))),
                h(atoms::constraint_forbids(s, (c, path))),
                h(atoms::request_constraint(s, (c, said))),
            ],
            Why::NoMutationIntent => {
                vec![h(atoms::mutating(s, a)), Premise::Check("no user_intent of category mutation".to_string())]
            }
            Why::NotReady(n) => vec![h(atoms::spawn_target(s, (a, n))), Premise::Absent(atoms::shard_ready(s, n))],
            Why::DelegationKind(t, k) => vec![
                h(atoms::action(s, (a, k))),
                h(atoms::delegated(s, t)),
                Premise::Absent(atoms::delegation_kind(s, (t, k))),
            ],
            Why::DelegationPath(t, path) => {
                let how = self.touches.iter().find(|r| r.0 == a && r.1 == path).map_or(Access::Read, |r| r.2);
                vec![
                    h(atoms::touches(s, (a, path, how))),
                    h(atoms::delegated(s, t)),
                    Premise::Absent(atoms::delegation_covers(s, (t, path))),
                ]
            }
            Why::DelegationProgram(t, p) => {
                vec![program(p), h(atoms::delegated(s, t)), Premise::Absent(atoms::delegation_program(s, (t, p)))]
            }
            Why::DelegationHost(t, host) => vec![
                h(atoms::net_host(s, (a, host))),
                h(atoms::delegated(s, t)),
                Premise::Absent(atoms::delegation_host(s, (t, host))),
            ],
            Why::DelegationVoid(t, why) => vec![h(atoms::delegated(s, t)), h(atoms::delegation_void(s, (t, why)))],
            Why::Stopped => vec![
                h(atoms::action(s, (a, self.kind(a)))),
                Premise::Check("watchdog_stop holds for this session".to_string()),
            ],
        }
    }

    /// The premises of one `action_effect` witness.
    fn effect_premises(&self, s: &Symbols, witness: (Sym, Effect, EffectRule, Sym, Sym, Sym)) -> Vec<Premise> {
        let (a, e, rule, p, x, y) = witness;
        let h = Premise::Holds;
        match rule {
            EffectRule::Command => vec![
                h(atoms::exec_subcommand(s, (a, p, x))),
                h(atoms::command_effect(s, (p, x, e))),
                Premise::Absent(atoms::exec_readonly(s, (a, p, x))),
            ],
            EffectRule::Option => {
                vec![h(atoms::exec_option(s, (a, p, x, y))), h(atoms::option_effect(s, (p, x, y, e)))]
            }
            EffectRule::Operands => vec![
                h(atoms::exec_operands(s, (a, p, x))),
                h(atoms::operand_effect(s, (p, x, e))),
                Premise::Absent(atoms::exec_listing(s, (a, p, x))),
            ],
            EffectRule::Argument => vec![h(atoms::exec_effect(s, (a, e, x)))],
        }
    }

    /// The premises of one `mutating` witness, read off the rule that fired.
    fn mutating_premises(&self, s: &Symbols, a: Sym, rule: MutatingRule, x: Sym) -> Vec<Premise> {
        let h = Premise::Holds;
        match rule {
            MutatingRule::Kind => self.kind_premises(s, a),
            MutatingRule::Program => vec![h(atoms::exec_program(s, (a, x))), h(atoms::mutating_program(s, x))],
            MutatingRule::Effect => {
                let e = self.action_effect.iter().find(|&&(b, e)| b == a && e >= Effect::Mutating).map(|&(_, e)| e);
                vec![
                    h(atoms::action_effect(s, (a, e.unwrap_or(Effect::Mutating)))),
                    Premise::Check("mutating or critical costs change the world".into()),
                ]
            }
            MutatingRule::Touch => {
                let touch = self.touches.iter().find(|&&(b, p, how)| b == a && p.0 == x && how != Access::Read);
                match touch {
                    Some(&(_, p, how)) => vec![h(atoms::touches(s, (a, p, how)))],
                    None => vec![Premise::Check(format!("{} writes {}", s.resolve(a), s.resolve(x)))],
                }
            }
            MutatingRule::Script => vec![h(atoms::exec_script(s, (a, x))), h(atoms::script_runner(s, x))],
        }
    }

    /// The premises of one `risk_at_least` witness, read off the rule that fired.
    fn risk_premises(&self, s: &Symbols, a: Sym, rule: RiskRule) -> Vec<Premise> {
        let h = Premise::Holds;
        let program_in = |table: &Vec<(Sym,)>| {
            self.exec_program.iter().find(|&&(b, p)| b == a && table.contains(&(p,))).map(|&(_, p)| p)
        };
        match rule {
            RiskRule::Any => vec![h(atoms::action(s, (a, self.kind(a))))],
            RiskRule::Kind | RiskRule::ReadOnlySpawn => self.kind_premises(s, a),
            RiskRule::Mutating => vec![h(atoms::mutating(s, a))],
            RiskRule::CodeRunner => match program_in(&self.code_runner) {
                Some(p) => vec![h(atoms::exec_program(s, (a, p))), h(atoms::code_runner(s, p))],
                None => vec![h(atoms::action(s, (a, self.kind(a))))],
            },
            RiskRule::HighRiskProgram => match program_in(&self.high_risk_program) {
                Some(p) => vec![h(atoms::exec_program(s, (a, p))), h(atoms::high_risk_program(s, p))],
                None => vec![h(atoms::action(s, (a, self.kind(a))))],
            },
            RiskRule::Critical => vec![h(atoms::action_effect(s, (a, Effect::Critical)))],
            RiskRule::Persistence => {
                let touch = self.touches.iter().find(|&&(b, p, how)| {
                    b == a && how != Access::Read && self.path_class.contains(&(p, PathClass::Persistence))
                });
                match touch {
                    Some(&(_, p, how)) => {
                        vec![h(atoms::touches(s, (a, p, how))), h(atoms::path_class(s, (p, PathClass::Persistence)))]
                    }
                    None => vec![h(atoms::action(s, (a, self.kind(a))))],
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
        for &(a, h, p, q) in &self.w_host_allowed {
            let premises = vec![
                Premise::Holds(atoms::net_host(s, (a, h))),
                Premise::Holds(atoms::net_port(s, (a, p))),
                Premise::Holds(atoms::allow_host(s, (h, q))),
            ];
            push(atoms::net_allowed(s, a), "constitution/allowed-host", premises);
        }
        for &(a, d, p, q) in &self.w_subdomain_allowed {
            let premises = vec![
                Premise::Holds(atoms::net_domain(s, (a, d))),
                Premise::Holds(atoms::net_port(s, (a, p))),
                Premise::Holds(atoms::allow_subdomains(s, (d, q))),
                Premise::Check(format!("the host is a subdomain of {}", s.resolve(d))),
            ];
            push(atoms::net_allowed(s, a), "constitution/allowed-subdomain", premises);
        }
        for &w in &self.w_effect {
            push(atoms::action_effect(s, (w.0, w.1)), "constitution/effect", self.effect_premises(s, w));
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

    /// The premises of a rule on the action's kind; for a spawn, the kinds its child's token allows.
    fn kind_premises(&self, s: &Symbols, a: Sym) -> Vec<Premise> {
        let kind = self.kind(a);
        let mut premises = vec![Premise::Holds(atoms::action(s, (a, kind)))];
        if kind == ActionKind::DeleteFile {
            premises.push(Premise::Check("nerd did not create this file this session".to_string()));
        }
        if kind == ActionKind::Spawn {
            let kinds: Vec<ActionKind> = self.spawn_kind.iter().filter(|r| r.0 == a).map(|r| r.1).collect();
            premises.extend(kinds.iter().map(|&k| Premise::Holds(atoms::spawn_kind(s, (a, k)))));
            premises.push(Premise::Check(if self.spawn_reads_only.contains(&(a,)) {
                "the child may only read and search".to_string()
            } else if kinds.is_empty() {
                "the kinds the child may use are not stated".to_string()
            } else {
                "the child may do more than read and search".to_string()
            }));
        }
        premises
    }

    fn kind(&self, a: Sym) -> ActionKind {
        self.action.iter().find(|(b, _)| *b == a).map_or(ActionKind::Exec, |(_, k)| *k)
    }
}
