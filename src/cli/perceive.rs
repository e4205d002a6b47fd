//! `nerd perceive`: a request in, intent atoms and the kernel's reading out.

use std::io::Write;
use std::path::Path;

use nerd_logic::vocab::Verb;
use nerd_logic::{evaluate, Confidence, Term};
use serde_json::json;

use crate::error::{exit, NerdError};
use crate::kernel::{self, LoadFor};
use crate::perceive::focus::{self, Candidate, Known};
use crate::perceive::{perceive, Intent, Offline, Perceived};
use crate::store::Store;

/// Grounds the target on the workspace's index, when the workspace has one.
fn candidates(root: &Path, target: &str) -> Result<Vec<Candidate>, NerdError> {
    if target.is_empty() || !(root.join(".nerd").is_dir() || root.join(".git").exists()) {
        return Ok(Vec::new());
    }
    let mut store = Store::open(root)?;
    crate::index::index(root, &mut store, &|_, _| {})?;
    let loaded = kernel::load(root, &store, LoadFor::Evaluation)?;
    let known: Vec<Known> = loaded
        .projections
        .iter()
        .flat_map(|(path, (_, p))| p.symbols.iter().map(move |s| Known { id: &s.id, name: &s.name, path }))
        .collect();
    let files: Vec<&str> = loaded.files.iter().map(|f| f.path.as_str()).collect();
    Ok(focus::resolve(target, &known, &files))
}

fn question(intent: &Intent, candidates: &[Candidate], unclear: bool) -> Option<String> {
    if let Some(m) = intent.missing.first() {
        let what = if m.param == "new_name" {
            "What should the new name be?".to_string()
        } else {
            format!("What should I {}?", intent.verb)
        };
        return Some(format!("{what} (missing: {})", m.param));
    }
    if !unclear {
        return None;
    }
    if candidates.is_empty() {
        return Some(format!(
            "I found nothing matching \"{}\" in this workspace. Which file or symbol do you mean?",
            intent.target
        ));
    }
    let options: Vec<String> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!("{}) {} ({:.2})", i + 1, if c.symbol.is_empty() { &c.path } else { &c.symbol }, c.confidence)
        })
        .collect();
    Some(format!("Which do you mean by \"{}\"? {}", intent.target, options.join("  ")))
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
    let cands = candidates(root, &intent.target)?;
    let mut f = nerd_logic::Facts::with_default_policy();
    let (id, target, constraint) = (f.sym("request"), f.sym(&intent.target), f.sym(&intent.constraints.join("; ")));
    f.user_intent.push((id, intent.category, intent.verb, target, constraint));
    f.context_hint.push((id, intent.context));
    for c in &cands {
        let (path, symbol) = (f.sym(&c.path), f.sym(&c.symbol));
        f.focus_resolution.push((target, path, symbol, Confidence::from_f64(c.confidence)));
    }
    for m in &intent.missing {
        let row = (f.sym(&m.param), f.sym(&m.clue), f.sym(&m.hypothesis));
        f.ambiguity_flag.push(row);
    }
    // A mutation on a named target with no grounding at all is unclear too.
    let needs_grounding = intent.category == nerd_logic::vocab::Category::Mutation
        && !matches!(intent.verb, Verb::Scaffold | Verb::Commit | Verb::Implement)
        && !intent.target.is_empty()
        && cands.is_empty()
        && (root.join(".nerd").is_dir() || root.join(".git").exists());
    if needs_grounding {
        let (p, clue, none) = (f.sym("target"), f.sym(&intent.target), f.sym(""));
        f.ambiguity_flag.push((p, clue, none));
    }
    let fixpoint = evaluate(f);
    let first = |pred: &str| {
        fixpoint.atoms(pred).unwrap_or_default().first().and_then(|a| match a.args.first() {
            Some(Term::Str(s)) => Some(s.clone()),
            _ => None,
        })
    };
    let unclear = fixpoint.atoms("clarification_needed").is_ok_and(|a| !a.is_empty());
    let clarification = if unclear { question(&intent, &cands, true) } else { None };
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
            "strategy": first("strategy"),
            "next_action": first("next_action"),
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
