//! Standing instructions become project rules in `.nerd/config.toml`: the
//! rule is derived from the instruction, the whole file is validated with the
//! rule added, and only then written, atomically. Shared by `nerd instruct`
//! and the agent's `record_instruction` strategy.
//! Knows nothing about how rules are checked.

use std::path::Path;

use crate::config::Config;
use crate::perceive::instruction::rule_for;
use crate::perceive::Intent;
use crate::world::lang::{lang_label, Lang};

/// What became of an instruction.
#[derive(Debug, PartialEq, Eq)]
pub enum Recorded {
    Added {
        id: String,
        path: String,
    },
    AlreadyThere {
        id: String,
    },
    /// nerd cannot enforce it; nothing was written.
    Refused {
        why: String,
    },
}

/// Why the configuration could not be updated.
#[derive(Debug, thiserror::Error)]
pub enum InstructError {
    #[error("{path}: {message}")]
    Config { path: String, message: String },
    #[error("cannot write {path}: {source}")]
    Write { path: String, source: std::io::Error },
}

/// The language most of the workspace's projected files are written in.
pub fn main_language(root: &Path) -> Option<Lang> {
    let (files, _) = crate::world::walk::walk(root);
    let mut counts: Vec<(Lang, usize)> = Vec::new();
    for f in &files {
        if let Some(lang) = Lang::from_name(lang_label(&f.path)) {
            let lang = lang.family();
            match counts.iter_mut().find(|(l, _)| *l == lang) {
                Some((_, n)) => *n += 1,
                None => counts.push((lang, 1)),
            }
        }
    }
    counts.into_iter().max_by_key(|(_, n)| *n).map(|(l, _)| l)
}

/// Records the instruction `text` (read as `intent`) as a rule of the workspace at `root`.
pub fn record(root: &Path, text: &str, intent: &Intent) -> Result<Recorded, InstructError> {
    let rule = match rule_for(text, intent, main_language(root)) {
        Ok(rule) => rule,
        Err(why) => return Ok(Recorded::Refused { why }),
    };
    let path = root.join(".nerd/config.toml");
    let shown = path.display().to_string();
    let current = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(InstructError::Config { path: shown, message: e.to_string() }),
    };
    let existing = Config::parse(&current).map_err(|message| InstructError::Config { path: shown.clone(), message })?;
    if existing.check.rules.iter().any(|r| r.id == rule.id) {
        return Ok(Recorded::AlreadyThere { id: rule.id });
    }
    let updated = format!("{current}{}", rule.toml);
    // The whole file must still be valid before anything is written.
    Config::parse(&updated).map_err(|e| InstructError::Config {
        path: shown.clone(),
        message: format!("the new rule would break it: {e}"),
    })?;
    let write_err = |source| InstructError::Write { path: shown.clone(), source };
    std::fs::create_dir_all(root.join(".nerd")).map_err(write_err)?;
    crate::router::write_atomic(&path, updated.as_bytes()).map_err(write_err)?;
    Ok(Recorded::Added { id: rule.id, path: shown })
}
