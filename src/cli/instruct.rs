//! `nerd instruct`: a standing instruction becomes a project rule.

use std::io::Write;
use std::path::Path;

use crate::config::Config;
use crate::error::{exit, NerdError};
use crate::perceive::instruction::rule_for;
use crate::perceive::{perceive, Offline, Perceived};
use crate::world::lang::{lang_label, Lang};

/// The language most of the workspace's projected files are written in.
fn main_language(root: &Path) -> Option<Lang> {
    let (files, _) = crate::world::walk::walk(root);
    let mut counts: Vec<(Lang, usize)> = Vec::new();
    for f in &files {
        if let Some(lang) = Lang::from_name(lang_label(&f.path)) {
            let lang = if lang == Lang::Tsx { Lang::TypeScript } else { lang };
            match counts.iter_mut().find(|(l, _)| *l == lang) {
                Some((_, n)) => *n += 1,
                None => counts.push((lang, 1)),
            }
        }
    }
    counts.into_iter().max_by_key(|(_, n)| *n).map(|(l, _)| l)
}

pub fn run(root: &Path, text: &str) -> Result<i32, NerdError> {
    let Perceived::Intent { intent, .. } = perceive(&mut Offline, text) else {
        return Err(NerdError::Usage("could not read the instruction".into()));
    };
    let mut out = std::io::stdout().lock();
    let rule = match rule_for(text, &intent, main_language(root)) {
        Ok(rule) => rule,
        Err(why) => {
            writeln!(out, "not recorded: {why}")?;
            return Ok(exit::LOGIC_SAID_NO);
        }
    };
    let path = root.join(".nerd/config.toml");
    let current = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(NerdError::Usage(format!("cannot read {}: {e}", path.display()))),
    };
    let existing = Config::parse(&current).map_err(|e| NerdError::Usage(format!("{}: {e}", path.display())))?;
    if existing.check.rules.iter().any(|r| r.id == rule.id) {
        writeln!(out, "already a rule: {}", rule.id)?;
        return Ok(exit::SUCCESS);
    }
    let updated = format!("{current}{}", rule.toml);
    // The whole file must still be valid before anything is written.
    Config::parse(&updated)
        .map_err(|e| NerdError::Usage(format!("the new rule would break {}: {e}", path.display())))?;
    std::fs::create_dir_all(root.join(".nerd")).map_err(NerdError::Output)?;
    crate::router::write_atomic(&path, updated.as_bytes()).map_err(NerdError::Output)?;
    writeln!(out, "recorded rule {} in {} (the commit gate enforces it)", rule.id, path.display())?;
    Ok(exit::SUCCESS)
}
