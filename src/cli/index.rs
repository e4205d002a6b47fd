//! `nerd index`: refresh the projection, print counts and what the kernel derives.

use std::io::{IsTerminal, Write};
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::config::PreciseMode;
use crate::error::{exit, NerdError};
use crate::index::{index_keeping, Resolved};
use crate::kernel::{self, LoadFor};
use crate::precise::coverage::{self, CoverageReport};
use crate::precise::{Indexer, Outcome};
use crate::store::Store;
use crate::timing::Phases;

/// Which tiers beyond the heuristic one to refresh.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tiers {
    /// The languages' own indexers (`--precise`).
    pub precise: bool,
    /// The project's tests under coverage (`--coverage`).
    pub coverage: bool,
}

pub fn run(root: &Path, json: bool, tiers: Tiers) -> Result<i32, NerdError> {
    let config = crate::config::Config::load(root)?;
    let mut store = Store::open(root)?;
    let bar = (std::io::stderr().is_terminal() && !json).then(|| {
        let bar = ProgressBar::hidden();
        if let Ok(style) = ProgressStyle::with_template("{spinner} indexing {pos}/{len} files {wide_bar} {elapsed}") {
            bar.set_style(style);
        }
        bar
    });
    let progress = |done: u64, total: u64| {
        if let Some(bar) = &bar {
            if done == 1 && total > 200 {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            bar.set_length(total);
            bar.set_position(done);
        }
    };
    let (report, resolved) = index_keeping(root, &mut store, &progress)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let timeout = std::time::Duration::from_secs(config.index.precise_timeout_secs);
    let precise_report = if tiers.precise {
        Some(crate::precise::run(root, &mut store, timeout, &config.policy.secret_paths)?)
    } else {
        if report.cold && config.index.precise == PreciseMode::AfterCold {
            start_precise_in_background(root);
        }
        None
    };
    let coverage_report = if tiers.coverage {
        Some(coverage::run(root, &mut store, &config.index, &config.policy.secret_paths)?)
    } else {
        None
    };
    let started = std::time::Instant::now();
    // The precise tier and coverage rewrite what the index wrote: then the store answers.
    let loaded = match resolved {
        Some(Resolved { projections, resolution }) if !tiers.precise && !tiers.coverage => {
            kernel::load_resolved(root, &store, projections, resolution)?
        }
        _ => kernel::load(root, &store, LoadFor::Evaluation)?,
    };
    let fixpoint = loaded.evaluate();
    let mut phases = report.phases.clone();
    phases.push(("kernel", started.elapsed()));
    let derived = fixpoint.relations();
    let (modified, impacted, tests, unsafe_targets, blockers) = (
        fixpoint.facts().modified.len(),
        derived.impacted().len(),
        derived.needs_testing().len(),
        derived.unsafe_to_refactor().len(),
        derived.block_commit().len(),
    );
    let mut out = std::io::stdout().lock();
    if json {
        let value = json!({
            "root": root.display().to_string(),
            "files": report.files,
            "parsed": report.parsed,
            "removed": report.removed,
            "symbols": report.symbols,
            "calls": report.calls,
            "unresolved_calls": report.unresolved_calls,
            "parse_errors": report.parse_errors,
            "problems": report.problems.iter().map(|p| json!({"path": p.path, "message": p.message})).collect::<Vec<_>>(),
            "elapsed_ms": report.elapsed.as_secs_f64() * 1000.0,
            "phases_ms": Phases::to_json(&phases),
            "precise": precise_report.as_ref().map(|r| r.runs.iter().map(|(indexer, outcome)| precise_json(*indexer, outcome)).collect::<Vec<_>>()),
            "coverage": coverage_report.as_ref().map(coverage_json),
            "kernel": {
                "strategy": fixpoint.strategy().as_str(),
                "modified": modified,
                "impacted": impacted,
                "needs_testing": tests,
                "unsafe_to_refactor": unsafe_targets,
                "block_commit": blockers,
            },
        });
        writeln!(out, "{value}")?;
        return Ok(exit::SUCCESS);
    }
    writeln!(
        out,
        "indexed {}: {} files ({} parsed, {} removed), {} symbols, {} call edges ({} unresolved calls), {} parse errors in {:.0} ms",
        root.display(),
        report.files,
        report.parsed,
        report.removed,
        report.symbols,
        report.calls,
        report.unresolved_calls,
        report.parse_errors,
        report.elapsed.as_secs_f64() * 1000.0
    )?;
    writeln!(
        out,
        "kernel: strategy {}; {} modified, {} impacted, {} tests to run, {} unsafe to refactor, {} commit blockers",
        fixpoint.strategy(),
        modified,
        impacted,
        tests,
        unsafe_targets,
        blockers
    )?;
    for (indexer, outcome) in precise_report.iter().flat_map(|r| &r.runs) {
        let lang = indexer.lang().name();
        match outcome {
            Outcome::Ran { files, calls, elapsed, note } => {
                writeln!(
                    out,
                    "precise: {} covered {files} {lang} files, {calls} call edges, in {:.1} s",
                    indexer.name(),
                    elapsed.as_secs_f64()
                )?;
                write_note(&mut out, "precise", note)?;
            }
            Outcome::Missing { hint } => writeln!(
                out,
                "precise: {} is not installed ({hint}); {lang} stays on the heuristic tier",
                indexer.name()
            )?,
            Outcome::Failed { message } => {
                writeln!(out, "precise: {} failed, {lang} stays on the heuristic tier: {message}", indexer.name())?
            }
        }
    }
    if let Some(coverage) = &coverage_report {
        write_coverage(&mut out, coverage)?;
    }
    for p in report.problems.iter().take(10) {
        eprintln!("warning: {}: {}", if p.path.is_empty() { "(walk)" } else { &p.path }, p.message);
    }
    if report.problems.len() > 10 {
        eprintln!("warning: {} more unreadable entries", report.problems.len() - 10);
    }
    Ok(exit::SUCCESS)
}

fn precise_json(indexer: Indexer, outcome: &Outcome) -> serde_json::Value {
    let mut value = match outcome {
        Outcome::Ran { files, calls, elapsed, note } => json!({
            "status": "ran", "files": files, "calls": calls,
            "elapsed_ms": elapsed.as_secs_f64() * 1000.0, "note": note,
        }),
        Outcome::Missing { hint } => json!({"status": "missing", "hint": hint}),
        Outcome::Failed { message } => json!({"status": "failed", "message": message}),
    };
    value["indexer"] = json!(indexer.name());
    value["lang"] = json!(indexer.lang().name());
    value
}

/// `[index] precise = "after-cold"`: a detached `nerd index --precise` of the
/// workspace, so the heuristic tier answers at once and the precise tier
/// replaces it when the indexers finish. Its output goes nowhere; a failure
/// to start it only loses the precise tier.
fn start_precise_in_background(root: &Path) {
    use std::os::unix::process::CommandExt;
    let Ok(exe) = std::env::current_exe() else { return };
    let _ = std::process::Command::new(exe)
        .arg("index")
        .arg("--precise")
        .arg(root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn();
}

/// A run's note, if it has one, on a line of its own under the run's.
fn write_note(out: &mut impl Write, tier: &str, note: &Option<String>) -> std::io::Result<()> {
    match note {
        Some(note) => writeln!(out, "{tier}: note: {note}"),
        None => Ok(()),
    }
}

/// What `--coverage` did, one line per collector of a language the workspace has.
fn write_coverage(out: &mut impl Write, report: &CoverageReport) -> std::io::Result<()> {
    use coverage::Outcome as Ran;
    for (collector, outcome) in &report.runs {
        let lang = collector.lang().name();
        match outcome {
            Ran::Ran { tests, links, elapsed, note } => {
                writeln!(
                    out,
                    "coverage: {} ran {tests} {lang} tests, {links} observed test-to-symbol links, in {:.1} s",
                    collector.name(),
                    elapsed.as_secs_f64()
                )?;
                write_note(out, "coverage", note)?;
            }
            Ran::Missing { hint } => writeln!(
                out,
                "coverage: {} cannot run ({hint}); {lang} tests link through calls only",
                collector.name()
            )?,
            Ran::Failed { message } => {
                writeln!(out, "coverage: {} failed, {lang} keeps what it observed before: {message}", collector.name())?
            }
        }
    }
    Ok(())
}

fn coverage_json(report: &CoverageReport) -> serde_json::Value {
    use coverage::Outcome as Ran;
    let runs: Vec<serde_json::Value> = report
        .runs
        .iter()
        .map(|(collector, outcome)| {
            let mut value = match outcome {
                Ran::Ran { tests, links, elapsed, note } => json!({
                    "status": "ran", "tests": tests, "links": links,
                    "elapsed_ms": elapsed.as_secs_f64() * 1000.0, "note": note,
                }),
                Ran::Missing { hint } => json!({"status": "missing", "hint": hint}),
                Ran::Failed { message } => json!({"status": "failed", "message": message}),
            };
            value["tool"] = json!(collector.name());
            value["lang"] = json!(collector.lang().name());
            value
        })
        .collect();
    json!({"runs": runs})
}
