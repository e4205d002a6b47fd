//! `nerd browse URL [--do STEP]... [--json]`: loads a page in a headless
//! browser through the router (the person at the terminal approves; the
//! constitution still judges the URL and every request the page makes),
//! carries out the steps in order (`click TARGET`, `type TARGET TEXT`,
//! `navigate URL`), prints the page's controls (or, with `--json`, the
//! snapshot's facts), and keeps the last snapshot so `nerd query` and
//! `nerd why` read its facts afterwards. The browser and its process tree
//! end with the command, on Ctrl-C too.

use std::io::Write;
use std::path::Path;

use nerd_logic::vocab::{Autonomy, Category};
use nerd_logic::{evaluate, Facts};
use serde_json::json;

use super::output::atom_json;
use crate::browser::Snapshot;
use crate::error::{exit, NerdError};
use crate::policy::Action;
use crate::router::{ApprovedBy, Outcome, Output, Router};

/// Predicates of a snapshot's facts, in the order `--json` lists them.
const PAGE_FACTS: &[&str] = &[
    "page",
    "dom_node",
    "dom_attr",
    "dom_text",
    "dom_prop",
    "geometry",
    "computed_style",
    "interactable",
    "ax_role",
    "ax_name",
];
/// Derived page predicates `--json` adds.
const PAGE_DERIVED: &[&str] = &["visible", "left_of", "above", "labelled_by"];

/// One step of `--do`.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Click(String),
    Type(String, String),
    Navigate(String),
}

/// Words, with double quotes grouping (`label:"Full name"` is one word, quotes removed).
fn words(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            '\\' if quoted => word.extend(chars.next()),
            c if c.is_whitespace() && !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if quoted {
        return Err(format!("unclosed quote in `{text}`"));
    }
    if started {
        out.push(word);
    }
    Ok(out)
}

fn parse_step(text: &str) -> Result<Step, NerdError> {
    let usage = || {
        NerdError::Usage(format!(
            "`--do {text}`: a step is `click TARGET`, `type TARGET TEXT` or `navigate URL`; a target is a node id \
             (n12), label:TEXT, text:TEXT, name:NAME or #ID (quote words with spaces: label:\"I agree\")"
        ))
    };
    let w = words(text).map_err(NerdError::Usage)?;
    match w.split_first() {
        Some((verb, rest)) if verb == "click" && !rest.is_empty() => Ok(Step::Click(rest.join(" "))),
        Some((verb, [target, text @ ..])) if verb == "type" && !text.is_empty() => {
            Ok(Step::Type(target.clone(), text.join(" ")))
        }
        Some((verb, [url])) if verb == "navigate" => Ok(Step::Navigate(url.clone())),
        _ => Err(usage()),
    }
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// The node a target names on `snapshot`; labels come from the kernel's `labelled_by`.
fn resolve(target: &str, snapshot: &Snapshot) -> Result<String, NerdError> {
    let one = |found: Vec<String>, what: &str| -> Result<String, NerdError> {
        match found.as_slice() {
            [only] => Ok(only.clone()),
            [] => Err(NerdError::Usage(format!("no node on {} is {what}", snapshot.url))),
            many => Err(NerdError::Usage(format!(
                "{} nodes are {what} ({}); name one by its id",
                many.len(),
                many.join(", ")
            ))),
        }
    };
    if let Some(text) = target.strip_prefix("label:") {
        let fixpoint = evaluate(facts_of(snapshot));
        let s = &fixpoint.facts().symbols;
        let mut found: Vec<String> = fixpoint
            .relations()
            .labelled_by()
            .iter()
            .filter(|(_, t)| same(s.resolve(*t), text))
            .map(|(c, _)| s.resolve(*c).to_string())
            .collect();
        found.sort();
        found.dedup();
        return one(found, &format!("a control labelled \"{text}\""));
    }
    if let Some(text) = target.strip_prefix("text:") {
        let found = snapshot
            .nodes
            .iter()
            .filter(|n| n.text.as_deref().is_some_and(|t| same(t, text)) && n.bounds.is_some_and(|b| b[2] > 0))
            .map(|n| n.id.clone())
            .collect();
        return one(found, &format!("text \"{text}\""));
    }
    let by_attr = |name: &str, value: &str| -> Vec<String> {
        snapshot
            .nodes
            .iter()
            .filter(|n| n.attrs.iter().any(|(k, v)| k.eq_ignore_ascii_case(name) && v == value))
            .map(|n| n.id.clone())
            .collect()
    };
    if let Some(id) = target.strip_prefix('#') {
        return one(by_attr("id", id), &format!("#{id}"));
    }
    if let Some(name) = target.strip_prefix("name:") {
        return one(by_attr("name", name), &format!("named {name}"));
    }
    if snapshot.node(target).is_some() {
        return Ok(target.to_string());
    }
    Err(NerdError::Usage(format!(
        "no node `{target}` on {}; name a node id (n12), label:TEXT, text:TEXT, name:NAME or #ID",
        snapshot.url
    )))
}

fn facts_of(snapshot: &Snapshot) -> Facts {
    let mut f = nerd_logic::defaults::policy();
    snapshot.facts(&mut f);
    f
}

pub struct BrowseArgs<'a> {
    pub url: &'a str,
    pub steps: &'a [String],
    pub timeout: std::time::Duration,
    pub json: bool,
}

