//! `nerd instruct`: a standing instruction becomes a project rule.

use std::io::Write;
use std::path::Path;

use crate::agent::instruct::{record, Recorded};
use crate::error::{exit, NerdError};
use crate::perceive::{perceive, Offline, Perceived};

pub fn run(root: &Path, text: &str) -> Result<i32, NerdError> {
    let Perceived::Intent { intent, .. } = perceive(&mut Offline, text) else {
        return Err(NerdError::Usage("could not read the instruction".into()));
    };
    let mut out = std::io::stdout().lock();
    let recorded = record(root, text, &intent).map_err(|e| match e {
        crate::agent::instruct::InstructError::Write { source, .. } => NerdError::Output(source),
        config => NerdError::Usage(config.to_string()),
    })?;
    match recorded {
        Recorded::Added { id, path } => {
            writeln!(out, "recorded rule {id} in {path} (the commit gate enforces it)")?;
            Ok(exit::SUCCESS)
        }
        Recorded::AlreadyThere { id } => {
            writeln!(out, "already a rule: {id}")?;
            Ok(exit::SUCCESS)
        }
        Recorded::Refused { why } => {
            writeln!(out, "not recorded: {why}")?;
            Ok(exit::LOGIC_SAID_NO)
        }
    }
}
