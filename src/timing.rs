//! Phase timings for commands that report where their time went
//! (`nerd index --json`, `nerd watch --json`). Knows nothing about phases' meaning.

use std::time::{Duration, Instant};

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
