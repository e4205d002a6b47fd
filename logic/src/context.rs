//! Context by spreading activation: what a model call should see. Activation
//! starts at the request's seeds (its target and focus, failing tests, error
//! diagnostics) at cost 0, and at what earlier requests touched
//! (`remembered`, cost 2 + age), and flows over the world's edges, each with a cost:
//! a certain call 1 forward and 2 backward, an uncertain call (a bare-name
//! guess, or an unresolved call of the symbol's name) 3 forward, test
//! links and coverage 1 (2 from the symbol back to a covering test), a symbol
//! to its file 1 and a file to its symbols 2, a learned `knowledge_link` 1
//! forward and 2 back (so graph memory is walked as many hops as the bound
//! allows, through the world's edges and learned ones alike). What recall
//! found by meaning and words (`vector_recall`) starts activation at cost 2
//! to 4 by its score when the request has no seeds of its own. `activation(Seed, Item, Cost)`
//! holds for every path cost up to `MAX_COST`; `context_atom(Item, Score)`
//! sums `1000 >> Cost` of the cheapest path from each seed, so what several seeds reach outranks what one
//! does. When the run that failed also names the tests that passed
//! (`passing_test`), the sum is weighed by how much the failures, and only
//! they, run the item (spectrum-based fault localisation, Ochiai). What a
//! test runs is what a coverage run saw it execute, else what its calls
//! reach. What every failing test runs and no passing test does keeps its
//! whole score; what every test runs, failing or not (the parser all of them
//! go through), keeps a fraction; what no failing test runs keeps an eighth.
//! `select` keeps the best-scoring items whose code fits a token budget.
//! Evaluated on demand; knows nothing about files' text or how tokens are
//! counted.

use ascent::aggregators::{count, min, sum};
use ascent::{ascent, Dual};

use crate::atom::Atom;
use crate::impact::CallSites;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{PathId, Sym, SymbolId, Symbols};

/// Why a failing test is a seed (`context_seed(Test, "failing_test")`).
pub const FAILING_TEST: &str = "failing_test";

/// The most a path may cost: six calls deep, or three callers up.
pub const MAX_COST: u32 = 6;

/// What an activation step went through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Via {
    Calls,
    CalledBy,
    MayCall,
    TestOf,
    TestedBy,
    Covers,
    CoveredBy,
    DefinedIn,
    Defines,
    Knows,
    KnownBy,
}

impl Via {
    /// What one step through it costs.
    pub fn cost(self) -> u32 {
        match self {
            Via::Calls | Via::TestOf | Via::TestedBy | Via::Covers | Via::DefinedIn | Via::Knows => 1,
            Via::CalledBy | Via::CoveredBy | Via::Defines | Via::KnownBy => 2,
            Via::MayCall => 3,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Via::Calls => "calls",
            Via::CalledBy => "called by",
            Via::MayCall => "may call",
            Via::TestOf => "tests",
            Via::TestedBy => "tested by",
            Via::Covers => "executes",
            Via::CoveredBy => "executed by",
            Via::DefinedIn => "defined in",
            Via::Defines => "defines",
            Via::Knows => "linked to",
            Via::KnownBy => "linked from",
        }
    }
}

