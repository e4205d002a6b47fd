//! nerd: a logic-first coding agent. This crate is the runtime around the
//! pure kernel in `nerd-logic`: it projects the world into facts, stores
//! them, evaluates the kernel and presents its answers. It is the only place
//! with side effects.

pub mod agent;
pub mod articulate;
pub mod audit;
pub mod browser;
pub mod check;
pub mod cli;
pub mod config;
pub mod diff;
pub mod digest;
pub mod embed;
pub mod error;
pub mod exec;
pub mod files;
pub mod hook;
pub mod hosts;
pub mod hrf;
pub mod index;
pub mod kernel;
pub mod memory;
pub mod model;
pub mod perceive;
pub mod policy;
pub mod precise;
pub mod router;
pub mod sandbox;
pub mod scratch;
pub mod secrets;
pub mod specialist;
pub mod store;
pub mod timing;
pub mod watch;
pub mod words;
pub mod world;
