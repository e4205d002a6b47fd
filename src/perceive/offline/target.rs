//! Where a read request's target lies in its words, and what else it says: constraints, the
//! new name of a rename, the file the target is placed in, the context, the confidence and
//! the parameters still missing. The category and verb are decided before; nothing here
//! changes them.

use regex::Regex;
use serde_json::json;

use super::cues::*;
use super::request::Request;
use super::Verdict;

/// Words after the first match of `cue`, without stopwords: a fallback
/// target. A reference to earlier work ("that function again", "the last
/// change") is kept as written: its small words are what it says.
fn words_after(masked: &str, cue: &Regex) -> String {
    let start = cue.find(masked).map_or(0, |m| m.end());
    // "Refactor parse to be simpler", "split the loader so that it streams": what the change
    // should achieve is not what it changes.
    // "Explain how parse works": how the target behaves is not the target either.
    let end = [purpose(), manner()]
        .iter()
        .filter_map(|cue| cue.find_at(masked, start))
        .map(|m| m.start())
        .min()
        .unwrap_or(masked.len());
    let masked = &masked[..end.max(start)];
    let rest = masked[start..].trim().trim_end_matches(['?', '.', '!']).trim();
    if !rest.split_whitespace().any(|w| w == "ID") && crate::perceive::focus::refers_back(rest) {
        return rest.to_string();
    }
    masked[start..]
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty() && w != &"ID" && !STOPWORDS.contains(&w.to_ascii_lowercase().as_str()))
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `lowered` as it was written in `original` (targets are found in lowercased text).
fn recase(original: &str, lowered: &str) -> String {
    let haystack = original.to_lowercase();
    match haystack.find(lowered) {
        // Lowercasing can change byte lengths outside ASCII; only map back when it did not.
        Some(at) if haystack.len() == original.len() => original[at..at + lowered.len()].to_string(),
        _ => lowered.to_string(),
    }
}

/// How a constraint says which file the target lies in ("in: null.go").
pub const LOCATED_IN: &str = "in: ";

/// Whether the request places its target in `name`, a file: "… in null.go", "… from
/// `config/loader.py`" (a name with a dot or a slash, after "in", "from", "inside" or "of").
fn placed_in(original: &str, name: &str) -> bool {
    (name.contains('.') || name.contains('/'))
        && Regex::new(&format!(r"(?i)\b(in|from|inside|of)\s+(the\s+)?(file\s+)?`?{}\b", regex::escape(name)))
            .is_ok_and(|re| re.is_match(original))
}

/// The intent JSON of `request` read as `verdict` (`disputed`: the two readers disagreed).
pub(super) fn intent(request: &Request, verdict: &Verdict, disputed: bool) -> String {
    let Verdict { category, verb, cue, cues } = *verdict;
    let original = request.original.as_str();
    let lower = request.lower.as_str();
    let original_lower = original.to_lowercase();
    let mut constraints: Vec<String> =
        constraint().find_iter(&original_lower).map(|m| m.as_str().trim().to_string()).collect();
    // "Run that test again": the target is what follows "run", not what the cue swallowed.
    let cue = if verb == "status" && run_verb().is_match(lower) { run_verb() } else { cue };
    // "What does parse call": the target sits inside the cue.
    let inside = if verb == "search" { callees().captures(lower).map(|c| c[1].to_string()) } else { None };

    // What a constraint names ("only in calc/ops.py") is not the target; the target is said before it.
    // Where a move or an extraction puts code ("move mul into calc/products.py") is not what it moves.
    let destination = |i: &String| {
        let i = i.to_lowercase();
        verb == "refactor"
            && ["into ", "to ", "in a new file ", "into a new file "]
                .iter()
                .any(|p| original_lower.contains(&format!("{p}{i}")))
    };
    let moved_to = request.ids.iter().any(destination);
    let placed = request.ids.iter().find(|i| placed_in(original, i)).cloned();
    let ids: Vec<String> = request
        .ids
        .iter()
        .filter(|i| !constraints.iter().any(|c| c.contains(&i.to_lowercase())) && !destination(i))
        .cloned()
        .collect();
    let lower = match constraint_start().find(lower) {
        Some(m) if m.start() > 0 => lower[..m.start()].trim_end_matches([',', ' ']).to_string(),
        _ => lower.to_string(),
    };
    // The words that name what moves come before where it goes.
    let lower = match moved_to.then(|| lower.rfind(" into ").or_else(|| lower.rfind(" to "))).flatten() {
        Some(at) => lower[..at].to_string(),
        None => lower,
    };
    // A rename names the new name after "to"; the target is the other name.
    let new_name = if verb == "rename" { rename_to().captures(original).map(|c| c[1].to_string()) } else { None };
    // "UnmarshalText in null.go", "explain add in calc/more.py": a file named after "in" places the
    // target, which is what is said before it when anything is.
    let said_before_place = placed.as_ref().and_then(|_| {
        let before = &lower[..place().find(&lower)?.start()];
        let words = recase(original, &words_after(before, cue));
        let generic = words.split_whitespace().all(|w| GENERIC.contains(&w.to_lowercase().as_str()));
        (!generic).then_some(words)
    });
    let target = match &new_name {
        Some(new) => ids.iter().find(|i| *i != new).cloned().unwrap_or_else(|| {
            let before_to = lower.split(" to ").next().unwrap_or(&lower);
            words_after(before_to, cue)
        }),
        None => ids
            .iter()
            .find(|i| Some(*i) != placed.as_ref())
            .cloned()
            .or(said_before_place)
            .or_else(|| placed.clone())
            .unwrap_or_else(|| match &inside {
                Some(name) => recase(original, name),
                None => recase(original, &words_after(&lower, cue)),
            }),
    };
    let generic = !target.is_empty()
        && ids.is_empty()
        && target.split_whitespace().all(|w| GENERIC.contains(&w.to_lowercase().as_str()));
    let target =
        if generic && matches!(verb, "fix" | "test" | "status" | "review" | "commit") { String::new() } else { target };
    if let Some(new) = new_name.or_else(|| if verb == "rename" { ids.get(1).cloned() } else { None }) {
        constraints.push(format!("new name: {new}"));
    }
    if let Some(file) = placed.filter(|file| *file != target) {
        constraints.push(format!("{LOCATED_IN}{file}"));
    }
    constraints.truncate(8);
    let confidence = match cues {
        0 => 0.5,
        _ if disputed => super::DISPUTED,
        1 => 0.95,
        _ => 0.8,
    };
    let mut missing = Vec::new();
    // A fix targets the failures and a scaffold the new project, so neither needs a named target.
    if target.is_empty() && category == "mutation" && !matches!(verb, "commit" | "fix" | "scaffold") {
        missing.push(json!({"param": "target", "clue": original, "hypothesis": ""}));
    }
    if verb == "rename" && !constraints.iter().any(|c| c.starts_with("new name")) {
        missing.push(json!({"param": "new_name", "clue": original, "hypothesis": ""}));
    }
    let context = if broad().is_match(&lower) { "broad" } else { "narrow" };
    json!({
        "category": category,
        "verb": verb,
        "target": target,
        "constraints": constraints,
        "context": context,
        "confidence": confidence,
        "missing": missing,
    })
    .to_string()
}
