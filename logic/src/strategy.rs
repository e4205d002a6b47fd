//! Strategy selection and the TDD state machine: from the perceived intent and
//! the world, exactly one active `strategy` and the `next_action` it takes.
//! Termination is by construction: every repair attempt counts against the
//! retry budget and a spent budget derives `escalate`. While a clarification
//! is pending only interrogative actions are derived.
//! Knows nothing about how actions are carried out.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::max;
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::PathId;
use crate::symbols::{Sym, Symbols};
use crate::vocab::{Action, Category, ContextHint, PathClass, Strategy, TestState, Unworkable, Verb};

/// The strategy a verb selects on its own, for verbs that need no world fact.
fn verb_strategy(verb: Verb) -> Option<Strategy> {
    use Verb::*;
    Some(match verb {
        Search | Impact | Status => Strategy::AnswerFromFacts,
        Review => Strategy::Review,
        Test => Strategy::WriteTests,
        Refactor | Rename => Strategy::Refactor,
        Implement | Document | Delete => Strategy::Implement,
        Commit => Strategy::CommitGate,
        Forbid | Require | Prefer => Strategy::RecordInstruction,
        Remember | Forget => Strategy::UpdateMemory,
        // A fix is the test loop, unless it names a file without code (below).
        Fix | Explain | Scaffold => return None,
    })
}

/// The action a strategy takes when it needs no state machine.
fn direct_action(strategy: Strategy) -> Option<Action> {
    Some(match strategy {
        Strategy::Refuse => Action::RefuseRequest,
        Strategy::Clarify => Action::AskClarification,
        Strategy::AnswerFromFacts => Action::AnswerQuery,
        Strategy::Review => Action::ReviewChanges,
        Strategy::Implement => Action::ProposeEdit,
        Strategy::ProjectInit => Action::Scaffold,
        Strategy::RecordInstruction => Action::RecordRule,
        Strategy::UpdateMemory => Action::UpdateMemory,
        Strategy::CommitGate => Action::RunChecks,
        Strategy::TddRepairLoop
        | Strategy::Refactor
        | Strategy::WriteTests
        | Strategy::BreadthFirstSurvey
        | Strategy::Idle => return None,
    })
}

/// The `lang` of files whose code nerd projects (the others are data, docs, configuration).
const CODE_LANGUAGES: &[&str] = &["rust", "go", "python", "typescript", "tsx"];

fn is_broken(state: TestState) -> bool {
    matches!(state, TestState::Failing | TestState::BuildBroken)
}

