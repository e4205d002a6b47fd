//! nerd's decision kernel: Datalog programs (ascent) over typed facts, their
//! predicate catalog, and explanations of every derived atom.
//!
//! This crate is hollow by construction: its only dependency is the Datalog
//! engine, so it cannot read a file, a clock or a random source. The same
//! facts in give the same atoms out. It must never know where facts come
//! from (files, git, models) or how decisions are carried out.

pub mod articulation;
pub mod assert;
pub mod atom;
pub mod catalog;
pub mod clarification;
pub mod commit_gate;
pub mod constitution;
pub mod facts;
pub mod fixpoint;
pub mod impact;
pub mod proof;
pub mod render;
pub mod strategy;
pub mod symbols;
pub mod vocab;
pub mod watchdog;

pub use assert::AssertError;
pub use atom::{parse_atom, Atom, Term};
pub use catalog::{Origin, Predicate, PREDICATES};
pub use facts::{Confidence, Facts, FileFact, SymbolFact};
pub use fixpoint::{base_atoms, evaluate, Fixpoint, KernelError};
pub use proof::{ExplainedPremise, Explanation, Premise, Proof};
pub use symbols::{Sym, Symbols};
