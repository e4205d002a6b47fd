//! `nerd policy check`, `nerd version` and `nerd hook claude-pretooluse`.

use std::io::{Read, Write};
use std::path::Path;

use nerd_logic::vocab::{Autonomy, Category};
use serde_json::json;

use super::ActionRequest;
use crate::error::{exit, NerdError};
use crate::policy::claude::{self, Call};
use crate::policy::{self, Action, Decision, Verdict};

fn canonical(root: &Path) -> Result<std::path::PathBuf, NerdError> {
    root.canonicalize().map_err(|e| NerdError::Usage(format!("cannot use workspace {}: {e}", root.display())))
}

pub fn check(root: &Path, request: &ActionRequest, json: bool) -> Result<i32, NerdError> {
    let (action, intent, autonomy) = request.parse()?;
    let root = canonical(root)?;
    let project = crate::config::Config::load(&root)?.policy;
    let decision = policy::decide(&root, &project, &action, intent, autonomy);
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_value(&decision).unwrap_or_default())?;
    } else {
        writeln!(out, "{}", decision.decision.as_str())?;
        for r in &decision.reasons {
            writeln!(out, "  {r}")?;
        }
    }
    Ok(if decision.decision == Verdict::Allow { exit::SUCCESS } else { exit::LOGIC_SAID_NO })
}

pub fn version() -> Result<i32, NerdError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "nerd {}", env!("CARGO_PKG_VERSION"))?;
    writeln!(out, "constitution sha256:{}", policy::constitution_hash())?;
    Ok(exit::SUCCESS)
}

/// The most restrictive of several decisions, with every reason that led there.
fn combine(decisions: Vec<Decision>) -> (Verdict, Vec<String>) {
    let worst = decisions.iter().map(|d| d.decision).max_by_key(|v| match v {
        Verdict::Allow => 0,
        Verdict::Ask => 1,
        Verdict::Deny => 2,
    });
    let verdict = worst.unwrap_or(Verdict::Ask);
    let reasons = decisions.into_iter().filter(|d| d.decision == verdict).flat_map(|d| d.reasons).collect();
    (verdict, reasons)
}

/// Answers a Claude Code PreToolUse hook: JSON on stdout; exit 2 with the reason on stderr to block.
pub fn claude_pretooluse(fallback_root: &Path) -> Result<i32, NerdError> {
    let mut input = String::new();
    std::io::stdin().take(policy::action::MAX_ACTION_BYTES as u64 * 4).read_to_string(&mut input)?;
    let payload: claude::Payload =
        serde_json::from_str(&input).map_err(|e| NerdError::Usage(format!("not a PreToolUse payload: {e}")))?;
    let root = payload.cwd.as_deref().map(Path::new).unwrap_or(fallback_root);
    let root = super::discover_root(Some(root)).and_then(|r| canonical(&r))?;
    let project = crate::config::Config::load(&root)?.policy;
    let mut rewritten: Option<String> = None;
    let (verdict, reasons) = match claude::call(&payload) {
        Call::Inert => (Verdict::Allow, vec!["nothing to judge".to_string()]),
        Call::Unknown(why) => (Verdict::Ask, vec![why]),
        Call::Actions(actions, spans) => {
            let mut decisions = Vec::new();
            for action in &actions {
                match action.validate() {
                    Ok(()) => {
                        decisions.push(policy::decide(&root, &project, action, Category::Mutation, Autonomy::Balanced))
                    }
                    Err(e) => decisions.push(Decision::invalid(e.to_string())),
                }
            }
            // The programs the constitution allows only in the sandbox (a redirection's write is the shell's own).
            let sandboxed: Vec<bool> = decisions
                .iter()
                .zip(&actions)
                .map(|(d, a)| d.route == Some(nerd_logic::vocab::Route::Sandbox) && matches!(a, Action::Exec { .. }))
                .collect();
            let (verdict, mut reasons) = combine(decisions);
            if verdict == Verdict::Allow && sandboxed.contains(&true) {
                // Claude Code runs the line itself, unconfined: each program the constitution
                // allows only in the sandbox is rewritten, in place, to run through nerd's sandbox.
                match confine_line(&root, &payload, &actions, &spans, &sandboxed)? {
                    Some(line) => {
                        rewritten = Some(line);
                        reasons.push("rewritten to run confined through `nerd sandbox-exec`".into());
                        (verdict, reasons)
                    }
                    None => {
                        reasons.push(
                            "allowed only in nerd's sandbox, and Claude Code would run it unconfined; \
                             nerd cannot rewrite this line to confine it"
                                .into(),
                        );
                        (Verdict::Ask, reasons)
                    }
                }
            } else {
                (verdict, reasons)
            }
        }
    };
    let word = verdict.as_str();
    let reason = format!("nerd: {}", reasons.join("; "));
    let mut output =
        json!({"hookEventName": "PreToolUse", "permissionDecision": word, "permissionDecisionReason": reason});
    if let Some(command) = rewritten {
        let mut input = payload.tool_input.clone();
        input["command"] = serde_json::Value::String(command);
        output["updatedInput"] = input;
    }
    let answer = json!({ "hookSpecificOutput": output });
    writeln!(std::io::stdout().lock(), "{answer}")?;
    if verdict == Verdict::Deny {
        eprintln!("{reason}");
        return Ok(2);
    }
    Ok(exit::SUCCESS)
}

/// The Bash line with every sandboxed program's words (at `spans`, as the hook
/// read them) replaced by a `nerd sandbox-exec` run of the same argv; `None`
/// when a program's words do not stand together in the line (a redirection
/// between them) or the call is not Bash.
fn confine_line(
    root: &Path,
    payload: &claude::Payload,
    actions: &[Action],
    spans: &[Option<std::ops::Range<usize>>],
    sandboxed: &[bool],
) -> Result<Option<String>, NerdError> {
    let Some(line) = payload.tool_input.get("command").and_then(|c| c.as_str()).filter(|_| payload.tool_name == "Bash")
    else {
        return Ok(None);
    };
    let mut out = line.to_string();
    // From the end, so earlier ranges stay where they are.
    for ((action, span), confine) in actions.iter().zip(spans).zip(sandboxed).rev() {
        if !confine {
            continue;
        }
        let (Action::Exec { argv }, Some(span)) = (action, span) else { return Ok(None) };
        out.replace_range(span.clone(), &sandboxed_command(root, argv)?);
    }
    Ok(Some(out))
}

/// The command line that runs `argv` through `nerd sandbox-exec` in `root`, every word quoted.
fn sandboxed_command(root: &Path, argv: &[String]) -> Result<String, NerdError> {
    let nerd = std::env::current_exe()?;
    let quote = |w: &str| format!("'{}'", w.replace('\'', r"'\''"));
    let mut words = vec![
        quote(&nerd.to_string_lossy()),
        "--repo".to_string(),
        quote(&root.to_string_lossy()),
        "sandbox-exec".to_string(),
        "--".to_string(),
    ];
    words.extend(argv.iter().map(|w| quote(w)));
    Ok(words.join(" "))
}
