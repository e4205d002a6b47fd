//! Impact of a change: what a modification reaches through the call graph,
//! which tests must run, and which change targets are unsafe to refactor.
//! Pure rules over projected facts; knows nothing of files or git.
//!
//! `impacted(X)` means X changed or depends on something that changed: a
//! modified symbol or file, except a class whose every changed line lies in
//! its methods (those changed, not it), and whatever reaches one through
//! certain calls, i.e. `changed(X) ∨ ∃Y. depends_on(X, Y) ∧ changed(Y)`. One
//! step that no call edge writes joins them: a method the language calls
//! unnamed (`__eq__`, `__iter__`) runs wherever a value of its class goes, so
//! the class, and with it every caller that constructs one, depends on it (a
//! method that no call names at all, a property or a callback, makes its class
//! only a maybe). It is computed by propagating backwards, which is linear in the edges,
//! instead of materialising the quadratic `depends_on` closure; the closure of
//! calls is its own program, run only when asked for, and a property test
//! checks the rules against this definition.
//!
//! Only certain call edges (proved by name resolution, an inferred receiver
//! type or an indexer) carry impact and coverage, and so does what a test run
//! was seen to execute (`covers`, observed by coverage). For a test whose run
//! was observed, what it executed is the better evidence: it is impacted when
//! its run executed a symbol whose own code changed, or statically by a change that no
//! observed run executed (coverage says nothing of those: a function's own
//! change, `modified_own`, or a class's outside its methods); a static path to a
//! change its run did not execute makes it only `maybe_impacted`. A bare-name
//! guess, or a call that did not resolve but names a symbol, is an
//! `uncertain_call`: it never makes a statement true, but it makes "no test
//! reaches X" unknown (`coverage_unknown`) and marks what a change could
//! reach through it (`maybe_impacted`, `maybe_needs_testing`).

use std::collections::HashMap;

use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, Facts};
use crate::symbols::{bare_name, Line, PathId, Sym, SymbolId};
use crate::vocab::Provenance;

/// How a test file's loading may reach a change (`w_maybe_impacted_loaded`):
/// a module-level call that did not resolve, a module-level call of something
/// that may be reached, a top-level value that may be.
const LOADED_UNCERTAIN_CALL: u8 = 0;
const LOADED_CALL: u8 = 1;
const LOADED_VALUE: u8 = 2;
/// The same for a test whose run was observed: a module-level call, or a
/// top-level value, that reaches a change.
const LOADED_CALL_OBSERVED: u8 = 3;
const LOADED_VALUE_OBSERVED: u8 = 4;

