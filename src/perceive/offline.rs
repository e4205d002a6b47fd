//! The offline transducer: deterministic rules that read a request into the
//! intent JSON a model would produce (category and controlled verb, target,
//! constraints, context hint, confidence, missing parameters). Identifiers
//! (`snake_case`, `Type.method`, paths, quoted or backticked names) are masked
//! before verbs are looked for, so "simplify resolve_file" is a refactor, not
//! a fix. Knows nothing about the repository.

use regex::Regex;
use serde_json::json;

// Instructions: standing rules for the project, not one-off requests.
pattern!(
    instruction,
    r"^(from now on,?\s*)?(never|always|don'?t ever|do not ever|stop using|avoid|prefer|favou?r|we'?d rather|make sure (all|every|to always)|every \S.* must|all \S.* must)\b|\bfrom now on\b|^(i|we) (prefer|'d rather|would rather|like to keep|always want)\b|^(please\s+)?(use|indent with) (tabs|spaces|\d+ spaces)\b|^(please\s+)?keep (answers|replies|responses|functions|methods|commits|lines|diffs|patches|changes) \w+|^(it'?s (ok|okay|fine|alright) to|you (may|can always|are allowed to)|feel free to|no need to (ask|confirm))\b"
);
// "Do not add dependencies" is a standing instruction; "don't touch the tests, fix the parser" is a
// mutation with a constraint, so a negated imperative counts only when it is the whole request.
pattern!(
    negated_imperative,
    r"^(please\s+)?(do not|don'?t|no more) (add|use|call|touch|modify|change|edit|introduce|import|write|commit|create|bump|upgrade|pull in)\b[^,;]*$"
);
pattern!(
    clause_break,
    r"\b(and|but|then) (fix|rename|refactor|implement|add|write|update|change|make|run|delete|remove)\b"
);
pattern!(forbid, r"\b(never|don'?t|do not|stop using|avoid|must not|must never|no more)\b");
pattern!(
    prefer,
    r"\b(prefer|favou?r|rather|like to keep|indent with)\b|^(please\s+)?(keep|use (tabs|spaces|\d+ spaces))\b"
);

// Memory: what to keep across sessions, or let go of (the memory text is what follows).
pattern!(
    remember,
    r"(?i)^(please\s+)?(remember|note|keep in mind|bear in mind|don'?t forget|do not forget|memori[sz]e)\b(\s+that\b)?\s*:?\s*"
);
pattern!(forget, r"(?i)^(please\s+)?(forget|stop remembering)\b(\s+(that|about)\b)?\s*:?\s*");

// Queries, in precedence order.
pattern!(
    q_impact,
    r"\b(what (would )?breaks?|would break|impact of|affected|depends on|blast radius|(is it|is that|is this|would it be|it'?s) (safe|ok|okay) to( (remove|delete|drop|change|rename|refactor|move|modify|upgrade|touch|edit))?|safe to (remove|delete|drop|change|rename|refactor|move|modify|upgrade)|what (happens|would happen) if|which tests (cover|exercise|hit|test|touch|reach)|what tests (cover|exercise|hit|test|touch|reach)|tests? (that|which) (cover|exercise|hit|reach)|tests? covers?)\b"
);
pattern!(
    q_status,
    r"\b(tests? (are |is )?(passing|failing|green|red)|are the tests|which tests are failing|does (it|the project|the code) (still )?(build|compile|pass)|ci (is )?green|status of|build status|is the build|diagnostics|(compiler|lint|linter|type|build) (errors|warnings)|git status|uncommitted changes)\b|^(please\s+)?(re-?run|run) (again )?(the |that |this |those |these |all (the )?|my |our |every )?(\S+ )?(tests?|suite|specs?|checks?|linters?|build|test suite)\b"
);
pattern!(
    q_review,
    r"\b(review|critique|look over|check my changes|audit|security (problems|issues|holes|flaws|vulnerabilities)|vulnerabilit(y|ies))\b"
);
pattern!(
    q_search,
    r"^(search|find|where|grep|list|show me where|look for|any references)\b|\b(uses of|usages of|references to|callers of|who calls|what calls|where is|where are|what (\w+ )?(does|do) (ID|\w+) (call|invoke|use)|(functions|methods|what) (ID|\w+) calls)\b"
);
pattern!(
    q_explain,
    r"^(explain|how does|how do|how is|what does|what is|what's|why does|why is|why do|describe|walk me through|give me an overview|tell me about)\b|\b(overview|architecture)\b"
);
pattern!(sentence_break, r"[?.!;]\s+");
pattern!(run_verb, r"^(please\s+)?(re-?run|run)\b");
pattern!(callees, r"\bwhat (?:\w+ )?(?:does|do) (\S+(?: \S+)?) (?:call|invoke|use)\b");
pattern!(question_start, r"^(what|where|which|who|why|how|is|are|does|do|can|could|show|list|any)\b");
// A question asks; it changes nothing, whatever verb it mentions ("how would I delete a user?").
pattern!(
    interrogative,
    r"^(what|where|which|who|whom|whose|why|how|when|is|are|was|were|does|do|did|has|have|am i|can (i|we|one)|could (i|we|one)|should|shall (i|we)|would (it|that|this|there|i|we)|will (it|that|this|there)|isn'?t|aren'?t|doesn'?t|won'?t it)\b|^(if|once|suppose|supposing|assuming|say) .*\b(what|which|who|how)\b"
);
// A request put politely as a question is still a request ("can you fix the test?").
pattern!(
    polite,
    r"^(please|pls|kindly|(can|could|would|will|won'?t) (you|u|ya)|(i'?d|i would) like( you)? to|i (want|need) you to|let'?s|lets|help me|go ahead and)\b"
);

