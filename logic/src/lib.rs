//! nerd's decision kernel: Datalog programs (ascent) over typed facts, their
//! predicate catalog, and explanations of every derived atom.
//!
//! This crate is hollow by construction: its only dependency is the Datalog
//! engine, so it cannot read a file, a clock or a random source. The same
//! facts in give the same atoms out. It must never know where facts come
//! from (files, git, models) or how decisions are carried out.
//!
//! Every predicate is declared once, in `schema.rs`; the rest of the crate
//! (facts, catalog, parse boundary, rendering, typed accessors on `Fixpoint`)
//! is generated from that declaration or checked against it by the compiler.

pub mod articulation;
pub mod assert;
pub mod atom;
pub mod catalog;
pub mod clarification;
pub mod column;
pub mod commit_gate;
pub mod constitution;
pub mod context;
pub mod defaults;
pub mod delegation;
pub mod facts;
pub mod fixpoint;
pub mod impact;
pub mod page;
pub mod proof;
pub mod reasons;
pub mod schema;
pub mod shards;
pub mod specs;
pub mod strategy;
pub mod symbols;
pub mod vocab;
pub mod watchdog;

pub use assert::AssertError;
pub use atom::{parse_atom, Atom, Term};
pub use catalog::{Origin, Predicate};
pub use commit_gate::Blocker;
pub use constitution::Verdict;
pub use fixpoint::{evaluate, Fixpoint, KernelError, Relations};
pub use proof::{ExplainedPremise, Explanation, Premise, Proof};
pub use reasons::{Reason, Why};
pub use schema::{atoms, base_atoms, predicate, relation, Facts, FileFact, SymbolFact, PREDICATES};
pub use symbols::{Line, PathId, Sym, SymbolId, Symbols};
pub use vocab::Confidence;