ascent! {
    /// Change impact over resolved call edges.
    pub struct ImpactProgram;

    // A call edge and whether it is certain (false: a bare-name guess).
    relation calls(Sym, Sym, bool);
    relation unresolved_call(Sym, Sym);
    relation callable_name(Sym, Sym);
    relation defines(Sym, Sym);
    relation modified(Sym);
    relation modified_own(Sym);
    relation method_of(Sym, Sym);
    relation implicit_method(Sym);
    relation runs_at_load(Sym, Sym);
    relation test_symbol(Sym);
    relation test_of(Sym, Sym);
    relation covers(Sym, Sym);
    relation refactor_target(Sym);

    relation impacted(Sym);
    relation needs_testing(Sym);
    relation test_reach(Sym);
    relation covered(Sym);
    relation change_target(Sym);
    relation dependent(Sym, Sym);
    relation unsafe_to_refactor(Sym);
    relation uncertain_call(Sym, Sym);
    relation maybe_impacted(Sym);
    relation maybe_needs_testing(Sym);
    relation uncertain_reach(Sym);
    relation coverage_unknown(Sym);
    relation observed_test(Sym);
    relation observed_symbol(Sym);
    relation unobserved_impact(Sym);
    relation modified_inside(Sym);
    relation called_by_name(Sym);
    relation may_run_unnamed(Sym);
    relation runs_unnamed(Sym);

    // Witnesses: one relation per rule holding the rule's variables, so every
    // derived atom can be explained (`nerd why`).
    relation w_impacted_modified(Sym);
    relation w_impacted_member(Sym, Sym);
    relation w_impacted_call(Sym, Sym);
    relation w_impacted_file(Sym, Sym);
    relation w_impacted_observed(Sym, Sym);
    relation w_impacted_unobserved(Sym, Sym);
    relation w_impacted_loaded(Sym, Sym, Sym, bool);
    relation w_test_reach_loaded(Sym, Sym, Sym);
    relation w_maybe_impacted_loaded(Sym, Sym, Sym, u8);
    relation test_file(Sym);
    relation w_needs_testing_reach(Sym);
    relation w_needs_testing_link(Sym, Sym);
    relation w_test_reach_direct(Sym, Sym);
    relation w_test_reach_step(Sym, Sym);
    relation w_covered_reach(Sym);
    relation w_covered_link(Sym, Sym);
    relation w_covered_observed(Sym, Sym);
    relation w_target_modified(Sym);
    relation w_target_requested(Sym);
    relation w_dependent_direct(Sym, Sym);
    relation w_dependent_step(Sym, Sym, Sym);
    relation w_unsafe(Sym, Sym);
    relation w_uncertain_guess(Sym, Sym);
    relation w_uncertain_unresolved(Sym, Sym, Sym);
    relation w_maybe_impacted(Sym, Sym, bool);
    relation w_maybe_impacted_observed(Sym, Sym);
    relation w_maybe_impacted_member(Sym, Sym, bool);
    relation w_maybe_impacted_unexecuted(Sym, Sym, bool);
    relation w_maybe_needs_testing_reach(Sym);
    relation w_maybe_needs_testing_link(Sym, Sym);
    relation w_coverage_unknown(Sym);

    // Tests whose run coverage observed, and symbols some observed run executed.
    observed_test(t) <-- covers(t, _);
    observed_symbol(s) <-- covers(_, s);

    // A modified symbol or file is impacted. A class whose every changed line
    // lies in its methods is not: they changed, and they are impacted.
    modified_inside(x) <-- modified(x), defines(_, x), !modified_own(x);
    impacted(x), w_impacted_modified(x) <-- modified(x), !modified_inside(x);
    // A method the language calls unnamed (`__eq__`, `__iter__`) runs
    // wherever a value of its class goes: those who construct the class stand
    // for its unseen callers. One that no call names, resolved or not, may
    // (a property, a framework's or the standard library's callback), or may
    // be an entry point only the project's users call: its class is a maybe.
    // A method some call names is reached by its calls alone.
    called_by_name(m) <-- calls(_, m, _);
    called_by_name(m) <-- uncertain_call(_, m);
    may_run_unnamed(m) <-- method_of(m, _), !called_by_name(m), !implicit_method(m);
    runs_unnamed(m) <-- implicit_method(m);
    runs_unnamed(m) <-- may_run_unnamed(m);
    impacted(c), w_impacted_member(c, m) <-- method_of(m, c), implicit_method(m), impacted(m);
    // A caller of something impacted is impacted, unless it is a test whose run was observed.
    impacted(x), w_impacted_call(x, y) <-- calls(x, y, true), impacted(y), !observed_test(x);
    // A file defining an impacted symbol is impacted.
    impacted(p), w_impacted_file(p, s) <-- defines(p, s), impacted(s);
    // A test whose run executed a symbol whose own code changed is impacted
    // (observed by coverage).
    impacted(t), w_impacted_observed(t, s) <-- covers(t, s), modified_own(s);
    // What a change that no observed run executed reaches statically, observed
    // tests included. A class counts only for a changed line of its own: one
    // inside a method is the method's change, which coverage sees run or not.
    unobserved_impact(x) <-- modified_own(x), !observed_symbol(x);
    unobserved_impact(x) <-- calls(x, y, true), unobserved_impact(y);
    // The step from a method to its class's constructors is not taken here:
    // it stands for callers no syntax shows, and where coverage watched, the
    // runs showed them (a method no run executed, no run reached). An observed
    // test that constructs the class is a maybe (below).
    impacted(t), w_impacted_unobserved(t, y) <-- observed_test(t), calls(t, y, true), unobserved_impact(y);

    // A test file's module-level code (its own calls, and the initializers of
    // the values it defines at the top) runs when the file loads, before any
    // of its tests: a change it reaches can break every test in the file.
    test_file(p) <-- defines(p, t), test_symbol(t);
    impacted(t), w_impacted_loaded(t, p, y, true) <--
        test_file(p), calls(p, y, true), impacted(y), defines(p, t), test_symbol(t), !observed_test(t);
    impacted(t), w_impacted_loaded(t, p, v, false) <--
        runs_at_load(p, v), impacted(v), defines(p, t), test_symbol(t), !observed_test(t);

    // Tests that reach an impacted symbol, or are linked to one, must run;
    // a link does not overrule what an observed run executed.
    needs_testing(t), w_needs_testing_reach(t) <-- test_symbol(t), impacted(t);
    needs_testing(t), w_needs_testing_link(t, s) <-- test_of(t, s), impacted(s), !observed_test(t);

    // Coverage: whatever any test reaches through calls, or is linked to.
    test_reach(s), w_test_reach_direct(t, s) <-- test_symbol(t), calls(t, s, true);
    test_reach(s), w_test_reach_step(m, s) <-- test_reach(m), calls(m, s, true);
    test_reach(s), w_test_reach_loaded(p, p, s) <-- test_file(p), calls(p, s, true);
    test_reach(s), w_test_reach_loaded(p, v, s) <-- test_file(p), runs_at_load(p, v), calls(v, s, true);
    covered(s), w_covered_reach(s) <-- test_reach(s);
    covered(s), w_covered_link(t, s) <-- test_of(t, s);
    covered(s), w_covered_observed(t, s) <-- covers(t, s);

    // A change target is a modified symbol or one the user asked to refactor.
    change_target(t), w_target_modified(t) <-- modified(t), defines(_, t);
    change_target(t), w_target_requested(t) <-- refactor_target(t);
    dependent(t, d), w_dependent_direct(t, d) <-- change_target(t), calls(d, t, true);
    dependent(t, d), w_dependent_step(t, m, d) <-- dependent(t, m), calls(d, m, true);
    // Unsafe: some non-test dependent of the target is reached by no test.
    unsafe_to_refactor(t), w_unsafe(t, d) <-- dependent(t, d), !covered(d), !test_symbol(d);

    // Calls that could reach a symbol: a bare-name guess, or an unresolved call of its name.
    uncertain_call(c, s), w_uncertain_guess(c, s) <-- calls(c, s, false);
    uncertain_call(c, s), w_uncertain_unresolved(c, n, s) <-- unresolved_call(c, n), callable_name(s, n);

    // What a change could reach through uncertain calls, beyond what it reaches.
    maybe_impacted(x), w_maybe_impacted(x, y, false) <-- uncertain_call(x, y), impacted(y), !impacted(x);
    maybe_impacted(x), w_maybe_impacted(x, y, true) <-- calls(x, y, true), maybe_impacted(y), !impacted(x);
    maybe_impacted(x), w_maybe_impacted(x, y, false) <-- uncertain_call(x, y), maybe_impacted(y), !impacted(x);
    maybe_impacted(t), w_maybe_impacted_observed(t, y) <-- covers(t, y), maybe_impacted(y), !impacted(t);
    maybe_impacted(c), w_maybe_impacted_member(c, m, true) <--
        method_of(m, c), may_run_unnamed(m), impacted(m), !impacted(c);
    maybe_impacted(c), w_maybe_impacted_member(c, m, false) <--
        method_of(m, c), runs_unnamed(m), maybe_impacted(m), !impacted(c);
    // An observed test that reaches the change statically, or whose run executed
    // a caller of it, but whose run did not execute the change: it may be reached.
    maybe_impacted(t), w_maybe_impacted_unexecuted(t, y, true) <--
        observed_test(t), calls(t, y, true), impacted(y), !impacted(t);
    maybe_impacted(t), w_maybe_impacted_unexecuted(t, y, false) <-- covers(t, y), impacted(y), !impacted(t);
    // What a test file's module-level code may reach, its tests may.
    maybe_impacted(t), w_maybe_impacted_loaded(t, p, y, LOADED_UNCERTAIN_CALL) <--
        test_file(p), uncertain_call(p, y), impacted(y), defines(p, t), test_symbol(t), !impacted(t);
    maybe_impacted(t), w_maybe_impacted_loaded(t, p, y, LOADED_CALL) <--
        test_file(p), calls(p, y, _), maybe_impacted(y), defines(p, t), test_symbol(t), !impacted(t);
    maybe_impacted(t), w_maybe_impacted_loaded(t, p, v, LOADED_VALUE) <--
        runs_at_load(p, v), maybe_impacted(v), defines(p, t), test_symbol(t), !impacted(t);
    // A test whose run was observed: what its file's loading reaches is a
    // maybe (a run may not show what ran while the file loaded).
    maybe_impacted(t), w_maybe_impacted_loaded(t, p, y, LOADED_CALL_OBSERVED) <--
        test_file(p), calls(p, y, true), impacted(y), defines(p, t), observed_test(t), !impacted(t);
    maybe_impacted(t), w_maybe_impacted_loaded(t, p, v, LOADED_VALUE_OBSERVED) <--
        runs_at_load(p, v), impacted(v), defines(p, t), observed_test(t), !impacted(t);
    maybe_needs_testing(t), w_maybe_needs_testing_reach(t) <-- test_symbol(t), maybe_impacted(t);
    maybe_needs_testing(t), w_maybe_needs_testing_link(t, s) <--
        test_of(t, s), maybe_impacted(s), !needs_testing(t);
    maybe_needs_testing(t), w_maybe_needs_testing_link(t, s) <--
        test_of(t, s), impacted(s), observed_test(t), !needs_testing(t);

    // Whether some test could reach a symbol through an uncertain call.
    uncertain_reach(s) <-- test_symbol(t), uncertain_call(t, s);
    uncertain_reach(s) <-- test_reach(m), uncertain_call(m, s);
    uncertain_reach(s) <-- test_file(p), uncertain_call(p, s);
    uncertain_reach(s) <-- test_file(p), runs_at_load(p, v), uncertain_call(v, s);
    uncertain_reach(s) <-- uncertain_reach(m), calls(m, s, true);
    uncertain_reach(s) <-- uncertain_reach(m), uncertain_call(m, s);
    // "No test reaches it" may not be said of these: it is unknown.
    coverage_unknown(s), w_coverage_unknown(s) <-- uncertain_reach(s), !covered(s);
}