// Mutations, in precedence order.
pattern!(
    m_test,
    r"\b(write|add|create|generate|cover \S+( \S+)? with)\b.*\b(tests?|test cases?|specs?)\b|\btest coverage\b|\bunit tests?\b|\bregression tests?\b"
);
pattern!(m_document, r"\b(document|docstrings?|doc comments?|documentation|readme|docs)\b");
pattern!(m_rename, r"\brename\b|\bchange the name\b|\bcall (the )?\S+( \S+)? \S+ instead\b");
pattern!(m_commit, r"\b(commit|check in)\b");
pattern!(
    m_scaffold,
    r"\b(scaffold|bootstrap|set up a new|create a new \w+( \w+)? (project|package|library|crate|app))\b|\bnew \w+ project\b"
);
pattern!(m_delete, r"\b(delete|remove|drop|get rid of|eliminate)\b");
pattern!(m_fix, r"\b(fix|repair|debug|resolve|make the tests pass|broken|crash(es)?|throws|bug)\b");
pattern!(
    m_refactor,
    r"\b(refactor|clean up|cleanup|simplify|extract|restructure|reorgani[sz]e|split|deduplicate|dedupe|inline|tidy)\b"
);
pattern!(m_implement, r"\b(add|implement|create|build|support|introduce|write|make)\b");

pattern!(
    broad,
    r"\b(architecture|overview|overall|whole (project|codebase|repo)|project structure|big picture|codebase)\b"
);
pattern!(
    constraint,
    r"\b(without [^,.;]+|but (don'?t|do not) [^,.;]+|don'?t touch [^,.;]+|only (in|for) [^,.;]+|keep(ing)? [^,.;]+ (unchanged|intact|as is)|everywhere)"
);
pattern!(code_span, r#"`([^`]+)`|"([^"]+)"|'([^']{2,})'"#);
pattern!(
    identifier,
    r"[A-Za-z_][\w]*(?:(?:::|\.|/)[\w\-]+)+(?:\(\))?|[A-Za-z]*_[\w]+(?:\(\))?|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\b\w+\(\)"
);
pattern!(rename_to, r"\bto `?([A-Za-z_][\w.:]*)`?");

/// A verb and the pattern that signals it, in precedence order.
type VerbCue = (&'static str, fn() -> &'static Regex);

const STOPWORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "my",
    "this",
    "that",
    "it",
    "please",
    "in",
    "of",
    "to",
    "for",
    "with",
    "again",
    "right",
    "now",
    "all",
    "every",
    "some",
    "our",
    "its",
    "and",
    "me",
    "can",
    "you",
    "is",
    "be",
    "so",
    "just",
    "on",
    "from",
    "into",
    // Query connectives: they frame the reference, they are not it.
    "uses",
    "usages",
    "references",
    "callers",
    "if",
    "i",
    "change",
    "edit",
    "modify",
    "would",
    "does",
    "do",
    "defined",
    "calls",
    "called",
    "where",
    "what",
    "which",
    "who",
    "how",
    "why",
    "break",
    "breaks",
    "affected",
    "depends",
    "used",
    "gets",
    "are",
    "was",
    "were",
    "any",
    "there",
    "covering",
    "cover",
    "covers",
];

