//! The default policy as facts: what every evaluation starts from unless the
//! runtime says otherwise. Errors block commits, three repair attempts, the
//! balanced autonomy profile, an 80% viva voce pass mark, one child at a time, and the constitution's compiled-in tables.
//! Project configuration may only add restrictions on top.
//! Knows nothing about where the rest of the facts come from.

use crate::schema::Facts;
use crate::vocab::Severity;

/// An empty fact base holding the default policy.
pub fn policy() -> Facts {
    let mut f = Facts {
        retry_budget: 3,
        blocking_severity: vec![Severity::Error],
        viva_threshold: crate::shards::DEFAULT_VIVA_THRESHOLD,
        // One child at a time until the runtime says how many cores it has.
        max_parallel: 1,
        delegate_min_files: crate::delegation::DEFAULT_MIN_FILES,
        ..Facts::default()
    };
    crate::constitution::seed(&mut f);
    f
}