ascent! {
    /// The transitive `depends_on` closure, evaluated only on demand.
    pub struct ClosureProgram;

    relation calls(Sym, Sym);
    relation depends_on(Sym, Sym);
    relation w_depends_direct(Sym, Sym);
    relation w_depends_step(Sym, Sym, Sym);

    depends_on(x, y), w_depends_direct(x, y) <-- calls(x, y);
    depends_on(x, z), w_depends_step(x, y, z) <-- calls(x, y), depends_on(y, z);
}

/// Call edges of one certainty without position, deduplicated, over plain
/// ids: the impact graph's nodes are symbols and files alike.
fn call_pairs(facts: &Facts, certain: bool) -> Vec<(Sym, Sym)> {
    let mut pairs: Vec<(Sym, Sym)> =
        facts.calls.iter().filter(|c| c.4.is_certain() == certain).map(|&(a, b, _, _, _)| (a.sym(), b.sym())).collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// `(symbol, name)` of every callable symbol whose name some unresolved call uses.
fn callable_names(facts: &Facts, unresolved: &[(Sym, Sym)]) -> Vec<(Sym, Sym)> {
    use crate::vocab::SymbolKind;
    let s = &facts.symbols;
    let wanted: std::collections::HashMap<&str, Sym> = unresolved.iter().map(|&(_, n)| (s.resolve(n), n)).collect();
    let mut out: Vec<(Sym, Sym)> = facts
        .symbol
        .iter()
        .filter(|f| {
            matches!(f.kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Class | SymbolKind::Struct)
        })
        .filter_map(|f| wanted.get(bare_name(s.resolve(f.id.sym()))).map(|&n| (f.id.sym(), n)))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Runs the impact program on a fresh instance.
pub fn run(facts: &Facts) -> ImpactProgram {
    let mut unresolved: Vec<(Sym, Sym)> = facts.unresolved_call.iter().map(|&(c, n, _, _)| (c.sym(), n)).collect();
    unresolved.sort_unstable();
    unresolved.dedup();
    let certain = call_pairs(facts, true).into_iter().map(|(a, b)| (a, b, true));
    let guessed = call_pairs(facts, false).into_iter().map(|(a, b)| (a, b, false));
    let mut p = ImpactProgram {
        calls: certain.chain(guessed).collect(),
        callable_name: callable_names(facts, &unresolved),
        unresolved_call: unresolved,
        defines: facts.defines.iter().map(|&(p, s)| (p.sym(), s.sym())).collect(),
        modified: crate::schema::relation::modified(facts),
        modified_own: facts.modified_own.iter().map(|&s| (s.sym(),)).collect(),
        method_of: facts.method_of.iter().map(|&(m, c)| (m.sym(), c.sym())).collect(),
        implicit_method: facts.implicit_method.iter().map(|&m| (m.sym(),)).collect(),
        runs_at_load: facts.runs_at_load.iter().map(|&(p, v)| (p.sym(), v.sym())).collect(),
        test_symbol: facts.test_symbols().map(|t| (t.sym(),)).collect(),
        test_of: facts.test_of.iter().map(|&(t, s)| (t.sym(), s.sym())).collect(),
        covers: facts.covers.iter().map(|&(t, s)| (t.sym(), s.sym())).collect(),
        refactor_target: facts.refactor_target.iter().map(|&t| (t.sym(),)).collect(),
        ..Default::default()
    };
    p.run();
    p
}

/// Runs the closure program on a fresh instance.
pub fn run_closure(facts: &Facts) -> ClosureProgram {
    let mut p = ClosureProgram { calls: call_pairs(facts, true), ..Default::default() };
    p.run();
    p
}

/// Cites the first recorded call site of each caller → callee edge, so proofs
/// name a real `calls(Caller, Callee, Path, Line)` fact.
pub struct CallSites<'a> {
    facts: &'a Facts,
    first: HashMap<(Sym, Sym), (PathId, Line, Provenance)>,
    unresolved: HashMap<(Sym, Sym), (PathId, Line)>,
}

impl<'a> CallSites<'a> {
    pub fn new(facts: &'a Facts) -> Self {
        let mut first = HashMap::with_capacity(facts.calls.len());
        for &(a, b, path, line, provenance) in &facts.calls {
            first.entry((a.sym(), b.sym())).or_insert((path, line, provenance));
        }
        let mut unresolved = HashMap::with_capacity(facts.unresolved_call.len());
        for &(c, n, path, line) in &facts.unresolved_call {
            unresolved.entry((c.sym(), n)).or_insert((path, line));
        }
        CallSites { facts, first, unresolved }
    }

    /// The symbols the facts were interned with.
    pub(crate) fn symbols(&self) -> &'a crate::symbols::Symbols {
        &self.facts.symbols
    }

    /// The first recorded `calls(X, Y, …)` site, or a check naming the edge.
    pub(crate) fn premise(&self, x: Sym, y: Sym) -> Premise {
        let s = &self.facts.symbols;
        match self.first.get(&(x, y)) {
            Some(&(path, line, provenance)) => {
                Premise::Holds(atoms::calls(s, (SymbolId(x), SymbolId(y), path, line, provenance)))
            }
            None => Premise::Check(format!("{} calls {}", s.resolve(x), s.resolve(y))),
        }
    }

    fn unresolved_premise(&self, caller: Sym, name: Sym) -> Premise {
        let s = &self.facts.symbols;
        match self.unresolved.get(&(caller, name)) {
            Some(&(path, line)) => Premise::Holds(atoms::unresolved_call(s, (SymbolId(caller), name, path, line))),
            None => Premise::Check(format!("{} calls something named {}", s.resolve(caller), s.resolve(name))),
        }
    }
}

