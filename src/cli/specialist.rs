//! `nerd define-agent`, `nerd agents`, `nerd research`, `nerd viva`, `nerd
//! spawn`, `nerd delegations`, `nerd revoke`, and the hidden `nerd
//! shard-child` a spawn starts. Readiness is the kernel's (`needs_research`,
//! `shard_ready`); a spawn is a router action, judged and audited.
//! Knows nothing about how knowledge is extracted or scored.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nerd_logic::vocab::{Autonomy, Category};
use nerd_logic::{evaluate, Fixpoint};
use serde_json::json;

use crate::agent::event::{Collect, Event};
use crate::agent::{Agent, NeverApprove};
use crate::error::{exit, NerdError};
use crate::policy::Action;
use crate::router::{ApprovedBy, Outcome, Output, Router};
use crate::specialist::delegation::{self, Token};
use crate::specialist::launch::{ChildAction, ChildReport, TOKEN_VAR};
use crate::specialist::profile::{shard_path, Origin, Profile, Source};
use crate::specialist::{ask, research, shard_state, viva, ShardState};
use crate::store::{KnowledgeDb, StateDb};

/// The kernel's view of the workspace's specialists.
fn readiness(root: &Path) -> Fixpoint {
    let mut f = nerd_logic::defaults::policy();
    crate::specialist::readiness_facts(root, &mut f, None);
    evaluate(f)
}

fn names(atoms: &[(nerd_logic::Sym,)], fx: &Fixpoint) -> BTreeSet<String> {
    atoms.iter().map(|(n,)| fx.facts().symbols.resolve(*n).to_string()).collect()
}

/// What the kernel says of one specialist: needs_research, ready, or not_ready.
fn state_word(fx: &Fixpoint, name: &str) -> &'static str {
    if names(fx.relations().shard_ready(), fx).contains(name) {
        "ready"
    } else if names(fx.relations().needs_research(), fx).contains(name) {
        "needs_research"
    } else {
        "not_ready"
    }
}

pub struct Define<'a> {
    pub name: &'a str,
    pub topic: Option<&'a str>,
    pub sources: &'a [String],
    pub tools: &'a [String],
    pub keywords: &'a [String],
    pub research: bool,
    pub json: bool,
}

/// `nerd define-agent`: writes the profile; runs nothing unless `--research`.
pub fn define(root: &Path, d: Define) -> Result<i32, NerdError> {
    // A Claude Code subagent of that name lends its description and tools.
    let existing = Profile::find(root, d.name).ok();
    let claude = existing.as_ref().filter(|p| matches!(p.origin, Origin::Claude(_)));
    let topic = d.topic.map(str::to_string).or_else(|| claude.map(|p| p.topic.clone())).unwrap_or_default();
    let tools: Vec<String> = if d.tools.is_empty() {
        claude.map(|p| p.tools.iter().map(|t| t.as_str().to_string()).collect()).unwrap_or_default()
    } else {
        d.tools.to_vec()
    };
    let profile = Profile::new(root, d.name, &topic, d.sources, &tools, d.keywords)?;
    let path = profile.save(root)?;
    let mut out = std::io::stdout().lock();
    if !d.json {
        writeln!(out, "defined {} ({})", profile.name, path.display())?;
        let tools: Vec<&str> = profile.tools.iter().map(|t| t.as_str()).collect();
        writeln!(out, "  tools: {}", tools.join(", "))?;
        let sources: Vec<String> = profile.sources.iter().map(Source::to_text).collect();
        writeln!(out, "  sources: {}", if sources.is_empty() { "none yet".into() } else { sources.join(", ") })?;
    }
    if d.research {
        return run_research(root, d.name, d.json);
    }
    let fx = readiness(root);
    let state = state_word(&fx, &profile.name);
    if d.json {
        writeln!(out, "{}", json!({"defined": profile.name, "path": path, "state": state}))?;
    } else if state == "needs_research" {
        writeln!(out, "  needs research: nerd research {}", profile.name)?;
    }
    Ok(exit::SUCCESS)
}

