//! Shared output helpers: atoms and explanations as JSON, and the refreshed
//! fixpoint every reading command starts from.

use std::path::Path;

use nerd_logic::{Atom, ExplainedPremise, Explanation, Fixpoint, Term};
use serde_json::{json, Value};

use crate::error::NerdError;
use crate::index::index;
use crate::kernel::{self, LoadFor};
use crate::store::Store;

pub fn term_json(t: &Term) -> Value {
    match t {
        Term::Str(s) => json!(s),
        Term::Int(i) => json!(i),
        Term::Bool(b) => json!(b),
        Term::Ratio(r) => json!(f64::from(*r) / 1000.0),
    }
}

pub fn atom_json(a: &Atom) -> Value {
    json!({ "predicate": a.predicate, "args": a.args.iter().map(term_json).collect::<Vec<_>>() })
}

pub fn explanation_json(e: &Explanation) -> Value {
    match e {
        Explanation::Fact(a) => json!({ "atom": a.to_string(), "fact": true }),
        Explanation::Derived { atom, rule, premises } => json!({
            "atom": atom.to_string(),
            "rule": rule,
            "premises": premises.iter().map(|p| match p {
                ExplainedPremise::Holds(inner) => explanation_json(inner),
                ExplainedPremise::Absent(a) => json!({ "absent": a.to_string() }),
                ExplainedPremise::Check(c) => json!({ "check": c }),
            }).collect::<Vec<_>>(),
        }),
    }
}

/// Opens the store, refreshes the index when asked, and evaluates.
pub fn fixpoint(root: &Path, refresh: bool) -> Result<Fixpoint, NerdError> {
    let mut store = Store::open(root)?;
    if refresh {
        index(root, &mut store, &|_, _| {})?;
    }
    let mut facts = kernel::load(root, &store, LoadFor::Evaluation)?.facts();
    // The last page the browser showed: its facts outlive the browser.
    kernel::page_facts(root, &mut facts)?;
    Ok(nerd_logic::evaluate(facts))
}
