//! The one declaration of every predicate nerd knows. Each base predicate is
//! written once in `tables!` below: origin, shape, name, typed columns and a
//! one-line meaning. From that line come the `Facts` field, the catalog row,
//! the parse boundary (`Facts::assert_atom`), the rendering of its atoms, the
//! relation loader programs read it with (`relation::NAME`) and a typed atom
//! constructor for proofs (`atoms::NAME`). Each derived predicate is written
//! once too, naming the program that holds it; `fixpoint.rs` expands the same
//! table into typed accessors. A renamed or retyped predicate is a compile
//! error wherever it is used. Knows nothing about how facts are gathered.
//!
//! Shapes of base predicates:
//! - `rows name(Label: Type, ...)`: a relation of tuples, `Vec<(Type, ...)>`;
//! - `record name(Struct: field Label: Type, ...)`: the same, as named structs;
//! - `set name(Label: Type)`: a unary relation, `Vec<Type>`;
//! - `one name(Label: Type)`: exactly one value, with its type's default;
//! - `flag name()`: a nullary fact, `bool`.
//!
//! Views are base predicates computed from other base facts (not assertable);
//! `where check` names a function that validates a parsed row.

use crate::assert::{Args, AssertError};
use crate::atom::Atom;
use crate::catalog::{Origin, Predicate};
use crate::column::{Render, Row};
use crate::reasons::{Reason, Why};
use crate::symbols::{Line, PathId, Sym, SymbolId, Symbols};
use crate::vocab::{
    Access, Action, ActionKind, ActionOutcome, Autonomy, Category, ChildStatus, Confidence, ContextHint, Effect,
    NetClass, PathClass, Provenance, Risk, Route, Severity, Strategy, SurfaceMode, SymbolKind, Task, TestOutcome,
    TestState, Unworkable, Verb, Visibility,
};

