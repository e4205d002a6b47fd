//! `nerd why`: the derivation tree of one atom.

use std::io::Write;
use std::path::Path;

use nerd_logic::parse_atom;

use super::output::{explanation_json, fixpoint};
use crate::error::{exit, NerdError};

pub fn run(root: &Path, text: &str, json: bool, refresh: bool) -> Result<i32, NerdError> {
    let atom = parse_atom(text).map_err(|source| NerdError::AtomSyntax { text: text.to_string(), source })?;
    let fixpoint = fixpoint(root, refresh)?;
    let explanation = fixpoint.explain(&atom)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", explanation_json(&explanation))?;
    } else {
        write!(out, "{}", explanation.to_tree_string())?;
    }
    Ok(exit::SUCCESS)
}
