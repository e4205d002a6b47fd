//! The extensional database: every base fact the programs read, as typed
//! tuples over interned strings. Filled by the runtime (projection, perception,
//! configuration); the programs never see where a fact came from.

use crate::symbols::{Sym, Symbols};
use crate::vocab::{
    Access, ActionKind, ActionOutcome, Autonomy, Category, ContextHint, NetClass, PathClass, Severity, SymbolKind,
    TestOutcome, TestState, Verb, Visibility,
};

/// `file(Path, Sha256, Lang, MTime, Size, IsTest)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FileFact {
    pub path: Sym,
    pub sha256: Sym,
    pub lang: Sym,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime: i64,
    pub size: i64,
    pub is_test: bool,
}

/// `symbol(Id, Kind, Visibility, Path, Line, EndLine, Signature)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SymbolFact {
    pub id: Sym,
    pub kind: SymbolKind,
    pub visibility: Visibility,
    pub path: Sym,
    pub line: u32,
    pub end_line: u32,
    pub signature: Sym,
}

/// A confidence in [0, 1], carried as thousandths so facts stay `Eq + Hash`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Confidence(pub u16);

impl Confidence {
    /// Below this, a focus resolution needs the user's confirmation.
    pub const THRESHOLD: Confidence = Confidence(850);

    /// Converts a float, clamping to [0, 1]; NaN becomes 0.
    pub fn from_f64(x: f64) -> Self {
        if x.is_nan() {
            return Confidence(0);
        }
        Confidence((x.clamp(0.0, 1.0) * 1000.0).round() as u16)
    }
}

/// Every base fact of one evaluation. Programs take it by reference; a fresh
/// program instance is built per evaluation (ascent is not incremental).
#[derive(Default, Clone, Debug)]
pub struct Facts {
    pub symbols: Symbols,

    // World, asserted by projection.
    pub file: Vec<FileFact>,
    /// `chunk(Path, StartLine, EndLine, Symbol)`: paging windows over large files.
    pub chunk: Vec<(Sym, u32, u32, Sym)>,
    pub symbol: Vec<SymbolFact>,
    /// `calls(CallerId, CalleeId, Path, Line)`: resolved call edges.
    pub calls: Vec<(Sym, Sym, Sym, u32)>,
    /// `unresolved_call(CallerId, Name, Path, Line)`.
    pub unresolved_call: Vec<(Sym, Sym, Sym, u32)>,
    /// `imports(Path, ImportPath)`.
    pub imports: Vec<(Sym, Sym)>,
    /// `defines(Path, Id)`.
    pub defines: Vec<(Sym, Sym)>,
    /// `test_of(TestId, SymbolId)`: a test exercises a symbol directly.
    pub test_of: Vec<(Sym, Sym)>,
    /// `parse_error(Path, Line, Message)`.
    pub parse_error: Vec<(Sym, u32, Sym)>,
    /// `diagnostic(Severity, Path, Line, Code, Message)`.
    pub diagnostic: Vec<(Severity, Sym, u32, Sym, Sym)>,
    /// `test_outcome(Name, Path, Line, Outcome)`.
    pub test_outcome: Vec<(Sym, Sym, u32, TestOutcome)>,
    /// `modified(SymbolOrPath)`: differs from git HEAD or changed under watch.
    pub modified: Vec<Sym>,
    /// `staged(Path)`.
    pub staged: Vec<Sym>,
    /// `changed_file(Path, Added, Removed)`: what this turn changed.
    pub changed_file: Vec<(Sym, u32, u32)>,
    /// `secret(Path, Line, Kind)`: a secret in added, staged content.
    pub secret: Vec<(Sym, u32, Sym)>,
    /// `rule_violation(RuleId, Path, Line)`: a project rule's pattern matched.
    pub rule_violation: Vec<(Sym, Sym, u32)>,
    /// `test_state(State)`: exactly one, `unknown` until tests have run.
    pub test_state: TestState,
    /// `retry_count(N)`.
    pub retry_count: u32,
    /// `workspace_empty()`: the workspace holds no source file.
    pub workspace_empty: bool,

    // Perception, asserted from the transducer after validation.
    /// `user_intent(Id, Category, Verb, Target, Constraint)`.
    pub user_intent: Vec<(Sym, Category, Verb, Sym, Sym)>,
    /// `context_hint(IntentId, Hint)`.
    pub context_hint: Vec<(Sym, ContextHint)>,
    /// `focus_resolution(RawRef, Path, Symbol, Confidence)`.
    pub focus_resolution: Vec<(Sym, Sym, Sym, Confidence)>,
    /// `ambiguity_flag(MissingParam, Clue, Hypothesis)`.
    pub ambiguity_flag: Vec<(Sym, Sym, Sym)>,
    /// `refactor_target(Symbol)`: a symbol the user asked to change.
    pub refactor_target: Vec<Sym>,
    /// `pending_patch()`: a validated patch proposal awaits application.
    pub pending_patch: bool,

    // Policy and configuration.
    /// `retry_budget(N)`: repair attempts before escalating.
    pub retry_budget: u32,
    /// `blocking_severity(Severity)`: diagnostics of these severities block commits.
    pub blocking_severity: Vec<Severity>,
    /// `approval(ActionId, Source)`: explicit, recorded human approvals.
    pub approval: Vec<(Sym, Sym)>,
    /// `forbidden_pattern(Lang, RuleId, Severity, Message)`: project rules.
    pub forbidden_pattern: Vec<(Sym, Sym, Severity, Sym)>,
    /// `commit_override(Reason)`: a human let a blocked commit through, with a reason.
    pub commit_override: Vec<Sym>,
    /// `project_denied_program(Program)`: the project's policy forbids running it.
    pub project_denied_program: Vec<Sym>,
    /// `audit_event(Seq, Kind, Program, Outcome)`: what the router did this session.
    pub audit_event: Vec<(u32, ActionKind, Sym, ActionOutcome)>,
    /// `autonomy(Profile)`: how much nerd may do without asking.
    pub autonomy: Autonomy,

