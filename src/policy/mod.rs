//! Policy decisions: one action in, `allow`, `ask` or `deny` out, with the
//! reasons the constitution derived. The action is analysed into facts, the
//! kernel evaluates them with the current intent and autonomy profile, and
//! the verdict is read off `denied`, `permitted` and `route`.
//! Knows nothing about carrying actions out.

pub mod action;
pub mod analyze;
pub mod claude;
pub mod paths;
pub mod shell;
pub mod url;

use std::path::Path;

use nerd_logic::vocab::{Autonomy, Category, Verb};
use nerd_logic::{evaluate, Atom, Facts, Fixpoint};
use serde::Serialize;

pub use action::{Action, ActionError};

/// What the router may do with an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// A decision and why.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    pub decision: Verdict,
    pub reasons: Vec<String>,
    pub risk: Option<String>,
    pub route: Option<String>,
}

/// The id the single action of a decision carries.
pub const ACTION_ID: &str = "action";

/// The constitution's integrity hash: its rules and tables as compiled into this binary.
pub fn constitution_hash() -> String {
    crate::digest::sha256_hex(nerd_logic::constitution::SOURCE.as_bytes())
}

/// The facts of one decision: default policy, the project's restrictions, the intent, the action.
pub fn decision_facts(
    workspace: &Path,
    project: &crate::config::PolicyConfig,
    action: &Action,
    intent: Category,
    autonomy: Autonomy,
) -> Facts {
    let mut f = Facts::with_default_policy();
    f.autonomy = autonomy;
    project.apply(&mut f);
    let verb = match intent {
        Category::Query => Verb::Status,
        Category::Mutation => Verb::Implement,
        Category::Instruction => Verb::Require,
    };
    let (i, none) = (f.sym("policy-check"), f.sym(""));
    f.user_intent.push((i, intent, verb, none, none));
    analyze::facts(&mut f, workspace, ACTION_ID, action);
    f
}

fn of_action(fixpoint: &Fixpoint, predicate: &str, id: &str) -> Vec<Atom> {
    fixpoint.atoms(predicate).unwrap_or_default().into_iter().filter(|a| a.arg_text(0) == id).collect()
}

/// Reads the verdict on action `id` off a fixpoint.
pub fn verdict(fixpoint: &Fixpoint, id: &str, autonomy: Autonomy) -> Decision {
    let denied: Vec<String> = of_action(fixpoint, "denied", id).iter().map(|a| a.arg_text(1)).collect();
    let risk = of_action(fixpoint, "risk", id).first().map(|a| a.arg_text(1));
    let route = of_action(fixpoint, "route", id).first().map(|a| a.arg_text(1));
    let permitted = !of_action(fixpoint, "permitted", id).is_empty();
    let (decision, reasons) = if !denied.is_empty() {
        (Verdict::Deny, denied)
    } else if permitted {
        let why = format!(
            "permitted: {} risk, route {} under the {autonomy} profile",
            risk.as_deref().unwrap_or("?"),
            route.as_deref().unwrap_or("?")
        );
        (Verdict::Allow, vec![why])
    } else {
        // Ask comes from the matrix, or from project policy when the matrix would not ask.
        let by_matrix = risk
            .as_deref()
            .and_then(|r| r.parse::<nerd_logic::vocab::Risk>().ok())
            .map(|r| nerd_logic::constitution::matrix(autonomy, r) == nerd_logic::vocab::Route::Ask);
        let why = if by_matrix == Some(false) {
            "a human must approve: the project's policy asks for this kind of action".to_string()
        } else {
            format!(
                "a human must approve: {} risk routes to ask under the {autonomy} profile",
                risk.as_deref().unwrap_or("?")
            )
        };
        (Verdict::Ask, vec![why])
    };
    Decision { decision, reasons, risk, route }
}

/// Decides one action in `workspace` (canonical) for an intent and profile.
pub fn decide(
    workspace: &Path,
    project: &crate::config::PolicyConfig,
    action: &Action,
    intent: Category,
    autonomy: Autonomy,
) -> Decision {
    let fixpoint = evaluate(decision_facts(workspace, project, action, intent, autonomy));
    verdict(&fixpoint, ACTION_ID, project.autonomy(autonomy))
}
