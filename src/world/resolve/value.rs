//! The values resolution reasons with: a project type's key, whether a
//! method call may dispatch to an override, and what a receiver holds. A leaf
//! of `resolve/`: the index keeps a memo of values, so they live below it.
//! Knows no symbol lookup and no syntax.

use nerd_logic::vocab::Provenance;

use crate::world::lang::Lang;
use crate::world::project::ProjectedSymbol;

/// A project type as resolution identifies it: its name within the scope
/// that owns its methods. That scope is the file in Python and TypeScript,
/// the package folder in Go, and the package in Rust, whose `impl` blocks may
/// sit in any file of the crate. Two types of one name in two scopes are two types.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(super) struct TypeKey<'a> {
    pub lang: Lang,
    pub scope: &'a str,
    pub name: &'a str,
}

/// Whether a method called on a value may be a subclass's override.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dispatch {
    /// The value is exactly of its types: just constructed, a class named
    /// for a static call, or `super()`.
    Static,
    /// The value may be an instance of a subclass: `self`/`this`, or a value
    /// declared with the type (a parameter, a field, a return type).
    Virtual,
}

/// What a receiver expression holds.
#[derive(Clone, Debug)]
pub(super) enum Value<'a> {
    /// A value of one of these project types (a type and, for `super()`, its bases).
    Types(Vec<TypeKey<'a>>, Provenance, Dispatch),
    /// A project module (its files).
    Module(Vec<&'a str>),
    /// A namespace declared in code (TypeScript `export namespace util {…}`):
    /// its members are the symbols nested in it.
    Namespace(Vec<&'a ProjectedSymbol>),
    External,
    Unknown,
}

impl Value<'_> {
    /// The value, where it is of project types.
    pub(super) fn project_types(self) -> Option<Self> {
        matches!(self, Value::Types(..)).then_some(self)
    }

    pub(super) fn inferred(self) -> Self {
        match self {
            Value::Types(t, _, dispatch) => Value::Types(t, Provenance::Inferred, dispatch),
            other => other,
        }
    }
}
