//! Data-driven tests of every program: each `.case` file lists cases of base
//! facts in and the exact set of atoms expected out, compared as sets. Every
//! derived atom of every case must also have a well-founded explanation.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use nerd_logic::{defaults, evaluate, parse_atom, Atom};

struct Case {
    name: String,
    facts: Vec<Atom>,
    expected: BTreeMap<String, BTreeSet<Atom>>,
}

fn parse_cases(file: &str, text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (keyword, rest) = line.split_once(' ').unwrap_or((line, ""));
        if keyword == "case" {
            cases.push(Case { name: rest.to_string(), facts: vec![], expected: BTreeMap::new() });
            continue;
        }
        let case = cases.last_mut().unwrap_or_else(|| panic!("{file}:{}: `{keyword}` before any case", n + 1));
        let atom = || parse_atom(rest).unwrap_or_else(|e| panic!("{file}:{}: {e}", n + 1));
        match keyword {
            "fact" => case.facts.push(atom()),
            "expect" => {
                let a = atom();
                case.expected.entry(a.predicate.clone()).or_default().insert(a);
            }
            "none" => {
                case.expected.entry(rest.to_string()).or_default();
            }
            other => panic!("{file}:{}: unknown keyword `{other}`", n + 1),
        }
    }
    cases
}

fn run_file(file: &str, text: &str) {
    let cases = parse_cases(file, text);
    assert!(!cases.is_empty(), "{file} has no cases");
    for case in cases {
        let context = format!("{file}: {}", case.name);
        let mut facts = defaults::policy();
        for a in &case.facts {
            facts.assert_atom(a).unwrap_or_else(|e| panic!("{context}: {a}: {e}"));
        }
        let fixpoint = evaluate(facts);
        for (predicate, expected) in &case.expected {
            let actual: BTreeSet<Atom> =
                fixpoint.atoms(predicate).unwrap_or_else(|e| panic!("{context}: {e}")).into_iter().collect();
            assert_eq!(&actual, expected, "{context}: atoms of `{predicate}`");
        }
        let mut derived = fixpoint.derived_atoms();
        for on_demand in ["depends_on", "activation", "context_atom"] {
            derived.extend(fixpoint.atoms(on_demand).unwrap_or_default());
        }
        for atom in &derived {
            let explanation =
                fixpoint.explain(atom).unwrap_or_else(|e| panic!("{context}: cannot explain {atom}: {e}"));
            assert_eq!(explanation.atom(), atom);
            common::assert_grounded(&fixpoint, &explanation, &context);
        }
        common::check_proofs(&fixpoint, &context);
    }
}

#[test]
fn delegation_cases() {
    run_file("delegation.case", include_str!("cases/delegation.case"));
}

#[test]
fn impact_cases() {
    run_file("impact.case", include_str!("cases/impact.case"));
}

#[test]
fn clarification_cases() {
    run_file("clarification.case", include_str!("cases/clarification.case"));
}

#[test]
fn strategy_cases() {
    run_file("strategy.case", include_str!("cases/strategy.case"));
}

#[test]
fn commit_gate_cases() {
    run_file("commit_gate.case", include_str!("cases/commit_gate.case"));
}

#[test]
fn constitution_cases() {
    run_file("constitution.case", include_str!("cases/constitution.case"));
}

#[test]
fn watchdog_cases() {
    run_file("watchdog.case", include_str!("cases/watchdog.case"));
}

#[test]
fn context_cases() {
    run_file("context.case", include_str!("cases/context.case"));
}

#[test]
fn articulation_cases() {
    run_file("articulation.case", include_str!("cases/articulation.case"));
}

#[test]
fn shards_cases() {
    run_file("shards.case", include_str!("cases/shards.case"));
}

#[test]
fn page_cases() {
    run_file("page.case", include_str!("cases/page.case"));
}
