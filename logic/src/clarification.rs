//! Clarification: when the kernel must ask instead of act. A reference whose
//! best grounding is below the confidence threshold, a tie between two equally
//! good groundings, or a missing parameter each derive `clarification_needed`.
//! Knows nothing about how references were resolved.

use ascent::aggregators::max;
use ascent::ascent;

use crate::atom;
use crate::atom::Atom;
use crate::facts::{Confidence, Facts};
use crate::proof::{Premise, Proof};
use crate::symbols::{Sym, Symbols};

ascent! {
    /// Clarification over focus resolutions and ambiguity flags.
    pub struct ClarificationProgram;

    relation focus_resolution(Sym, Sym, Sym, Confidence);
    relation ambiguity_flag(Sym, Sym, Sym);

    relation best_confidence(Sym, Confidence);
    relation clarification_needed(Sym);
    relation resolved_focus(Sym, Sym, Sym);

    relation w_low(Sym, Sym, Sym, Confidence);
    relation w_tie(Sym, Sym, Sym, Sym, Sym, Confidence);
    relation w_flag(Sym, Sym, Sym);
    relation w_resolved(Sym, Sym, Sym, Confidence);

    best_confidence(r, c) <--
        focus_resolution(r, _, _, _),
        agg c = max(k) in focus_resolution(r, _, _, k);

    // The best grounding of a reference is not confident enough.
    clarification_needed(r), w_low(r, p, s, c) <--
        best_confidence(r, c), if *c < Confidence::THRESHOLD,
        focus_resolution(r, p, s, c);
    // Two different groundings share the best confidence.
    clarification_needed(r), w_tie(r, p1, s1, p2, s2, c) <--
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

/// Runs the clarification program on a fresh instance.
pub fn run(facts: &Facts) -> ClarificationProgram {
    let mut p = ClarificationProgram {
        focus_resolution: facts.focus_resolution.clone(),
        ambiguity_flag: facts.ambiguity_flag.clone(),
        ..Default::default()
    };
    p.run();
    p
}

impl ClarificationProgram {
    pub fn atoms(&self, predicate: &str, s: &Symbols) -> Option<Vec<Atom>> {
        Some(match predicate {
            "clarification_needed" => self.clarification_needed.iter().map(|(r,)| atom!(s, predicate, *r)).collect(),
            "resolved_focus" => self.resolved_focus.iter().map(|(r, p, x)| atom!(s, predicate, *r, *p, *x)).collect(),
            "best_confidence" => self.best_confidence.iter().map(|(r, c)| atom!(s, predicate, *r, *c)).collect(),
            _ => return None,
        })
    }

    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        let focus = |r: Sym, p: Sym, x: Sym, c: Confidence| Premise::Holds(atom!(s, "focus_resolution", r, p, x, c));
        for &(r, p, x, c) in &self.w_low {
            let check = Premise::Check(format!("best confidence {} < {}", ratio(c), ratio(Confidence::THRESHOLD)));
            out.push((
                atom!(s, "clarification_needed", r),
                Proof { rule: "clarify/low-confidence", premises: vec![focus(r, p, x, c), check] },
            ));
        }
        for &(r, p1, x1, p2, x2, c) in &self.w_tie {
            out.push((
                atom!(s, "clarification_needed", r),
                Proof { rule: "clarify/tied-groundings", premises: vec![focus(r, p1, x1, c), focus(r, p2, x2, c)] },
            ));
        }
        for &(m, clue, h) in &self.w_flag {
            let flag = Premise::Holds(atom!(s, "ambiguity_flag", m, clue, h));
            out.push((
                atom!(s, "clarification_needed", m),
                Proof { rule: "clarify/missing-parameter", premises: vec![flag] },
            ));
        }
        for &(r, p, x, c) in &self.w_resolved {
            let check = Premise::Check(format!("best confidence {} >= {}", ratio(c), ratio(Confidence::THRESHOLD)));
            let absent = Premise::Absent(atom!(s, "clarification_needed", r));
            out.push((
                atom!(s, "resolved_focus", r, p, x),
                Proof { rule: "clarify/confident", premises: vec![focus(r, p, x, c), check, absent] },
            ));
        }
        for &(r, c) in &self.best_confidence {
            let check = Premise::Check(format!(
                "{} is the highest confidence among the groundings of this reference",
                ratio(c)
            ));
            out.push((atom!(s, "best_confidence", r, c), Proof { rule: "clarify/best", premises: vec![check] }));
        }
    }
}

fn ratio(c: Confidence) -> String {
    crate::atom::Term::Ratio(c.0).to_string()
}
