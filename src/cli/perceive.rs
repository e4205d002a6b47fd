//! `nerd perceive`: a request in, intent atoms and the kernel's reading out.

use std::io::Write;
use std::path::Path;

use nerd_logic::evaluate;
use serde_json::json;

use crate::agent::ground;
use crate::config::Provider;
use crate::error::{exit, NerdError};
use crate::kernel::{self, LoadFor};
use crate::model;
use crate::perceive::focus::Candidate;
use crate::perceive::{perceive, Intent, Perceived};
use crate::store::Store;

/// Grounds the target on the workspace's index, when the workspace has one.
fn candidates(root: &Path, intent: &Intent) -> Result<Vec<Candidate>, NerdError> {
    if !indexed(root) {
        return Ok(Vec::new());
    }
    let mut store = Store::open(root)?;
    crate::index::index(root, &mut store, &|_, _| {})?;
    let loaded = kernel::load(root, &store, LoadFor::Evaluation)?;
    Ok(ground::candidates(intent, &loaded))
}

fn indexed(root: &Path) -> bool {
    root.join(".nerd").is_dir() || root.join(".git").exists()
}

pub fn run(root: &Path, text: &str, provider: Option<Provider>, json_out: bool) -> Result<i32, NerdError> {
    if text.trim().is_empty() {
        return Err(NerdError::Usage("nothing to perceive: give the request as text".into()));
    }
    let config = crate::config::Config::load(root)?;
    let choice = model::provider::choose(provider, &config.model, &model::provider::process_env)?;
    let seed = model::provider::process_env("NERD_SEED").and_then(|s| s.parse().ok());
    let connection = model::provider::connect(&choice, seed, &model::provider::process_env)?;
    let mut transducer = crate::perceive::transducer(connection)?;
    let intent = match perceive(transducer.as_mut(), text) {
        Perceived::Intent { intent, .. } => intent,
        Perceived::Unparsed { errors } => {
            return Err(NerdError::Usage(format!("could not read the request: {}", errors.join("; "))))
        }
    };
    let cands = candidates(root, &intent)?;
    let mut f = nerd_logic::defaults::policy();
    ground::assert_intent(&mut f, &intent, &cands, indexed(root));
    let fixpoint = evaluate(f);
    let clarification = fixpoint.clarification_needed().then(|| ground::question(&intent, &cands));
    let mut out = std::io::stdout().lock();
    if json_out {
        let value = json!({
            "category": intent.category.as_str(),
            "verb": intent.verb.as_str(),
            "target": intent.target,
            "constraints": intent.constraints,
            "context": intent.context.as_str(),
            "confidence": intent.confidence,
            "focus": cands,
            "clarification": clarification,
            "strategy": fixpoint.strategy().as_str(),
            "next_action": fixpoint.next_action().map(|a| a.as_str()),
        });
        writeln!(out, "{value}")?;
    } else {
        for p in [
            "user_intent",
            "context_hint",
            "focus_resolution",
            "ambiguity_flag",
            "clarification_needed",
            "strategy",
            "next_action",
        ] {
            for a in fixpoint.atoms(p).unwrap_or_default() {
                writeln!(out, "{a}")?;
            }
        }
        if let Some(q) = clarification {
            writeln!(out, "\n{q}")?;
        }
    }
    Ok(exit::SUCCESS)
}
