//! The world model: what the repository is, projected into facts. Walks files,
//! projects source with tree-sitter, reads imports, resolves calls and reads
//! git state. Knows nothing about storage or the kernel's rules.

pub mod branches;
pub mod doc;
pub mod git;
pub mod imports;
pub mod lang;
mod locals;
pub mod packages;
pub mod project;
pub mod resolve;
pub mod scip;
pub mod walk;