    // The constitution's inputs: its compiled-in tables (policy) and the
    // actions of a turn as the runtime extracted them.
    /// `allowed_binary(Program)`: a program the agent may run.
    pub allowed_binary: Vec<Sym>,
    /// `code_runner(Program)`: a program that runs workspace code.
    pub code_runner: Vec<Sym>,
    /// `mutating_program(Program)`: a program that changes files whatever its arguments.
    pub mutating_program: Vec<Sym>,
    /// `high_risk_program(Program)`: a program whose effects are hard to undo.
    pub high_risk_program: Vec<Sym>,
    /// `script_runner(Program)`: an interpreter that runs script files.
    pub script_runner: Vec<Sym>,
    /// `shell(Program)`: a shell, never run.
    pub shell: Vec<Sym>,
    /// `mutating_subcommand(Program, Subcommand)`: a subcommand that changes tracked content or state.
    pub mutating_subcommand: Vec<(Sym, Sym)>,
    /// `mutating_flag(Program, Flag)`: a flag that makes a program write.
    pub mutating_flag: Vec<(Sym, Sym)>,
    /// `denied_subcommand_flag(Program, Subcommand, Flag, Reason)`: a flag never allowed with that subcommand.
    pub denied_subcommand_flag: Vec<(Sym, Sym, Sym, Sym)>,
    /// `allowed_module(Program, Module)`: a module an interpreter may run with -m.
    pub allowed_module: Vec<(Sym, Sym)>,
    /// `mutating_module(Program, Module)`: a module that changes the environment.
    pub mutating_module: Vec<(Sym, Sym)>,
    /// `critical_subcommand(Program, Subcommand)`: a subcommand a human must always approve.
    pub critical_subcommand: Vec<(Sym, Sym)>,
    /// `denied_flag(Program, Flag, Reason)`: an argument never allowed.
    pub denied_flag: Vec<(Sym, Sym, Sym)>,
    /// `denied_subcommand(Program, Subcommand, Reason)`: a subcommand never allowed.
    pub denied_subcommand: Vec<(Sym, Sym, Sym)>,
    /// `network_allow(Domain)`: a domain the network allowlist holds.
    pub network_allow: Vec<Sym>,
    /// `policy_ask(ActionKind)`: project policy: always ask for this kind of action.
    pub policy_ask: Vec<ActionKind>,
    /// `action(ActionId, Kind)`: an action proposed for this turn.
    pub action: Vec<(Sym, ActionKind)>,
    /// `exec_program(ActionId, Program)`: the program an exec runs, wrappers unwrapped.
    pub exec_program: Vec<(Sym, Sym)>,
    /// `exec_unresolved(ActionId)`: an exec whose program is not installed.
    pub exec_unresolved: Vec<Sym>,
    /// `exec_flag(ActionId, Flag)`: a flag of an exec (combined short flags split).
    pub exec_flag: Vec<(Sym, Sym)>,
    /// `exec_subcommand(ActionId, Subcommand)`: the subcommand of an exec.
    pub exec_subcommand: Vec<(Sym, Sym)>,
    /// `exec_module(ActionId, Module)`: the module an interpreter runs with -m.
    pub exec_module: Vec<(Sym, Sym)>,
    /// `exec_script(ActionId)`: an interpreter exec that runs a script file.
    pub exec_script: Vec<Sym>,
    /// `exec_suspicious(ActionId, Reason)`: a command name that is not what it seems.
    pub exec_suspicious: Vec<(Sym, Sym)>,
    /// `touches(ActionId, Path, Access)`: an action reads, writes or deletes a path.
    pub touches: Vec<(Sym, Sym, Access)>,
    /// `path_class(Path, Class)`: a normalised, symlink-resolved path's place.
    pub path_class: Vec<(Sym, PathClass)>,
    /// `net_host(ActionId, Host)`: the host a network action reaches.
    pub net_host: Vec<(Sym, Sym)>,
    /// `net_domain(ActionId, Domain)`: each dot-suffix of that host.
    pub net_domain: Vec<(Sym, Sym)>,
    /// `net_class(ActionId, Class)`: what the network target is.
    pub net_class: Vec<(Sym, NetClass)>,
    /// `exfiltration(ActionId, Reason)`: a network action that looks like exfiltration.
    pub exfiltration: Vec<(Sym, Sym)>,
}

impl Facts {
    /// An empty fact base with the default policy: errors block commits, three
    /// repair attempts, the balanced autonomy profile and the constitution's tables.
    pub fn with_default_policy() -> Self {
        let mut f = Facts { retry_budget: 3, blocking_severity: vec![Severity::Error], ..Facts::default() };
        crate::constitution::seed(&mut f);
        f
    }

    /// Interns `s` in this fact base.
    pub fn sym(&mut self, s: &str) -> Sym {
        self.symbols.intern(s)
    }

    /// The ids of test symbols, from symbol kinds.
    pub fn test_symbols(&self) -> impl Iterator<Item = Sym> + '_ {
        self.symbol.iter().filter(|s| s.kind == SymbolKind::Test).map(|s| s.id)
    }
}