/// What `nerd browse` did, step by step.
struct Done {
    step: String,
    node: Option<String>,
    output: Output,
}

/// Puts one step to the router with the person's approval: its output, or the exit code of a refusal or failure.
fn act(router: &mut Router, action: Action, step: &str) -> Result<Result<Output, i32>, NerdError> {
    router.approve(&action, ApprovedBy::Human, &format!("command line: nerd browse ({step})"))?;
    let mut err = std::io::stderr().lock();
    match router.execute(&action)? {
        Outcome::Executed { output } => Ok(Ok(output)),
        Outcome::Refused { reasons } => {
            writeln!(err, "refused: {step}")?;
            for r in &reasons {
                writeln!(err, "  {r}")?;
            }
            if reasons.iter().any(|r| r.contains("not on the network allowlist")) {
                writeln!(
                    err,
                    "hint: allow the host (with its port, e.g. \"127.0.0.1:8000\") in {}",
                    crate::hosts::WHERE_ALLOWED
                )?;
            }
            Ok(Err(exit::LOGIC_SAID_NO))
        }
        Outcome::Failed { error } => {
            writeln!(err, "failed: {step}: {error}")?;
            Ok(Err(exit::RUNTIME))
        }
    }
}

pub fn run(root: &Path, a: BrowseArgs) -> Result<i32, NerdError> {
    let steps: Vec<Step> = a.steps.iter().map(|s| parse_step(s)).collect::<Result<_, _>>()?;
    let mut router = Router::open(root, Category::Query, Autonomy::Balanced)?
        .with_timeout(a.timeout)
        .with_cancel(crate::cli::session::interrupt_flag());
    let mut done: Vec<Done> = Vec::new();
    let mut out = std::io::stdout().lock();
    let first = act(&mut router, Action::Browse { url: a.url.to_string() }, &format!("navigate {}", a.url))?;
    let output = match first {
        Ok(o) => o,
        Err(code) => return Ok(code),
    };
    done.push(Done { step: format!("navigate {}", a.url), node: None, output });
    for (text, step) in a.steps.iter().zip(steps) {
        let Some(Output::Page { snapshot, .. }) = done.last().map(|d| &d.output) else { break };
        let (action, node) = match step {
            Step::Click(target) => {
                let node = resolve(&target, snapshot)?;
                (Action::Click { node: node.clone() }, Some(node))
            }
            Step::Type(target, words) => {
                let node = resolve(&target, snapshot)?;
                (Action::Type { node: node.clone(), text: words }, Some(node))
            }
            Step::Navigate(url) => (Action::Browse { url }, None),
        };
        match act(&mut router, action, text)? {
            Ok(output) => done.push(Done { step: text.clone(), node, output }),
            Err(code) => return Ok(code),
        }
    }
    router.close_browser();
    let Some(Output::Page { snapshot, .. }) = done.last().map(|d| &d.output) else {
        return Ok(exit::RUNTIME);
    };
    let deriving = std::time::Instant::now();
    let fixpoint = evaluate(facts_of(snapshot));
    let derive_ms = deriving.elapsed().as_millis() as u64;
    if a.json {
        let mut facts = Vec::new();
        for p in PAGE_FACTS.iter().chain(PAGE_DERIVED) {
            facts.extend(fixpoint.atoms(p).unwrap_or_default().iter().map(atom_json));
        }
        let steps: Vec<_> = done
            .iter()
            .map(|d| {
                let mut step = match &d.output {
                    Output::Page { visit, .. } => serde_json::to_value(visit).unwrap_or_default(),
                    _ => json!({}),
                };
                step["step"] = json!(d.step);
                step["node"] = json!(d.node);
                step
            })
            .collect();
        let body = json!({
            "url": snapshot.url, "title": snapshot.title, "steps": steps, "derive_ms": derive_ms, "facts": facts,
        });
        writeln!(out, "{body}")?;
        return Ok(exit::SUCCESS);
    }
    for d in &done {
        if let Output::Page { visit: v, .. } = &d.output {
            let launch = v.launch_ms.map(|l| format!("browser started in {l} ms, ")).unwrap_or_default();
            let target = d.node.as_deref().map(|n| format!(" → {n}")).unwrap_or_default();
            writeln!(out, "{}{target}: {} — {} ({} nodes; {launch}{} ms)", d.step, v.title, v.url, v.nodes, v.wall_ms)?;
            for b in &v.traffic.blocked {
                writeln!(out, "  refused request {}: {}", b.url, b.reason)?;
            }
        }
    }
    let s = &fixpoint.facts().symbols;
    let labels = fixpoint.relations().labelled_by();
    let controls: Vec<_> = snapshot
        .nodes
        .iter()
        .filter(|n| n.clickable || matches!(n.tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
        .filter(|n| n.bounds.is_some_and(|b| b[2] > 0 && b[3] > 0))
        .collect();
    if !controls.is_empty() {
        writeln!(out, "controls:")?;
    }
    for n in controls {
        let label: Vec<&str> =
            labels.iter().filter(|(c, _)| s.resolve(*c) == n.id).map(|(_, t)| s.resolve(*t)).collect();
        // A button or link is named by its accessible name; a form control by the kernel's label.
        let label = label.first().copied().or(n.name.as_deref()).map(|l| format!(" \"{l}\"")).unwrap_or_default();
        let role = n.role.as_deref().unwrap_or(n.tag.as_str()).to_lowercase();
        let state: Vec<String> = n.props.iter().map(|(k, v)| format!("{k}={v}")).collect();
        writeln!(out, "  {:<6} {role}{label} {}", n.id, state.join(" "))?;
    }
    writeln!(out, "facts kept: nerd query dom_node | dom_text | labelled_by | left_of …; nerd why 'labelled_by(…)'")?;
    Ok(exit::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_read_with_quoted_targets() {
        assert_eq!(parse_step("click label:Agree").unwrap(), Step::Click("label:Agree".into()));
        assert_eq!(parse_step("click label:\"I agree\"").unwrap(), Step::Click("label:I agree".into()));
        assert_eq!(
            parse_step("type label:\"Full name\" Ada Lovelace").unwrap(),
            Step::Type("label:Full name".into(), "Ada Lovelace".into())
        );
        assert_eq!(parse_step("navigate http://127.0.0.1:1/x").unwrap(), Step::Navigate("http://127.0.0.1:1/x".into()));
        for bad in ["click", "type n3", "jump n3", "click \"open", "navigate a b"] {
            assert!(parse_step(bad).is_err(), "{bad}");
        }
    }
}
