//! Clarification: when the kernel must ask instead of act. A reference whose
//! best grounding is below the confidence threshold, a tie between two equally
//! good groundings (unless the request only asks: a question about two
//! definitions of a name is answered for both), or a missing parameter each
//! derive `clarification_needed`. Knows nothing about how references were resolved.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::{count, max};
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{PathId, Sym, SymbolId, Symbols};
use crate::vocab::Confidence;

ascent! {
    /// Clarification over focus resolutions and ambiguity flags.
    pub struct ClarificationProgram;

    relation focus_resolution(Sym, PathId, SymbolId, Confidence);
    relation ambiguity_flag(Sym, Sym, Sym);
    relation query_intent();
    relation best_count(Sym, usize);

    relation best_confidence(Sym, Confidence);
    relation clarification_needed(Sym);
    relation resolved_focus(Sym, PathId, SymbolId);

    relation w_low(Sym, PathId, SymbolId, Confidence);
    relation w_tie(Sym, PathId, SymbolId, PathId, SymbolId, Confidence);
    relation w_flag(Sym, Sym, Sym);
    relation w_resolved(Sym, PathId, SymbolId, Confidence);

    best_confidence(r, c) <--
        focus_resolution(r, _, _, _),
        agg c = max(k) in focus_resolution(r, _, _, k);

    // The best grounding of a reference is not confident enough.
    clarification_needed(r), w_low(r, p, s, c) <--
        best_confidence(r, c), if *c < Confidence::THRESHOLD,
        focus_resolution(r, p, s, c);
    // Two different groundings share the best confidence, and the request would change
    // something: a change must go to one place. A question is answered for each.
    clarification_needed(r), w_tie(r, p1, s1, p2, s2, c) <--
        best_confidence(r, c),
        focus_resolution(r, p1, s1, c),
        focus_resolution(r, p2, s2, c),
        if (p1, s1) < (p2, s2),
        !query_intent();
    // A question is answered for each tied definition only while they are few.
    best_count(r, n) <-- best_confidence(r, c), agg n = count() in focus_resolution(r, _, _, c);
    clarification_needed(r), w_tie(r, p1, s1, p2, s2, c) <--
        query_intent(),
        best_count(r, n), if *n > MAX_ANSWERED_TIES,
        best_confidence(r, c),
        focus_resolution(r, p1, s1, c),
        focus_resolution(r, p2, s2, c),
        if (p1, s1) < (p2, s2);
    // A required parameter is missing.
    clarification_needed(m), w_flag(m, clue, h) <-- ambiguity_flag(m, clue, h);

    // Otherwise the single best grounding is the focus.
    resolved_focus(r, p, s), w_resolved(r, p, s, c) <--
        best_confidence(r, c), if *c >= Confidence::THRESHOLD,
        focus_resolution(r, p, s, c),
        !clarification_needed(r);
}

/// Equally good definitions of a name a question is answered for, at most; more asks which.
pub const MAX_ANSWERED_TIES: usize = 5;

/// Runs the clarification program on a fresh instance.
pub fn run(facts: &Facts) -> ClarificationProgram {
    let mut p = ClarificationProgram {
        focus_resolution: relation::focus_resolution(facts),
        ambiguity_flag: relation::ambiguity_flag(facts),
        query_intent: if facts.user_intent.iter().any(|i| i.1 == crate::vocab::Category::Query) {
            vec![()]
        } else {
            vec![]
        },
        ..Default::default()
    };
    p.run();
    p
}

impl ClarificationProgram {
    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        let focus =
            |r: Sym, p: PathId, x: SymbolId, c: Confidence| Premise::Holds(atoms::focus_resolution(s, (r, p, x, c)));
        for &(r, p, x, c) in &self.w_low {
            let check = Premise::Check(format!("best confidence {} < {}", ratio(c), ratio(Confidence::THRESHOLD)));
            out.push((
                atoms::clarification_needed(s, r),
                Proof { rule: "clarify/low-confidence", premises: vec![focus(r, p, x, c), check] },
            ));
        }
        for &(r, p1, x1, p2, x2, c) in &self.w_tie {
            out.push((
                atoms::clarification_needed(s, r),
                Proof { rule: "clarify/tied-groundings", premises: vec![focus(r, p1, x1, c), focus(r, p2, x2, c)] },
            ));
        }
        for &(m, clue, h) in &self.w_flag {
            let flag = Premise::Holds(atoms::ambiguity_flag(s, (m, clue, h)));
            out.push((
                atoms::clarification_needed(s, m),
                Proof { rule: "clarify/missing-parameter", premises: vec![flag] },
            ));
        }
        for &(r, p, x, c) in &self.w_resolved {
            let check = Premise::Check(format!("best confidence {} >= {}", ratio(c), ratio(Confidence::THRESHOLD)));
            let absent = Premise::Absent(atoms::clarification_needed(s, r));
            out.push((
                atoms::resolved_focus(s, (r, p, x)),
                Proof { rule: "clarify/confident", premises: vec![focus(r, p, x, c), check, absent] },
            ));
        }
        for &(r, c) in &self.best_confidence {
            let Some(&(_, p, x, _)) = self.focus_resolution.iter().find(|f| f.0 == r && f.3 == c) else {
                continue;
            };
            let check = Premise::Check(format!(
                "{} is the highest confidence among the groundings of this reference",
                ratio(c)
            ));
            out.push((
                atoms::best_confidence(s, (r, c)),
                Proof { rule: "clarify/best", premises: vec![focus(r, p, x, c), check] },
            ));
        }
    }
}

fn ratio(c: Confidence) -> String {
    crate::atom::Term::Ratio(c.0).to_string()
}