ascent! {
    /// Spreading activation from a request's seeds.
    pub struct ContextProgram;

    relation context_seed(Sym, Sym);
    relation remembered(Sym, u32);
    relation calls(Sym, Sym, bool);
    relation uncertain_call(Sym, Sym);
    relation test_of(Sym, Sym);
    relation covers(Sym, Sym);
    relation defines(Sym, Sym);
    relation knowledge_link(Sym, Sym, Sym);
    relation vector_recall(Sym, Sym, u32);
    relation failing_test(Sym);
    relation passing_test(Sym);

    relation activation(Sym, Sym, u32);
    relation cheapest(Sym, Sym, u32);
    relation contribution(Sym, Sym, u32);
    relation activation_sum(Sym, u32);
    relation context_atom(Sym, u32);
    // The spectrum: what each test runs, at its fewest steps, and who runs each item.
    relation executes(Sym, Sym);
    relation observed(Sym);
    lattice runs(Sym, Sym, Dual<u32>);
    relation failing_runs(Sym, Sym);
    relation passing_runs(Sym, Sym);
    relation failing_total(usize);
    relation spectrum(Sym, usize, usize);
    relation weighed(bool);
    relation executed_by(Sym, usize);
    relation context_link(Sym, Sym, Sym);
    relation edge(Sym, Sym, Via);
    relation seeded(bool);

    // Witnesses: the seed, a remembered start, and each step `(seed, from, to, via, cost)`.
    relation w_seed(Sym, Sym);
    relation w_remembered(Sym, u32, u32);
    relation w_recalled(Sym, Sym, u32, u32);
    relation w_step(Sym, Sym, Sym, Via, u32);

    // `activation(S, X, C)`: some path from seed S reaches X at cost C (at most MAX_COST).
    activation(s, s, 0), w_seed(s, why) <-- context_seed(s, why);
    // What earlier requests touched starts further away, the older the further.
    activation(s, s, c), w_remembered(s, age, c) <-- remembered(s, age), let c = 2 + (*age).min(4);
    // What recall found starts activation, by its score, only for a request
    // without seeds of its own: beside named seeds or failing tests, even a
    // small likeness would reorder the many items the seeds reach equally.
    seeded(true) <-- context_seed(_, _);
    activation(x, x, c), w_recalled(x, q, score, c) <--
        vector_recall(q, x, score), !seeded(true), let c = recall_cost(*score);
    // Each edge of the world and of graph memory, with the way it goes;
    // `Via::cost` says what a step through it costs.
    edge(a, b, Via::Calls), edge(b, a, Via::CalledBy) <-- calls(a, b, true);
    edge(a, b, Via::MayCall) <-- uncertain_call(a, b);
    edge(t, x, Via::TestOf), edge(x, t, Via::TestedBy) <-- test_of(t, x);
    edge(t, x, Via::Covers), edge(x, t, Via::CoveredBy) <-- covers(t, x);
    edge(x, p, Via::DefinedIn), edge(p, x, Via::Defines) <-- defines(p, x);
    edge(a, b, Via::Knows), edge(b, a, Via::KnownBy) <-- knowledge_link(a, _, b), if a != b;
    activation(s, b, k), w_step(s, a, b, *via, k) <--
        activation(s, a, c), edge(a, b, via), let k = c + via.cost(), if k <= MAX_COST;
    // A learned link with an activated end is shown to the model.
    context_link(a, r, b) <-- knowledge_link(a, r, b), activation(_, a, _);
    context_link(a, r, b) <-- knowledge_link(a, r, b), activation(_, b, _);

    // Each seed adds 1000 halved per unit of its cheapest cost; the sum is the item's score.
    cheapest(s, x, c) <-- activation(s, x, _), agg c = min(k) in activation(s, x, k);
    contribution(s, x, 1000u32 >> c) <-- cheapest(s, x, c);
    activation_sum(x, total) <-- activation(_, x, _), agg total = sum(w) in contribution(_, x, w);

    // Without the tests that passed, the sum is the score.
    weighed(true) <-- passing_test(_), failing_test(_);
    context_atom(x, total) <-- activation_sum(x, total), !weighed(true);
    // With them: what each test of the run runs. A test a coverage run
    // observed runs what it was seen to execute; any other, what certain calls
    // and test links reach from it, up to MAX_COST calls deep (static calls
    // reach every branch and every implementation, so they over-count).
    observed(t) <-- covers(t, _);
    executes(a, b) <-- calls(a, b, true);
    executes(t, x) <-- test_of(t, x);
    runs(t, t, Dual(0)) <-- failing_test(t);
    runs(t, t, Dual(0)) <-- passing_test(t);
    runs(t, x, Dual(1)) <-- runs(t, t, _), covers(t, x);
    runs(t, b, Dual(d + 1)) <-- runs(t, a, ?Dual(d)), !observed(t), if *d < MAX_COST, executes(a, b);
    failing_runs(t, x) <-- runs(t, x, _), failing_test(t);
    passing_runs(t, x) <-- runs(t, x, _), passing_test(t);
    failing_total(n) <-- weighed(true), agg n = count() in failing_test(_);
    spectrum(x, failed, passed) <--
        activation_sum(x, _), weighed(true),
        agg failed = count() in failing_runs(_, x),
        agg passed = count() in passing_runs(_, x);
    context_atom(x, ochiai_weighed(*total, *failed, *passed, *all)) <--
        activation_sum(x, total), spectrum(x, failed, passed), failing_total(all);
    // How many tests a coverage run saw execute an activated item: among equal scores,
    // what fewer tests execute says more about these failures.
    executed_by(x, n) <-- context_atom(x, _), covers(_, x), agg n = count() in covers(_, x);
}