ascent! {
    /// Strategy selection and next action.
    pub struct StrategyProgram;

    relation user_intent(Sym, Category, Verb, Sym, Sym);
    relation context_hint(Sym, ContextHint);
    relation clarification_needed(Sym);
    relation unsafe_to_refactor(Sym);
    relation approval(Sym, Sym);
    relation test_state(TestState);
    relation retry(u32, u32);
    relation pending_patch();
    relation workspace_empty();
    relation delegation_pending();
    relation patch_kept();
    relation mutation_result(u32, u32);
    relation target_path(Sym, PathId);
    relation path_class(PathId, PathClass);
    relation binary_file(PathId);
    relation code_file(PathId);

    relation candidate(Strategy);
    relation candidate_rank(Strategy, u8);
    relation top_rank(u8);
    relation strategy(Strategy);
    relation clarification_pending();
    relation refactor_blocked();
    relation proposed(Action);
    relation next_action(Action);
    relation patch_loop(Strategy);
    relation mutation_checked();
    relation unworkable(Sym, PathId, Unworkable);
    relation fix_in_file(Sym, PathId);
    relation fixes_a_file(Sym);

    relation w_cand_clarify(Sym);
    relation w_cand_refuse(Sym, PathId, Unworkable);
    relation w_cand_fix(Strategy, Sym);
    relation w_outside(Sym, PathId, PathClass);
    relation w_cand_verb(Strategy, Sym, Verb);
    relation w_cand_explain(Strategy, Sym);
    relation w_cand_scaffold(Strategy, Sym);
    relation w_strategy(Strategy, u8);
    relation w_direct(Strategy, Action);
    relation w_tdd(Action, TestState, u32, u32);
    relation w_apply_patch(u32, u32);
    relation w_blocked(Sym);
    relation w_refactor(Action);
    relation w_survey(Action);
    relation w_next(Action, bool);
    relation w_rewrite(Sym);
    // (strategy, action, test state read, and the budget (n, b), or for mutation steps (killed, tried)).
    relation w_loop(Strategy, Action, TestState, u32, u32);

    // Idle is always a candidate, so some strategy is always active.
    candidate(Strategy::Idle);
    candidate(Strategy::Clarify), w_cand_clarify(r) <-- clarification_needed(r);
    candidate(s), w_cand_verb(s, i, v) <-- user_intent(i, _, v, _, _), if let Some(s) = verb_strategy(*v);

    // A change of what nerd cannot change is refused, with the reason.
    unworkable(i, p, Unworkable::BinaryFile) <--
        user_intent(i, Category::Mutation, _, _, _), target_path(i, p), binary_file(p);
    unworkable(i, p, Unworkable::OutsideWorkspace), w_outside(i, p, c) <--
        user_intent(i, Category::Mutation, _, _, _), target_path(i, p), path_class(p, c),
        if matches!(c, PathClass::Outside | PathClass::Device);
    candidate(Strategy::Refuse), w_cand_refuse(i, p, r) <-- unworkable(i, p, r);

    // A fix is the test loop, unless it names a file of the workspace without code (a schema, a config).
    fix_in_file(i, p), fixes_a_file(i) <--
        user_intent(i, _, Verb::Fix, _, _), target_path(i, p), path_class(p, PathClass::Inside),
        !code_file(p), !binary_file(p);
    candidate(Strategy::TddRepairLoop), w_cand_fix(Strategy::TddRepairLoop, i) <--
        user_intent(i, _, Verb::Fix, _, _), !fixes_a_file(i);
    candidate(Strategy::Implement), w_cand_fix(Strategy::Implement, *i) <-- fix_in_file(i, _);
    candidate(Strategy::BreadthFirstSurvey), w_cand_explain(Strategy::BreadthFirstSurvey, i) <--
        user_intent(i, _, Verb::Explain, _, _), context_hint(i, ContextHint::Broad);
    candidate(Strategy::AnswerFromFacts), w_cand_explain(Strategy::AnswerFromFacts, i) <--
        user_intent(i, _, Verb::Explain, _, _), !context_hint(i, ContextHint::Broad);
    candidate(Strategy::ProjectInit), w_cand_scaffold(Strategy::ProjectInit, i) <--
        user_intent(i, _, Verb::Scaffold, _, _), workspace_empty();
    candidate(Strategy::Implement), w_cand_scaffold(Strategy::Implement, i) <--
        user_intent(i, _, Verb::Scaffold, _, _), !workspace_empty();

    // Ranks are unique per strategy, so the highest-ranked candidate is unique.
    candidate_rank(s, s.rank()) <-- candidate(s);
    top_rank(k) <-- agg k = max(r) in candidate_rank(_, r);
    strategy(s), w_strategy(s, k) <-- candidate_rank(s, k), top_rank(k);

    proposed(a), w_direct(s, a) <-- strategy(s), if let Some(a) = direct_action(*s);

    // TDD repair loop: run tests, propose a patch, apply it, repeat within the budget.
    proposed(Action::ApplyPatch), w_apply_patch(n, b) <--
        strategy(Strategy::TddRepairLoop), pending_patch(), retry(n, b), if n < b;
    proposed(a), w_tdd(a, st, n, b) <--
        strategy(Strategy::TddRepairLoop), !pending_patch(), test_state(st), retry(n, b),
        if let Some(a) = match st {
            TestState::Unknown => Some(Action::RunTests),
            TestState::Passing => Some(Action::ReportSuccess),
            // Nothing failed, but nothing was verified either: say so, never "success".
            TestState::Unverified => Some(Action::ReportUnverified),
            s if is_broken(*s) && n < b => Some(Action::ProposePatch),
            _ => None,
        };
    // A spent budget always escalates, whatever else is pending.
    proposed(Action::Escalate), w_tdd(Action::Escalate, st, n, b) <--
        strategy(Strategy::TddRepairLoop), test_state(st), if is_broken(*st), retry(n, b), if n >= b;

    // Survey: sub-tasks the kernel delegated run first; then the survey gathers what they found.
    proposed(Action::Delegate), w_survey(Action::Delegate) <-- strategy(Strategy::BreadthFirstSurvey), delegation_pending();
    proposed(Action::Survey), w_survey(Action::Survey) <-- strategy(Strategy::BreadthFirstSurvey), !delegation_pending();

    // Refactor: unsafe targets need a recorded human approval first.
    refactor_blocked(), w_blocked(t) <-- unsafe_to_refactor(t), !approval(t, _);
    proposed(Action::AskApproval), w_refactor(Action::AskApproval) <-- strategy(Strategy::Refactor), refactor_blocked();
    proposed(Action::ApplyRefactor), w_refactor(Action::ApplyRefactor) <--
        strategy(Strategy::Refactor), !refactor_blocked(), !patch_loop(Strategy::Refactor);

    // Patch loops: a model writes the change, each attempt within the budget.
    // A refactor other than a rename is one, once approved where its target is unsafe.
    patch_loop(Strategy::Refactor), w_rewrite(i) <--
        strategy(Strategy::Refactor), user_intent(i, _, Verb::Refactor, _, _), !refactor_blocked();
    patch_loop(Strategy::WriteTests) <-- strategy(Strategy::WriteTests);
    // A refactor runs the tests first: what passes before must pass after.
    proposed(Action::RunTests), w_loop(Strategy::Refactor, Action::RunTests, TestState::Unknown, n, b) <--
        patch_loop(Strategy::Refactor), test_state(TestState::Unknown), !pending_patch(), !patch_kept(),
        retry(n, b), if n < b;
    proposed(Action::ProposePatch), w_loop(Strategy::Refactor, Action::ProposePatch, *st, n, b) <--
        patch_loop(Strategy::Refactor), test_state(st), if *st != TestState::Unknown,
        !pending_patch(), !patch_kept(), retry(n, b), if n < b;
    proposed(Action::ProposePatch), w_loop(Strategy::WriteTests, Action::ProposePatch, TestState::Unknown, n, b) <--
        patch_loop(Strategy::WriteTests), !pending_patch(), !patch_kept(), retry(n, b), if n < b;
    proposed(Action::ApplyPatch), w_loop(*s, Action::ApplyPatch, TestState::Unknown, n, b) <--
        patch_loop(s), pending_patch(), retry(n, b), if n < b;
    proposed(Action::Escalate), w_loop(*s, Action::Escalate, TestState::Unknown, n, b) <--
        patch_loop(s), !patch_kept(), retry(n, b), if n >= b;
    // A kept refactor is a success only when the tests verifiably pass after it.
    proposed(a), w_loop(Strategy::Refactor, a, *st, 0, 0) <--
        patch_loop(Strategy::Refactor), patch_kept(), !pending_patch(), test_state(st),
        let a = if *st == TestState::Passing { Action::ReportSuccess } else { Action::ReportUnverified };
    // New tests that pass today must also fail on at least one seeded mutant of their target.
    mutation_checked() <-- mutation_result(_, _);
    proposed(Action::CheckMutants), w_loop(Strategy::WriteTests, Action::CheckMutants, TestState::Unknown, 0, 0) <--
        patch_loop(Strategy::WriteTests), patch_kept(), !pending_patch(), !mutation_checked();
    proposed(a), w_loop(Strategy::WriteTests, a, TestState::Unknown, *k, *t) <--
        patch_loop(Strategy::WriteTests), patch_kept(), !pending_patch(), mutation_result(k, t),
        let a = if *k > 0 { Action::ReportSuccess } else { Action::WithdrawPatch };

    // While a clarification is pending, only interrogative actions survive.
    clarification_pending() <-- clarification_needed(_);
    next_action(a), w_next(a, true) <-- proposed(a), if a.is_interrogative();
    next_action(a), w_next(a, false) <-- proposed(a), if !a.is_interrogative(), !clarification_pending();
}

