//! Grounding a perceived intent on the workspace: focus candidates for its
//! target, the intent facts the kernel reads, and the question to ask when
//! the kernel derives `clarification_needed`. Shared by `nerd perceive` and
//! the agent loop. Knows nothing about acting.

use nerd_logic::vocab::{Category, Verb};
use nerd_logic::{Confidence, Facts};

use crate::kernel::Loaded;
use crate::perceive::focus::{self, Candidate, Known};
use crate::perceive::Intent;

/// Whether the verb's target names code to ground (a commit does not; a
/// status question only when it names something: "run that test again").
pub fn needs_focus(intent: &Intent) -> bool {
    let broad_explanation = intent.verb == Verb::Explain && intent.context == nerd_logic::vocab::ContextHint::Broad;
    let situational = matches!(
        intent.verb,
        Verb::Commit | Verb::Scaffold | Verb::Forbid | Verb::Require | Verb::Prefer | Verb::Remember | Verb::Forget
    );
    !(intent.target.is_empty() || situational || broad_explanation)
}

/// Candidates for the intent's target among the loaded symbols and files.
pub fn candidates(intent: &Intent, loaded: &Loaded) -> Vec<Candidate> {
    if !needs_focus(intent) {
        return Vec::new();
    }
    resolve(&intent.target, loaded)
}

/// Candidates for a reference among the loaded symbols and files, best first.
pub fn resolve(reference: &str, loaded: &Loaded) -> Vec<Candidate> {
    let known: Vec<Known> = loaded
        .projections
        .iter()
        .flat_map(|(path, (_, p))| p.symbols.iter().map(move |s| Known { id: &s.id, name: &s.name, path }))
        .collect();
    let files: Vec<&str> = loaded.files.iter().map(|f| f.path.as_str()).collect();
    focus::resolve(reference, &known, &files)
}

/// The confidence at which a grounding is taken without asking.
pub const CONFIDENT: f64 = 0.85;

/// The one symbol or file a reference names with confidence (at least
/// `CONFIDENT`, and no other as confident), as its id or path.
pub fn confidently(reference: &str, loaded: &Loaded) -> Option<String> {
    let found = resolve(reference, loaded);
    let mut sure = found.iter().filter(|c| c.confidence >= CONFIDENT);
    match (sure.next(), sure.next()) {
        (Some(one), None) => Some(label(one).to_string()),
        _ => None,
    }
}

/// The new name a rename asks for, from its constraints.
pub fn new_name(intent: &Intent) -> Option<&str> {
    intent.constraints.iter().find_map(|c| c.strip_prefix("new name: ")).map(str::trim).filter(|n| !n.is_empty())
}

/// Asserts the intent, its focus and its ambiguities as perception facts.
/// `indexed`: the workspace has an index to ground on.
pub fn assert_intent(f: &mut Facts, intent: &Intent, candidates: &[Candidate], indexed: bool) {
    let (id, target, constraint) = (f.sym("request"), f.sym(&intent.target), f.sym(&intent.constraints.join("; ")));
    f.user_intent.push((id, intent.category, intent.verb, target, constraint));
    f.context_hint.push((id, intent.context));
    for c in candidates {
        let (path, symbol) = (f.path(&c.path), f.symbol_id(&c.symbol));
        f.focus_resolution.push((target, path, symbol, Confidence::from_f64(c.confidence)));
    }
    for m in &intent.missing {
        let row = (f.sym(&m.param), f.sym(&m.clue), f.sym(&m.hypothesis));
        f.ambiguity_flag.push(row);
    }
    // A mutation on a named target with no grounding at all is unclear too.
    let needs_grounding = intent.category == Category::Mutation
        && !matches!(intent.verb, Verb::Scaffold | Verb::Commit | Verb::Implement)
        && needs_focus(intent)
        && candidates.is_empty()
        && indexed;
    if needs_grounding {
        let (p, clue, none) = (f.sym("target"), f.sym(&intent.target), f.sym(""));
        f.ambiguity_flag.push((p, clue, none));
    }
}

/// The question to ask when the kernel needs a clarification.
pub fn question(intent: &Intent, candidates: &[Candidate]) -> String {
    if let Some(m) = intent.missing.first() {
        let what = if m.param == "new_name" {
            "What should the new name be?".to_string()
        } else {
            format!("What should I {}?", intent.verb)
        };
        return format!("{what} (missing: {})", m.param);
    }
    if candidates.is_empty() {
        return format!(
            "I found nothing matching \"{}\" in this workspace. Which file or symbol do you mean?",
            intent.target
        );
    }
    let options: Vec<String> =
        candidates.iter().enumerate().map(|(i, c)| format!("{}) {} ({:.2})", i + 1, label(c), c.confidence)).collect();
    format!("Which do you mean by \"{}\"? {}", intent.target, options.join("  "))
}

/// A candidate as the user sees it.
pub fn label(c: &Candidate) -> &str {
    if c.symbol.is_empty() {
        &c.path
    } else {
        &c.symbol
    }
}

/// The option a reply to a clarification picks: its number, or its exact label.
pub fn pick(options: &[Candidate], reply: &str) -> Option<Candidate> {
    let reply = reply.trim().trim_end_matches(['.', ')']);
    let chosen = match reply.parse::<usize>() {
        Ok(n) if n >= 1 => options.get(n - 1),
        _ => options.iter().find(|c| label(c) == reply || c.symbol.rsplit('#').next() == Some(reply)),
    };
    chosen.map(|c| Candidate { confidence: 1.0, ..c.clone() })
}
