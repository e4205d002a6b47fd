//! Policy decisions: one action in, `allow`, `ask` or `deny` out, with the
//! reasons the constitution derived. The action is analysed into facts, the
//! kernel evaluates them with the current intent and autonomy profile, and
//! the verdict is read off `denied`, `permitted` and `route`.
//! Knows nothing about carrying actions out.

pub mod action;
pub mod analyze;
mod argv;
pub mod claude;
pub mod paths;
mod record;
mod scripts;
pub mod shell;
pub mod url;

use std::path::Path;

use nerd_logic::vocab::{Autonomy, Category, Risk, Route, Verb};
use nerd_logic::{evaluate, Facts, Fixpoint};
use serde::Serialize;

pub use action::{Action, ActionError};

/// What the router may do with an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
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
    #[serde(serialize_with = "crate::words::serialize_option")]
    pub risk: Option<Risk>,
    #[serde(serialize_with = "crate::words::serialize_option")]
    pub route: Option<Route>,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Ask => "ask",
            Verdict::Deny => "deny",
        }
    }
}

impl Decision {
    /// A refusal before the constitution is consulted (the action itself is malformed).
    pub fn invalid(reason: String) -> Decision {
        Decision { decision: Verdict::Deny, reasons: vec![reason], risk: None, route: None }
    }
}

/// The id the single action of a decision carries.
pub const ACTION_ID: &str = "action";

/// The constitution's integrity hash: its rules and tables as compiled into this binary.
pub fn constitution_hash() -> String {
    let mut text = String::new();
    for part in nerd_logic::constitution::source() {
        text.push_str(part);
        text.push('\0');
    }
    crate::digest::sha256_hex(text.as_bytes())
}

/// The facts of one decision: default policy, the project's restrictions, the intent, the action.
pub fn decision_facts(
    workspace: &Path,
    project: &crate::config::PolicyConfig,
    action: &Action,
    intent: Category,
    autonomy: Autonomy,
) -> Facts {
    let mut f = nerd_logic::defaults::policy();
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
    mark_project_secrets(&mut f, workspace, &project.secret_paths);
    f
}

/// Paths under the project's `[policy] secret_paths` are secrets, whatever else they were.
fn mark_project_secrets(f: &mut Facts, workspace: &Path, secret_paths: &[String]) {
    if secret_paths.is_empty() {
        return;
    }
    let secrets: Vec<std::path::PathBuf> =
        secret_paths.iter().map(|p| paths::resolve(&paths::normalise(workspace, p))).collect();
    for (path, class) in f.path_class.iter_mut() {
        let full = workspace.join(f.symbols.resolve(path.sym()));
        let lower = |p: &Path| p.to_string_lossy().to_ascii_lowercase();
        if secrets
            .iter()
            .any(|s| full == *s || lower(&full).starts_with(&format!("{}/", lower(s))) || lower(&full) == lower(s))
        {
            *class = nerd_logic::vocab::PathClass::Secret;
        }
    }
}

/// Reads the verdict on action `id` off a fixpoint.
pub fn verdict(fixpoint: &Fixpoint, id: &str, autonomy: Autonomy) -> Decision {
    let v = fixpoint.verdict(id);
    let (risk, route) = (v.risk, v.route);
    let shown = |x: Option<&'static str>| x.unwrap_or("?");
    let (decision, reasons) = if !v.denied.is_empty() {
        let s = &fixpoint.facts().symbols;
        (Verdict::Deny, v.denied.iter().map(|why| why.describe(s)).collect())
    } else if v.permitted {
        let why = format!(
            "permitted: {} risk, route {} under the {autonomy} profile",
            shown(risk.map(Risk::as_str)),
            shown(route.map(Route::as_str))
        );
        (Verdict::Allow, vec![why])
    } else {
        // Ask comes from the matrix, or from project policy when the matrix would not ask.
        let by_matrix = risk.map(|r| nerd_logic::constitution::matrix(autonomy, r) == Route::Ask);
        let why = if by_matrix == Some(false) {
            "a human must approve: the project's policy asks for this kind of action".to_string()
        } else {
            format!(
                "a human must approve: {} risk routes to ask under the {autonomy} profile",
                shown(risk.map(Risk::as_str))
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