/// `nerd agents`.
pub fn list(root: &Path, json_out: bool) -> Result<i32, NerdError> {
    let (profiles, errors) = Profile::all(root);
    // Each shard is read once: for the kernel's facts and for the listing.
    let shards: Vec<(String, ShardState)> =
        profiles.iter().map(|p| (p.name.clone(), shard_state(root, &p.name))).collect();
    let mut f = nerd_logic::defaults::policy();
    crate::specialist::readiness_facts_of(root, &mut f, &shards);
    let fx = evaluate(f);
    let mut out = std::io::stdout().lock();
    for (p, (_, shard)) in profiles.iter().zip(&shards) {
        let state = state_word(&fx, &p.name);
        let (origin, path) = match &p.origin {
            Origin::Nerd(path) => ("nerd", path),
            Origin::Claude(path) => ("claude", path),
        };
        let tools: Vec<&str> = p.tools.iter().map(|t| t.as_str()).collect();
        if json_out {
            writeln!(
                out,
                "{}",
                json!({
                    "name": p.name, "topic": p.topic, "state": state, "origin": origin, "path": path,
                    "tools": tools, "ignored_tools": p.ignored_tools,
                    "sources": p.sources.iter().map(Source::to_text).collect::<Vec<_>>(),
                    "keywords": p.keywords, "atoms": shard.atoms, "embedded": shard.embedded,
                    "viva": shard.viva.map(|(asked, passed)| json!({"asked": asked, "passed": passed})),
                    "viva_outdated": shard.viva_outdated, "error": shard.error,
                })
            )?;
            continue;
        }
        let viva = match (shard.viva, shard.viva_outdated) {
            (Some((asked, passed)), _) => format!("viva {passed}/{asked}"),
            (None, true) => "viva outdated".into(),
            (None, false) => "no viva".into(),
        };
        writeln!(out, "{:<20} {:<15} {:>6} atoms  {:<13} {}", p.name, state, shard.atoms, viva, p.topic)?;
        writeln!(out, "{:<20} tools: {}  ({origin}: {})", "", tools.join(", "), path.display())?;
        if !p.ignored_tools.is_empty() {
            writeln!(out, "{:<20} not granted: {}", "", p.ignored_tools.join(", "))?;
        }
    }
    if profiles.is_empty() && !json_out {
        writeln!(out, "no specialists: `nerd define-agent NAME --topic \"...\" --source DOCS` defines one")?;
    }
    for e in &errors {
        eprintln!("warning: {e}");
    }
    Ok(exit::SUCCESS)
}

/// `nerd research NAME`.
pub fn run_research(root: &Path, name: &str, json_out: bool) -> Result<i32, NerdError> {
    let profile = Profile::find(root, name)?;
    let bar = indicatif::ProgressBar::new(0).with_style(
        indicatif::ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} files")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(format!("researching {name}"));
    let progress = |done: usize, total: usize, atoms: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(format!("researching {name}: {atoms} atoms"));
    };
    let model = crate::memory::embedder().map_err(|e| e.to_string());
    // Pages are read through the router: each a browse the person asked for by naming the
    // source, judged by the network policy (which no approval overrides) and audited.
    let mut router = match profile.sources.iter().any(|s| matches!(s, Source::Url(_))) {
        true => Some(
            Router::open(root, Category::Query, Autonomy::Balanced)?
                .with_timeout(Duration::from_secs(60))
                .with_cancel(crate::cli::session::interrupt_flag()),
        ),
        false => None,
    };
    let approval = format!("command line: nerd research {name} (pages under its sources)");
    let mut read = |url: &str| -> Result<crate::browser::document::Document, String> {
        let router = router.as_mut().ok_or("no router")?;
        let action = Action::Browse { url: url.to_string() };
        router.approve(&action, ApprovedBy::Human, &approval).map_err(|e| e.to_string())?;
        match router.execute(&action).map_err(|e| e.to_string())? {
            Outcome::Executed { output: Output::Page { snapshot, .. } } => {
                Ok(crate::browser::document::Document::of(&snapshot))
            }
            Outcome::Refused { reasons } => Err(format!("refused: {}", reasons.join("; "))),
            Outcome::Failed { error } => Err(error),
            Outcome::Executed { .. } => Err("the browser showed no page".into()),
        }
    };
    let report = research::research(root, &profile, &shard_path(root, name), model, &progress, Some(&mut read))?;
    bar.finish_and_clear();
    let fx = readiness(root);
    let state = state_word(&fx, name);
    let mut out = std::io::stdout().lock();
    if json_out {
        let mut v = serde_json::to_value(&report).unwrap_or_default();
        v["state"] = json!(state);
        writeln!(out, "{v}")?;
        return Ok(exit::SUCCESS);
    }
    let kinds: Vec<String> = report.by_kind.iter().map(|(k, n)| format!("{n} {k}")).collect();
    writeln!(
        out,
        "{name}: read {} files and {} pages from {} sources in {:.1} s: {} atoms ({})",
        report.files,
        report.pages,
        report.sources,
        report.seconds,
        report.atoms,
        kinds.join(", ")
    )?;
    if report.skipped > 0 {
        writeln!(out, "  skipped {} files or pages (unreadable, not text, or refused)", report.skipped)?;
    }
    match &report.words_only {
        Some(why) => writeln!(out, "  recalled by words only: {why}")?,
        None => writeln!(out, "  embedded {} atoms", report.embedded)?,
    }
    writeln!(out, "  next: nerd viva {name}")?;
    Ok(exit::SUCCESS)
}

