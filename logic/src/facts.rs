//! The base facts of one evaluation (`Facts`, declared in `schema.rs`): the
//! parse boundary from uniform atoms, and typed interning helpers for the
//! runtime that fills it. Only base predicates (world, perception, policy) can
//! be asserted; a derived predicate, a computed view, an unknown one, a wrong
//! arity or an ill-typed argument is rejected with a reason.
//! Knows nothing about where facts come from or what the programs derive.

use crate::assert::{Args, AssertError};
use crate::atom::Atom;
use crate::catalog::Origin;
use crate::schema::{self, Facts};
use crate::symbols::{PathId, Sym, SymbolId};
use crate::vocab::SymbolKind;

impl Facts {
    /// Adds one base fact given as a uniform atom.
    pub fn assert_atom(&mut self, atom: &Atom) -> Result<(), AssertError> {
        let info =
            schema::predicate(&atom.predicate).ok_or_else(|| AssertError::UnknownPredicate(atom.predicate.clone()))?;
        if info.origin == Origin::Derived {
            return Err(AssertError::Derived(atom.predicate.clone()));
        }
        if info.columns.len() != atom.args.len() {
            return Err(AssertError::Arity {
                predicate: atom.predicate.clone(),
                expected: info.columns.len(),
                got: atom.args.len(),
            });
        }
        // A row that fails to parse adds no fact (it may have interned a string).
        schema::assert_row(self, &mut Args::new(info.name, info.columns, &atom.args))
    }

    /// Interns `s` in this fact base.
    pub fn sym(&mut self, s: &str) -> Sym {
        self.symbols.intern(s)
    }

    /// Interns a file path.
    pub fn path(&mut self, s: &str) -> PathId {
        PathId(self.symbols.intern(s))
    }

    /// Interns a symbol id.
    pub fn symbol_id(&mut self, s: &str) -> SymbolId {
        SymbolId(self.symbols.intern(s))
    }

    /// The ids of test symbols, from symbol kinds.
    pub fn test_symbols(&self) -> impl Iterator<Item = SymbolId> + '_ {
        self.symbol.iter().filter(|s| s.kind == SymbolKind::Test).map(|s| s.id)
    }

    /// The `test_symbol` view: one row per test symbol.
    pub(crate) fn test_symbol_rows(&self) -> Vec<(SymbolId,)> {
        self.test_symbols().map(|t| (t,)).collect()
    }
}
