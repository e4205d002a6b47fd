//! Checks shared by the data-driven cases and the property tests: every proof
//! the kernel records must be true of its own fixpoint and must cite only what
//! the rule that fired reads, so hand-written proofs cannot drift from rules.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use nerd_logic::{schema, Atom, ExplainedPremise, Explanation, Fixpoint, Origin, Premise};

/// For each derived predicate, every relation some rule deriving it reads,
/// following relations the catalog does not name (intermediate ones) down to
/// catalog predicates. Read off ascent's own summary of each program.
fn rule_bodies() -> BTreeMap<String, BTreeSet<String>> {
    let mut direct: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for summary in Fixpoint::rule_summaries() {
        for line in summary.lines() {
            let Some((heads, body)) = line.trim().split_once(" <-- ") else { continue };
            let body: BTreeSet<String> = body
                .split(", ")
                .filter_map(|item| {
                    let item = item.trim_start_matches("agg ");
                    let name = item.split("_indices_").next()?;
                    (item.contains("_indices_")).then(|| name.to_string())
                })
                .collect();
            for head in heads.split(", ").filter(|h| !h.starts_with("w_")) {
                direct.entry(head.to_string()).or_default().extend(body.iter().cloned());
            }
        }
    }
    let mut closed = BTreeMap::new();
    for head in direct.keys() {
        let mut seen = BTreeSet::new();
        let mut stack = vec![head.clone()];
        let mut reads = BTreeSet::new();
        while let Some(h) = stack.pop() {
            for r in direct.get(&h).into_iter().flatten() {
                reads.insert(r.clone());
                if schema::predicate(r).is_none() && seen.insert(r.clone()) {
                    stack.push(r.clone());
                }
            }
        }
        closed.insert(head.clone(), reads);
    }
    closed
}

fn holds(fixpoint: &Fixpoint, atom: &Atom, derived: &mut HashMap<String, BTreeSet<Atom>>) -> bool {
    match schema::predicate(&atom.predicate) {
        Some(p) if p.origin == Origin::Derived => derived
            .entry(atom.predicate.clone())
            .or_insert_with(|| fixpoint.atoms(&atom.predicate).unwrap_or_default().into_iter().collect())
            .contains(atom),
        Some(_) => fixpoint.is_fact(atom),
        None => false,
    }
}

/// Every proof of every derived atom: each premise names a catalog predicate
/// with its arity, holds (or is absent) in this fixpoint, and is read by a
/// rule that derives the head's predicate.
pub fn check_proofs(fixpoint: &Fixpoint, context: &str) {
    let bodies = rule_bodies();
    let mut derived = HashMap::new();
    for (head, proofs) in fixpoint.proofs(true) {
        assert!(holds(fixpoint, &head, &mut derived), "{context}: a proof of {head}, which does not hold");
        let reads = bodies.get(&head.predicate).unwrap_or_else(|| panic!("{context}: no rule derives {head}"));
        for proof in proofs {
            for premise in &proof.premises {
                let (atom, present) = match premise {
                    Premise::Holds(a) => (a, true),
                    Premise::Absent(a) => (a, false),
                    Premise::Check(_) => continue,
                };
                let info = schema::predicate(&atom.predicate)
                    .unwrap_or_else(|| panic!("{context}: {head} [{}] cites {atom}, not in the catalog", proof.rule));
                assert_eq!(info.columns.len(), atom.args.len(), "{context}: {head} [{}] cites {atom}", proof.rule);
                assert!(
                    reads.contains(&atom.predicate),
                    "{context}: {head} [{}] cites {atom}, which no rule deriving {} reads ({reads:?})",
                    proof.rule,
                    head.predicate
                );
                assert_eq!(
                    holds(fixpoint, atom, &mut derived),
                    present,
                    "{context}: {head} [{}]: {atom} should {}hold",
                    proof.rule,
                    if present { "" } else { "not " }
                );
            }
        }
    }
}

/// Every leaf of an explanation is a base fact of the fixpoint.
pub fn assert_grounded(fixpoint: &Fixpoint, e: &Explanation, context: &str) {
    match e {
        Explanation::Fact(a) => assert!(fixpoint.is_fact(a), "{context}: leaf {a} is not a fact"),
        Explanation::Derived { premises, .. } => {
            for p in premises {
                if let ExplainedPremise::Holds(inner) = p {
                    assert_grounded(fixpoint, inner, context);
                }
            }
        }
    }
}
