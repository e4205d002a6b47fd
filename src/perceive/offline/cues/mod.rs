//! The offline transducer's cues: the patterns that signal each category and verb, in
//! precedence order, grouped by what they signal (standing rules, questions, changes, a request's
//! shape). Knows nothing about how a request is read with them.

use regex::Regex;

mod changes;
mod queries;
mod rules;
mod shape;

pub(super) use changes::*;
pub(super) use queries::*;
pub(super) use rules::*;
pub(super) use shape::*;

/// A verb and the pattern that signals it, in precedence order.
pub(super) type VerbCue = (&'static str, fn() -> &'static Regex);
