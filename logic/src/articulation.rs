//! Articulation: which surface a turn's outcome gets. A pending clarification
//! is a question; a small change to one file shows its diff; a larger or
//! multi-file change gets a summary; otherwise the answer is shown. Exactly
//! one mode holds. Knows nothing about how the text is written.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::{count, sum};
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{PathId, Symbols};
use crate::vocab::SurfaceMode;

/// Changed lines up to which a one-file change is shown as its diff.
pub const DIFF_LINES: u32 = 6;

ascent! {
    /// The surface mode of a turn.
    pub struct ArticulationProgram;

    relation changed_file(PathId, u32, u32);
    relation clarification_pending();

    relation changed_lines(PathId, u32);
    relation files_changed(usize);
    relation lines_changed(u32);
    relation surface(SurfaceMode);

    changed_lines(p, a + r) <-- changed_file(p, a, r);
    files_changed(n) <-- agg n = count() in changed_lines(_, _);
    lines_changed(t) <-- agg t = sum(l) in changed_lines(_, l);

    surface(SurfaceMode::Question) <-- clarification_pending();
    surface(SurfaceMode::Answer) <-- !clarification_pending(), files_changed(0);
    surface(SurfaceMode::Diff) <-- !clarification_pending(), files_changed(1), lines_changed(t), if *t <= DIFF_LINES;
    surface(SurfaceMode::Summary) <-- !clarification_pending(), files_changed(n), lines_changed(t), if *n > 1 || (*n == 1 && *t > DIFF_LINES);
}

/// Runs the articulation program on a fresh instance.
pub fn run(f: &Facts, clarification_pending: bool) -> ArticulationProgram {
    let mut p = ArticulationProgram {
        changed_file: relation::changed_file(f),
        clarification_pending: if clarification_pending { vec![()] } else { vec![] },
        ..Default::default()
    };
    p.run();
    p
}

impl ArticulationProgram {
    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        let n = self.files_changed.first().map_or(0, |(n,)| *n);
        let t = self.lines_changed.first().map_or(0, |(t,)| *t);
        for &(mode,) in &self.surface {
            let premise = match mode {
                SurfaceMode::Question => Premise::Holds(atoms::clarification_pending(s)),
                _ => Premise::Check(format!("{n} file(s) changed, {t} line(s) in all")),
            };
            out.push((atoms::surface(s, mode), Proof { rule: "articulation/surface", premises: vec![premise] }));
        }
    }
}
