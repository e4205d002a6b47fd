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
    Derived "commit_blocked" () "some reason blocks the commit and no override is recorded";
    Derived "commit_overridden" ("Reason") "the commit is blocked but a human overrode it";
}

/// Looks a predicate up by name.
pub fn predicate(name: &str) -> Option<&'static Predicate> {
    PREDICATES.iter().find(|p| p.name == name)
}