/// `nerd viva NAME`: exit 0 when the kernel derives `shard_ready`, 1 when not.
pub fn run_viva(root: &Path, name: &str, json_out: bool) -> Result<i32, NerdError> {
    let profile = Profile::find(root, name)?;
    let path = shard_path(root, &profile.name);
    if !path.exists() {
        return Err(NerdError::Usage(format!("{name} has no knowledge yet: nerd research {name}")));
    }
    let db = KnowledgeDb::open(&path)?;
    let threshold = crate::config::Config::load(root)?.shards.viva_threshold;
    let model = crate::memory::embedder().ok();
    let outcome = viva::examine(name, &db, model, threshold)?;
    drop(db);
    let fx = readiness(root);
    let ready = state_word(&fx, name) == "ready";
    let mut out = std::io::stdout().lock();
    if json_out {
        let mut v = serde_json::to_value(&outcome).unwrap_or_default();
        v["ready"] = json!(ready);
        writeln!(out, "{v}")?;
    } else {
        let share = if outcome.asked == 0 { 0.0 } else { 100.0 * f64::from(outcome.passed) / f64::from(outcome.asked) };
        writeln!(
            out,
            "{name}: asked {}, passed {} ({share:.0}%; answering by chance passes {:.0}%), pass mark {}%: {}",
            outcome.asked,
            outcome.passed,
            100.0 * outcome.chance,
            outcome.threshold,
            if ready { "ready" } else { "not ready" }
        )?;
        for q in outcome.questions.iter().filter(|q| !q.passed) {
            writeln!(
                out,
                "  failed: {}  (held out from {}; closest answer {:.2}, needed {:.2}; cited {})",
                q.question,
                q.source,
                q.related,
                q.mark,
                if q.cited.is_empty() { "nothing".to_string() } else { q.cited.join(", ") }
            )?;
        }
        if outcome.asked == 0 {
            writeln!(
                out,
                "  nothing to examine: the shard holds too little knowledge; add sources and research again"
            )?;
        }
    }
    Ok(if ready { exit::SUCCESS } else { exit::LOGIC_SAID_NO })
}

pub struct SpawnArgs<'a> {
    pub name: &'a str,
    pub task: &'a str,
    pub paths: &'a [String],
    pub timeout: Duration,
    pub json: bool,
}

