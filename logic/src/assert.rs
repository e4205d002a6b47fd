//! Errors of the parse boundary from uniform atoms into typed base facts
//! (`Facts::assert_atom`), and the cursor that reads an atom's arguments as
//! the columns the schema declares. Knows nothing about where atoms come from.

use std::fmt;

use crate::atom::Term;
use crate::column::Parse;
use crate::symbols::Symbols;

/// Why an atom cannot become a base fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssertError {
    UnknownPredicate(String),
    /// Derived predicates are the kernel's output, never its input.
    Derived(String),
    /// A view is computed from other base facts (`test_symbol` from `symbol`).
    Computed(String),
    Arity {
        predicate: String,
        expected: usize,
        got: usize,
    },
    BadArgument {
        predicate: String,
        column: &'static str,
        reason: String,
    },
}

impl fmt::Display for AssertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssertError::UnknownPredicate(p) => write!(f, "unknown predicate `{p}`"),
            AssertError::Derived(p) => {
                write!(f, "`{p}` is derived by the kernel and cannot be asserted")
            }
            AssertError::Computed(p) => {
                write!(f, "`{p}` is computed from other facts and cannot be asserted")
            }
            AssertError::Arity { predicate, expected, got } => {
                write!(f, "`{predicate}` takes {expected} argument(s), got {got}")
            }
            AssertError::BadArgument { predicate, column, reason } => {
                write!(f, "`{predicate}` column {column}: {reason}")
            }
        }
    }
}

impl std::error::Error for AssertError {}

/// The arguments of one atom, read left to right as its columns.
pub(crate) struct Args<'a> {
    pub(crate) predicate: &'static str,
    columns: &'static [&'static str],
    args: &'a [Term],
    next: usize,
}

impl<'a> Args<'a> {
    pub(crate) fn new(predicate: &'static str, columns: &'static [&'static str], args: &'a [Term]) -> Self {
        Args { predicate, columns, args, next: 0 }
    }

    pub(crate) fn bad(&self, i: usize, reason: String) -> AssertError {
        AssertError::BadArgument { predicate: self.predicate.to_string(), column: self.columns[i], reason }
    }

    /// The next column, parsed as `T`.
    pub(crate) fn take<T: Parse>(&mut self, syms: &mut Symbols) -> Result<T, AssertError> {
        let i = self.next;
        self.next += 1;
        T::parse(&self.args[i], syms).map_err(|reason| self.bad(i, reason))
    }
}
