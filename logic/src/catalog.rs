//! The predicate catalog: every predicate nerd knows, where its atoms come
//! from and what its columns mean. The rows (`schema::PREDICATES`) are
//! generated from the one declaration in `schema.rs`; `nerd query` lists them. Knows nothing about
//! how atoms are derived.

/// Where the atoms of a predicate come from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Origin {
    /// Asserted by projection of the repository and its tools.
    World,
    /// Asserted from the perception transducer, after validation.
    Perception,
    /// Asserted from the constitution and configuration.
    Policy,
    /// Derived by a program in this crate.
    Derived,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::World => "world",
            Origin::Perception => "perception",
            Origin::Policy => "policy",
            Origin::Derived => "derived",
        }
    }
}

/// One predicate: name, origin, column names and a one-line meaning.
#[derive(Clone, Copy, Debug)]
pub struct Predicate {
    pub name: &'static str,
    pub origin: Origin,
    pub columns: &'static [&'static str],
    pub doc: &'static str,
}