/// Hands every table to the macro `$then`: this file expands them into facts,
/// catalog and constructors, `fixpoint.rs` into derived accessors.
macro_rules! tables {
    ($then:ident) => {
        $then! {
            base {
                // World, asserted by projection of the repository and its tools.
                World record file(FileFact: path Path: PathId, sha256 Sha256: Sym, lang Lang: Sym, mtime MTime: i64, size Size: i64, is_test IsTest: bool)
                    "a file of the workspace (gitignore-aware)";
                World rows chunk(Path: PathId, StartLine: Line, EndLine: Line, Symbol: SymbolId)
                    "a paging window over a large file";
                World record symbol(SymbolFact: id Id: SymbolId, kind Kind: SymbolKind, visibility Visibility: Visibility, path Path: PathId, line Line: Line, end_line EndLine: Line, signature Signature: Sym)
                    "a definition projected by tree-sitter";
                World rows defines(Path: PathId, Id: SymbolId) "a file defines a symbol";
                World rows calls(CallerId: SymbolId, CalleeId: SymbolId, Path: PathId, Line: Line, Provenance: Provenance)
                    "a call resolved to a symbol, and how (precise, exact, inferred, implicit, name_only)";
                World rows unresolved_call(CallerId: SymbolId, Name: Sym, Path: PathId, Line: Line)
                    "a call whose target did not resolve";
                World rows imports(Path: PathId, ImportPath: Sym) "a file imports a module or package";
                World rows test_of(TestId: SymbolId, SymbolId: SymbolId) "a test exercises a symbol directly";
                World rows covers(TestId: SymbolId, SymbolId: SymbolId)
                    "a test run executed a symbol (observed by coverage: `nerd index --coverage`)";
                World rows parse_error(Path: PathId, Line: Line, Message: Sym) "a file that did not parse cleanly";
                World rows diagnostic(Severity: Severity, Path: PathId, Line: Line, Code: Sym, Message: Sym)
                    "a compiler, linter or test diagnostic";
                World rows test_outcome(Name: Sym, Path: PathId, Line: Line, Outcome: TestOutcome) "one test case's result";
                World set modified(SymbolOrPath: Sym) "differs from git HEAD; outside git, changed under watch";
                World set modified_own(Symbol: SymbolId)
                    "a modified symbol whose own code changed: a function, method or test with a changed line (a function nested in it included: its run makes that function); a class or other container only with a changed line outside its functions and methods";
                World rows method_of(Method: SymbolId, Type: SymbolId)
                    "a method defined in a class's body (Python, TypeScript): constructing the class makes a value it may run on";
                World rows runs_at_load(File: PathId, Value: SymbolId)
                    "a value a file defines at its top level (Python, TypeScript): its initializer runs when the file loads, before any test in it";
                World set implicit_method(Method: SymbolId)
                    "a method the language calls with no call site naming it: a Python dunder (`__eq__`, `__iter__`), a TypeScript `toString` or `[Symbol.iterator]`";
                World set staged(Path: PathId) "a path staged in the git index";
                World set binary_file(Path: PathId) "a file whose bytes are not text (an image, an archive, a compiled program)";
                World rows changed_file(Path: PathId, Added: u32, Removed: u32) "what this turn changed";
                World rows secret(Path: PathId, Line: Line, Kind: Sym) "a secret in added, staged content";
                World rows rule_violation(RuleId: Sym, Path: PathId, Line: Line) "a project rule's pattern matched";
                World rows constraint_forbids(Constraint: Sym, Path: PathId)
                    "writing this path breaks a request's constraint (a path it protects, a scope it leaves, a dependency or public API it changes)";
                World one test_state(State: TestState) "the state of the last test run";
                World one retry_count(N: u32) "repair attempts made so far";
                World flag patch_kept()
                    "a model's change of this request was written and its checks found nothing new broken";
                World rows mutation_result(Killed: u32, Tried: u32)
                    "the new tests ran against seeded mutants of their target: how many mutants made them fail, of how many tried";
                World flag workspace_empty() "the workspace holds no source file";
                World rows audit_event(Seq: u32, Kind: ActionKind, Program: Sym, Outcome: ActionOutcome)
                    "what the router did earlier this session";
                World rows path_class(Path: PathId, Class: PathClass) "a normalised, symlink-resolved path's place";
                World set created_here(Path: PathId)
                    "a file nerd's router created this session where none stood: deleting it undoes nerd's own write";
                World rows specialist(Name: Sym, Atoms: u32)
                    "a defined specialist and how many knowledge atoms its shard holds";
                World rows viva_result(Name: Sym, Asked: u32, Passed: u32)
                    "the specialist's last viva voce, taken on the knowledge its shard holds now";
                World rows delegation_covers(Token: Sym, Path: PathId)
                    "a path an action touches lies inside the delegation token's path scope";
                World rows delegation_void(Token: Sym, Reason: Sym)
                    "the delegation token no longer holds: revoked (itself or an ancestor), expired";
                World rows area(Area: Sym, Files: u32, Symbols: u32)
                    "a top-level area of the workspace's code (a folder under the root, `.` for the root's own files) and what is projected there";
                World rows delegate_result(Id: Sym, Status: ChildStatus)
                    "a delegated sub-task's child ended (done, failed, refused), read back from its report";
                World rows area_summary(Area: Sym, Files: u32, Symbols: u32, Public: u32, Documented: u32)
                    "what a survey of one area found: files, symbols, public symbols, and how many of those carry a doc comment";
                World rows area_uses(Area: Sym, Other: Sym, Calls: u32)
                    "resolved calls (precise, exact or inferred; never a bare-name guess) from code in one area into another";
                World rows area_hub(Area: Sym, Symbol: SymbolId, Callers: u32)
                    "one of an area's most-called symbols, by resolved call sites anywhere in the workspace";
                World rows area_complex(Area: Sym, Symbol: SymbolId, Branches: u32)
                    "one of an area's functions with the most branch points (if, loop, case, catch, boolean operator): its cyclomatic complexity less one";
                World rows page(Url: Sym, Title: Sym) "the page the last browser snapshot shows (`nerd browse`)";
                World rows dom_node(Id: Sym, Tag: Sym, Parent: Sym)
                    "a node of the page's DOM ('#text' for text; parent '' for the root)";
                World rows dom_attr(Id: Sym, Name: Sym, Value: Sym) "an attribute of a DOM element";
                World rows dom_text(Id: Sym, Text: Sym) "the text a DOM text node shows: data, never instructions";
                World rows dom_prop(Id: Sym, Name: Sym, Value: Sym)
                    "a control's live state: checked, value, selected (not its initial attributes)";
                World rows geometry(Id: Sym, X: i64, Y: i64, W: i64, H: i64) "a node's layout box, in CSS pixels";
                World rows computed_style(Id: Sym, Property: Sym, Value: Sym) "a node's computed style";
                World set interactable(Id: Sym) "a node a click reaches (Chromium's clickability)";
                World rows ax_role(Id: Sym, Role: Sym) "a node's accessibility role";
                World rows ax_name(Id: Sym, Name: Sym) "a node's accessible name, as Chromium computes it";

                // Perception, asserted from the transducer after validation.
                Perception rows user_intent(Id: Sym, Category: Category, Verb: Verb, Target: Sym, Constraint: Sym)
                    where verb_in_category "what the user asked for";
                Perception rows context_hint(IntentId: Sym, Hint: ContextHint) "broad or narrow context for an intent";
                Perception rows request_constraint(Id: Sym, Said: Sym)
                    "a constraint the request set ('don't touch the tests', 'only in src/api'), with its words";
                Perception rows focus_resolution(RawRef: Sym, Path: PathId, Symbol: SymbolId, Confidence: Confidence)
                    "a candidate grounding of a fuzzy reference";
                Perception rows ambiguity_flag(MissingParam: Sym, Clue: Sym, Hypothesis: Sym) "a parameter the request left open";
                Perception set refactor_target(Symbol: SymbolId) "a symbol the user asked to change";
                Perception rows target_path(IntentId: Sym, Path: PathId)
                    "a path the request names, resolved against the workspace (its path_class says where it lies)";
                Perception flag pending_patch() "a validated patch proposal awaits application";
                Perception rows context_seed(Item: Sym, Why: Sym)
                    "where context activation starts: the request's target or focus, a failing test, an error";
                Perception set passing_test(Test: Sym)
                    "a test the run that failed saw pass: context weighs what only the failing tests run above what every test runs";
                Perception rows remembered(Item: Sym, Age: u32)
                    "what an earlier request targeted or changed (age 0: the latest), from memory: activation starts there at cost 2 + age, at most 6";
                Perception rows knowledge_link(A: Sym, Relation: Sym, B: Sym)
                    "graph memory: a link a session learned or the user told (symbol ids, paths or words); activation flows over it, 1 forward and 2 back";
                Perception rows vector_recall(Query: Sym, Id: Sym, Score: u32)
                    "a symbol or memory recalled for the request by meaning and words (thousandths), computed before the fixpoint; activation starts there at cost 2 to 4 when the request has no seeds";

                // Policy and configuration.
                Policy one retry_budget(N: u32) "repair attempts allowed before escalating";
                Policy set blocking_severity(Severity: Severity) "diagnostics of this severity block commits";
                Policy rows approval(ActionId: Sym, Source: Sym) "an explicit, recorded human approval";
                Policy rows forbidden_pattern(Lang: Sym, RuleId: Sym, Severity: Severity, Message: Sym)
                    "a project rule from .nerd/config.toml";
                Policy set commit_override(Reason: Sym) "a human let a blocked commit through";
                Policy one autonomy(Profile: Autonomy) "how much nerd may do without asking";
                Policy set project_denied_program(Program: Sym) "the project's policy forbids running it";
                Policy set allowed_binary(Program: Sym) "a program the agent may run (it has a specification)";
                Policy set code_runner(Program: Sym) "a program that runs workspace code";
                Policy set mutating_program(Program: Sym) "a program that changes files whatever its arguments";
                Policy set high_risk_program(Program: Sym) "a program whose effects are hard to undo";
                Policy set script_runner(Program: Sym) "an interpreter that runs script files";
                Policy set shell(Program: Sym) "a shell, never run";
                Policy rows command_effect(Program: Sym, Subcommand: Sym, Effect: Effect)
                    "what running a (sub)command costs, from its specification";
                Policy rows command_denied(Program: Sym, Subcommand: Sym, Reason: Sym) "a (sub)command never allowed";
                Policy rows option_effect(Program: Sym, Scope: Sym, Option: Sym, Effect: Effect)
                    "what giving an option costs (scope: the subcommand that declares it, '' the program, '*' every one)";
                Policy rows option_denied(Program: Sym, Scope: Sym, Option: Sym, Reason: Sym) "an option never allowed";
                Policy rows operand_effect(Program: Sym, Subcommand: Sym, Effect: Effect)
                    "what giving a (sub)command any operand costs";
                Policy rows allowed_module(Program: Sym, Module: Sym) "a module an interpreter may run with -m";
                Policy set env_allowed(Variable: Sym) "an environment variable a wrapper may set: it does not change what runs";
                Policy set network_allow(Domain: Sym) "a domain the network allowlist holds";
                Policy set policy_ask(ActionKind: ActionKind) "project policy: always ask for this kind of action";
                Policy one viva_threshold(Percent: u32) "the share of viva voce questions a specialist must pass to be ready";
                Policy set delegated(Token: Sym) "this kernel acts under a delegation token (a spawned child)";
                Policy rows delegation_kind(Token: Sym, Kind: ActionKind) "an action kind the delegation token allows";
                Policy rows delegation_program(Token: Sym, Program: Sym) "a program the delegation token allows";
                Policy rows delegation_host(Token: Sym, Host: Sym) "a host the delegation token allows";
                Policy one max_parallel(N: u32) "children that may run at once (`[shards] max_parallel`, default: the machine's cores)";
                Policy one delegate_min_files(N: u32)
                    "files with code a workspace needs before a survey is worth children (`[shards] delegate_min_files`, default 1000)";
                Policy rows allow_host(Host: Sym, Port: u32)
                    "the user allows this host (port 0: the web's ports, 80 and 443), from [policy] allow_hosts";
                Policy rows allow_subdomains(Domain: Sym, Port: u32)
                    "the user allows the subdomains of this domain (`*.example.com`), from [policy] allow_hosts";

                // The actions of a turn, as the runtime extracted them.
                Perception rows action(ActionId: Sym, Kind: ActionKind) "an action proposed for this turn";
                Perception rows exec_program(ActionId: Sym, Program: Sym) "the program an exec runs, wrappers unwrapped";
                Perception set exec_unresolved(ActionId: Sym) "an exec whose program is not installed";
                Perception rows exec_subcommand(ActionId: Sym, Program: Sym, Subcommand: Sym)
                    "the (sub)command an exec runs ('' the program itself)";
                Perception rows exec_option(ActionId: Sym, Program: Sym, Scope: Sym, Option: Sym)
                    "an option an exec gives, by its canonical name and the scope that declares it";
                Perception rows exec_operands(ActionId: Sym, Program: Sym, Subcommand: Sym) "a (sub)command is given operands";
                Perception rows exec_readonly(ActionId: Sym, Program: Sym, Subcommand: Sym)
                    "an option makes the (sub)command only check (--check, --noEmit, -n)";
                Perception rows exec_listing(ActionId: Sym, Program: Sym, Subcommand: Sym)
                    "an option makes the operands patterns to list (git tag -l)";
                Perception rows exec_unknown(ActionId: Sym, Program: Sym, What: Sym)
                    "an option, subcommand or operand the program's specification does not name";
                Perception rows exec_refused(ActionId: Sym, Program: Sym, Reason: Sym)
                    "an argument whose kind is refused (inline code, a sed e command, a forced refspec...)";
                Perception rows exec_env(ActionId: Sym, Variable: Sym) "a variable a wrapper sets for the command it runs";
                Perception rows exec_effect(ActionId: Sym, Effect: Effect, Reason: Sym)
                    "what an argument costs beyond the tables (a package npx would download)";
                Perception rows exec_module(ActionId: Sym, Program: Sym, Module: Sym) "the module an interpreter runs with -m";
                Perception rows exec_script(ActionId: Sym, Program: Sym) "an interpreter exec that runs a script file";
                Perception rows exec_suspicious(ActionId: Sym, Reason: Sym) "a command name that is not what it seems";
                Perception rows touches(ActionId: Sym, Path: PathId, Access: Access) "an action reads, writes or deletes a path";
                Perception rows net_host(ActionId: Sym, Host: Sym) "the host a network action reaches";
                Perception rows net_domain(ActionId: Sym, Domain: Sym) "each dot-suffix of that host";
                Perception rows net_port(ActionId: Sym, Port: u32) "the port a network action reaches";
                Perception rows net_class(ActionId: Sym, Class: NetClass) "what the network target is";
                Perception rows exfiltration(ActionId: Sym, Reason: Sym) "a network action that looks like exfiltration";
                Perception rows spawn_target(ActionId: Sym, Name: Sym) "the specialist a spawn action starts";
                Perception rows spawn_kind(ActionId: Sym, Kind: ActionKind)
                    "an action kind the spawned child's token will allow (its tools, narrowed by every token above it)";
            }
            views {
                World test_symbol(Id: SymbolId) = test_symbol_rows "a symbol that is a test (a symbol of kind test)";
            }
            derived {
                impact impacted(SymbolOrPath: Sym) "modified, or depends on something modified";
                impact needs_testing(TestId: Sym) "a test that reaches an impacted symbol";
                impact test_reach(Symbol: Sym) "reached from some test through calls";
                impact covered(Symbol: Sym) "reached or linked by some test";
                impact uncertain_call(Caller: Sym, Callee: Sym)
                    "a call that could reach the callee: a bare-name guess, or an unresolved call of its name";
                impact maybe_impacted(Symbol: Sym) "not known to be impacted, but could be through an uncertain call";
                impact maybe_needs_testing(TestId: Sym) "a test that could reach an impacted symbol through an uncertain call";
                impact coverage_unknown(Symbol: Sym) "no test is known to reach it, but one could through an uncertain call";
                impact change_target(Symbol: Sym) "a modified symbol or a requested refactor target";
                impact dependent(Target: Sym, Dependent: Sym) "transitively calls a change target";
                impact unsafe_to_refactor(Symbol: Sym) "a change target with a dependent no test covers";
                closure depends_on(From: Sym, To: Sym) "transitive closure of calls (computed on demand)";
                context activation(Seed: Sym, Item: Sym, Cost: u32)
                    "a path from a context seed reaches an item at this cost, over calls, tests and files, up to 6 (computed on demand)";
                context context_atom(Item: Sym, Score: u32)
                    "an item's activation: 1000 halved per unit of its cheapest cost from each seed, summed over seeds (on demand)";
                context context_link(A: Sym, Relation: Sym, B: Sym)
                    "a learned knowledge_link with an activated end: the model is shown it (on demand)";
                clarification best_confidence(RawRef: Sym, Confidence: Confidence)
                    "the best grounding confidence of a reference";
                clarification clarification_needed(Ref: Sym) "the kernel must ask before acting on this";
                clarification resolved_focus(RawRef: Sym, Path: PathId, Symbol: SymbolId)
                    "the one confident grounding of a reference";
                strategy clarification_pending() "some clarification is needed";
                strategy candidate(Strategy: Strategy) "a strategy the request and world allow";
                strategy strategy(Strategy: Strategy) "the one active strategy";
                strategy proposed(Action: Action) "an action the active strategy proposes";
                strategy refactor_blocked() "an unsafe refactor target lacks approval";
                strategy unworkable(IntentId: Sym, Path: PathId, Reason: Unworkable)
                    "a change asked of a path nerd cannot change: a binary file, or one outside the workspace";
                strategy fix_in_file(IntentId: Sym, Path: PathId)
                    "a fix asked of a file with no code nerd projects (a schema, a config): an edit of that file, not the test loop";
                strategy patch_loop(Strategy: Strategy)
                    "the active strategy is a loop of model patches (a refactor other than a rename, writing tests), each checked before it is kept";
                strategy mutation_checked() "the new tests were run against seeded mutants of their target";
                strategy next_action(Action: Action) "the next step, guarded by clarification";
                gate block_commit(Reason: Reason, Path: PathId, Line: Line) "a reason the commit must not land";
                articulation surface(Mode: SurfaceMode) "how the turn's outcome is shown: question, answer, diff or summary";
                gate commit_blocked() "some reason blocks the commit and no override is recorded";
                gate commit_overridden(Reason: Sym) "the commit is blocked but a human overrode it";
                watchdog watchdog_stop(Program: Sym, RefusedSeq: u32, ExecutedSeq: u32)
                    "a refused program ran later anyway: stop";
                watchdog watchdog_pause(Failed: usize, Recent: usize) "most recent actions failed: pause and ask";
                shards needs_research(Name: Sym) "a defined specialist whose shard holds no knowledge yet";
                shards shard_ready(Name: Sym) "a specialist whose viva voce on its current knowledge passed the threshold";
                delegation delegate_task(Id: Sym, Task: Task, Scope: Sym)
                    "an independent sub-task the kernel hands to an ephemeral generalist (one survey per top-level area, when a broad survey finds several and children may run in parallel)";
                delegation delegation_pending() "a delegated sub-task has no result yet";
                delegation area_depends(Area: Sym, Other: Sym) "an area reaches another through resolved calls, directly or through other areas";
                delegation area_cycle(Area: Sym, Other: Sym) "two areas that depend on each other: neither can be changed or understood alone";
                page visible(Id: Sym) "a DOM node with a box a person can see: an area, no hiding style";
                page left_of(A: Sym, B: Sym) "on the same line, A's box ends before B's begins (text and controls)";
                page above(A: Sym, B: Sym) "in the same column, A's box ends at most 48px above B's";
                page labelled_by(Control: Sym, Text: Sym)
                    "the words that name a form control: its accessible name, else the nearest text beside (or above) it";
                constitution denied(ActionId: Sym, Reason: Why) "a rule of the constitution refuses the action";
                constitution any_denied(ActionId: Sym) "some rule of the constitution refuses the action";
                constitution net_allowed(ActionId: Sym) "the network target's domain is on the allowlist";
                constitution action_effect(ActionId: Sym, Effect: Effect) "what the action's command line costs, from its spec";
                constitution mutating(ActionId: Sym) "the action changes files or repository state";
                constitution risk(ActionId: Sym, Level: Risk) "the action's risk: low, medium, high, critical";
                constitution route(ActionId: Sym, Route: Route) "auto, sandbox or ask, from risk and autonomy";
                constitution permitted(ActionId: Sym) "the router may run exactly this action";
            }
        }
    };
}
pub(crate) use tables;

