//! The predicate catalog: every predicate nerd knows, where its atoms come
//! from and what its columns mean. `nerd query` lists it; a test keeps it in
//! step with what `Fixpoint::atoms` can answer.

/// Where the atoms of a predicate come from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Origin {
    /// Asserted by projection of the repository and its tools.
    World,
    /// Asserted from the perception transducer, after validation.
    Perception,
    /// Asserted from the constitution and configuration.
    Policy,
    /// Derived by a program in this crate.
    Derived,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::World => "world",
            Origin::Perception => "perception",
            Origin::Policy => "policy",
            Origin::Derived => "derived",
        }
    }
}

/// One predicate: name, origin, column names and a one-line meaning.
#[derive(Clone, Copy, Debug)]
pub struct Predicate {
    pub name: &'static str,
    pub origin: Origin,
    pub columns: &'static [&'static str],
    pub doc: &'static str,
}

macro_rules! catalog {
    ($($origin:ident $name:literal ($($col:literal),*) $doc:literal;)+) => {
        /// Every predicate, base first, in a stable order.
        pub const PREDICATES: &[Predicate] = &[
            $(Predicate { name: $name, origin: Origin::$origin, columns: &[$($col),*], doc: $doc }),+
        ];
    };
}

catalog! {
    World "file" ("Path", "Sha256", "Lang", "MTime", "Size", "IsTest") "a file of the workspace (gitignore-aware)";
    World "chunk" ("Path", "StartLine", "EndLine", "Symbol") "a paging window over a large file";
    World "symbol" ("Id", "Kind", "Visibility", "Path", "Line", "EndLine", "Signature") "a definition projected by tree-sitter";
    World "defines" ("Path", "Id") "a file defines a symbol";
    World "test_symbol" ("Id") "a symbol that is a test";
    World "calls" ("CallerId", "CalleeId", "Path", "Line") "a call resolved to a symbol";
    World "unresolved_call" ("CallerId", "Name", "Path", "Line") "a call whose target did not resolve";
    World "imports" ("Path", "ImportPath") "a file imports a module or package";
    World "test_of" ("TestId", "SymbolId") "a test exercises a symbol directly";
    World "parse_error" ("Path", "Line", "Message") "a file that did not parse cleanly";
    World "diagnostic" ("Severity", "Path", "Line", "Code", "Message") "a compiler, linter or test diagnostic";
    World "test_outcome" ("Name", "Path", "Line", "Outcome") "one test case's result";
    World "modified" ("SymbolOrPath") "differs from git HEAD; outside git, changed under watch";
    World "staged" ("Path") "a path staged in the git index";
    World "changed_file" ("Path", "Added", "Removed") "what this turn changed";
    World "secret" ("Path", "Line", "Kind") "a secret in added, staged content";
    World "rule_violation" ("RuleId", "Path", "Line") "a project rule's pattern matched";
    World "test_state" ("State") "the state of the last test run";
    World "retry_count" ("N") "repair attempts made so far";
    World "workspace_empty" () "the workspace holds no source file";
    Perception "user_intent" ("Id", "Category", "Verb", "Target", "Constraint") "what the user asked for";
    Perception "context_hint" ("IntentId", "Hint") "broad or narrow context for an intent";
    Perception "focus_resolution" ("RawRef", "Path", "Symbol", "Confidence") "a candidate grounding of a fuzzy reference";
    Perception "ambiguity_flag" ("MissingParam", "Clue", "Hypothesis") "a parameter the request left open";
    Perception "refactor_target" ("Symbol") "a symbol the user asked to change";
    Perception "pending_patch" () "a validated patch proposal awaits application";
    Policy "retry_budget" ("N") "repair attempts allowed before escalating";
    Policy "blocking_severity" ("Severity") "diagnostics of this severity block commits";
    Policy "approval" ("ActionId", "Source") "an explicit, recorded human approval";
    Policy "forbidden_pattern" ("Lang", "RuleId", "Severity", "Message") "a project rule from .nerd/config.toml";
    Policy "commit_override" ("Reason") "a human let a blocked commit through";
    Policy "autonomy" ("Profile") "how much nerd may do without asking";
    Policy "project_denied_program" ("Program") "the project's policy forbids running it";
    World "audit_event" ("Seq", "Kind", "Program", "Outcome") "what the router did earlier this session";
    Policy "allowed_binary" ("Program") "a program the agent may run";
    Policy "code_runner" ("Program") "a program that runs workspace code";
    Policy "mutating_program" ("Program") "a program that changes files whatever its arguments";
    Policy "high_risk_program" ("Program") "a program whose effects are hard to undo";
    Policy "script_runner" ("Program") "an interpreter that runs script files";
    Policy "shell" ("Program") "a shell, never run";
    Policy "mutating_subcommand" ("Program", "Subcommand") "a subcommand that changes tracked content or state";
    Policy "mutating_flag" ("Program", "Flag") "a flag that makes a program write";
    Policy "allowed_module" ("Program", "Module") "a module an interpreter may run with -m";
    Policy "mutating_module" ("Program", "Module") "a module that changes the environment";
    Policy "critical_subcommand" ("Program", "Subcommand") "a subcommand a human must always approve";
    Policy "denied_flag" ("Program", "Flag", "Reason") "an argument never allowed";
    Policy "denied_subcommand" ("Program", "Subcommand", "Reason") "a subcommand never allowed";
    Policy "denied_subcommand_flag" ("Program", "Subcommand", "Flag", "Reason") "a flag never allowed with that subcommand";
    Policy "network_allow" ("Domain") "a domain the network allowlist holds";
    Policy "policy_ask" ("ActionKind") "project policy: always ask for this kind of action";
    Perception "action" ("ActionId", "Kind") "an action proposed for this turn";
    Perception "exec_program" ("ActionId", "Program") "the program an exec runs, wrappers unwrapped";
    Perception "exec_unresolved" ("ActionId") "an exec whose program is not installed";
    Perception "exec_flag" ("ActionId", "Flag") "a flag of an exec (combined short flags split)";
    Perception "exec_subcommand" ("ActionId", "Subcommand") "the subcommand of an exec";
    Perception "exec_module" ("ActionId", "Module") "the module an interpreter runs with -m";
    Perception "exec_script" ("ActionId") "an interpreter exec that runs a script file";
    Perception "exec_suspicious" ("ActionId", "Reason") "a command name that is not what it seems";
    Perception "touches" ("ActionId", "Path", "Access") "an action reads, writes or deletes a path";
    World "path_class" ("Path", "Class") "a normalised, symlink-resolved path's place";
    Perception "net_host" ("ActionId", "Host") "the host a network action reaches";
    Perception "net_domain" ("ActionId", "Domain") "each dot-suffix of that host";
    Perception "net_class" ("ActionId", "Class") "what the network target is";
    Perception "exfiltration" ("ActionId", "Reason") "a network action that looks like exfiltration";
    Derived "impacted" ("SymbolOrPath") "modified, or depends on something modified";
    Derived "needs_testing" ("TestId") "a test that reaches an impacted symbol";
    Derived "test_reach" ("Symbol") "reached from some test through calls";
    Derived "covered" ("Symbol") "reached or linked by some test";
    Derived "change_target" ("Symbol") "a modified symbol or a requested refactor target";
    Derived "dependent" ("Target", "Dependent") "transitively calls a change target";
    Derived "unsafe_to_refactor" ("Symbol") "a change target with a dependent no test covers";
    Derived "depends_on" ("From", "To") "transitive closure of calls (computed on demand)";
    Derived "best_confidence" ("RawRef", "Confidence") "the best grounding confidence of a reference";
    Derived "clarification_needed" ("Ref") "the kernel must ask before acting on this";
    Derived "resolved_focus" ("RawRef", "Path", "Symbol") "the one confident grounding of a reference";
    Derived "clarification_pending" () "some clarification is needed";
    Derived "candidate" ("Strategy") "a strategy the request and world allow";
    Derived "strategy" ("Strategy") "the one active strategy";
    Derived "proposed" ("Action") "an action the active strategy proposes";
    Derived "refactor_blocked" () "an unsafe refactor target lacks approval";
    Derived "next_action" ("Action") "the next step, guarded by clarification";
    Derived "block_commit" ("Reason", "Path", "Line") "a reason the commit must not land";
    Derived "surface" ("Mode") "how the turn's outcome is shown: question, answer, diff or summary";
    Derived "commit_blocked" () "some reason blocks the commit and no override is recorded";
    Derived "commit_overridden" ("Reason") "the commit is blocked but a human overrode it";
    Derived "watchdog_stop" ("Program", "RefusedSeq", "ExecutedSeq") "a refused program ran later anyway: stop";
    Derived "watchdog_pause" ("Failed", "Recent") "most recent actions failed: pause and ask";
    Derived "denied" ("ActionId", "Reason") "a rule of the constitution refuses the action";
    Derived "mutating" ("ActionId") "the action changes files or repository state";
    Derived "risk" ("ActionId", "Level") "the action's risk: low, medium, high, critical";
    Derived "route" ("ActionId", "Route") "auto, sandbox or ask, from risk and autonomy";
    Derived "permitted" ("ActionId") "the router may run exactly this action";
}

/// Looks a predicate up by name.
pub fn predicate(name: &str) -> Option<&'static Predicate> {
    PREDICATES.iter().find(|p| p.name == name)
}
