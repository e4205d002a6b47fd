//! Specialists: which defined specialist still `needs_research` (its
//! knowledge shard holds no atom) and which is `shard_ready` (its last viva
//! voce, taken on the knowledge it holds now, passed the threshold). The
//! constitution refuses to spawn a specialist that is not ready.
//! Knows nothing about how knowledge is read, stored or examined.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{Sym, Symbols};

/// The share of viva voce questions a specialist must pass, unless configured.
pub const DEFAULT_VIVA_THRESHOLD: u32 = 80;

ascent! {
    /// Readiness of specialists over `specialist`, `viva_result` and `viva_threshold`.
    pub struct ShardsProgram;

    relation specialist(Sym, u32);
    relation viva_result(Sym, u32, u32);
    relation viva_threshold(u32);

    relation needs_research(Sym);
    relation shard_ready(Sym);

    // Defined, with nothing ingested: research comes first.
    needs_research(n) <-- specialist(n, atoms), if *atoms == 0;
    // Ready: knowledge, and a viva voce on that knowledge passed at the threshold.
    shard_ready(n) <--
        specialist(n, atoms), if *atoms > 0,
        viva_result(n, asked, passed), if *asked > 0,
        viva_threshold(t), if 100 * u64::from(*passed) >= u64::from(*t) * u64::from(*asked);
}

/// Runs the readiness rules on a fresh instance.
pub fn run(f: &Facts) -> ShardsProgram {
    let mut p = ShardsProgram {
        specialist: relation::specialist(f),
        viva_result: relation::viva_result(f),
        viva_threshold: vec![(f.viva_threshold,)],
        ..Default::default()
    };
    p.run();
    p
}

impl ShardsProgram {
    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        for &(n,) in &self.needs_research {
            let premises = vec![Premise::Holds(atoms::specialist(s, (n, 0)))];
            out.push((atoms::needs_research(s, n), Proof { rule: "shards/needs-research", premises }));
        }
        for &(n,) in &self.shard_ready {
            let Some(&(_, held)) = self.specialist.iter().find(|r| r.0 == n) else { continue };
            let threshold = self.viva_threshold.first().map_or(0, |t| t.0);
            for &(_, asked, passed) in self.viva_result.iter().filter(|r| r.0 == n) {
                let premises = vec![
                    Premise::Holds(atoms::specialist(s, (n, held))),
                    Premise::Holds(atoms::viva_result(s, (n, asked, passed))),
                    Premise::Holds(atoms::viva_threshold(s, threshold)),
                    Premise::Check(format!("{passed} of {asked} passed, at least {threshold}%")),
                ];
                out.push((atoms::shard_ready(s, n), Proof { rule: "shards/viva-passed", premises }));
            }
        }
    }
}