/// Runs the strategy program on a fresh instance, with the upstream atoms it reads.
pub fn run(
    facts: &Facts,
    clarification_needed: &[(Sym,)],
    unsafe_to_refactor: &[(Sym,)],
    delegation_pending: &[()],
) -> StrategyProgram {
    let mut p = StrategyProgram {
        user_intent: relation::user_intent(facts),
        context_hint: relation::context_hint(facts),
        clarification_needed: clarification_needed.to_vec(),
        unsafe_to_refactor: unsafe_to_refactor.to_vec(),
        approval: relation::approval(facts),
        test_state: relation::test_state(facts),
        retry: vec![(facts.retry_count, facts.retry_budget)],
        pending_patch: relation::pending_patch(facts),
        workspace_empty: relation::workspace_empty(facts),
        delegation_pending: delegation_pending.to_vec(),
        patch_kept: relation::patch_kept(facts),
        mutation_result: relation::mutation_result(facts),
        target_path: relation::target_path(facts),
        path_class: relation::path_class(facts),
        binary_file: relation::binary_file(facts),
        code_file: facts
            .file
            .iter()
            .filter(|f| CODE_LANGUAGES.contains(&facts.symbols.resolve(f.lang)))
            .map(|f| (f.path,))
            .collect(),
        ..Default::default()
    };
    p.run();
    p
}

