//! One evaluation of every program over one fact base: the kernel's answer.
//! Programs run in dependency order on fresh instances (ascent is not
//! incremental). The runtime reads the answer through typed accessors
//! (`next_action()`, `verdict()`, `blockers()`... and `relations()` for any
//! derived relation as tuples); uniform atoms (`atoms`, `explain`) serve
//! `nerd query`, `nerd why` and audit replay. Knows nothing about where the
//! facts came from.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use crate::articulation::{self, ArticulationProgram};
use crate::atom::Atom;
use crate::catalog::Origin;
use crate::clarification::{self, ClarificationProgram};
use crate::column::Row;
use crate::commit_gate::{self, Blocker, CommitGateProgram};
use crate::constitution::{self, ConstitutionProgram, Verdict};
use crate::context::{self, ContextProgram};
use crate::delegation::{self, DelegationProgram};
use crate::impact::{self, CallSites, ClosureProgram, ImpactProgram};
use crate::page::{self, PageProgram};
use crate::proof::{self, Explanation, Premise, Proof};
use crate::reasons::{Reason, Why};
use crate::schema::{self, tables, Facts, PREDICATES};
use crate::shards::{self, ShardsProgram};
use crate::strategy::{self, StrategyProgram};
use crate::symbols::{Line, PathId, Sym, SymbolId};
use crate::vocab::{Action, Confidence, Effect, Risk, Route, Strategy, SurfaceMode, Task, Unworkable};
use crate::watchdog::{self, WatchdogProgram};

/// Why a query or explanation could not be answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelError {
    UnknownPredicate { name: String },
    WrongArity { name: String, expected: usize, got: usize },
    NotDerived { atom: Atom },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::UnknownPredicate { name } => {
                let known: Vec<&str> = PREDICATES.iter().map(|p| p.name).collect();
                write!(f, "unknown predicate `{name}`; known predicates: {}", known.join(", "))
            }
            KernelError::WrongArity { name, expected, got } => {
                write!(f, "`{name}` takes {expected} argument(s), the atom has {got}")
            }
            KernelError::NotDerived { atom } => {
                write!(f, "{atom} is not derived and is not a fact")
            }
        }
    }
}

impl std::error::Error for KernelError {}

/// The predicates of programs evaluated only when asked for.
const ON_DEMAND: &[&str] = &["depends_on", "activation", "context_atom", "context_link"];

/// Declares `Programs`, every program's fixpoint over one fact base (the
/// `depends_on` closure on demand), with one accessor per program, all of the
/// same shape so the derived table can name any of them; only the closure
/// needs the facts (it runs on first use).
macro_rules! programs {
    ($($name:ident: $program:ty),+) => {
        struct Programs {
            $($name: $program,)+
            closure: OnceCell<ClosureProgram>,
            context: OnceCell<ContextProgram>,
        }

        impl Programs {
            $(fn $name(&self, _: &Facts) -> &$program {
                &self.$name
            })+
            fn closure(&self, f: &Facts) -> &ClosureProgram {
                self.closure.get_or_init(|| impact::run_closure(f))
            }
            fn context(&self, f: &Facts) -> &ContextProgram {
                self.context.get_or_init(|| context::run(f, &self.impact.uncertain_call))
            }
        }
    };
}

programs!(
    impact: ImpactProgram,
    clarification: ClarificationProgram,
    delegation: DelegationProgram,
    strategy: StrategyProgram,
    gate: CommitGateProgram,
    constitution: ConstitutionProgram,
    watchdog: WatchdogProgram,
    shards: ShardsProgram,
    page: PageProgram,
    articulation: ArticulationProgram
);

/// The fixpoint of every program over one fact base.
pub struct Fixpoint {
    facts: Facts,
    programs: Programs,
    fact_sets: RefCell<HashMap<&'static str, HashSet<Atom>>>,
}

