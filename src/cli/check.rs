//! `nerd check` and `nerd hook`: run the gate, print its verdict.

use std::io::Write;
use std::path::Path;

use super::HookAction;
use crate::check::{self, tools::Status, Mode, Outcome};
use crate::error::{exit, NerdError};

pub fn run(
    dir: &Path,
    mode: Mode,
    json: bool,
    override_reason: Option<&str>,
    use_cache: bool,
) -> Result<i32, NerdError> {
    if override_reason.is_some_and(|r| r.trim().is_empty()) {
        return Err(NerdError::Usage("--override needs a reason: nerd check --override \"why this may land\"".into()));
    }
    let outcome = check::check(dir, mode, override_reason, use_cache)?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&outcome).map_err(|e| NerdError::Usage(e.to_string()))?)?;
    } else {
        print_text(&mut out, &outcome, override_reason.is_some())?;
    }
    Ok(if outcome.blocked { exit::LOGIC_SAID_NO } else { exit::SUCCESS })
}

/// `given_now`: the override came with this command (else it was recorded earlier for this staged tree).
fn print_text(out: &mut impl Write, o: &Outcome, given_now: bool) -> std::io::Result<()> {
    let short = &o.tree[..o.tree.len().min(12)];
    let verdict = match (o.blocked, &o.overridden) {
        (true, _) => format!("blocked ({} reason{})", o.blockers.len(), if o.blockers.len() == 1 { "" } else { "s" }),
        (false, Some(_)) => "overridden".to_string(),
        (false, None) => "pass".to_string(),
    };
    writeln!(out, "nerd check: {verdict} — tree {short}{}", if o.cached { " (cached)" } else { "" })?;
    for (path, blockers) in check::by_file(&o.blockers) {
        writeln!(out, "{}", if path.is_empty() { "(no file)" } else { path })?;
        for b in blockers {
            let from = if b.sources.is_empty() { String::new() } else { format!("  ({})", b.sources.join(", ")) };
            writeln!(out, "  {:>5}  {}{from}", b.line, b.reason)?;
        }
    }
    let blocking_kind = |f: &&check::parse::Finding| {
        matches!(&f.found, check::parse::Found::Diagnostic { severity, .. } if *severity == nerd_logic::vocab::Severity::Error)
            || matches!(f.found, check::parse::Found::Test { .. })
    };
    let old: Vec<&check::parse::Finding> = o.existing.iter().filter(blocking_kind).collect();
    if !old.is_empty() {
        writeln!(out, "already on HEAD, not blocking ({}; [check] block_on_existing = true to block):", old.len())?;
        for f in old.iter().take(10) {
            let what = match &f.found {
                check::parse::Found::Diagnostic { code, message, .. } => format!("{code} {message}"),
                check::parse::Found::Test { name, .. } => format!("test {name} fails"),
                _ => String::new(),
            };
            let place = if f.path.is_empty() { "(no file)".to_string() } else { format!("{}:{}", f.path, f.line) };
            writeln!(out, "  {place}  {what}  ({})", f.source)?;
        }
        if old.len() > 10 {
            writeln!(out, "  … and {} more (--json lists them)", old.len() - 10)?;
        }
    }
    let tools: Vec<String> = o
        .tools
        .iter()
        .map(|t| match &t.status {
            Status::Ran { .. } => format!("{} {:.1} s", t.tool, t.elapsed_ms / 1000.0),
            Status::Missing { hint } => format!("{} missing ({hint})", t.tool),
            Status::TimedOut => format!("{} timed out", t.tool),
        })
        .collect();
    if !tools.is_empty() {
        writeln!(out, "checks: {}", tools.join("; "))?;
    }
    if let check::Baseline::Computed { tools_ms } = o.baseline {
        writeln!(
            out,
            "HEAD's own findings: checked once for this HEAD ({:.1} s), kept for later checks",
            tools_ms / 1000.0
        )?;
    }
    if let Some(reason) = &o.overridden {
        if given_now {
            writeln!(out, "override recorded: {reason}")?;
        } else {
            writeln!(out, "let through by the override recorded for this staged tree: {reason}")?;
        }
    } else if o.blocked {
        writeln!(out, "to commit anyway (recorded): nerd check --override \"reason\"")?;
    }
    Ok(())
}

pub fn hook(dir: &Path, action: HookAction) -> Result<i32, NerdError> {
    let mut out = std::io::stdout().lock();
    match action {
        HookAction::Install { force } => {
            let nerd =
                std::env::current_exe().map_err(|e| NerdError::Usage(format!("cannot locate nerd itself: {e}")))?;
            let (path, chained) = crate::hook::install(dir, &nerd, force)?;
            writeln!(out, "installed {}", path.display())?;
            if chained {
                writeln!(out, "the previous hook is kept as pre-commit.local and runs first")?;
            }
        }
        HookAction::Uninstall => match crate::hook::uninstall(dir)? {
            Some(path) => writeln!(out, "removed {}", path.display())?,
            None => writeln!(out, "no pre-commit hook to remove")?,
        },
        HookAction::ClaudePretooluse => return super::policy::claude_pretooluse(dir),
    }
    Ok(exit::SUCCESS)
}