/// `nerd spawn NAME TASK`: the person at the terminal asks, so the spawn carries their approval;
/// the constitution still refuses an unready specialist.
pub fn spawn(root: &Path, a: SpawnArgs) -> Result<i32, NerdError> {
    if a.task.trim().is_empty() {
        return Err(NerdError::Usage("give the child a task: nerd spawn NAME \"how do I ...\"".into()));
    }
    Profile::find(root, a.name)?;
    let mut router = Router::open(root, Category::Mutation, Autonomy::Balanced)?
        .with_timeout(a.timeout)
        .with_cancel(crate::cli::session::interrupt_flag());
    let action = Action::Spawn { profile: a.name.to_string(), task: a.task.to_string(), paths: a.paths.to_vec() };
    router.approve(&action, ApprovedBy::Human, "command line: nerd spawn")?;
    let outcome = router.execute(&action)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&outcome).unwrap_or_default())?;
    }
    match outcome {
        Outcome::Refused { reasons } => {
            if !a.json {
                writeln!(out, "refused")?;
                for r in reasons {
                    writeln!(out, "  {r}")?;
                }
            }
            Ok(exit::LOGIC_SAID_NO)
        }
        Outcome::Failed { error } => {
            if !a.json {
                writeln!(out, "failed: {error}")?;
            }
            Ok(exit::RUNTIME)
        }
        Outcome::Executed { output: Output::Spawned { token, report, stderr, timed_out, .. } } => {
            let Some(report) = report else {
                if !a.json {
                    let why = if timed_out { "ran out of time".to_string() } else { stderr.trim().to_string() };
                    writeln!(out, "child {token} gave no report: {why}")?;
                }
                return Ok(exit::RUNTIME);
            };
            if !a.json {
                writeln!(out, "{}", report.answer)?;
                if !report.citations.is_empty() {
                    writeln!(out, "\nsources: {}", report.citations.join(", "))?;
                }
                for act in report.actions.iter().filter(|x| x.outcome == "refused") {
                    writeln!(out, "refused {} {}: {}", act.kind, act.target, act.reasons.join("; "))?;
                }
                eprintln!("child {token} ({}) {}", a.name, report.status);
            }
            Ok(if report.succeeded() { exit::SUCCESS } else { exit::LOGIC_SAID_NO })
        }
        Outcome::Executed { .. } => Ok(exit::RUNTIME),
    }
}

/// `nerd delegations`.
pub fn delegations(root: &Path, json_out: bool) -> Result<i32, NerdError> {
    let state = StateDb::open(root)?;
    let mut out = std::io::stdout().lock();
    for d in state.delegations()? {
        if json_out {
            writeln!(
                out,
                "{}",
                json!({
                    "id": d.id, "parent": d.parent, "specialist": d.specialist, "task": d.task,
                    "status": d.status, "issued_ns": d.issued_ns, "expires_ns": d.expires_ns,
                    "revoked_ns": d.revoked_ns, "pid": d.pid,
                })
            )?;
        } else {
            let parent = d.parent.as_deref().map(|p| format!(" (under {p})")).unwrap_or_default();
            let who = d.specialist.as_deref().unwrap_or("generalist");
            writeln!(out, "{}  {:<8} {who}{parent}: {}", d.id, d.status, d.task)?;
        }
    }
    Ok(exit::SUCCESS)
}

/// Whether process `pid` is the child of delegation `id` (so a reused pid is never signalled).
fn is_child(pid: i64, id: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            let args: Vec<&[u8]> = bytes.split(|b| *b == 0).collect();
            args.contains(&b"shard-child".as_slice()) && args.contains(&id.as_bytes())
        })
        .unwrap_or(false)
}

/// `nerd revoke ID`: the token and its whole subtree; running children are stopped.
pub fn revoke(root: &Path, id: &str) -> Result<i32, NerdError> {
    let state = StateDb::open(root)?;
    if state.delegation(id)?.is_none() {
        return Err(NerdError::Usage(format!("no delegation {id}: `nerd delegations` lists them")));
    }
    let revoked = state.delegation_revoke(id, crate::timing::now_ns())?;
    let mut out = std::io::stdout().lock();
    for d in &revoked {
        let mut stopped = "";
        if let Some(pid) = d.pid.filter(|p| *p > 1 && is_child(*p, &d.id)) {
            // The child leads its own process group: everything it started stops with it.
            // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
            unsafe {
                libc::kill(-(pid as libc::pid_t), libc::SIGTERM);
            }
            stopped = " (stopped its process)";
        }
        writeln!(out, "revoked {}{stopped}", d.id)?;
    }
    if revoked.is_empty() {
        writeln!(out, "{id} was already revoked")?;
    }
    Ok(exit::SUCCESS)
}

