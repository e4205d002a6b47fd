//! Turns typed fact columns into uniform `Term`s for query output and proofs.
//! Knows nothing about predicates or programs.

use crate::atom::{Atom, Term};
use crate::facts::Confidence;
use crate::symbols::{Sym, Symbols};
use crate::vocab::{
    Access, Action, ActionKind, ActionOutcome, Autonomy, Category, ContextHint, NetClass, PathClass, Risk, Route,
    Severity, Strategy, SurfaceMode, SymbolKind, TestOutcome, TestState, Verb, Visibility,
};

/// A fact column that can be shown as a term.
pub trait Render {
    fn term(&self, syms: &Symbols) -> Term;
}

impl Render for Sym {
    fn term(&self, syms: &Symbols) -> Term {
        Term::Str(syms.resolve(*self).to_string())
    }
}

impl Render for u32 {
    fn term(&self, _: &Symbols) -> Term {
        Term::Int(i64::from(*self))
    }
}

impl Render for i64 {
    fn term(&self, _: &Symbols) -> Term {
        Term::Int(*self)
    }
}

impl Render for bool {
    fn term(&self, _: &Symbols) -> Term {
        Term::Bool(*self)
    }
}

impl Render for Confidence {
    fn term(&self, _: &Symbols) -> Term {
        Term::Ratio(self.0)
    }
}

macro_rules! render_vocabulary {
    ($($t:ty),+) => {$(
        impl Render for $t {
            fn term(&self, _: &Symbols) -> Term {
                Term::Str(self.as_str().to_string())
            }
        }
    )+};
}

render_vocabulary!(
    Severity,
    TestOutcome,
    SymbolKind,
    Visibility,
    Category,
    Verb,
    ContextHint,
    TestState,
    Strategy,
    Action,
    ActionKind,
    Access,
    PathClass,
    NetClass,
    Risk,
    Route,
    Autonomy,
    ActionOutcome,
    SurfaceMode
);

/// Builds an `Atom` from a predicate name and renderable columns.
#[macro_export]
macro_rules! atom {
    ($syms:expr, $pred:expr $(, $arg:expr)* $(,)?) => {
        $crate::atom::Atom::new($pred, vec![$($crate::render::Render::term(&$arg, $syms)),*])
    };
}

/// Renders a whole relation of tuples through `row`.
pub fn rows<T>(items: &[T], row: impl Fn(&T) -> Atom) -> Vec<Atom> {
    items.iter().map(row).collect()
}