/// Masks identifiers, returning the masked text and the identifiers in order.
fn mask(text: &str) -> (String, Vec<String>) {
    let mut ids = Vec::new();
    let after_spans = code_span().replace_all(text, |c: &regex::Captures| {
        let inner = c.get(1).or(c.get(2)).or(c.get(3)).map_or("", |m| m.as_str());
        ids.push(inner.to_string());
        " ID ".to_string()
    });
    let masked = identifier().replace_all(&after_spans, |c: &regex::Captures| {
        ids.push(c[0].trim_end_matches("()").to_string());
        " ID ".to_string()
    });
    (masked.into_owned(), ids)
}

/// Words after the first match of `cue`, without stopwords: a fallback
/// target. A reference to earlier work ("that function again", "the last
/// change") is kept as written: its small words are what it says.
fn words_after(masked: &str, cue: &Regex) -> String {
    let start = cue.find(masked).map_or(0, |m| m.end());
    let rest = masked[start..].trim().trim_end_matches(['?', '.', '!']).trim();
    if !rest.split_whitespace().any(|w| w == "ID") && super::focus::refers_back(rest) {
        return rest.to_string();
    }
    masked[start..]
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty() && w != &"ID" && !STOPWORDS.contains(&w.to_ascii_lowercase().as_str()))
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that describe the situation rather than name code: "fix the failing
/// tests" has no target, the failures are the focus.
const GENERIC: &[&str] = &[
    "failing",
    "failed",
    "test",
    "tests",
    "build",
    "broken",
    "error",
    "errors",
    "passing",
    "pass",
    "green",
    "red",
    "ci",
    "suite",
    "compile",
    "compiles",
    "compilation",
    "code",
    "project",
    "repo",
    "repository",
];

/// `lowered` as it was written in `original` (targets are found in lowercased text).
fn recase(original: &str, lowered: &str) -> String {
    let haystack = original.to_lowercase();
    match haystack.find(lowered) {
        // Lowercasing can change byte lengths outside ASCII; only map back when it did not.
        Some(at) if haystack.len() == original.len() => original[at..at + lowered.len()].to_string(),
        _ => lowered.to_string(),
    }
}

const QUERIES: [VerbCue; 5] =
    [("impact", q_impact), ("status", q_status), ("review", q_review), ("search", q_search), ("explain", q_explain)];
const MUTATIONS: [VerbCue; 9] = [
    ("test", m_test),
    ("document", m_document),
    ("rename", m_rename),
    ("commit", m_commit),
    ("scaffold", m_scaffold),
    ("delete", m_delete),
    ("fix", m_fix),
    ("refactor", m_refactor),
    ("implement", m_implement),
];

/// The last sentence of a request: "why does parse fail? fix it" asks for a fix.
fn last_sentence(lower: &str) -> &str {
    sentence_break().split(lower).map(str::trim).filter(|s| !s.is_empty()).last().unwrap_or(lower)
}

/// The earliest place any of `cues` matches `text`, and the first cue (in precedence order) that matches.
fn earliest(cues: &[VerbCue], text: &str) -> Option<(usize, VerbCue)> {
    let at = cues.iter().filter_map(|(_, re)| re().find(text).map(|m| m.start())).min()?;
    let cue = cues.iter().find(|(_, re)| re().is_match(text))?;
    Some((at, *cue))
}