/// The hidden `nerd shard-child`: the spawned side. Verifies its token,
/// checks with its own kernel that its specialist is ready, and does the
/// task: a question the knowledge answers is answered from it, with sources;
/// anything else runs the agent loop under the token's scope, with no one to
/// approve anything. Prints its report as one JSON line.
pub fn shard_child(root: &Path, token_id: &str) -> Result<i32, NerdError> {
    let started = Instant::now();
    let text = std::env::var(TOKEN_VAR)
        .map_err(|_| NerdError::Usage("shard-child is started by `nerd spawn`, with its token".into()))?;
    let token = Token::parse(&text)?;
    if token.claims.id != token_id {
        return Err(NerdError::Usage("the token is not the one named on the command line".into()));
    }
    let state = StateDb::open(root)?;
    let chain = delegation::verify(root, &state, token)?;
    state.delegation_started(chain.id(), std::process::id())?;
    let claims = chain.leaf().claims.clone();
    let mut report = ChildReport {
        token: claims.id.clone(),
        specialist: claims.specialist.clone(),
        task: claims.task.clone(),
        status: "failed".into(),
        answer: String::new(),
        citations: vec![],
        actions: vec![],
        session: String::new(),
        first_decision_ms: None,
        facts: vec![],
    };
    // The child's own kernel: is its specialist ready, and does its token still hold?
    let mut f = nerd_logic::defaults::policy();
    crate::specialist::readiness_facts(root, &mut f, claims.specialist.as_deref());
    let fx = evaluate(f);
    report.first_decision_ms = Some(started.elapsed().as_millis() as u64);
    let void = chain.void(&state, crate::timing::now_ns())?;
    let unready = claims.specialist.as_deref().filter(|n| state_word(&fx, n) != "ready");
    drop(state);
    if let Some(why) = void {
        report.status = "refused".into();
        report.answer = format!("delegation {} no longer holds: {why}", claims.id);
    } else if let Some(n) = unready {
        report.status = "refused".into();
        report.answer = format!("specialist {n} is not ready");
    } else {
        child_task(root, &chain, &mut report)?;
    }
    println!("{}", serde_json::to_string(&report).unwrap_or_default());
    Ok(if report.succeeded() { exit::SUCCESS } else { exit::LOGIC_SAID_NO })
}

fn child_task(root: &Path, chain: &delegation::Chain, report: &mut ChildReport) -> Result<(), NerdError> {
    let settings = crate::agent::setup::Settings {
        provider: None,
        autonomy: Autonomy::Balanced,
        retry_budget: 3,
        seed: None,
        transcript: None,
        dry_run: false,
        include_docs: false,
        interrupted: Arc::new(AtomicBool::new(false)),
    };
    let mut setup = crate::agent::setup::setup(root, &settings)?;
    let task = report.task.clone();
    // A question the specialist's knowledge answers is answered from it, sources cited.
    if let Some(name) = &report.specialist {
        let question = matches!(
            crate::perceive::perceive(setup.perceiver.as_mut(), &task),
            crate::perceive::Perceived::Intent { ref intent, .. } if intent.category == Category::Query
        );
        if question {
            let db = KnowledgeDb::open_read_only(&shard_path(root, name))?;
            let answer = ask::answer(&db, crate::memory::embedder().ok(), &task, &Default::default())?;
            if !answer.hits.is_empty() {
                report.status = "answered".into();
                report.answer = answer.text;
                report.citations = answer.citations;
                return Ok(());
            }
        }
    }
    setup.options.delegation = Some(chain.clone());
    let mut approver = NeverApprove;
    let mut sink = Collect::default();
    let session = crate::agent::session::Session::new(None);
    report.session = session.id.clone();
    let outcome = {
        let mut agent =
            Agent::new(root, setup.perceiver, setup.patcher, &mut approver, &mut sink, setup.options, session)?;
        agent.handle(&task)
    };
    for event in &sink.0 {
        match event {
            Event::Action { action, decision, reasons } => report.actions.push(ChildAction {
                kind: action.kind().to_string(),
                target: action.target(),
                outcome: decision.as_str().to_string(),
                reasons: reasons.clone(),
            }),
            Event::Findings { atoms } => report.facts.extend(atoms.iter().cloned()),
            _ => {}
        }
    }
    match outcome {
        Ok(r) => {
            report.status = r.status.as_str().to_string();
            report.answer = r.answer;
        }
        Err(e) => {
            report.status = "failed".into();
            report.answer = e.to_string();
        }
    }
    Ok(())
}
