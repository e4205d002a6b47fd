//! `nerd query`: every atom of one predicate, or the catalog.

use std::io::Write;
use std::path::Path;

use nerd_logic::PREDICATES;

use super::output::{atom_json, fixpoint};
use crate::error::{exit, NerdError};

pub fn run(root: &Path, predicate: Option<&str>, json: bool, refresh: bool) -> Result<i32, NerdError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let Some(predicate) = predicate else {
        for p in PREDICATES {
            writeln!(out, "{:<11} {}({})  {}", p.origin.as_str(), p.name, p.columns.join(", "), p.doc)?;
        }
        return Ok(exit::SUCCESS);
    };
    // Check the name before doing any work.
    if nerd_logic::predicate(predicate).is_none() {
        return Err(nerd_logic::KernelError::UnknownPredicate { name: predicate.to_string() }.into());
    }
    let fixpoint = fixpoint(root, refresh)?;
    for atom in fixpoint.atoms(predicate)? {
        if json {
            writeln!(out, "{}", atom_json(&atom))?;
        } else {
            writeln!(out, "{atom}")?;
        }
    }
    out.flush()?;
    Ok(exit::SUCCESS)
}