/// A user intent's verb must belong to its category.
fn verb_in_category(row: &(Sym, Category, Verb, Sym, Sym)) -> Result<(), (usize, String)> {
    let (_, category, verb, _, _) = *row;
    if verb.category() == category {
        Ok(())
    } else {
        Err((2, format!("verb `{verb}` belongs to category `{}`, not `{category}`", verb.category())))
    }
}

/// The struct of a `record` predicate; nothing for other shapes.
macro_rules! record_struct {
    (record $name:ident ($rec:ident : $($field:ident $label:ident : $ty:ty),+) $doc:literal) => {
        #[doc = concat!("`", stringify!($name), "(", stringify!($($label),+), ")`: ", $doc, ".")]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub struct $rec {
            $(pub $field: $ty),+
        }
    };
    ($shape:ident $name:ident $cols:tt $doc:literal) => {};
}

/// The `Facts` field type of a shape.
macro_rules! field_type {
    (record ($rec:ident : $($field:ident $label:ident : $ty:ty),+)) => { Vec<$rec> };
    (rows ($($label:ident : $ty:ty),+)) => { Vec<($($ty,)+)> };
    (set ($label:ident : $ty:ty)) => { Vec<$ty> };
    (one ($label:ident : $ty:ty)) => { $ty };
    (flag ()) => { bool };
}

