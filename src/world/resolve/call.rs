//! What resolving one call works with: where the call is written, and what
//! it resolves to. Shared by the receiver's resolution and dispatch; knows
//! nothing about how either decides.

use nerd_logic::vocab::Provenance;

use super::FileView;
use crate::world::project::ProjectedSymbol;

/// Where a call is written.
pub(super) struct Cx<'c, 'a> {
    pub file: &'c FileView<'a>,
    pub caller: &'c str,
    pub line: u32,
}

/// What a call resolves to.
pub(super) enum Outcome<'a> {
    /// Project symbols, and how they were established.
    Found(Vec<&'a ProjectedSymbol>, Provenance),
    /// Something outside the project: a builtin, a standard type's method, a dependency.
    External,
    /// Not known.
    Unknown,
}
