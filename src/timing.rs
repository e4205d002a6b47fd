//! Time as nerd records it: phase timings for commands that report where their
//! time went (`--json`), and nanosecond timestamps for files and records.
//! Knows nothing about what is timed.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Nanoseconds since the Unix epoch of a system time (0 before the epoch).
pub fn ns_since_epoch(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// Now, in nanoseconds since the Unix epoch.
pub fn now_ns() -> i64 {
    ns_since_epoch(SystemTime::now())
}

/// A file's modification time in nanoseconds (0 when the platform has none).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified().map_or(0, ns_since_epoch)
}

/// Records how long successive phases take.
#[derive(Debug)]
pub struct Phases {
    last: Instant,
    pub done: Vec<(&'static str, Duration)>,
}

impl Default for Phases {
    fn default() -> Self {
        Phases { last: Instant::now(), done: Vec::new() }
    }
}

impl Phases {
    /// Ends the current phase under `name` and starts the next.
    pub fn mark(&mut self, name: &'static str) {
        let now = Instant::now();
        self.done.push((name, now - self.last));
        self.last = now;
    }

    /// The phases as a JSON object of milliseconds.
    pub fn to_json(phases: &[(&'static str, Duration)]) -> serde_json::Value {
        serde_json::Value::Object(
            phases.iter().map(|(n, d)| (n.to_string(), serde_json::json!(d.as_secs_f64() * 1000.0))).collect(),
        )
    }
}