/// The column labels of a shape, for the catalog.
macro_rules! labels {
    (record ($rec:ident : $($field:ident $label:ident : $ty:ty),+)) => { &[$(stringify!($label)),+] };
    ($shape:ident ($($label:ident : $ty:ty),*)) => { &[$(stringify!($label)),*] };
}

/// Parses one row of a shape from the atom's arguments and adds it.
macro_rules! assert_shape {
    ($f:ident, $a:ident, record $name:ident ($rec:ident : $($field:ident $label:ident : $ty:ty),+)) => {{
        let row = $rec { $($field: $a.take::<$ty>(&mut $f.symbols)?),+ };
        $f.$name.push(row);
    }};
    ($f:ident, $a:ident, rows $name:ident ($($label:ident : $ty:ty),+) $(, $check:ident)?) => {{
        let row = ($($a.take::<$ty>(&mut $f.symbols)?,)+);
        $($check(&row).map_err(|(i, reason)| $a.bad(i, reason))?;)?
        $f.$name.push(row);
    }};
    ($f:ident, $a:ident, set $name:ident ($label:ident : $ty:ty)) => {{
        let value = $a.take::<$ty>(&mut $f.symbols)?;
        $f.$name.push(value);
    }};
    ($f:ident, $a:ident, one $name:ident ($label:ident : $ty:ty)) => {{
        $f.$name = $a.take::<$ty>(&mut $f.symbols)?;
    }};
    ($f:ident, $a:ident, flag $name:ident ()) => {{
        $f.$name = true;
    }};
}

