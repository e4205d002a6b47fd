//! `nerd watch`: file events in, derived-atom changes out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::new_debouncer;
use serde_json::json;

use super::output::atom_json;
use crate::error::{exit, NerdError};
use crate::timing::Phases;
use crate::watch::WatchSession;

pub fn run(root: &Path, json: bool, debounce_ms: u64) -> Result<i32, NerdError> {
    let mut session = WatchSession::start(root)?;
    let (tx, rx) = mpsc::channel();
    let mut debouncer = new_debouncer(Duration::from_millis(debounce_ms), None, tx)
        .map_err(|e| NerdError::Watch(crate::watch::WatchError::Watcher(e.to_string())))?;
    debouncer
        .watch(root, RecursiveMode::Recursive)
        .map_err(|e| NerdError::Watch(crate::watch::WatchError::Watcher(e.to_string())))?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(
            out,
            "{}",
            json!({"event": "ready", "root": root.display().to_string(), "derived": session.derived().len()})
        )?;
    } else {
        writeln!(out, "watching {} ({} derived atoms); Ctrl-C to stop", root.display(), session.derived().len())?;
    }
    out.flush()?;
    for result in rx {
        let events = match result {
            Ok(events) => events,
            Err(errors) => {
                for e in errors {
                    eprintln!("warning: watch: {e}");
                }
                continue;
            }
        };
        // Reads (including git's own reads of .git/) change nothing and must not re-trigger us.
        let paths: Vec<PathBuf> = events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::Access(_)))
            .flat_map(|e| e.paths.iter().cloned())
            .collect();
        let rels = session.relevant(&paths);
        if rels.is_empty() {
            continue;
        }
        let Some(delta) = session.apply(&rels)? else {
            continue;
        };
        let ms = delta.elapsed.as_secs_f64() * 1000.0;
        if json {
            let value = json!({
                "event": "change",
                "files": delta.files,
                "appeared": delta.appeared.iter().map(atom_json).collect::<Vec<_>>(),
                "disappeared": delta.disappeared.iter().map(atom_json).collect::<Vec<_>>(),
                "elapsed_ms": ms,
                "phases_ms": Phases::to_json(&delta.phases),
            });
            writeln!(out, "{value}")?;
        } else {
            let what = if delta.files.is_empty() { "git state".to_string() } else { delta.files.join(", ") };
            writeln!(
                out,
                "{what}: {} appeared, {} disappeared ({ms:.1} ms)",
                delta.appeared.len(),
                delta.disappeared.len()
            )?;
            for a in &delta.appeared {
                writeln!(out, "  + {a}")?;
            }
            for a in &delta.disappeared {
                writeln!(out, "  - {a}")?;
            }
        }
        out.flush()?;
    }
    Ok(exit::SUCCESS)
}