impl ImpactProgram {
    pub fn proofs(&self, sites: &CallSites<'_>, out: &mut Vec<(Atom, Proof)>) {
        let s = &sites.facts.symbols;
        let h = |x: Sym| Premise::Holds(atoms::impacted(s, x));
        let implicit: std::collections::HashSet<Sym> = self.implicit_method.iter().map(|&(m,)| m).collect();
        // Why a method runs, or may run, where its class's values go: the
        // language calls it unnamed, or no call names it.
        let unseen = |m: Sym| {
            if implicit.contains(&m) {
                Premise::Holds(atoms::implicit_method(s, SymbolId(m)))
            } else {
                Premise::Check(format!("no call names {}: it may run where values of its class go", s.resolve(m)))
            }
        };
        for &(x,) in &self.w_impacted_modified {
            out.push((atoms::impacted(s, x), proof("impact/modified", vec![Premise::Holds(atoms::modified(s, x))])));
        }
        for &(c, m) in &self.w_impacted_member {
            let member = Premise::Holds(atoms::method_of(s, (SymbolId(m), SymbolId(c))));
            out.push((atoms::impacted(s, c), proof("impact/class-of-unseen-method", vec![member, unseen(m), h(m)])));
        }
        for &(c, m, certain) in &self.w_maybe_impacted_member {
            let member = Premise::Holds(atoms::method_of(s, (SymbolId(m), SymbolId(c))));
            let reached = Premise::Holds(if certain { atoms::impacted(s, m) } else { atoms::maybe_impacted(s, m) });
            out.push((
                atoms::maybe_impacted(s, c),
                proof(
                    "uncertain/class-of-unseen-method",
                    vec![member, unseen(m), reached, Premise::Absent(atoms::impacted(s, c))],
                ),
            ));
        }
        for &(x, y) in &self.w_impacted_call {
            out.push((atoms::impacted(s, x), proof("impact/caller-of-impacted", vec![sites.premise(x, y), h(y)])));
        }
        for &(p, x) in &self.w_impacted_file {
            let defines = Premise::Holds(atoms::defines(s, (PathId(p), SymbolId(x))));
            out.push((atoms::impacted(s, p), proof("impact/file-of-impacted", vec![defines, h(x)])));
        }
        for &(t, x) in &self.w_impacted_observed {
            let seen = Premise::Holds(atoms::covers(s, (SymbolId(t), SymbolId(x))));
            let changed = Premise::Holds(atoms::modified_own(s, SymbolId(x)));
            out.push((atoms::impacted(s, t), proof("impact/observed-by-test", vec![seen, changed])));
        }
        for &(t, y) in &self.w_impacted_unobserved {
            out.push((
                atoms::impacted(s, t),
                proof(
                    "impact/static-reach-unobserved",
                    vec![
                        sites.premise(t, y),
                        h(y),
                        Premise::Check(format!(
                            "no observed test run executed the change that reaches {}",
                            s.resolve(y)
                        )),
                    ],
                ),
            ));
        }
        // A test file's module-level code, and the values it defines at the top, run when it loads.
        let loads = |p: Sym, t: Sym| {
            let test = Premise::Holds(atoms::test_symbol(s, SymbolId(t)));
            let defines = Premise::Holds(atoms::defines(s, (PathId(p), SymbolId(t))));
            [test, defines]
        };
        let loaded_code = |p: Sym, code: Sym| {
            if code == p {
                Premise::Check(format!("{} runs its module-level code when it loads", s.resolve(p)))
            } else {
                Premise::Holds(atoms::runs_at_load(s, (PathId(p), SymbolId(code))))
            }
        };
        for &(t, p, via, by_call) in &self.w_impacted_loaded {
            let mut premises = loads(p, t).to_vec();
            premises.push(if by_call { sites.premise(p, via) } else { loaded_code(p, via) });
            premises.push(h(via));
            out.push((atoms::impacted(s, t), proof("impact/loaded-with-test-file", premises)));
        }
        for &(p, code, x) in &self.w_test_reach_loaded {
            let premises = vec![loaded_code(p, code), sites.premise(code, x)];
            out.push((atoms::test_reach(s, x), proof("coverage/called-when-test-file-loads", premises)));
        }
        for &(t,) in &self.w_needs_testing_reach {
            let test = Premise::Holds(atoms::test_symbol(s, SymbolId(t)));
            out.push((atoms::needs_testing(s, t), proof("impact/impacted-test", vec![test, h(t)])));
        }
        for &(t, x) in &self.w_needs_testing_link {
            let link = Premise::Holds(atoms::test_of(s, (SymbolId(t), SymbolId(x))));
            out.push((atoms::needs_testing(s, t), proof("impact/linked-test", vec![link, h(x)])));
        }
        for &(t, x) in &self.w_test_reach_direct {
            let test = Premise::Holds(atoms::test_symbol(s, SymbolId(t)));
            out.push((atoms::test_reach(s, x), proof("coverage/called-by-test", vec![test, sites.premise(t, x)])));
        }
        for &(m, x) in &self.w_test_reach_step {
            let prev = Premise::Holds(atoms::test_reach(s, m));
            out.push((atoms::test_reach(s, x), proof("coverage/called-by-reached", vec![prev, sites.premise(m, x)])));
        }
        for &(x,) in &self.w_covered_reach {
            out.push((atoms::covered(s, x), proof("coverage/reached", vec![Premise::Holds(atoms::test_reach(s, x))])));
        }
        for &(t, x) in &self.w_covered_link {
            out.push((
                atoms::covered(s, x),
                proof("coverage/linked", vec![Premise::Holds(atoms::test_of(s, (SymbolId(t), SymbolId(x))))]),
            ));
        }
        for &(t, x) in &self.w_covered_observed {
            out.push((
                atoms::covered(s, x),
                proof("coverage/observed", vec![Premise::Holds(atoms::covers(s, (SymbolId(t), SymbolId(x))))]),
            ));
        }
        for &(t,) in &self.w_target_modified {
            out.push((
                atoms::change_target(s, t),
                proof("refactor/modified-symbol", vec![Premise::Holds(atoms::modified(s, t))]),
            ));
        }
        for &(t,) in &self.w_target_requested {
            let req = Premise::Holds(atoms::refactor_target(s, SymbolId(t)));
            out.push((atoms::change_target(s, t), proof("refactor/requested", vec![req])));
        }
        for &(t, d) in &self.w_dependent_direct {
            let target = Premise::Holds(atoms::change_target(s, t));
            out.push((atoms::dependent(s, (t, d)), proof("refactor/direct-caller", vec![target, sites.premise(d, t)])));
        }
        for &(t, m, d) in &self.w_dependent_step {
            let prev = Premise::Holds(atoms::dependent(s, (t, m)));
            out.push((atoms::dependent(s, (t, d)), proof("refactor/indirect-caller", vec![prev, sites.premise(d, m)])));
        }
        for &(c, x) in &self.w_uncertain_guess {
            out.push((atoms::uncertain_call(s, (c, x)), proof("uncertain/name-only-edge", vec![sites.premise(c, x)])));
        }
        for &(c, n, x) in &self.w_uncertain_unresolved {
            out.push((
                atoms::uncertain_call(s, (c, x)),
                proof("uncertain/unresolved-call-of-its-name", vec![sites.unresolved_premise(c, n)]),
            ));
        }
        let impacted: std::collections::HashSet<Sym> = self.impacted.iter().map(|&(x,)| x).collect();
        for &(x, y, certain) in &self.w_maybe_impacted {
            let edge = if certain { sites.premise(x, y) } else { Premise::Holds(atoms::uncertain_call(s, (x, y))) };
            let reached =
                if !certain && impacted.contains(&y) { atoms::impacted(s, y) } else { atoms::maybe_impacted(s, y) };
            out.push((
                atoms::maybe_impacted(s, x),
                proof(
                    "uncertain/caller-of-impacted",
                    vec![edge, Premise::Holds(reached), Premise::Absent(atoms::impacted(s, x))],
                ),
            ));
        }
        for &(t, y) in &self.w_maybe_impacted_observed {
            out.push((
                atoms::maybe_impacted(s, t),
                proof(
                    "uncertain/observed-by-test",
                    vec![
                        Premise::Holds(atoms::covers(s, (SymbolId(t), SymbolId(y)))),
                        Premise::Holds(atoms::maybe_impacted(s, y)),
                        Premise::Absent(atoms::impacted(s, t)),
                    ],
                ),
            ));
        }
        for &(t, y, by_call) in &self.w_maybe_impacted_unexecuted {
            let path = if by_call {
                sites.premise(t, y)
            } else {
                Premise::Holds(atoms::covers(s, (SymbolId(t), SymbolId(y))))
            };
            out.push((
                atoms::maybe_impacted(s, t),
                proof("uncertain/observed-run-missed-change", vec![path, h(y), Premise::Absent(atoms::impacted(s, t))]),
            ));
        }
        for &(t, p, via, how) in &self.w_maybe_impacted_loaded {
            let mut premises = loads(p, t).to_vec();
            let (path, reached) = match how {
                LOADED_UNCERTAIN_CALL => (Premise::Holds(atoms::uncertain_call(s, (p, via))), atoms::impacted(s, via)),
                LOADED_CALL => (sites.premise(p, via), atoms::maybe_impacted(s, via)),
                LOADED_VALUE => (loaded_code(p, via), atoms::maybe_impacted(s, via)),
                LOADED_CALL_OBSERVED => (sites.premise(p, via), atoms::impacted(s, via)),
                _ => (loaded_code(p, via), atoms::impacted(s, via)),
            };
            premises.extend([path, Premise::Holds(reached)]);
            if matches!(how, LOADED_CALL_OBSERVED | LOADED_VALUE_OBSERVED) {
                premises.push(Premise::Check(format!(
                    "the run of {} was observed, and may not show what ran while its file loaded",
                    s.resolve(t)
                )));
            }
            premises.push(Premise::Absent(atoms::impacted(s, t)));
            out.push((atoms::maybe_impacted(s, t), proof("uncertain/loaded-with-test-file", premises)));
        }
        for &(t,) in &self.w_maybe_needs_testing_reach {
            let test = Premise::Holds(atoms::test_symbol(s, SymbolId(t)));
            out.push((
                atoms::maybe_needs_testing(s, t),
                proof("uncertain/test-maybe-impacted", vec![test, Premise::Holds(atoms::maybe_impacted(s, t))]),
            ));
        }
        for &(t, x) in &self.w_maybe_needs_testing_link {
            let link = Premise::Holds(atoms::test_of(s, (SymbolId(t), SymbolId(x))));
            // The observed-test variant links to an impacted symbol, not a maybe.
            let reached = if impacted.contains(&x) { atoms::impacted(s, x) } else { atoms::maybe_impacted(s, x) };
            out.push((
                atoms::maybe_needs_testing(s, t),
                proof(
                    "uncertain/linked-test",
                    vec![link, Premise::Holds(reached), Premise::Absent(atoms::needs_testing(s, t))],
                ),
            ));
        }
        for &(x,) in &self.w_coverage_unknown {
            out.push((
                atoms::coverage_unknown(s, x),
                proof(
                    "uncertain/coverage",
                    vec![
                        Premise::Check(format!(
                            "a test could reach {} through an uncertain call (`nerd query uncertain_call`)",
                            s.resolve(x)
                        )),
                        Premise::Absent(atoms::covered(s, x)),
                    ],
                ),
            ));
        }
        for &(t, d) in &self.w_unsafe {
            out.push((
                atoms::unsafe_to_refactor(s, t),
                proof(
                    "refactor/uncovered-dependent",
                    vec![
                        Premise::Holds(atoms::dependent(s, (t, d))),
                        Premise::Absent(atoms::covered(s, d)),
                        Premise::Absent(atoms::test_symbol(s, SymbolId(d))),
                    ],
                ),
            ));
        }
    }
}

impl ClosureProgram {
    pub fn proofs(&self, sites: &CallSites<'_>, out: &mut Vec<(Atom, Proof)>) {
        let s = &sites.facts.symbols;
        for &(x, y) in &self.w_depends_direct {
            out.push((atoms::depends_on(s, (x, y)), proof("depends/calls", vec![sites.premise(x, y)])));
        }
        for &(x, y, z) in &self.w_depends_step {
            let rest = Premise::Holds(atoms::depends_on(s, (y, z)));
            out.push((atoms::depends_on(s, (x, z)), proof("depends/transitive", vec![sites.premise(x, y), rest])));
        }
    }
}

fn proof(rule: &'static str, premises: Vec<Premise>) -> Proof {
    Proof { rule, premises }
}