/// An item's score weighed by its Ochiai suspiciousness, `failed /
/// sqrt(all_failed * (failed + passed))`: `failed` of the `all_failed` failing
/// tests run it, and `passed` passing ones. The weight runs from 1/8 (no
/// failing test runs it) to 1 (every failing test does, no passing one).
pub fn ochiai_weighed(score: u32, failed: usize, passed: usize, all_failed: usize) -> u32 {
    let ochiai = if failed == 0 || all_failed == 0 {
        0.0
    } else {
        failed as f64 / ((all_failed * (failed + passed)) as f64).sqrt()
    };
    let weight = 0.125 + 0.875 * ochiai.min(1.0);
    (f64::from(score) * weight).round() as u32
}

/// Where a recalled item starts: cost 2 at a fused score of 0.6 or more
/// (all-MiniLM-L6-v2 rarely gives a request and the code it means a cosine
/// above 0.6), 3 at 0.45 or more, 4 below (recall guesses by likeness; a
/// seed is named).
pub fn recall_cost(score: u32) -> u32 {
    match score {
        600.. => 2,
        450..=599 => 3,
        _ => 4,
    }
}

/// Runs the context program on a fresh instance; `uncertain` is the impact
/// program's `uncertain_call` (bare-name guesses, and unresolved calls of a
/// symbol's name).
pub fn run(facts: &Facts, uncertain: &[(Sym, Sym)]) -> ContextProgram {
    let mut calls: Vec<(Sym, Sym, bool)> =
        facts.calls.iter().map(|&(a, b, _, _, p)| (a.sym(), b.sym(), p.is_certain())).collect();
    calls.sort_unstable();
    calls.dedup();
    let mut p = ContextProgram {
        context_seed: relation::context_seed(facts),
        remembered: relation::remembered(facts),
        calls,
        uncertain_call: uncertain.to_vec(),
        test_of: facts.test_of.iter().map(|&(t, s)| (t.sym(), s.sym())).collect(),
        covers: facts.covers.iter().map(|&(t, s)| (t.sym(), s.sym())).collect(),
        defines: facts.defines.iter().map(|&(p, s)| (p.0, s.sym())).collect(),
        knowledge_link: relation::knowledge_link(facts),
        vector_recall: relation::vector_recall(facts),
        failing_test: facts
            .context_seed
            .iter()
            .filter(|&&(_, why)| facts.symbols.resolve(why) == FAILING_TEST)
            .map(|&(t, _)| (t,))
            .collect(),
        passing_test: relation::passing_test(facts),
        ..Default::default()
    };
    p.run();
    p
}

/// One step of an activation path: from `from` to the next item, through `via`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub from: Sym,
    pub via: Via,
    pub to: Sym,
}

impl ContextProgram {
    /// Items by score, best first. Among equal scores, what fewer tests were
    /// seen to execute comes first (a function every test runs says little
    /// about these failures; one no run executed comes last), then by name,
    /// so the order is stable.
    pub fn ranked(&self, s: &Symbols) -> Vec<(Sym, u32)> {
        let executed: std::collections::HashMap<Sym, usize> = self.executed_by.iter().copied().collect();
        let mut out = self.context_atom.clone();
        let runs = |x: Sym| executed.get(&x).copied().unwrap_or(usize::MAX);
        out.sort_by(|a, b| {
            b.1.cmp(&a.1).then_with(|| runs(a.0).cmp(&runs(b.0))).then_with(|| s.resolve(a.0).cmp(s.resolve(b.0)))
        });
        out
    }

    /// The seed that activates `item` most cheaply, with the cost.
    pub fn best_seed(&self, item: Sym) -> Option<(Sym, u32)> {
        self.cheapest.iter().filter(|a| a.1 == item).map(|a| (a.0, a.2)).min_by_key(|&(s, c)| (c, s))
    }

    /// Why `seed` is a seed; `None` for a remembered start.
    pub fn seed_reason(&self, seed: Sym) -> Option<Sym> {
        self.w_seed.iter().find(|w| w.0 == seed).map(|w| w.1)
    }

    /// How many requests ago a remembered start was touched, when it is one.
    pub fn remembered_age(&self, seed: Sym) -> Option<u32> {
        self.w_remembered.iter().find(|w| w.0 == seed).map(|w| w.1)
    }

    /// The cheapest cost at which `seed` reaches `item`.
    pub fn cost(&self, seed: Sym, item: Sym) -> Option<u32> {
        self.cheapest.iter().find(|c| c.0 == seed && c.1 == item).map(|c| c.2)
    }

    /// The score of a start that recall found, when it is one.
    pub fn recalled_score(&self, seed: Sym) -> Option<u32> {
        self.w_recalled.iter().filter(|w| w.0 == seed).map(|w| w.2).max()
    }

