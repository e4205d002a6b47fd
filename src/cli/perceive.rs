//! `nerd perceive`: a request in, intent atoms and the kernel's reading out.

use std::io::Write;
use std::path::Path;

use nerd_logic::evaluate;
use serde_json::json;

use crate::agent::ground;
use crate::error::{exit, NerdError};
use crate::kernel::{self, LoadFor};
use crate::perceive::focus::Candidate;
use crate::perceive::{perceive, Intent, Offline, Perceived};
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

pub fn run(root: &Path, text: &str, provider: &str, json_out: bool) -> Result<i32, NerdError> {
    if text.trim().is_empty() {
        return Err(NerdError::Usage("nothing to perceive: give the request as text".into()));
    }
    let mut transducer: Box<dyn crate::perceive::Transducer> = match provider {
        "offline" => Box::new(Offline),
        #[cfg(feature = "local")]
        "local" => Box::new(local_from_env()?),
        other => Box::new(crate::perceive::http::from_env(other).map_err(NerdError::Usage)?),
    };
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

/// The local model from `NERD_LOCAL_MODEL`, `NERD_LOCAL_THREADS` (default 1) and `NERD_SEED` (default 0).
#[cfg(feature = "local")]
fn local_from_env() -> Result<crate::perceive::local::Local, NerdError> {
    let path = std::env::var_os("NERD_LOCAL_MODEL").ok_or_else(|| {
        NerdError::Usage("set NERD_LOCAL_MODEL to a GGUF model (scripts/install-model installs SmolLM2-135M)".into())
    })?;
    let threads = std::env::var("NERD_LOCAL_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1);
    let seed = std::env::var("NERD_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    crate::perceive::local::Local::load(std::path::Path::new(&path), threads, seed).map_err(NerdError::Usage)
}