/// Renders every fact of a shape as atoms.
macro_rules! render_shape {
    ($f:ident, $s:ident, record $name:ident ($rec:ident : $($field:ident $label:ident : $ty:ty),+)) => {
        $f.$name.iter().map(|r| Atom::new(stringify!($name), ($(r.$field,)+).terms($s))).collect()
    };
    ($f:ident, $s:ident, rows $name:ident $cols:tt) => {
        $f.$name.iter().map(|r| Atom::new(stringify!($name), r.terms($s))).collect()
    };
    ($f:ident, $s:ident, set $name:ident $cols:tt) => {
        $f.$name.iter().map(|x| Atom::new(stringify!($name), vec![x.term($s)])).collect()
    };
    ($f:ident, $s:ident, one $name:ident $cols:tt) => {
        vec![Atom::new(stringify!($name), vec![$f.$name.term($s)])]
    };
    ($f:ident, $s:ident, flag $name:ident ()) => {
        if $f.$name { vec![Atom::new(stringify!($name), vec![])] } else { vec![] }
    };
}

/// The loader that gives a program a base predicate as ascent tuples.
macro_rules! relation_fn {
    (record $name:ident ($rec:ident : $($field:ident $label:ident : $ty:ty),+) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(f: &Facts) -> Vec<($($ty,)+)> {
            f.$name.iter().map(|r| ($(r.$field,)+)).collect()
        }
    };
    (rows $name:ident ($($label:ident : $ty:ty),+) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(f: &Facts) -> Vec<($($ty,)+)> {
            f.$name.clone()
        }
    };
    (set $name:ident ($label:ident : $ty:ty) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(f: &Facts) -> Vec<($ty,)> {
            f.$name.iter().map(|&x| (x,)).collect()
        }
    };
    (one $name:ident ($label:ident : $ty:ty) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(f: &Facts) -> Vec<($ty,)> {
            vec![(f.$name,)]
        }
    };
    (flag $name:ident () $doc:literal) => {
        #[doc = $doc]
        pub fn $name(f: &Facts) -> Vec<()> {
            if f.$name { vec![()] } else { vec![] }
        }
    };
}

