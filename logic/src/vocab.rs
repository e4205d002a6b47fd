//! The closed vocabularies of nerd's facts (severities, intent verbs, strategies,
//! actions...). Defined once here and shared by the logic, the CLI and, later,
//! the transducer schemas. Knows nothing about how facts are gathered.

use std::fmt;
use std::str::FromStr;

/// Error for a word outside a closed vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWord {
    pub vocabulary: &'static str,
    pub word: String,
    pub expected: &'static [&'static str],
}

impl fmt::Display for UnknownWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}` (expected one of: {})", self.vocabulary, self.word, self.expected.join(", "))
    }
}

impl std::error::Error for UnknownWord {}

/// Declares a fieldless enum whose variants have one canonical lowercase name.
macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident, $label:literal { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every member, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every canonical name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownWord;
            fn from_str(s: &str) -> Result<Self, UnknownWord> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownWord { vocabulary: $label, word: s.to_string(), expected: Self::NAMES }),
                }
            }
        }
    };
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

vocabulary!(
    /// Severity of a compiler, linter or test diagnostic.
    Severity, "severity" { Error => "error", Warning => "warning", Note => "note" }
);

vocabulary!(
    /// Outcome of one test case as reported by a test runner.
    TestOutcome, "test outcome" { Pass => "pass", Fail => "fail", Error => "error", Skip => "skip" }
);

vocabulary!(
    /// Kind of a projected symbol.
    SymbolKind, "symbol kind" {
        Function => "function", Method => "method", Struct => "struct", Class => "class",
        Interface => "interface", Trait => "trait", Enum => "enum", Type => "type",
        Const => "const", Variable => "variable", Module => "module", Test => "test",
    }
);

impl SymbolKind {
    /// Whether a symbol of this kind is code that runs when called: a
    /// function, a method or a test. Coverage credits each line that runs to
    /// the innermost such symbol holding it; locals are scoped by it.
    pub fn is_code(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method | SymbolKind::Test)
    }
}

vocabulary!(
    /// A kind of sub-task the kernel hands to an ephemeral generalist.
    Task, "delegated task" { Survey => "survey" }
);

vocabulary!(
    /// How a delegated child ended, read back from its report: it did its
    /// task, it failed (or gave no report), or its own router or kernel refused.
    ChildStatus, "child status" { Done => "done", Failed => "failed", Refused => "refused" }
);

vocabulary!(
    /// How a call edge was established, from strongest to weakest evidence:
    /// a language's own indexer (`precise`), name resolution that proved it
    /// (`exact`), an inferred receiver type or interface dispatch (`inferred`),
    /// a call the language makes where no syntax writes one (`implicit`: a
    /// Rust value's `Drop::drop`, credited to the function that makes the
    /// value, at its definition), a bare-name guess (`name_only`). What a test
    /// run was seen to execute is not a call edge (it has no call site): it is
    /// `covers`.
    Provenance, "provenance" {
        Precise => "precise", Exact => "exact", Inferred => "inferred", Implicit => "implicit", NameOnly => "name_only",
    }
);

impl Provenance {
    /// Whether rules may follow the edge as a fact (`name_only` edges only make statements uncertain).
    pub fn is_certain(self) -> bool {
        self != Provenance::NameOnly
    }
}

vocabulary!(
    /// Visibility of a projected symbol outside its module or file.
    Visibility, "visibility" { Public => "public", Private => "private" }
);

vocabulary!(
    /// Category of a perceived user intent.
    Category, "intent category" { Query => "query", Mutation => "mutation", Instruction => "instruction" }
);

vocabulary!(
    /// The controlled verb of a perceived user intent.
    Verb, "intent verb" {
        Explain => "explain", Search => "search", Review => "review", Impact => "impact", Status => "status",
        Fix => "fix", Refactor => "refactor", Rename => "rename", Implement => "implement", Test => "test",
        Document => "document", Delete => "delete", Scaffold => "scaffold", Commit => "commit",
        Forbid => "forbid", Require => "require", Prefer => "prefer",
        Remember => "remember", Forget => "forget",
    }
);

impl Verb {
    /// The one category each verb belongs to: the vocabulary is partitioned.
    pub fn category(self) -> Category {
        use Verb::*;
        match self {
            Explain | Search | Review | Impact | Status => Category::Query,
            Fix | Refactor | Rename | Implement | Test | Document | Delete | Scaffold | Commit => Category::Mutation,
            Forbid | Require | Prefer | Remember | Forget => Category::Instruction,
        }
    }
}

vocabulary!(
    /// How much context an intent asks for.
    ContextHint, "context hint" { Narrow => "narrow", Broad => "broad" }
);

vocabulary!(
    /// What the last test run said, as one state of the TDD state machine.
    /// `passing` is a verified pass (the runner's summary, at least one test
    /// run); `unverified` means nothing failed but nothing was verified either
    /// (a missing runner, no test collected, no summary).
    TestState, "test state" {
        Unknown => "unknown", Passing => "passing", Failing => "failing", BuildBroken => "build_broken",
        Unverified => "unverified",
    }
);

vocabulary!(
    /// A strategy the kernel can pursue. Exactly one is active per fixpoint.
    Strategy, "strategy" {
        Refuse => "refuse", Clarify => "clarify", CommitGate => "commit_gate", TddRepairLoop => "tdd_repair_loop",
        Refactor => "refactor", WriteTests => "write_tests", ProjectInit => "project_init", Implement => "implement",
        RecordInstruction => "record_instruction", UpdateMemory => "update_memory", Review => "review",
        BreadthFirstSurvey => "breadth_first_survey", AnswerFromFacts => "answer_from_facts",
        Idle => "idle",
    }
);

impl Strategy {
    /// Precedence when several strategies are candidates; unique per strategy,
    /// which is what makes the active strategy unique.
    pub fn rank(self) -> u8 {
        // Declaration order is precedence order: the first declared wins.
        let position = Strategy::ALL.iter().position(|s| *s == self).unwrap_or(0);
        u8::try_from(Strategy::ALL.len() - position).unwrap_or(0)
    }
}

vocabulary!(
    /// The next step the kernel derives. Only `ask_*` actions are interrogative.
    Action, "action" {
        AskClarification => "ask_clarification", AskApproval => "ask_approval", RefuseRequest => "refuse_request",
        RunTests => "run_tests", ProposePatch => "propose_patch", ApplyPatch => "apply_patch",
        Escalate => "escalate", ReportSuccess => "report_success", ReportUnverified => "report_unverified",
        ApplyRefactor => "apply_refactor", CheckMutants => "check_mutants", WithdrawPatch => "withdraw_patch",
        AnswerQuery => "answer_query", Delegate => "delegate", Survey => "survey", ReviewChanges => "review_changes",
        ProposeEdit => "propose_edit", Scaffold => "scaffold", RecordRule => "record_rule",
        UpdateMemory => "update_memory",
        RunChecks => "run_checks",
    }
);

vocabulary!(
    /// The closed set of things the agent can do; the router matches them exhaustively.
    ActionKind, "action kind" {
        Exec => "exec", ReadFile => "read_file", WriteFile => "write_file", DeleteFile => "delete_file",
        NetRequest => "net_request", Search => "search", Browse => "browse", Spawn => "spawn", Memory => "memory",
    }
);

vocabulary!(
    /// How an action touches a path.
    Access, "access" { Read => "read", Write => "write", Delete => "delete" }
);

vocabulary!(
    /// What a normalised, symlink-resolved path is to the workspace: inside it;
    /// outside it; a secret; protected (`.git/`, `.nerd/`: read-only); a
    /// persistence file that tools run later (`.github/workflows/`, `.cargo/config.toml`...:
    /// writing one needs a human); a harmless device (`/dev/null`).
    PathClass, "path class" {
        Inside => "inside", Outside => "outside", Secret => "secret", Protected => "protected",
        Persistence => "persistence", Device => "device",
    }
);

vocabulary!(
    /// Why a request asks for what nerd cannot do.
    Unworkable, "unworkable reason" {
        BinaryFile => "binary_file", OutsideWorkspace => "outside_workspace",
    }
);

vocabulary!(
    /// What a command line costs, from its program's specification, in increasing order.
    Effect, "effect" { Read => "read", Mutating => "mutating", Critical => "critical" }
);

vocabulary!(
    /// What a network target is.
    NetClass, "network class" { Public => "public", Private => "private", Loopback => "loopback", Metadata => "metadata" }
);

vocabulary!(
    /// Risk of an action, in increasing order.
    Risk, "risk" { Low => "low", Medium => "medium", High => "high", Critical => "critical" }
);

vocabulary!(
    /// How an action may run: directly, confined, or only after a human says yes.
    Route, "route" { Auto => "auto", Sandbox => "sandbox", Ask => "ask" }
);

vocabulary!(
    /// How a turn's outcome is shown to the user.
    SurfaceMode, "surface mode" { Question => "question", Answer => "answer", Diff => "diff", Summary => "summary" }
);

vocabulary!(
    /// What became of an action the router was given.
    ActionOutcome, "action outcome" { Executed => "executed", Refused => "refused", Failed => "failed" }
);

vocabulary!(
    /// How much the user lets nerd do without asking.
    Autonomy, "autonomy profile" { Cautious => "cautious", Balanced => "balanced", Autonomous => "autonomous" }
);

// The vocabulary macro fixes the derive lists, so the defaults are written out.
#[allow(clippy::derivable_impls)]
impl Default for Autonomy {
    fn default() -> Self {
        Autonomy::Balanced
    }
}

#[allow(clippy::derivable_impls)]
impl Default for TestState {
    fn default() -> Self {
        TestState::Unknown
    }
}

impl Action {
    /// Interrogative actions only ask the user; they never change the world.
    pub fn is_interrogative(self) -> bool {
        matches!(self, Action::AskClarification | Action::AskApproval | Action::Escalate | Action::RefuseRequest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in Verb::ALL {
            assert_eq!(v.as_str().parse::<Verb>(), Ok(*v));
        }
        for a in Action::ALL {
            assert_eq!(a.as_str().parse::<Action>(), Ok(*a));
        }
        let err = "yeet".parse::<Verb>().unwrap_err();
        assert!(err.to_string().contains("expected one of: explain"));
    }

    #[test]
    fn strategy_ranks_are_unique() {
        let mut ranks: Vec<u8> = Strategy::ALL.iter().map(|s| s.rank()).collect();
        ranks.sort();
        ranks.dedup();
        assert_eq!(ranks.len(), Strategy::ALL.len());
        assert!(Strategy::Clarify.rank() > Strategy::TddRepairLoop.rank());
        assert_eq!(Strategy::Idle.rank(), 1);
    }

    #[test]
    fn every_verb_has_exactly_its_category() {
        let queries: Vec<_> = Verb::ALL.iter().filter(|v| v.category() == Category::Query).collect();
        assert_eq!(queries.len(), 5);
        assert_eq!(Verb::Search.category(), Category::Query);
        assert_eq!(Verb::Delete.category(), Category::Mutation);
    }
}