    /// The learned links with an activated end, in a stable order.
    pub fn links(&self) -> Vec<(Sym, Sym, Sym)> {
        let mut out = self.context_link.clone();
        out.sort_unstable();
        out
    }

    /// A cheapest path from `seed` to `item`, seed first; empty for the seed itself.
    pub fn path(&self, seed: Sym, item: Sym) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut at = item;
        let Some(mut cost) = self.cheapest.iter().find(|c| c.0 == seed && c.1 == item).map(|c| c.2) else {
            return steps;
        };
        while cost > 0 {
            // A step into `at` at exactly its cheapest cost comes from a cheaper item.
            let Some(&(_, from, _, via, _)) =
                self.w_step.iter().filter(|w| w.0 == seed && w.2 == at && w.4 == cost).min_by_key(|w| (w.3, w.1))
            else {
                break;
            };
            steps.push(Step { from, via, to: at });
            cost -= via.cost();
            at = from;
        }
        steps.reverse();
        steps
    }

    /// The learned link from `a` to `b` (the first by relation).
    fn link_premise(&self, s: &Symbols, a: Sym, b: Sym) -> Premise {
        match self.knowledge_link.iter().filter(|l| l.0 == a && l.2 == b).min_by_key(|l| l.1) {
            Some(&link) => Premise::Holds(atoms::knowledge_link(s, link)),
            None => Premise::Check(format!("{} is linked to {}", s.resolve(a), s.resolve(b))),
        }
    }

    pub fn proofs(&self, sites: &CallSites<'_>, out: &mut Vec<(Atom, Proof)>) {
        let s = sites.symbols();
        for &(seed, why) in &self.w_seed {
            let premises = vec![Premise::Holds(atoms::context_seed(s, (seed, why)))];
            out.push((atoms::activation(s, (seed, seed, 0)), Proof { rule: "context/seed", premises }));
        }
        for &(seed, age, cost) in &self.w_remembered {
            let premises = vec![
                Premise::Holds(atoms::remembered(s, (seed, age))),
                Premise::Check(format!("a remembered start costs 2 + min(age {age}, 4) = {cost}")),
            ];
            out.push((atoms::activation(s, (seed, seed, cost)), Proof { rule: "context/remembered", premises }));
        }
        for &(seed, query, score, cost) in &self.w_recalled {
            let premises = vec![
                Premise::Holds(atoms::vector_recall(s, (query, seed, score))),
                Premise::Check(format!(
                    "a recalled start with score {score} costs {cost}, and the request has no seeds of its own"
                )),
            ];
            out.push((atoms::activation(s, (seed, seed, cost)), Proof { rule: "context/recalled", premises }));
        }
        for &(a, r, b) in &self.context_link {
            let end = if self.cheapest.iter().any(|c| c.1 == a) { a } else { b };
            let premises = match self.cheapest.iter().filter(|c| c.1 == end).min_by_key(|c| (c.2, c.0)) {
                Some(&(seed, _, cost)) => vec![
                    Premise::Holds(atoms::knowledge_link(s, (a, r, b))),
                    Premise::Holds(atoms::activation(s, (seed, end, cost))),
                ],
                None => vec![Premise::Holds(atoms::knowledge_link(s, (a, r, b)))],
            };
            out.push((atoms::context_link(s, (a, r, b)), Proof { rule: "context/link", premises }));
        }
        for &(seed, from, to, via, cost) in &self.w_step {
            let link = match via {
                Via::Calls => sites.premise(from, to),
                Via::MayCall => Premise::Holds(atoms::uncertain_call(s, (from, to))),
                Via::CalledBy => sites.premise(to, from),
                Via::TestOf => Premise::Holds(atoms::test_of(s, (SymbolId(from), SymbolId(to)))),
                Via::TestedBy => Premise::Holds(atoms::test_of(s, (SymbolId(to), SymbolId(from)))),
                Via::Covers => Premise::Holds(atoms::covers(s, (SymbolId(from), SymbolId(to)))),
                Via::CoveredBy => Premise::Holds(atoms::covers(s, (SymbolId(to), SymbolId(from)))),
                Via::DefinedIn => Premise::Holds(atoms::defines(s, (PathId(to), SymbolId(from)))),
                Via::Defines => Premise::Holds(atoms::defines(s, (PathId(from), SymbolId(to)))),
                Via::Knows => self.link_premise(s, from, to),
                Via::KnownBy => self.link_premise(s, to, from),
            };
            let before = Premise::Holds(atoms::activation(s, (seed, from, cost - via.cost())));
            let check =
                Premise::Check(format!("{} {} {} costs {}", s.resolve(from), via.as_str(), s.resolve(to), via.cost()));
            out.push((
                atoms::activation(s, (seed, to, cost)),
                Proof { rule: "context/spread", premises: vec![before, link, check] },
            ));
        }
        for &(item, score) in &self.context_atom {
            let mut premises: Vec<Premise> = self
                .cheapest
                .iter()
                .filter(|c| c.1 == item)
                .map(|&(seed, _, cost)| Premise::Holds(atoms::activation(s, (seed, item, cost))))
                .collect();
            let sum = self.activation_sum.iter().find(|a| a.0 == item).map_or(score, |a| a.1);
            premises
                .push(Premise::Check(format!("the sum over seeds of 1000 >> (the cheapest cost from each) is {sum}")));
            if let (Some(&(_, failed, passed)), Some(&(all,))) =
                (self.spectrum.iter().find(|x| x.0 == item), self.failing_total.first())
            {
                premises.push(Premise::Check(format!(
                    "{failed} of the {all} failing tests and {passed} passing ones run it: \
                     weighed by Ochiai, {sum} becomes {score}"
                )));
            }
            out.push((atoms::context_atom(s, (item, score)), Proof { rule: "context/score", premises }));
        }
    }
}