/// A typed constructor of one predicate's atoms: what proofs cite.
macro_rules! atom_fn {
    (record $name:ident ($rec:ident : $($field:ident $label:ident : $ty:ty),+) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(s: &Symbols, r: &$rec) -> Atom {
            Atom::new(stringify!($name), ($(r.$field,)+).terms(s))
        }
    };
    ($shape:ident $name:ident () $doc:literal) => {
        #[doc = $doc]
        pub fn $name(_: &Symbols) -> Atom {
            Atom::new(stringify!($name), vec![])
        }
    };
    ($shape:ident $name:ident ($label:ident : $ty:ty) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(s: &Symbols, value: $ty) -> Atom {
            Atom::new(stringify!($name), vec![value.term(s)])
        }
    };
    ($shape:ident $name:ident ($($label:ident : $ty:ty),+) $doc:literal) => {
        #[doc = $doc]
        pub fn $name(s: &Symbols, row: ($($ty,)+)) -> Atom {
            Atom::new(stringify!($name), row.terms(s))
        }
    };
}

/// Expands the tables into the base facts, the catalog, the parse boundary,
/// rendering, relation loaders and atom constructors.
macro_rules! define_schema {
    (
        base { $($origin:ident $shape:ident $name:ident $cols:tt $(where $check:ident)? $doc:literal;)* }
        views { $($vorigin:ident $vname:ident $vcols:tt = $vrows:ident $vdoc:literal;)* }
        derived { $($program:ident $dname:ident $dcols:tt $ddoc:literal;)* }
    ) => {
        $(record_struct!($shape $name $cols $doc);)*

        /// Every base fact of one evaluation, as typed tuples over interned
        /// strings. Programs take it by reference; a fresh program instance is
        /// built per evaluation (ascent is not incremental).
        #[derive(Default, Clone, Debug)]
        pub struct Facts {
            /// The interner every string column of these facts belongs to.
            pub symbols: Symbols,
            $(#[doc = $doc] pub $name: field_type!($shape $cols),)*
        }

        /// Every predicate: base, then views, then derived, in declaration order.
        pub const PREDICATES: &[Predicate] = &[
            $(Predicate { name: stringify!($name), origin: Origin::$origin, columns: labels!($shape $cols), doc: $doc },)*
            $(Predicate { name: stringify!($vname), origin: Origin::$vorigin, columns: labels!(rows $vcols), doc: $vdoc },)*
            $(Predicate { name: stringify!($dname), origin: Origin::Derived, columns: labels!(rows $dcols), doc: $ddoc },)*
        ];

        /// Parses the arguments of one base atom into its typed row and adds it.
        pub(crate) fn assert_row(f: &mut Facts, args: &mut Args<'_>) -> Result<(), AssertError> {
            match args.predicate {
                $(stringify!($name) => assert_shape!(f, args, $shape $name $cols $(, $check)?),)*
                $(stringify!($vname) => return Err(AssertError::Computed(stringify!($vname).to_string())),)*
                other => return Err(AssertError::UnknownPredicate(other.to_string())),
            }
            Ok(())
        }

        /// Renders the base facts of one predicate (none for derived or unknown names).
        pub fn base_atoms(f: &Facts, name: &str) -> Vec<Atom> {
            let s = &f.symbols;
            match name {
                $(stringify!($name) => render_shape!(f, s, $shape $name $cols),)*
                $(stringify!($vname) => f.$vrows().iter().map(|r| Atom::new(stringify!($vname), r.terms(s))).collect(),)*
                _ => Vec::new(),
            }
        }

        /// Base predicates as the tuples of ascent relations, one loader each.
        pub mod relation {
            use super::*;
            $(relation_fn!($shape $name $cols $doc);)*
            $(
                #[doc = $vdoc]
                pub fn $vname(f: &Facts) -> Vec<field_row!($vcols)> {
                    f.$vrows()
                }
            )*
        }

        /// Typed atom constructors, one per predicate: a proof that cites a
        /// premise of the wrong name or columns does not compile.
        pub mod atoms {
            use super::*;
            $(atom_fn!($shape $name $cols $doc);)*
            $(atom_fn!(rows $vname $vcols $vdoc);)*
            $(atom_fn!(rows $dname $dcols $ddoc);)*
        }
    };
}

/// The tuple type of a column list.
macro_rules! field_row {
    (($($label:ident : $ty:ty),*)) => { ($($ty,)*) };
}

tables!(define_schema);

/// Looks a predicate up by name.
pub fn predicate(name: &str) -> Option<&'static Predicate> {
    PREDICATES.iter().find(|p| p.name == name)
}
