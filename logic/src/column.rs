//! Fact columns at the uniform edge: `Render` turns a typed column into a
//! `Term` (for `nerd query`, `nerd why`, audit records), `Parse` turns a term
//! back into a checked column (the assert boundary), and `Row` renders a
//! whole tuple. Knows nothing about which predicates exist.

use crate::atom::Term;
use crate::symbols::{Line, PathId, Sym, SymbolId, Symbols};
use crate::vocab::{
    Access, Action, ActionKind, ActionOutcome, Autonomy, Category, ChildStatus, Confidence, ContextHint, Effect,
    NetClass, PathClass, Provenance, Risk, Route, Severity, Strategy, SurfaceMode, SymbolKind, Task, TestOutcome,
    TestState, UnknownWord, Unworkable, Verb, Visibility,
};

/// A column that can be shown as a term.
pub trait Render {
    fn term(&self, syms: &Symbols) -> Term;
}

/// A column that can be read from a term, interning strings as it goes.
pub trait Parse: Sized {
    fn parse(term: &Term, syms: &mut Symbols) -> Result<Self, String>;
}

/// A tuple of columns: one relation row.
pub trait Row {
    fn terms(&self, syms: &Symbols) -> Vec<Term>;
}

impl Render for Sym {
    fn term(&self, syms: &Symbols) -> Term {
        Term::Str(syms.resolve(*self).to_string())
    }
}

impl Render for PathId {
    fn term(&self, syms: &Symbols) -> Term {
        self.0.term(syms)
    }
}

impl Render for SymbolId {
    fn term(&self, syms: &Symbols) -> Term {
        self.0.term(syms)
    }
}

impl Render for Line {
    fn term(&self, _: &Symbols) -> Term {
        Term::Int(i64::from(self.0))
    }
}

impl Render for u32 {
    fn term(&self, _: &Symbols) -> Term {
        Term::Int(i64::from(*self))
    }
}

impl Render for usize {
    fn term(&self, _: &Symbols) -> Term {
        Term::Int(i64::try_from(*self).unwrap_or(i64::MAX))
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

impl Parse for Sym {
    fn parse(term: &Term, syms: &mut Symbols) -> Result<Self, String> {
        match term {
            Term::Str(s) => Ok(syms.intern(s)),
            other => Err(format!("expected a string, got {other}")),
        }
    }
}

impl Parse for PathId {
    fn parse(term: &Term, syms: &mut Symbols) -> Result<Self, String> {
        Sym::parse(term, syms).map(PathId)
    }
}

impl Parse for SymbolId {
    fn parse(term: &Term, syms: &mut Symbols) -> Result<Self, String> {
        Sym::parse(term, syms).map(SymbolId)
    }
}

impl Parse for i64 {
    fn parse(term: &Term, _: &mut Symbols) -> Result<Self, String> {
        match term {
            Term::Int(n) => Ok(*n),
            other => Err(format!("expected an integer, got {other}")),
        }
    }
}

impl Parse for u32 {
    fn parse(term: &Term, syms: &mut Symbols) -> Result<Self, String> {
        let n = i64::parse(term, syms)?;
        u32::try_from(n).map_err(|_| format!("{n} is out of range"))
    }
}

impl Parse for Line {
    fn parse(term: &Term, syms: &mut Symbols) -> Result<Self, String> {
        u32::parse(term, syms).map(Line)
    }
}

impl Parse for bool {
    fn parse(term: &Term, _: &mut Symbols) -> Result<Self, String> {
        match term {
            Term::Bool(b) => Ok(*b),
            other => Err(format!("expected true or false, got {other}")),
        }
    }
}

impl Parse for Confidence {
    fn parse(term: &Term, _: &mut Symbols) -> Result<Self, String> {
        match term {
            Term::Ratio(r) => Ok(Confidence(*r)),
            Term::Int(n @ (0 | 1)) => Ok(Confidence(*n as u16 * 1000)),
            other => Err(format!("expected a ratio in [0, 1], got {other}")),
        }
    }
}

macro_rules! vocabulary_columns {
    ($($t:ty),+) => {$(
        impl Render for $t {
            fn term(&self, _: &Symbols) -> Term {
                Term::Str(self.as_str().to_string())
            }
        }

        impl Parse for $t {
            fn parse(term: &Term, _: &mut Symbols) -> Result<Self, String> {
                match term {
                    Term::Str(s) => s.parse::<$t>().map_err(|e: UnknownWord| e.to_string()),
                    other => Err(format!("expected a word, got {other}")),
                }
            }
        }
    )+};
}

vocabulary_columns!(
    Effect,
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
    SurfaceMode,
    Provenance,
    Task,
    ChildStatus,
    Unworkable
);

impl Row for () {
    fn terms(&self, _: &Symbols) -> Vec<Term> {
        Vec::new()
    }
}

macro_rules! tuple_rows {
    ($(($($t:ident $i:tt),+))+) => {$(
        impl<$($t: Render),+> Row for ($($t,)+) {
            fn terms(&self, syms: &Symbols) -> Vec<Term> {
                vec![$(self.$i.term(syms)),+]
            }
        }
    )+};
}

tuple_rows!(
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
);