/// What `select` kept within the budget.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Items kept, in score order, with the tokens each added.
    pub kept: Vec<(Sym, u32, usize)>,
    /// Items whose code did not fit in what was left of the budget.
    pub left_out: Vec<(Sym, u32, usize)>,
    pub tokens: usize,
}

/// The code an item names, as the runtime measures it.
pub trait Spans {
    /// The tokens `item` would add beyond what is kept already; `None` for an
    /// item without code of its own (a file, a symbol without a span).
    fn cost(&mut self, item: Sym) -> Option<usize>;
    /// Whether `item` may take `tokens` of the budget on its own (the runtime
    /// may cap what one item takes); every item may by default.
    fn may_take(&self, _item: Sym, _tokens: usize) -> bool {
        true
    }
    /// `item` is kept: its code now counts as sent.
    fn keep(&mut self, item: Sym);
}

/// Keeps the best-scoring items whose code fits in `budget` tokens (and that
/// `spans` lets take that much alone); an item that does not fit is left
/// out, and smaller ones after it may still fit.
pub fn select(ranked: &[(Sym, u32)], spans: &mut impl Spans, budget: usize) -> Selection {
    let mut out = Selection::default();
    for &(item, score) in ranked {
        let Some(tokens) = spans.cost(item) else { continue };
        if out.tokens + tokens <= budget && spans.may_take(item, tokens) {
            out.tokens += tokens;
            out.kept.push((item, score, tokens));
            spans.keep(item);
        } else {
            out.left_out.push((item, score, tokens));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans of fixed sizes; items above `cap` may not be taken alone.
    struct Sizes {
        sizes: Vec<(Sym, Option<usize>)>,
        cap: usize,
        kept: Vec<Sym>,
    }

    impl Spans for Sizes {
        fn cost(&mut self, item: Sym) -> Option<usize> {
            self.sizes.iter().find(|s| s.0 == item).and_then(|s| s.1)
        }
        fn may_take(&self, _item: Sym, tokens: usize) -> bool {
            tokens <= self.cap
        }
        fn keep(&mut self, item: Sym) {
            self.kept.push(item);
        }
    }

    #[test]
    fn selection_keeps_the_best_that_fit_skips_what_does_not_and_items_without_code() {
        let mut symbols = Symbols::default();
        let [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map(|n| symbols.intern(n));
        let ranked = [(a, 1000), (b, 500), (c, 250), (d, 125), (e, 62)];
        // b has no code of its own; c would fit the budget but is over the cap;
        // d fits; e no longer fits what is left.
        let sizes = vec![(a, Some(40)), (b, None), (c, Some(55)), (d, Some(30)), (e, Some(35))];
        let mut spans = Sizes { sizes, cap: 50, kept: Vec::new() };
        let chosen = select(&ranked, &mut spans, 100);
        assert_eq!(chosen.kept, vec![(a, 1000, 40), (d, 125, 30)]);
        assert_eq!(chosen.left_out, vec![(c, 250, 55), (e, 62, 35)]);
        assert_eq!(chosen.tokens, 70);
        assert_eq!(spans.kept, vec![a, d], "only kept items count as sent");
        assert_eq!(select(&[], &mut spans, 100), Selection::default());
    }
}
