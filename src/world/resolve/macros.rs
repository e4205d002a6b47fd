//! Which of the project's own `macro_rules!` macros a Rust macro invocation
//! names: one of its package first, else one of another package of the
//! project. A macro of the language or of a dependency is none of them.
//! Pure over the index.

use nerd_logic::vocab::Provenance;

use super::call::Cx;
use super::index::{path_of, type_scope, Index};
use crate::world::lang::Lang;
use crate::world::project::{ProjectedSymbol, MACRO_RULES};

/// Whether a symbol is a `macro_rules!` macro.
fn is_macro(s: &ProjectedSymbol) -> bool {
    s.signature.starts_with(MACRO_RULES)
}

impl<'a> Index<'a> {
    /// The project's macros an invocation of `name` in `cx` may expand, and
    /// how sure that is; `None` when no project macro has that name.
    pub(super) fn macros_named(&self, cx: &Cx<'_, 'a>, name: &str) -> Option<(Vec<&'a ProjectedSymbol>, Provenance)> {
        if cx.file.lang != Lang::Rust {
            return None;
        }
        let all: Vec<&'a ProjectedSymbol> = self
            .global
            .get(&(Lang::Rust, name))?
            .iter()
            .copied()
            .filter(|s| is_macro(s) && self.reachable(cx, s))
            .collect();
        let package = type_scope(Lang::Rust, cx.file.path);
        let own: Vec<&'a ProjectedSymbol> =
            all.iter().copied().filter(|s| type_scope(Lang::Rust, path_of(&s.id)) == package).collect();
        match (own.as_slice(), all.as_slice()) {
            ([_], _) => Some((own, Provenance::Exact)),
            ([], []) => None,
            ([], _) => Some((all, Provenance::Inferred)),
            _ => Some((own, Provenance::Inferred)),
        }
    }
}