/// Runs every program over `facts`, in dependency order.
pub fn evaluate(facts: Facts) -> Fixpoint {
    let impact = impact::run(&facts);
    let clarification = clarification::run(&facts);
    let delegation = delegation::run(&facts);
    let strategy = strategy::run(
        &facts,
        &clarification.clarification_needed,
        &impact.unsafe_to_refactor,
        &delegation.delegation_pending,
    );
    let gate = commit_gate::run(&facts);
    let articulation = articulation::run(&facts, !clarification.clarification_needed.is_empty());
    let watchdog = watchdog::run(&facts);
    let shards = shards::run(&facts);
    let page = page::run(&facts);
    let constitution = constitution::run(&facts, !watchdog.watchdog_stop.is_empty(), &shards.shard_ready);
    let programs = Programs {
        impact,
        clarification,
        delegation,
        strategy,
        gate,
        constitution,
        watchdog,
        shards,
        page,
        articulation,
        closure: OnceCell::new(),
        context: OnceCell::new(),
    };
    Fixpoint { facts, programs, fact_sets: RefCell::new(HashMap::new()) }
}

/// Expands the derived table into typed accessors and their rendering.
macro_rules! define_fixpoint {
    (
        base { $($base:tt)* }
        views { $($views:tt)* }
        derived { $($program:ident $name:ident ($($label:ident : $ty:ty),*) $doc:literal;)* }
    ) => {
        /// Every derived relation as the tuples its program holds, typed as
        /// `schema.rs` declares it.
        pub struct Relations<'a>(&'a Fixpoint);

        impl<'a> Relations<'a> {
            $(
                #[doc = $doc]
                pub fn $name(&self) -> &'a [($($ty,)*)] {
                    &self.0.programs.$program(&self.0.facts).$name
                }
            )*
        }

        /// The program that derives a predicate; `None` for base and unknown predicates.
        fn program_of(name: &str) -> Option<&'static str> {
            match name {
                $(stringify!($name) => Some(stringify!($program)),)*
                _ => None,
            }
        }

        /// The atoms of a derived predicate; `None` for any other name.
        fn render_derived(fx: &Fixpoint, name: &str) -> Option<Vec<Atom>> {
            let s = &fx.facts.symbols;
            let r = fx.relations();
            Some(match name {
                $(stringify!($name) => r.$name().iter().map(|row| Atom::new(stringify!($name), row.terms(s))).collect(),)*
                _ => return None,
            })
        }
    };
}

tables!(define_fixpoint);

impl Fixpoint {
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// Gives the fact base back, e.g. to reuse its interner.
    pub fn into_facts(self) -> Facts {
        self.facts
    }

    /// Spreading activation from the `context_seed` facts (evaluated on first use).
    pub fn context(&self) -> &ContextProgram {
        self.programs.context(&self.facts)
    }

