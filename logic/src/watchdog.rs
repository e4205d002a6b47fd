//! The watchdog: rules over the session's audit stream that stop or pause
//! the agent. A program the constitution refused that later runs anyway
//! (retried under another form) stops the session; when more than half of
//! the recent actions failed, the session pauses to ask the user.
//! Knows nothing about how the events were recorded.

// ascent binds an unused tuple variable for nullary relations.
#![allow(unused_variables)]

use ascent::aggregators::{count, max};
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{Sym, Symbols};
use crate::vocab::{ActionKind, ActionOutcome};

/// How many of the latest events count as recent.
pub const RECENT: u32 = 10;
/// Fewer recent events than this never pause.
pub const MIN_RECENT: usize = 4;

ascent! {
    /// Watchdog rules over `audit_event(Seq, Kind, Program, Outcome)`.
    pub struct WatchdogProgram;

    relation audit_event(u32, ActionKind, Sym, ActionOutcome);

    relation watchdog_stop(Sym, u32, u32);
    relation last_seq(u32);
    relation recent(u32, ActionOutcome);
    relation recent_total(usize);
    relation recent_failed(usize);
    relation watchdog_pause(usize, usize);

    // A refused program that runs later anyway: stop.
    watchdog_stop(p, s1, s2) <--
        audit_event(s1, ActionKind::Exec, p, ActionOutcome::Refused),
        audit_event(s2, ActionKind::Exec, p, ActionOutcome::Executed),
        if s2 > s1;

    last_seq(m) <-- agg m = max(s) in audit_event(s, _, _, _);
    recent(s, o) <-- last_seq(m), audit_event(s, _, _, o), if s + RECENT > *m;
    recent_total(n) <-- agg n = count() in recent(_, _);
    recent_failed(n) <-- agg n = count() in recent(_, ActionOutcome::Failed);
    watchdog_pause(f, t) <-- recent_failed(f), recent_total(t), if *t >= MIN_RECENT && 2 * *f > *t;
}

/// Runs the watchdog on a fresh instance.
pub fn run(f: &Facts) -> WatchdogProgram {
    let mut p = WatchdogProgram { audit_event: relation::audit_event(f), ..Default::default() };
    p.run();
    p
}

impl WatchdogProgram {
    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        for &(p, s1, s2) in &self.watchdog_stop {
            let premises = vec![
                Premise::Holds(atoms::audit_event(s, (s1, ActionKind::Exec, p, ActionOutcome::Refused))),
                Premise::Holds(atoms::audit_event(s, (s2, ActionKind::Exec, p, ActionOutcome::Executed))),
                Premise::Check(format!("{s2} comes after {s1}")),
            ];
            out.push((
                atoms::watchdog_stop(s, (p, s1, s2)),
                Proof { rule: "watchdog/retried-after-refusal", premises },
            ));
        }
        for &(f, t) in &self.watchdog_pause {
            let premises = vec![Premise::Check(format!("{f} of the last {t} actions failed, more than half"))];
            out.push((atoms::watchdog_pause(s, (f, t)), Proof { rule: "watchdog/mostly-failing", premises }));
        }
    }
}
