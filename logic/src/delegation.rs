//! Ephemeral generalists: which independent sub-tasks the kernel hands to
//! spawned children (`delegate_task`), whether any still waits for its child
//! (`delegation_pending`), and what the areas' surveys say together: which
//! area depends on which (`area_depends`) and which depend on each other
//! (`area_cycle`). A broad survey of a workspace with several top-level areas
//! is delegated one task per area when children may run in parallel and the
//! workspace holds enough code for children to be worth their start
//! (`delegate_min_files`, measured: below about a thousand files one process
//! surveys faster than children that each load their part of the world); a
//! kernel that itself acts under a delegation token never delegates again.
//! Knows nothing about processes, tokens or how an area is surveyed.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::{count, sum};
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{Sym, Symbols};
use crate::vocab::{Category, ChildStatus, ContextHint, Task, Verb};

/// Files with code a workspace needs before a survey is delegated, unless configured:
/// below it, on this project's measurements, one process surveys faster.
pub const DEFAULT_MIN_FILES: u32 = 1000;

ascent! {
    /// Delegation of sub-tasks and the areas' dependency structure.
    pub struct DelegationProgram;

    relation user_intent(Sym, Category, Verb, Sym, Sym);
    relation context_hint(Sym, ContextHint);
    relation area(Sym, u32, u32);
    relation delegated(Sym);
    relation max_parallel(u32);
    relation delegate_min_files(u32);
    relation delegate_result(Sym, ChildStatus);
    relation area_uses(Sym, Sym, u32);

    relation broad_survey(Sym);
    relation under_delegation();
    relation code_area(Sym);
    relation code_areas(usize);
    relation code_files(u32);
    relation delegate_task(Sym, Task, Sym);
    relation delegation_pending();
    relation area_depends(Sym, Sym);
    relation area_cycle(Sym, Sym);

    relation w_delegate(Sym, Sym, usize, u32, u32, u32);
    relation w_pending(Sym);
    relation w_depends(Sym, Sym, Sym);

    broad_survey(i) <-- user_intent(i, _, Verb::Explain, _, _), context_hint(i, ContextHint::Broad);
    under_delegation() <-- delegated(_);
    code_area(a) <-- area(a, files, _), if *files > 0;
    code_areas(n) <-- agg n = count() in code_area(_);
    code_files(n) <-- agg n = sum(files) in area(_, files, _);

    // One survey per area, when there are several, two children or more may run at once,
    // and the workspace is large enough for children to be worth their start.
    delegate_task(a, Task::Survey, a), w_delegate(i, a, n, p, total, min) <--
        broad_survey(i), !under_delegation(), max_parallel(p), if *p >= 2,
        code_areas(n), if *n >= 2, code_files(total), delegate_min_files(min), if total >= min,
        code_area(a);
    delegation_pending(), w_pending(id) <-- delegate_task(id, _, _), !delegate_result(id, _);

    // The areas' structure, from resolved calls only.
    area_depends(a, b), w_depends(a, b, b) <-- area_uses(a, b, _), if a != b;
    area_depends(a, c), w_depends(a, c, b) <-- area_depends(a, b), area_uses(b, c, _), if b != c && a != c;
    area_cycle(a, b) <-- area_depends(a, b), area_depends(b, a);
}

/// Runs the delegation rules on a fresh instance.
pub fn run(f: &Facts) -> DelegationProgram {
    let mut p = DelegationProgram {
        user_intent: relation::user_intent(f),
        context_hint: relation::context_hint(f),
        area: relation::area(f),
        delegated: relation::delegated(f),
        max_parallel: relation::max_parallel(f),
        delegate_min_files: relation::delegate_min_files(f),
        delegate_result: relation::delegate_result(f),
        area_uses: relation::area_uses(f),
        ..Default::default()
    };
    p.run();
    p
}

impl DelegationProgram {
    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        for &(i, a, n, p, total, min) in &self.w_delegate {
            let mut premises: Vec<Premise> = self
                .user_intent
                .iter()
                .filter(|r| r.0 == i)
                .take(1)
                .map(|&row| Premise::Holds(atoms::user_intent(s, row)))
                .collect();
            premises.push(Premise::Holds(atoms::context_hint(s, (i, ContextHint::Broad))));
            if let Some(&row) = self.area.iter().find(|r| r.0 == a) {
                premises.push(Premise::Holds(atoms::area(s, row)));
            }
            premises.push(Premise::Holds(atoms::max_parallel(s, p)));
            premises.push(Premise::Holds(atoms::delegate_min_files(s, min)));
            premises.push(Premise::Check(format!(
                "{n} areas hold code, {total} files in all (at least {min}); {p} children may run at once"
            )));
            premises.push(Premise::Check("this kernel acts under no delegation token".into()));
            out.push((
                atoms::delegate_task(s, (a, Task::Survey, a)),
                Proof { rule: "delegation/survey-per-area", premises },
            ));
        }
        for &(id,) in &self.w_pending {
            let premises = self
                .delegate_task
                .iter()
                .filter(|r| r.0 == id)
                .flat_map(|&row| {
                    [
                        Premise::Holds(atoms::delegate_task(s, row)),
                        Premise::Check(format!("no delegate_result for {} yet", s.resolve(id))),
                    ]
                })
                .collect();
            out.push((atoms::delegation_pending(s), Proof { rule: "delegation/pending", premises }));
        }
        let uses = |a: Sym, b: Sym| self.area_uses.iter().find(|r| r.0 == a && r.1 == b).copied();
        for &(a, c, b) in &self.w_depends {
            let premises = if b == c {
                uses(a, c).map(|row| Premise::Holds(atoms::area_uses(s, row))).into_iter().collect()
            } else {
                let mut v = vec![Premise::Holds(atoms::area_depends(s, (a, b)))];
                v.extend(uses(b, c).map(|row| Premise::Holds(atoms::area_uses(s, row))));
                v
            };
            out.push((atoms::area_depends(s, (a, c)), Proof { rule: "delegation/area-depends", premises }));
        }
        for &(a, b) in &self.area_cycle {
            let premises =
                vec![Premise::Holds(atoms::area_depends(s, (a, b))), Premise::Holds(atoms::area_depends(s, (b, a)))];
            out.push((atoms::area_cycle(s, (a, b)), Proof { rule: "delegation/area-cycle", premises }));
        }
    }
}