    /// Every derived relation, typed.
    pub fn relations(&self) -> Relations<'_> {
        Relations(self)
    }

    /// The one active strategy (the rules guarantee exactly one).
    pub fn strategy(&self) -> Strategy {
        self.relations().strategy().first().map_or(Strategy::Idle, |&(s,)| s)
    }

    /// The one derived next step, if any; escalation and questions come first
    /// should several survive.
    pub fn next_action(&self) -> Option<Action> {
        let actions = self.relations().next_action();
        let mut sorted: Vec<Action> = actions.iter().map(|&(a,)| a).collect();
        sorted.sort_by_key(|a| a.as_str());
        sorted.iter().copied().find(|a| a.is_interrogative()).or_else(|| sorted.first().copied())
    }

    /// Whether some reference must be clarified before acting.
    pub fn clarification_needed(&self) -> bool {
        !self.relations().clarification_needed().is_empty()
    }

    /// The constitution's verdict on the action with id `action`.
    pub fn verdict(&self, action: &str) -> Verdict {
        let Some(a) = self.facts.symbols.get(action) else {
            return Verdict::default();
        };
        let r = self.relations();
        let mut denied: Vec<Why> = r.denied().iter().filter(|(b, _)| *b == a).map(|&(_, why)| why).collect();
        let s = &self.facts.symbols;
        denied.sort_by_cached_key(|w| w.describe(s));
        Verdict {
            denied,
            risk: r.risk().iter().find(|(b, _)| *b == a).map(|&(_, level)| level),
            route: r.route().iter().find(|(b, _)| *b == a).map(|&(_, route)| route),
            permitted: r.permitted().iter().any(|&(b,)| b == a),
        }
    }

    /// Every reason the commit must not land, sorted as `nerd query` lists them.
    pub fn blockers(&self) -> Vec<Blocker> {
        let s = &self.facts.symbols;
        let mut out: Vec<Blocker> = self
            .relations()
            .block_commit()
            .iter()
            .map(|&(reason, path, line)| Blocker { reason, path, line })
            .collect();
        out.sort_by_cached_key(|b| (b.reason.describe(s), s.resolve(b.path.0).to_string(), b.line));
        out
    }

    /// Whether some reason blocks the commit and no override is recorded.
    pub fn commit_blocked(&self) -> bool {
        !self.relations().commit_blocked().is_empty()
    }

    /// The recorded override that let a blocked commit through, if any.
    pub fn commit_overridden(&self) -> Option<Sym> {
        self.relations().commit_overridden().first().map(|&(r,)| r)
    }

    /// How the turn's outcome is shown.
    pub fn surface(&self) -> SurfaceMode {
        self.relations().surface().first().map_or(SurfaceMode::Answer, |&(m,)| m)
    }

    /// Whether the watchdog asks to pause for the user.
    pub fn watchdog_paused(&self) -> bool {
        !self.relations().watchdog_pause().is_empty()
    }

    /// Every atom of `predicate`, sorted. Base predicates list their facts.
    pub fn atoms(&self, predicate: &str) -> Result<Vec<Atom>, KernelError> {
        let info = schema::predicate(predicate)
            .ok_or_else(|| KernelError::UnknownPredicate { name: predicate.to_string() })?;
        let mut atoms = render_derived(self, info.name).unwrap_or_else(|| schema::base_atoms(&self.facts, info.name));
        atoms.sort();
        atoms.dedup();
        Ok(atoms)
    }

    /// Every derived atom except the on-demand programs' (`depends_on`, the context): what
    /// `nerd watch` diffs between evaluations.
    pub fn derived_atoms(&self) -> BTreeSet<Atom> {
        PREDICATES
            .iter()
            .filter(|p| p.origin == Origin::Derived && !ON_DEMAND.contains(&p.name))
            .flat_map(|p| render_derived(self, p.name).unwrap_or_default())
            .collect()
    }

    /// The shortest derivation of `atom` down to base facts.
    pub fn explain(&self, atom: &Atom) -> Result<Explanation, KernelError> {
        let info = schema::predicate(&atom.predicate)
            .ok_or_else(|| KernelError::UnknownPredicate { name: atom.predicate.clone() })?;
        if info.columns.len() != atom.args.len() {
            return Err(KernelError::WrongArity {
                name: atom.predicate.clone(),
                expected: info.columns.len(),
                got: atom.args.len(),
            });
        }
        let proofs = self.proofs_reaching(atom);
        let is_fact = |a: &Atom| self.is_fact(a);
        proof::explain(atom, &proofs, &is_fact).ok_or_else(|| KernelError::NotDerived { atom: atom.clone() })
    }

    /// The proofs of every program a derivation of `target` can reach, and no
    /// others: a program's proofs are built only once an atom it derives is
    /// met among the premises (the impact program's proofs over a whole
    /// workspace are not built to explain a strategy).
    fn proofs_reaching(&self, target: &Atom) -> HashMap<Atom, Vec<Proof>> {
        let mut map: HashMap<Atom, Vec<Proof>> = HashMap::new();
        let mut loaded: HashSet<&'static str> = HashSet::new();
        let mut seen: HashSet<Atom> = HashSet::new();
        let mut stack = vec![target.clone()];
        let mut sites = None;
        while let Some(atom) = stack.pop() {
            if !seen.insert(atom.clone()) {
                continue;
            }
            if let Some(program) = program_of(&atom.predicate).filter(|p| !loaded.contains(p)) {
                loaded.insert(program);
                let sites = sites.get_or_insert_with(|| CallSites::new(&self.facts));
                let mut found = Vec::new();
                self.program_proofs(program, sites, &mut found);
                for (head, proof) in found {
                    map.entry(head).or_default().push(proof);
                }
            }
            for proof in map.get(&atom).into_iter().flatten() {
                for p in &proof.premises {
                    if let Premise::Holds(b) = p {
                        if !seen.contains(b) {
                            stack.push(b.clone());
                        }
                    }
                }
            }
        }
        map
    }

    /// The proofs of one program, by the name the derived table gives it.
    fn program_proofs(&self, program: &str, sites: &CallSites, out: &mut Vec<(Atom, Proof)>) {
        let s = &self.facts.symbols;
        let p = &self.programs;
        match program {
            "impact" => p.impact.proofs(sites, out),
            "closure" => p.closure(&self.facts).proofs(sites, out),
            "context" => p.context(&self.facts).proofs(sites, out),
            "clarification" => p.clarification.proofs(s, out),
            "delegation" => p.delegation.proofs(s, out),
            "strategy" => p.strategy.proofs(s, out),
            "gate" => p.gate.proofs(s, out),
            "constitution" => p.constitution.proofs(s, out),
            "watchdog" => p.watchdog.proofs(s, out),
            "shards" => p.shards.proofs(s, out),
            "page" => p.page.proofs(s, out),
            "articulation" => p.articulation.proofs(s, out),
            _ => {}
        }
    }

    /// Every recorded proof, by head atom.
    pub fn proofs(&self, with_closure: bool) -> HashMap<Atom, Vec<Proof>> {
        let sites = CallSites::new(&self.facts);
        let s = &self.facts.symbols;
        let p = &self.programs;
        let mut all = Vec::new();
        p.impact.proofs(&sites, &mut all);
        p.clarification.proofs(s, &mut all);
        p.delegation.proofs(s, &mut all);
        p.strategy.proofs(s, &mut all);
        p.gate.proofs(s, &mut all);
        p.constitution.proofs(s, &mut all);
        p.watchdog.proofs(s, &mut all);
        p.shards.proofs(s, &mut all);
        p.page.proofs(s, &mut all);
        p.articulation.proofs(s, &mut all);
        if with_closure {
            p.closure(&self.facts).proofs(&sites, &mut all);
            p.context(&self.facts).proofs(&sites, &mut all);
        }
        let mut map: HashMap<Atom, Vec<Proof>> = HashMap::new();
        for (head, proof) in all {
            map.entry(head).or_default().push(proof);
        }
        map
    }

    /// Whether `atom` is one of the base facts.
    pub fn is_fact(&self, atom: &Atom) -> bool {
        let Some(info) = schema::predicate(&atom.predicate) else {
            return false;
        };
        if info.origin == Origin::Derived {
            return false;
        }
        let mut sets = self.fact_sets.borrow_mut();
        sets.entry(info.name)
            .or_insert_with(|| schema::base_atoms(&self.facts, info.name).into_iter().collect())
            .contains(atom)
    }

    /// The rules of every program as ascent summarises them (`heads <-- body`),
    /// for checking proofs against the rules' bodies.
    pub fn rule_summaries() -> Vec<&'static str> {
        vec![
            ImpactProgram::summary(),
            ClosureProgram::summary(),
            ContextProgram::summary(),
            ClarificationProgram::summary(),
            DelegationProgram::summary(),
            StrategyProgram::summary(),
            CommitGateProgram::summary(),
            ConstitutionProgram::summary(),
            WatchdogProgram::summary(),
            ShardsProgram::summary(),
            PageProgram::summary(),
            ArticulationProgram::summary(),
        ]
    }
}