/// Category and verb of a task (not a standing instruction), the cue that
/// decided it, and how many mutation cues agreed. A question is a query
/// whatever it mentions: "how would I delete a user?" asks how. A request put
/// as a question ("can you fix the test?") is a request, and an imperative is
/// read by its first verb: "fix what breaks" is a fix, "explain how to fix
/// it" an explanation.
fn read_task(lower: &str, question_mark: bool) -> (&'static str, &'static str, &'static Regex, usize) {
    let last = last_sentence(lower);
    let body = polite().replace(last, "");
    let body = body.trim();
    let asks = !polite().is_match(last) && (interrogative().is_match(last) || question_mark);
    let has_cue = |text: &str| earliest(&QUERIES, text).is_some() || earliest(&MUTATIONS, text).is_some();
    let text = if has_cue(body) { body } else { lower };
    let query = earliest(&QUERIES, text);
    let mutation = earliest(&MUTATIONS, text);
    let agreeing = MUTATIONS.iter().filter(|(_, re)| re().is_match(text)).count();
    match (query, mutation) {
        (Some((_, (verb, re))), _) if asks => ("query", verb, re(), 1),
        // A question about a change: how to make it, whether to.
        (None, Some((_, (_, re)))) if asks => ("query", "explain", re(), 1),
        (Some((q, (verb, re))), Some((m, _))) if q <= m => ("query", verb, re(), 1),
        (Some((_, (verb, re))), None) => ("query", verb, re(), 1),
        (_, Some((_, (verb, re)))) => ("mutation", verb, re(), agreeing),
        (None, None) if asks || question_start().is_match(body) => ("query", "explain", q_explain(), 0),
        (None, None) => ("mutation", "implement", m_implement(), 0),
    }
}

/// Reads one request into intent JSON.
pub fn transduce(text: &str) -> String {
    let original = text.trim();
    let (masked_raw, ids) = mask(original);
    let masked = masked_raw.to_lowercase().trim_end_matches(['?', '.', '!', ' ']).to_string();
    // Masking leaves runs of spaces; patterns count words by single spaces.
    let lower = masked.split_whitespace().collect::<Vec<_>>().join(" ");

    // "Remember that …" / "forget …": the rest of the request, as written, is the memory.
    for (verb, cue) in [("remember", remember()), ("forget", forget())] {
        if let Some(m) = cue.find(original) {
            let text = original[m.end()..].trim().trim_end_matches('.').to_string();
            // "Don't forget to run the tests" is an instruction to act, not something to keep.
            let to_act = verb == "remember" && text.to_lowercase().starts_with("to ");
            if !text.is_empty() && !to_act {
                return json!({
                    "category": "instruction", "verb": verb, "target": text, "constraints": [],
                    "context": "narrow", "confidence": 0.95, "missing": [],
                })
                .to_string();
            }
        }
    }

    let standing = instruction().is_match(&lower)
        || (!original.ends_with('?') && negated_imperative().is_match(&lower) && !clause_break().is_match(&lower));
    let (category, verb, cue, cues): (&str, &str, &Regex, usize) = if standing {
        let verb = if forbid().is_match(&lower) {
            "forbid"
        } else if prefer().is_match(&lower) {
            "prefer"
        } else {
            "require"
        };
        let cue = if instruction().is_match(&lower) { instruction() } else { negated_imperative() };
        ("instruction", verb, cue, 1)
    } else {
        read_task(&lower, original.ends_with('?'))
    };
    // "Run that test again": the target is what follows "run", not what the cue swallowed.
    let cue = if verb == "status" && run_verb().is_match(&lower) { run_verb() } else { cue };
    // "What does parse call": the target sits inside the cue.
    let inside = if verb == "search" { callees().captures(&lower).map(|c| c[1].to_string()) } else { None };

    let mut constraints: Vec<String> =
        constraint().find_iter(&original.to_lowercase()).map(|m| m.as_str().trim().to_string()).collect();
    // A rename names the new name after "to"; the target is the other name.
    let new_name = if verb == "rename" { rename_to().captures(original).map(|c| c[1].to_string()) } else { None };
    let target = match &new_name {
        Some(new) => ids.iter().find(|i| *i != new).cloned().unwrap_or_else(|| {
            let before_to = lower.split(" to ").next().unwrap_or(&lower);
            words_after(before_to, cue)
        }),
        None => ids.first().cloned().unwrap_or_else(|| match &inside {
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
    constraints.truncate(8);
    let confidence = match cues {
        0 => 0.5,
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
