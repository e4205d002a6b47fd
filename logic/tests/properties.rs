//! Properties the kernel must keep for every input, checked exhaustively or
//! over many generated fact bases: one active strategy, interrogative-only
//! actions under clarification, termination of the repair loop, the linear
//! `impacted` rules agreeing with the closure definition, determinism, and a
//! parse boundary that refuses derived predicates.

mod common;

use std::collections::BTreeSet;

use nerd_logic::vocab::{Action, Category, ContextHint, Provenance, Strategy, TestState, Verb};
use nerd_logic::{defaults, evaluate, parse_atom, AssertError, Atom, Explanation, Facts, Line, Term};

fn next_actions(facts: Facts) -> (Vec<Atom>, Vec<Atom>) {
    let fixpoint = evaluate(facts);
    (fixpoint.atoms("strategy").unwrap(), fixpoint.atoms("next_action").unwrap())
}

fn action_of(atom: &Atom) -> Action {
    match &atom.args[0] {
        Term::Str(s) => s.parse().unwrap(),
        other => panic!("unexpected {other}"),
    }
}

/// One state of the loop: pending patch, retry count, broad context, empty
/// workspace, a kept patch, the mutation result.
type Loop = (bool, u32, bool, bool, bool, Option<(u32, u32)>);

#[test]
fn exactly_one_strategy_and_interrogative_only_under_clarification() {
    let mut verbs: Vec<Option<Verb>> = vec![None];
    verbs.extend(Verb::ALL.iter().copied().map(Some));
    let mut checked = 0;
    for &first in &verbs {
        for &second in &verbs {
            for clarify in [false, true] {
                for &state in TestState::ALL {
                    let mut loops: Vec<Loop> = Vec::new();
                    for (pending, retry) in [(false, 0), (true, 1), (false, 3), (true, 3)] {
                        loops.extend([
                            (pending, retry, false, false, false, None),
                            (pending, retry, true, true, false, None),
                        ]);
                    }
                    for (pending, retry) in [(false, 1), (true, 3)] {
                        for mutants in [None, Some((0, 3)), Some((2, 3))] {
                            loops.push((pending, retry, false, false, true, mutants));
                        }
                    }
                    for &(pending, retry, broad, empty, kept, mutants) in &loops {
                        let mut f = defaults::policy();
                        f.patch_kept = kept;
                        f.mutation_result.extend(mutants);
                        for (i, verb) in [first, second].into_iter().enumerate() {
                            if let Some(v) = verb {
                                let (id, target, none) = (f.sym(&format!("i{i}")), f.sym("x"), f.sym(""));
                                f.user_intent.push((id, v.category(), v, target, none));
                                if broad {
                                    f.context_hint.push((id, ContextHint::Broad));
                                }
                            }
                        }
                        if clarify {
                            let (m, c, h) = (f.sym("target"), f.sym("it"), f.sym("?"));
                            f.ambiguity_flag.push((m, c, h));
                        }
                        f.test_state = state;
                        f.pending_patch = pending;
                        f.retry_count = retry;
                        f.workspace_empty = empty;
                        let (strategies, actions) = next_actions(f);
                        assert_eq!(strategies.len(), 1, "{first:?} {second:?}: {strategies:?}");
                        assert!(actions.len() <= 1, "{first:?} {second:?} {state:?}: {actions:?}");
                        if clarify {
                            assert!(actions.iter().all(|a| action_of(a).is_interrogative()), "{actions:?}");
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 10_000);
}

/// Drives the TDD state machine with a world where a patch fixes the tests
/// only on attempt `fixes_on` (never, if `None`), and returns the trace.
fn drive(budget: u32, fixes_on: Option<u32>) -> Vec<Action> {
    let mut state = TestState::Unknown;
    let (mut retry, mut pending) = (0u32, false);
    let mut trace = Vec::new();
    for _ in 0..100 {
        let mut f = defaults::policy();
        let (id, t, none) = (f.sym("i"), f.sym("tests"), f.sym(""));
        f.user_intent.push((id, Category::Mutation, Verb::Fix, t, none));
        f.retry_budget = budget;
        f.retry_count = retry;
        f.test_state = state;
        f.pending_patch = pending;
        let (_, actions) = next_actions(f);
        assert_eq!(actions.len(), 1, "exactly one next action in {state:?}");
        let action = action_of(&actions[0]);
        trace.push(action);
        match action {
            Action::RunTests => {
                state = if fixes_on.is_some_and(|k| retry >= k) { TestState::Passing } else { TestState::Failing }
            }
            Action::ProposePatch => pending = true,
            Action::ApplyPatch => {
                pending = false;
                retry += 1;
                state = TestState::Unknown;
            }
            Action::Escalate | Action::ReportSuccess => return trace,
            other => panic!("unexpected action {other}"),
        }
    }
    panic!("the repair loop did not terminate: {trace:?}");
}

#[test]
fn repair_loop_escalates_after_the_budget() {
    for budget in 0..6 {
        let trace = drive(budget, None);
        assert_eq!(trace.last(), Some(&Action::Escalate));
        let patches = trace.iter().filter(|a| **a == Action::ApplyPatch).count();
        assert_eq!(patches as u32, budget, "{trace:?}");
    }
}

#[test]
fn repair_loop_reports_success_when_a_patch_works() {
    let trace = drive(3, Some(2));
    assert_eq!(trace.last(), Some(&Action::ReportSuccess));
    assert_eq!(trace.iter().filter(|a| **a == Action::ApplyPatch).count(), 2);
}

/// A small deterministic generator so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound
    }
}

fn random_graph(seed: u64) -> Facts {
    let mut rng = Lcg(seed);
    let mut f = defaults::policy();
    let nodes = 2 + rng.next(30);
    let path = f.path("g.rs");
    for _ in 0..rng.next(nodes * 3) {
        let (a, b) = (rng.next(nodes), rng.next(nodes));
        let (a, b) = (f.symbol_id(&format!("n{a}")), f.symbol_id(&format!("n{b}")));
        // Guesses are mixed in: they must never change what certain edges derive.
        let provenance = Provenance::ALL[rng.next(Provenance::ALL.len() as u64) as usize];
        f.calls.push((a, b, path, Line(1), provenance));
    }
    for _ in 0..rng.next(4) {
        let name = format!("n{}", rng.next(nodes));
        let m = f.sym(&name);
        f.modified.push(m);
        // A container whose changed lines all lie in something nested in it is
        // modified but not innermost; coverage must still lose no test then.
        if rng.next(3) != 0 {
            let id = f.symbol_id(&name);
            f.modified_own.push(id);
        }
    }
    // Some nodes are defined in the file; some are methods of a class node,
    // some of those called unnamed by the language.
    for _ in 0..rng.next(nodes) {
        let id = f.symbol_id(&format!("n{}", rng.next(nodes)));
        f.defines.push((path, id));
    }
    for _ in 0..rng.next(4) {
        let (m, c) = (rng.next(nodes), rng.next(nodes));
        let (m, c) = (f.symbol_id(&format!("n{m}")), f.symbol_id(&format!("n{c}")));
        f.method_of.push((m, c));
        if rng.next(2) == 0 {
            f.implicit_method.push(m);
        }
    }
    // Sometimes the file is a test file: its tests, its module-level calls and
    // the top-level values whose initializers run when it loads.
    if rng.next(2) == 0 {
        use nerd_logic::vocab::{SymbolKind, Visibility};
        let signature = f.sym("");
        for i in 0..1 + rng.next(3) {
            let id = f.symbol_id(&format!("t{i}"));
            let fact = nerd_logic::SymbolFact {
                id,
                kind: SymbolKind::Test,
                visibility: Visibility::Private,
                path,
                line: Line(1),
                end_line: Line(2),
                signature,
            };
            f.symbol.push(fact);
            f.defines.push((path, id));
        }
        let file = f.symbol_id("g.rs");
        for _ in 0..rng.next(3) {
            let callee = f.symbol_id(&format!("n{}", rng.next(nodes)));
            f.calls.push((file, callee, path, Line(1), Provenance::Exact));
        }
        for _ in 0..rng.next(3) {
            let value = f.symbol_id(&format!("n{}", rng.next(nodes)));
            f.runs_at_load.push((path, value));
        }
    }
    f
}

/// `impacted` by its definition: a change of its own (a modified symbol that is
/// no container changed only inside its members), or anything that reaches one
/// through certain calls, a class reaching a method the language calls
/// unnamed on its values, and the file defining something impacted.
fn impacted_by_definition(facts: &Facts, fixpoint: &nerd_logic::Fixpoint) -> BTreeSet<Term> {
    let term = |x: nerd_logic::Sym| Term::Str(facts.symbols.resolve(x).into());
    let own: BTreeSet<Term> = facts.modified_own.iter().map(|s| term(s.sym())).collect();
    let defined: BTreeSet<Term> = facts.defines.iter().map(|d| term(d.1.sym())).collect();
    let entries: BTreeSet<Term> =
        firsts(fixpoint, "modified").into_iter().filter(|m| own.contains(m) || !defined.contains(m)).collect();
    let certain: Vec<(Term, Term)> =
        facts.calls.iter().filter(|c| c.4.is_certain()).map(|c| (term(c.0.sym()), term(c.1.sym()))).collect();
    let implicit: BTreeSet<Term> = facts.implicit_method.iter().map(|m| term(m.sym())).collect();
    let mut reaches = certain;
    for &(m, c) in &facts.method_of {
        let m = term(m.sym());
        if implicit.contains(&m) {
            reaches.push((term(c.sym()), m));
        }
    }
    let mut out = entries;
    loop {
        let more: Vec<Term> =
            reaches.iter().filter(|(a, b)| out.contains(b) && !out.contains(a)).map(|(a, _)| a.clone()).collect();
        if more.is_empty() {
            break;
        }
        out.extend(more);
    }
    // A test file whose module-level code or top-level value reaches a change
    // loads it before each of its tests.
    let tests: BTreeSet<Term> = facts.test_symbols().map(|t| term(t.sym())).collect();
    for &(p, t) in &facts.defines {
        let file = term(p.sym());
        let loads_change = reaches.iter().any(|(a, b)| *a == file && out.contains(b))
            || facts.runs_at_load.iter().any(|&(q, v)| q == p && out.contains(&term(v.sym())));
        if tests.contains(&term(t.sym())) && loads_change {
            out.insert(term(t.sym()));
        }
    }
    for &(p, s) in &facts.defines {
        if out.contains(&term(s.sym())) {
            out.insert(term(p.sym()));
        }
    }
    out
}

#[test]
fn impacted_agrees_with_the_closure_definition() {
    for seed in 0..300 {
        let facts = random_graph(seed);
        let fixpoint = evaluate(facts.clone());
        let actual = firsts(&fixpoint, "impacted");
        assert_eq!(actual, impacted_by_definition(&facts, &fixpoint), "seed {seed}");
    }
}

/// Names of the atoms of one predicate, by their first argument.
fn firsts(fixpoint: &nerd_logic::Fixpoint, predicate: &str) -> BTreeSet<Term> {
    fixpoint.atoms(predicate).unwrap().into_iter().map(|a| a.args[0].clone()).collect()
}

#[test]
fn observed_coverage_narrows_test_selection_but_never_loses_a_test() {
    use nerd_logic::vocab::{SymbolKind, Visibility};
    use nerd_logic::SymbolFact;
    for seed in 0..300 {
        let static_only = random_graph(seed);
        let mut observed = random_graph(seed);
        let mut rng = Lcg(seed ^ 0x9e37_79b9);
        let nodes: Vec<_> =
            observed.calls.iter().flat_map(|c| [c.0, c.1]).collect::<BTreeSet<_>>().into_iter().collect();
        if nodes.is_empty() {
            continue;
        }
        let path = observed.path("g.rs");
        let (signature, mut tests) = (observed.sym(""), Vec::new());
        for &id in &nodes {
            let kind = if rng.next(3) == 0 { SymbolKind::Test } else { SymbolKind::Function };
            let fact = SymbolFact {
                id,
                kind,
                visibility: Visibility::Public,
                path,
                line: Line(1),
                end_line: Line(2),
                signature,
            };
            observed.symbol.push(fact);
            if kind == SymbolKind::Test {
                tests.push(id);
            }
        }
        let mut static_only = static_only;
        static_only.symbol = observed.symbol.clone();
        for &t in &tests {
            for _ in 0..rng.next(4) {
                let s = nodes[rng.next(nodes.len() as u64) as usize];
                observed.covers.push((t, s));
            }
        }
        let (before, after) = (evaluate(static_only), evaluate(observed.clone()));
        let union = |f: &nerd_logic::Fixpoint| -> BTreeSet<Term> {
            firsts(f, "needs_testing").into_iter().chain(firsts(f, "maybe_needs_testing")).collect()
        };
        let (all_before, all_after) = (firsts(&before, "needs_testing"), union(&after));
        assert!(all_before.is_subset(&all_after), "seed {seed}: {:?} lost", all_before.difference(&all_after));
        // A test whose run executed a symbol whose own code changed is always selected, for certain.
        let modified: BTreeSet<Term> = firsts(&after, "modified_own");
        let certain = firsts(&after, "needs_testing");
        for &(t, s) in &observed.covers {
            let (t, s) =
                (Term::Str(observed.symbols.resolve(t.0).into()), Term::Str(observed.symbols.resolve(s.0).into()));
            if modified.contains(&s) {
                assert!(certain.contains(&t), "seed {seed}: {t} executed {s}");
            }
        }
        common::check_proofs(&after, &format!("seed {seed}"));
    }
}

#[test]
fn evaluation_is_deterministic_whatever_the_fact_order() {
    for seed in 0..50 {
        let forward = random_graph(seed);
        let mut backward = defaults::policy();
        // Re-intern in reverse so ids and insertion order both differ.
        let s = &forward.symbols;
        let id = |to: &mut Facts, x: nerd_logic::Sym| to.symbol_id(s.resolve(x));
        let path = |to: &mut Facts, x: nerd_logic::Sym| to.path(s.resolve(x));
        let b = &mut backward;
        for &(x, y, p, l, provenance) in forward.calls.iter().rev() {
            let row = (id(b, x.0), id(b, y.0), path(b, p.0), l, provenance);
            b.calls.push(row);
        }
        for &m in forward.modified.iter().rev() {
            let m = b.sym(s.resolve(m));
            b.modified.push(m);
        }
        for &m in forward.modified_own.iter().rev() {
            let m = id(b, m.sym());
            b.modified_own.push(m);
        }
        for &(p, d) in forward.defines.iter().rev() {
            let row = (path(b, p.sym()), id(b, d.sym()));
            b.defines.push(row);
        }
        for &(m, c) in forward.method_of.iter().rev() {
            let row = (id(b, m.sym()), id(b, c.sym()));
            b.method_of.push(row);
        }
        for &m in forward.implicit_method.iter().rev() {
            let m = id(b, m.sym());
            b.implicit_method.push(m);
        }
        for &(p, v) in forward.runs_at_load.iter().rev() {
            let row = (path(b, p.sym()), id(b, v.sym()));
            b.runs_at_load.push(row);
        }
        for fact in forward.symbol.iter().rev() {
            let mut fact = *fact;
            fact.id = id(b, fact.id.sym());
            fact.path = path(b, fact.path.sym());
            fact.signature = b.sym(s.resolve(fact.signature));
            b.symbol.push(fact);
        }
        assert_eq!(evaluate(forward).derived_atoms(), evaluate(backward).derived_atoms(), "seed {seed}");
    }
}

#[test]
fn the_parse_boundary_refuses_derived_and_ill_typed_atoms() {
    let mut f = Facts::default();
    let cases = [
        ("impacted(\"x\")", "derived"),
        ("next_action(\"run_tests\")", "derived"),
        ("strategy(\"refactor\")", "derived"),
        ("permitted(\"rm -rf /\")", "derived"),
        ("denied(\"a1\", \"x\")", "derived"),
        ("route(\"a1\", \"auto\")", "derived"),
        ("grant(\"a1\")", "unknown"),
        ("modified(\"a\", \"b\")", "arity"),
        ("user_intent(\"i\", \"query\", \"yeet\", \"t\", \"\")", "verb"),
        ("user_intent(\"i\", \"query\", \"delete\", \"t\", \"\")", "category"),
        ("diagnostic(\"fatal\", \"a\", 1, \"c\", \"m\")", "severity"),
        ("calls(\"a\", \"b\", \"p\", -1, \"exact\")", "range"),
        ("calls(\"a\", \"b\", \"p\", 1, \"guessed\")", "vocabulary"),
        ("focus_resolution(\"r\", \"p\", \"s\", 7)", "ratio"),
    ];
    for (text, why) in cases {
        let atom = parse_atom(text).unwrap();
        let err = f.assert_atom(&atom).expect_err(text);
        let matches = match why {
            "derived" => matches!(err, AssertError::Derived(_)),
            "unknown" => matches!(err, AssertError::UnknownPredicate(_)),
            "arity" => matches!(err, AssertError::Arity { .. }),
            _ => matches!(err, AssertError::BadArgument { .. }),
        };
        assert!(matches, "{text}: {err}");
    }
    assert!(f.calls.is_empty() && f.modified.is_empty() && f.user_intent.is_empty());
    assert_eq!(evaluate(f).strategy(), Strategy::Idle);
}

/// Random action facts over the constitution's vocabulary, with the spec table rows they use.
fn random_actions(seed: u64, category: Option<Category>) -> Facts {
    use nerd_logic::vocab::{Access, ActionKind, Autonomy, Effect, PathClass};
    let mut rng = Lcg(seed);
    let mut f = defaults::policy();
    if let Some(c) = category {
        let (i, t, none) = (f.sym("i"), f.sym("t"), f.sym(""));
        let verb = Verb::ALL.iter().copied().find(|v| v.category() == c).unwrap();
        f.user_intent.push((i, c, verb, t, none));
    }
    f.autonomy = Autonomy::ALL[rng.next(3) as usize];
    let programs = ["git", "rm", "cargo", "python3", "bash", "curl", "ls", "sed", "npm", "find"];
    let flags = ["-c", "-f", "--hard", "-i", "-m", "-exec", "-r", "--force", "-n", "-x"];
    let subs = ["status", "push", "reset", "add", "clean", "test", "install", "log", "commit", "run"];
    for n in 0..(1 + rng.next(6)) {
        let a = f.sym(&format!("a{n}"));
        let kind = ActionKind::ALL[rng.next(ActionKind::ALL.len() as u64) as usize];
        f.action.push((a, kind));
        if kind == ActionKind::Exec {
            let p = f.sym(programs[rng.next(10) as usize]);
            f.exec_program.push((a, p));
            let sub = f.sym(if rng.next(2) == 0 { subs[rng.next(10) as usize] } else { "" });
            f.exec_subcommand.push((a, p, sub));
            match rng.next(4) {
                0 => {
                    let why = f.sym("refused by the spec");
                    f.command_denied.push((p, sub, why));
                }
                1 => f.command_effect.push((p, sub, Effect::ALL[rng.next(3) as usize])),
                _ => {}
            }
            for _ in 0..rng.next(3) {
                let x = f.sym(flags[rng.next(10) as usize]);
                f.exec_option.push((a, p, sub, x));
                match rng.next(3) {
                    0 => {
                        let why = f.sym("an option the spec refuses");
                        f.option_denied.push((p, sub, x, why));
                    }
                    1 => f.option_effect.push((p, sub, x, Effect::ALL[rng.next(3) as usize])),
                    _ => {}
                }
            }
            if rng.next(3) == 0 {
                f.exec_operands.push((a, p, sub));
                f.operand_effect.push((p, sub, Effect::ALL[rng.next(3) as usize]));
            }
        } else {
            let path = f.path(&format!("p{}", rng.next(5)));
            let access = Access::ALL[rng.next(3) as usize];
            f.touches.push((a, path, access));
            f.path_class.push((path, PathClass::ALL[rng.next(4) as usize]));
        }
        if rng.next(4) == 0 {
            let src = f.sym("user");
            f.approval.push((a, src));
        }
    }
    f
}

fn arg0(atoms: Vec<Atom>) -> BTreeSet<Term> {
    atoms.into_iter().map(|a| a.args[0].clone()).collect()
}

#[test]
fn permitted_is_default_deny() {
    for seed in 0..400 {
        let category =
            [None, Some(Category::Query), Some(Category::Mutation), Some(Category::Instruction)][seed as usize % 4];
        let fixpoint = evaluate(random_actions(seed, category));
        let permitted = arg0(fixpoint.atoms("permitted").unwrap());
        let denied = arg0(fixpoint.atoms("denied").unwrap());
        let approved = arg0(fixpoint.atoms("approval").unwrap());
        let asked: BTreeSet<Term> = fixpoint
            .atoms("route")
            .unwrap()
            .into_iter()
            .filter(|a| a.args[1] == Term::Str("ask".into()))
            .map(|a| a.args[0].clone())
            .collect();
        for a in &permitted {
            assert!(!denied.contains(a), "seed {seed}: {a} permitted and denied");
            assert!(!asked.contains(a) || approved.contains(a), "seed {seed}: {a} needs a human but has no approval");
        }
        // Every derived decision explains down to facts.
        for a in fixpoint.atoms("permitted").unwrap().iter().chain(&fixpoint.atoms("denied").unwrap()) {
            fixpoint.explain(a).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
}

#[test]
fn without_a_mutation_intent_nothing_mutating_is_permitted() {
    for seed in 0..400 {
        let category = [None, Some(Category::Query), Some(Category::Instruction)][seed as usize % 3];
        let fixpoint = evaluate(random_actions(seed, category));
        let permitted = arg0(fixpoint.atoms("permitted").unwrap());
        let mutating = arg0(fixpoint.atoms("mutating").unwrap());
        assert!(
            permitted.is_disjoint(&mutating),
            "seed {seed}: {:?}",
            permitted.intersection(&mutating).collect::<Vec<_>>()
        );
    }
}

/// Random facts that make every rule of the constitution and the watchdog fire somewhere.
fn random_policy_world(seed: u64) -> Facts {
    use nerd_logic::vocab::{ActionKind, ActionOutcome, NetClass};
    let mut rng = Lcg(seed ^ 0x5eed);
    let mut f = random_actions(seed, [None, Some(Category::Mutation)][seed as usize % 2]);
    let actions: Vec<_> = f.action.clone();
    for &(a, kind) in &actions {
        match kind {
            ActionKind::NetRequest | ActionKind::Browse => {
                let host = ["pypi.org", "evil.example", "169.254.169.254"][rng.next(3) as usize];
                let h = f.sym(host);
                f.net_host.push((a, h));
                for suffix in [host, "org", "example"] {
                    let d = f.sym(suffix);
                    f.net_domain.push((a, d));
                }
                let class = [NetClass::Public, NetClass::Metadata, NetClass::Private][rng.next(3) as usize];
                f.net_class.push((a, class));
                if rng.next(3) == 0 {
                    let why = f.sym("a secret in the query string");
                    f.exfiltration.push((a, why));
                }
            }
            ActionKind::Exec => {
                let program = f.exec_program.iter().find(|(b, _)| *b == a).map(|&(_, p)| p);
                let (p, sub) = (program.unwrap_or(a), f.sym(""));
                if rng.next(3) == 0 {
                    let m = f.sym(["pytest", "pip", "http.server"][rng.next(3) as usize]);
                    f.exec_module.push((a, p, m));
                }
                if rng.next(4) == 0 {
                    f.exec_script.push((a, p));
                }
                match rng.next(8) {
                    0 => {
                        let what = f.sym("option --frob");
                        f.exec_unknown.push((a, p, what));
                    }
                    1 => {
                        let why = f.sym("inline code bypasses review");
                        f.exec_refused.push((a, p, why));
                    }
                    2 => {
                        let v = f.sym(["RUST_BACKTRACE", "LD_PRELOAD"][rng.next(2) as usize]);
                        f.exec_env.push((a, v));
                    }
                    3 => f.exec_readonly.push((a, p, sub)),
                    4 => f.exec_listing.push((a, p, sub)),
                    5 => {
                        let why = f.sym("npx would download a package");
                        f.exec_effect.push((a, nerd_logic::vocab::Effect::Critical, why));
                    }
                    _ => {}
                }
                if rng.next(6) == 0 {
                    f.exec_unresolved.push(a);
                }
                if rng.next(6) == 0 {
                    let why = f.sym("a look-alike name");
                    f.exec_suspicious.push((a, why));
                }
            }
            _ => {}
        }
        if rng.next(5) == 0 {
            f.policy_ask.push(kind);
        }
    }
    if rng.next(3) == 0 {
        let p = f.sym("cargo");
        f.project_denied_program.push(p);
    }
    for seq in 1..=rng.next(12) as u32 {
        let program = f.sym(["git", "rm", "cargo"][rng.next(3) as usize]);
        let outcome = ActionOutcome::ALL[rng.next(3) as usize];
        f.audit_event.push((seq, ActionKind::Exec, program, outcome));
    }
    f
}

#[test]
fn every_constitution_and_watchdog_proof_is_grounded_and_true() {
    let mut fired = BTreeSet::new();
    for seed in 0..300 {
        let fixpoint = evaluate(random_policy_world(seed));
        let context = format!("seed {seed}");
        for atom in fixpoint.derived_atoms() {
            let e = fixpoint.explain(&atom).unwrap_or_else(|e| panic!("{context}: cannot explain {atom}: {e}"));
            common::assert_grounded(&fixpoint, &e, &context);
            if let Explanation::Derived { rule, .. } = e {
                fired.insert(rule);
            }
        }
        common::check_proofs(&fixpoint, &context);
    }
    // The generator reaches every rule family of both programs.
    for rule in [
        "constitution/deny",
        "constitution/any-denial",
        "constitution/allowed-domain",
        "constitution/effect",
        "constitution/mutating",
        "constitution/risk",
        "constitution/route",
        "constitution/permitted",
        "constitution/approved",
        "watchdog/retried-after-refusal",
        "watchdog/mostly-failing",
    ] {
        assert!(fired.contains(rule), "no generated world fires {rule}: {fired:?}");
    }
}