impl StrategyProgram {
    /// The premises of one patch-loop step `a` of strategy `x`, which read
    /// test state `st` and the budget, or the mutation counts, `(n, b)`.
    fn loop_premises(
        &self,
        s: &Symbols,
        (x, a, st): (Strategy, Action, TestState),
        (n, b): (u32, u32),
    ) -> Vec<Premise> {
        let mut premises = vec![Premise::Holds(atoms::patch_loop(s, x))];
        let (pending, kept) = (atoms::pending_patch(s), atoms::patch_kept(s));
        let within = Premise::Check(format!("retry_count {n} < retry_budget {b}"));
        match a {
            Action::RunTests => premises.extend([
                Premise::Holds(atoms::test_state(s, st)),
                Premise::Absent(pending),
                Premise::Absent(kept),
                within,
            ]),
            Action::ProposePatch => {
                if x == Strategy::Refactor {
                    premises.push(Premise::Holds(atoms::test_state(s, st)));
                    premises.push(Premise::Check(format!("the tests ran before the change (`{st}`)")));
                }
                premises.extend([Premise::Absent(pending), Premise::Absent(kept), within]);
            }
            Action::ApplyPatch => premises.extend([Premise::Holds(pending), within]),
            Action::Escalate => {
                premises.extend([Premise::Absent(kept), Premise::Check(format!("retry_count {n} >= retry_budget {b}"))])
            }
            Action::CheckMutants => premises.extend([
                Premise::Holds(kept),
                Premise::Absent(pending),
                Premise::Absent(atoms::mutation_checked(s)),
            ]),
            _ if x == Strategy::WriteTests => premises.extend([
                Premise::Holds(kept),
                Premise::Absent(pending),
                Premise::Holds(atoms::mutation_result(s, (n, b))),
                Premise::Check(format!("{n} of {b} mutants made the new tests fail")),
            ]),
            _ => premises.extend([
                Premise::Holds(kept),
                Premise::Absent(pending),
                Premise::Holds(atoms::test_state(s, st)),
            ]),
        }
        premises
    }

    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        let cand = |x: Strategy| atoms::candidate(s, x);
        let intent =
            |i: Sym| self.user_intent.iter().find(|t| t.0 == i).map(|&row| Premise::Holds(atoms::user_intent(s, row)));
        let strat = |x: Strategy| Premise::Holds(atoms::strategy(s, x));
        let mut push =
            |head: Atom, rule: &'static str, premises: Vec<Premise>| out.push((head, Proof { rule, premises }));

        if self.candidate.contains(&(Strategy::Idle,)) {
            push(cand(Strategy::Idle), "strategy/idle-always-candidate", vec![]);
        }
        for &(r,) in &self.w_cand_clarify {
            push(cand(Strategy::Clarify), "strategy/clarify", vec![Premise::Holds(atoms::clarification_needed(s, r))]);
        }
        for &(i, p, r) in &self.w_cand_refuse {
            push(
                cand(Strategy::Refuse),
                "strategy/refuse-unworkable",
                vec![Premise::Holds(atoms::unworkable(s, (i, p, r)))],
            );
        }
        for &(i, p, c) in &self.w_outside {
            let premises = [
                intent(i),
                Some(Premise::Holds(atoms::target_path(s, (i, p)))),
                Some(Premise::Holds(atoms::path_class(s, (p, c)))),
            ];
            push(
                atoms::unworkable(s, (i, p, Unworkable::OutsideWorkspace)),
                "refuse/outside-workspace",
                premises.into_iter().flatten().collect(),
            );
        }
        for &(i, p, r) in &self.unworkable {
            if r == Unworkable::BinaryFile {
                let premises = [
                    intent(i),
                    Some(Premise::Holds(atoms::target_path(s, (i, p)))),
                    Some(Premise::Holds(atoms::binary_file(s, p))),
                ];
                push(atoms::unworkable(s, (i, p, r)), "refuse/binary-file", premises.into_iter().flatten().collect());
            }
        }
        for &(i, p) in &self.fix_in_file {
            let premises = [
                intent(i),
                Some(Premise::Holds(atoms::target_path(s, (i, p)))),
                Some(Premise::Holds(atoms::path_class(s, (p, PathClass::Inside)))),
                Some(Premise::Check(format!("{} holds no code nerd projects, and is no binary", s.resolve(p.sym())))),
            ];
            push(atoms::fix_in_file(s, (i, p)), "strategy/fix-a-file", premises.into_iter().flatten().collect());
        }
        for &(x, i) in &self.w_cand_fix {
            let file = self.fix_in_file.iter().find(|r| r.0 == i).map(|&r| atoms::fix_in_file(s, r));
            let why = match (x, file) {
                (Strategy::Implement, Some(a)) => Premise::Holds(a),
                _ => Premise::Check("the fix names no file without code".into()),
            };
            push(cand(x), "strategy/fix", intent(i).into_iter().chain([why]).collect());
        }
        for &(x, i, v) in &self.w_cand_verb {
            let check = Premise::Check(format!("verb `{v}` selects strategy `{x}`"));
            push(cand(x), "strategy/by-verb", intent(i).into_iter().chain([check]).collect());
        }
        for &(x, i) in &self.w_cand_explain {
            let hint =
                Premise::either(x == Strategy::BreadthFirstSurvey, atoms::context_hint(s, (i, ContextHint::Broad)));
            push(cand(x), "strategy/explain", intent(i).into_iter().chain([hint]).collect());
        }
        for &(x, i) in &self.w_cand_scaffold {
            let empty = Premise::either(x == Strategy::ProjectInit, atoms::workspace_empty(s));
            push(cand(x), "strategy/scaffold", intent(i).into_iter().chain([empty]).collect());
        }
        for &(x, k) in &self.w_strategy {
            let check = Premise::Check(format!("rank {k} is the highest among the candidates"));
            push(atoms::strategy(s, x), "strategy/highest-rank", vec![Premise::Holds(cand(x)), check]);
        }
        for &(x, a) in &self.w_direct {
            push(atoms::proposed(s, a), "strategy/direct-action", vec![strat(x)]);
        }
        for &(n, b) in &self.w_apply_patch {
            let premises = vec![
                strat(Strategy::TddRepairLoop),
                Premise::Holds(atoms::pending_patch(s)),
                Premise::Check(format!("retry_count {n} < retry_budget {b}")),
            ];
            push(atoms::proposed(s, Action::ApplyPatch), "tdd/apply-pending-patch", premises);
        }
        for &(a, st, n, b) in &self.w_tdd {
            let mut premises = vec![strat(Strategy::TddRepairLoop), Premise::Holds(atoms::test_state(s, st))];
            match a {
                Action::Escalate => premises.push(Premise::Check(format!("retry_count {n} >= retry_budget {b}"))),
                Action::ProposePatch => {
                    premises.push(Premise::Absent(atoms::pending_patch(s)));
                    premises.push(Premise::Check(format!("retry_count {n} < retry_budget {b}")));
                }
                _ => premises.push(Premise::Absent(atoms::pending_patch(s))),
            }
            push(atoms::proposed(s, a), "tdd/state-machine", premises);
        }
        for &(t,) in &self.w_blocked {
            let premises = vec![
                Premise::Holds(atoms::unsafe_to_refactor(s, t)),
                Premise::Check(format!("no approval recorded for {}", s.resolve(t))),
            ];
            push(atoms::refactor_blocked(s), "refactor/unapproved-unsafe-target", premises);
        }
        for &(a,) in &self.w_survey {
            let pending = Premise::either(a == Action::Delegate, atoms::delegation_pending(s));
            push(atoms::proposed(s, a), "survey/delegate-first", vec![strat(Strategy::BreadthFirstSurvey), pending]);
        }
        for &(a,) in &self.w_refactor {
            let blocked = Premise::either(a == Action::AskApproval, atoms::refactor_blocked(s));
            push(atoms::proposed(s, a), "refactor/gate", vec![strat(Strategy::Refactor), blocked]);
        }
        for &(i,) in &self.w_rewrite {
            let premises = vec![
                strat(Strategy::Refactor),
                intent(i).unwrap_or(Premise::Check("a refactor was asked for".into())),
                Premise::Absent(atoms::refactor_blocked(s)),
            ];
            push(atoms::patch_loop(s, Strategy::Refactor), "patch-loop/refactor-by-model", premises);
        }
        if self.patch_loop.contains(&(Strategy::WriteTests,)) {
            push(
                atoms::patch_loop(s, Strategy::WriteTests),
                "patch-loop/write-tests",
                vec![strat(Strategy::WriteTests)],
            );
        }
        if let Some(&(k, t)) = self.mutation_result.first() {
            let premise = Premise::Holds(atoms::mutation_result(s, (k, t)));
            push(atoms::mutation_checked(s), "write-tests/mutants-checked", vec![premise]);
        }
        for &(x, a, st, n, b) in &self.w_loop {
            push(atoms::proposed(s, a), "patch-loop/step", self.loop_premises(s, (x, a, st), (n, b)));
        }
        if let Some((r,)) = self.clarification_needed.first() {
            let premise = Premise::Holds(atoms::clarification_needed(s, *r));
            push(atoms::clarification_pending(s), "next/clarification-pending", vec![premise]);
        }
        for &(a, interrogative) in &self.w_next {
            let proposed = Premise::Holds(atoms::proposed(s, a));
            let guard = if interrogative {
                Premise::Check(format!("`{a}` is interrogative"))
            } else {
                Premise::Absent(atoms::clarification_pending(s))
            };
            push(atoms::next_action(s, a), "next/guarded", vec![proposed, guard]);
        }
    }
}
