//! The offline transducer: deterministic rules that read a request into the
//! intent JSON a model would produce (category and controlled verb, target,
//! constraints, context hint, confidence, missing parameters). Identifiers
//! (`snake_case`, `Type.method`, paths, quoted or backticked names) are masked
//! before verbs are looked for, so "simplify resolve_file" is a refactor, not
//! a fix. A second reader, a classifier trained on labelled requests
//! (`reader.rs`), is heard where it disagrees by a clear margin, never to make
//! a question or a rule a change. Knows nothing about the repository.

use regex::Regex;
use serde_json::json;

use super::reader::Reading;

mod cues;
use cues::*;

/// Masks identifiers, returning the masked text and the identifiers in order.
fn mask(text: &str) -> (String, Vec<String>) {
    let mut ids = Vec::new();
    let after_spans = code_span().replace_all(text, |c: &regex::Captures| {
        let inner = c.get(1).or(c.get(2)).or(c.get(4)).map_or("", |m| m.as_str());
        ids.push(inner.to_string());
        let around = |i| c.get(i).map_or("", |m| m.as_str());
        format!("{} ID {}", around(3), around(5))
    });
    let masked = identifier().replace_all(&after_spans, |c: &regex::Captures| {
        let id = c[0].trim_end_matches("()");
        ids.push(id.to_string());
        // A document named by its file ("create NOTES.md") still reads as a document.
        let document = [".md", ".mdx", ".rst", ".adoc"].iter().any(|e| id.to_ascii_lowercase().ends_with(e));
        if document {
            " ID markdown file ".to_string()
        } else {
            " ID ".to_string()
        }
    });
    // In the order the request says them, quoted or not: "explain load_config from `config.py`".
    ids.sort_by_key(|id| text.find(id.as_str()).unwrap_or(usize::MAX));
    (masked.into_owned(), ids)
}

/// Words after the first match of `cue`, without stopwords: a fallback
/// target. A reference to earlier work ("that function again", "the last
/// change") is kept as written: its small words are what it says.
fn words_after(masked: &str, cue: &Regex) -> String {
    let start = cue.find(masked).map_or(0, |m| m.end());
    // "Refactor parse to be simpler", "split the loader so that it streams": what the change
    // should achieve is not what it changes.
    let end = purpose().find_at(masked, start).map_or(masked.len(), |m| m.start());
    let masked = &masked[..end.max(start)];
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

/// `lowered` as it was written in `original` (targets are found in lowercased text).
fn recase(original: &str, lowered: &str) -> String {
    let haystack = original.to_lowercase();
    match haystack.find(lowered) {
        // Lowercasing can change byte lengths outside ASCII; only map back when it did not.
        Some(at) if haystack.len() == original.len() => original[at..at + lowered.len()].to_string(),
        _ => lowered.to_string(),
    }
}

/// Whether a sentence opens like a question ("do not fail on …" is an order, not "do …?"), or
/// says it wants to know ("… and want to know what breaks before I start").
fn asks(sentence: &str) -> bool {
    (interrogative().is_match(sentence) && !sentence.starts_with("do not ")) || wants_to_know().is_match(sentence)
}

/// The sentences of a request, each with whether it was asked (it ends with a
/// question mark or opens like a question).
fn sentences(lower: &str, question_mark: bool) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    for m in sentence_break().find_iter(lower) {
        let piece = lower[start..m.start()].trim();
        if !piece.is_empty() {
            out.push((piece, m.as_str().starts_with('?') || asks(piece)));
        }
        start = m.end();
    }
    let piece = lower[start..].trim();
    if !piece.is_empty() {
        out.push((piece, question_mark || asks(piece)));
    }
    out
}

/// The earliest place any of `cues` matches `text`, and the first cue (in precedence order) that matches.
fn earliest(cues: &[VerbCue], text: &str) -> Option<(usize, VerbCue)> {
    let at = cues.iter().filter_map(|(_, re)| re().find(text).map(|m| m.start())).min()?;
    let cue = cues.iter().find(|(_, re)| re().is_match(text))?;
    Some((at, *cue))
}

/// The change a text asks for: the earliest specific cue ("add docstrings" is
/// documentation, "rename the document class" a rename; on a tie the first in
/// precedence), else a generic one ("add", "make": implement).
fn change(text: &str) -> Option<(usize, VerbCue, bool)> {
    // "Add the Delete User API doc", "add a fix-it button": after a generic verb, only what
    // names the thing made (tests, docs, an app, a pull request) says more than "implement".
    let generic_first = m_implement().find(text).is_some_and(|m| m.start() == 0);
    let specific = MUTATIONS
        .iter()
        .enumerate()
        .filter_map(|(rank, cue)| cue.1().find(text).map(|m| (m.start(), rank, *cue)))
        .filter(|(at, _, (verb, _))| {
            *at == 0 || !generic_first || matches!(*verb, "test" | "document" | "scaffold" | "commit")
        })
        .min_by_key(|(at, rank, _)| (*at, *rank));
    // Documents are what "fix the docs" and "rewrite the readme" change.
    let specific = match specific {
        Some((at, rank, (verb, _))) if matches!(verb, "fix" | "refactor") && m_document().is_match(text) => {
            Some((at, rank, ("document", m_document as fn() -> &'static Regex)))
        }
        other => other,
    };
    match specific {
        Some((at, _, cue)) => Some((at, cue, true)),
        None => m_implement().find(text).map(|m| (m.start(), GENERIC_CHANGE, false)),
    }
}

/// Category and verb of a task (not a standing instruction), the cue that
/// decided it, and how many mutation cues agreed. A question is a query
/// whatever it mentions: "how would I delete a user?" asks how. A request put
/// as a question ("can you fix the test?") is a request, and an imperative is
/// read by its first verb: "fix what breaks" is a fix, "explain how to fix
/// it" an explanation, "add rate limiting and add tests" an implementation;
/// but "run the tests and fix what fails" is a fix: the change is the goal.
/// Of several sentences the first that is not a question speaks ("why does
/// parse fail? fix it").
fn read_task(lower: &str, question_mark: bool) -> (&'static str, &'static str, &'static Regex, usize) {
    let all = sentences(lower, question_mark);
    let has_cue = |text: &str| earliest(&QUERIES, text).is_some() || change(text).is_some();
    let order = all
        .iter()
        .filter(|(text, _)| polite().is_match(text))
        .chain(all.iter().filter(|(text, asked)| !asked && !polite().is_match(text)))
        .chain(all.iter().rev().filter(|(text, asked)| *asked && !polite().is_match(text)));
    let (sentence, asked) = order
        .clone()
        .find(|(text, _)| has_cue(&polite().replace_all(text, "$1")))
        .copied()
        // With no cue anywhere, a question asked speaks before an instruction to answer it.
        .or_else(|| all.iter().find(|(_, asked)| *asked).copied())
        .or_else(|| all.last().copied())
        .unwrap_or((lower, question_mark));
    let body = polite().replace_all(sentence, "$1");
    let text = body.trim();
    // A sentence put politely asks for what it names, wherever in the request it stands.
    let asks = asked && !polite().is_match(lower) && !polite().is_match(sentence);
    let query = match earliest(&QUERIES, text) {
        // "What is the current status of this PR?", "what does parse call?": "what is" says that it
        // asks; a specific cue anywhere in the question says what about.
        Some((at, ("explain", _))) if what_opening().is_match(text) => {
            QUERIES.iter().find(|(verb, re)| *verb != "explain" && re().is_match(text)).map(|cue| (at, *cue))
        }
        _ => None,
    }
    .or_else(|| earliest(&QUERIES, text));
    let mutation = change(text);
    let agreeing = MUTATIONS.iter().filter(|(_, re)| re().is_match(text)).count().max(1);
    // "Add rate limiting to this endpoint and add tests": the first conjunct's change is the task.
    let first = conjunct().split(text).next().unwrap_or(text);
    let first_change =
        if first.len() < text.len() && earliest(&QUERIES, first).is_none() { change(first) } else { None };
    if let (false, Some((_, (verb, re), _))) = (asks, first_change) {
        return ("mutation", verb, re(), agreeing);
    }
    // "Add breaking changes from major versions to the docs": a request that opens with a verb
    // that makes something asks for it, whatever the thing is about.
    let makes = !asks && imperative_make().is_match(text) && !plan_asked().is_match(text);
    match (query, mutation) {
        _ if asks && ci_state().is_match(text) => ("query", "status", q_status(), 1),
        (_, Some((_, (verb, re), _))) if makes => ("mutation", verb, re(), agreeing),
        // "Docker image is too large", "CI no longer runs tests": a problem stated, not a change named.
        // Said, not asked, a problem a review would look for is reported: "impls are not thread-safe".
        (None | Some((_, ("review", _))), None | Some((_, _, false))) if !asks && symptom().is_match(text) => {
            ("mutation", "fix", m_fix(), 1)
        }
        // "Why is this test failing?" asks for a reason, not for the status.
        (Some((_, (verb, re))), _) if asks => {
            let how =
                how_question().is_match(text) && (verb == "search" || (verb == "review" && !text.contains("improve")));
            if how || (verb != "impact" && text.starts_with("why ")) {
                ("query", "explain", q_explain(), 1)
            } else {
                ("query", verb, re(), 1)
            }
        }
        // A question about a change: how to make it, whether to.
        (None, Some((_, (_, re), _))) if asks => ("query", "explain", re(), 1),
        (Some((q, (verb, re))), Some((m, _, specific)))
            if q <= m && !(specific && then_change().is_match(&text[q..m]) && !how_to_end().is_match(&text[..m])) =>
        {
            ("query", verb, re(), 1)
        }
        (Some((_, (verb, re))), None) => ("query", verb, re(), 1),
        (_, Some((_, (verb, re), _))) => ("mutation", verb, re(), agreeing),
        (None, None) if asks || question_start().is_match(text) => ("query", "explain", q_explain(), 0),
        (None, None) => ("mutation", "implement", m_implement(), 0),
    }
}

/// A request without what chat front ends put before it: mentions
/// ("@terminal", "#file:x.js", whose file stays as the name it is) and slash
/// commands, read as the words they stand for ("/ask" marks a question).
fn without_front_end(text: &str) -> (bool, String) {
    let files = |m: &str| {
        m.split_whitespace().filter_map(|w| w.split_once(':').map(|(_, f)| f.to_string())).collect::<Vec<_>>().join(" ")
    };
    let text = match mention().find(text) {
        Some(m) => format!("{} {}", &text[m.end()..], files(m.as_str())).trim().to_string(),
        None => text.to_string(),
    };
    let Some(c) = slash_command().captures(&text) else { return (false, text) };
    let rest = &text[c[0].len()..];
    let command = c[1].to_ascii_lowercase();
    let words = match command.as_str() {
        "ask" => return (true, rest.to_string()),
        "remember" | "memory" => "remember",
        "forget" => "forget",
        "explain" => "explain",
        "fix" => "fix",
        "tests" | "test" => "write tests for",
        "doc" | "docs" => "document",
        "review" => "review",
        "new" => "create a new",
        other => other,
    };
    (false, format!("{words} {rest}").trim().to_string())
}

/// Whether `topic` (the words before a colon) only names what the request is about: no
/// identifier, no verb of its own ("avoid magic numbers: …" is the rule itself).
fn plain_topic(topic: &str) -> bool {
    let cued = [forbid(), require(), prefer(), m_implement()].iter().any(|re| re.is_match(topic))
        || MUTATIONS.iter().any(|(_, re)| re().is_match(topic))
        || QUERIES.iter().any(|(_, re)| re().is_match(topic));
    !cued && !topic.split_whitespace().any(|w| w == "id")
}

/// A pull-request title in the third person or as a gerund ("removes the unused option",
/// "removing the unused option") read as the imperative it stands for.
fn imperative_title(lower: &str) -> String {
    const VERBS: &[(&str, &str)] = &[
        ("adds", "add"),
        ("removes", "remove"),
        ("deletes", "delete"),
        ("drops", "drop"),
        ("fixes", "fix"),
        ("renames", "rename"),
        ("refactors", "refactor"),
        ("implements", "implement"),
        ("introduces", "introduce"),
        ("updates", "update"),
        ("documents", "document"),
        ("moves", "move"),
        ("replaces", "replace"),
        ("simplifies", "simplify"),
        ("extracts", "extract"),
        ("adding", "add"),
        ("removing", "remove"),
        ("deleting", "delete"),
        ("dropping", "drop"),
        ("fixing", "fix"),
        ("renaming", "rename"),
        ("refactoring", "refactor"),
        ("implementing", "implement"),
        ("updating", "update"),
        ("documenting", "document"),
        ("moving", "move"),
        ("replacing", "replace"),
        ("merges", "merge"),
        ("merging", "merge"),
        ("added", "add"),
        ("created", "create"),
    ];
    // A conventional-commit type says what kind of change follows ("docs: …", "fix(parser): …").
    // A title that opens with its own verb keeps it ("refactor: remove the option" removes).
    let lower = match conventional_commit().captures(lower) {
        Some(c) => {
            let rest = &lower[c[0].len()..];
            let own_verb = MUTATIONS.iter().any(|(_, re)| re().find(rest).is_some_and(|m| m.start() == 0));
            match &c[1] {
                "refactor" | "test" if own_verb => rest.to_string(),
                "fix" => format!("fix {rest}"),
                "docs" => format!("document {rest}"),
                "refactor" => format!("refactor {rest}"),
                "test" => format!("write tests: {rest}"),
                _ => rest.to_string(),
            }
        }
        // "Error handling: use try/catch", "API: allow users to …": the topic is not the request.
        None => match topic_prefix().find(lower) {
            Some(m) if m.end() < lower.len() && plain_topic(m.as_str().trim_end_matches([':', ' '])) => {
                lower[m.end()..].to_string()
            }
            _ => lower.to_string(),
        },
    };
    // Templates for pull requests and issues are files to write, not pull requests or bugs.
    let lower = template_words().replace_all(&lower, "$1template").replace("bug report", "bugreport");
    let lower = lower.as_str();
    let (first, rest) = lower.split_once(' ').unwrap_or((lower, ""));
    match VERBS.iter().find(|(third, _)| *third == first) {
        Some((_, imperative)) if !rest.is_empty() => format!("{imperative} {rest}"),
        _ => lower.to_string(),
    }
}

/// How far the second reader's best label must score above its next to overrule the rules
/// (chosen on `public5.tsv` before `public6.tsv` was first scored).
const SECOND_READER_MARGIN: f64 = 0.2;
/// The confidence of a reading the two readers disagree on.
const DISPUTED: f64 = 0.8;

/// What the second reader makes of a request as written: names masked as the rules mask them,
/// as it was trained (`scripts/train_perception.py` masks with the same two patterns).
fn second_reading(text: &str) -> Option<Reading> {
    super::reader::read(&mask(text).0)
}

/// The second reader's reading where it overrules the rules' `category`/`verb`: it disagrees by
/// more than the margin, and it may read a change as a question or a rule, never a question or a
/// rule as a change (acting on a request that only asked is the mistake that costs).
fn overruling<'r>(reading: &'r Option<Reading>, category: &str, verb: &str) -> Option<&'r Reading> {
    reading.as_ref().filter(|r| {
        (r.category(), r.verb()) != (category, verb)
            && r.margin > SECOND_READER_MARGIN
            && (r.category() != "mutation" || category == "mutation")
    })
}

/// The cue of a verb, where its target is looked for when the second reader chose it.
fn cue_of(category: &str, verb: &str) -> &'static Regex {
    let cue = match category {
        "instruction" => return instruction(),
        "query" => QUERIES.iter().find(|(v, _)| *v == verb),
        _ => MUTATIONS.iter().find(|(v, _)| *v == verb),
    };
    cue.map_or_else(m_implement, |(_, re)| re())
}

/// The intent JSON of a memory to keep or drop: `target` is the memory's text, as written.
fn memory_intent(verb: &str, target: &str, confidence: f64) -> String {
    json!({
        "category": "instruction", "verb": verb, "target": target, "constraints": [],
        "context": "narrow", "confidence": confidence, "missing": [],
    })
    .to_string()
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

/// Reads one request into intent JSON.
pub fn transduce(text: &str) -> String {
    // The second reader reads the request as it was written, as it was trained to.
    transduce_with(text, second_reading(text.trim()))
}

/// Reads one request into intent JSON, with the second reader's `reading` of it (none: the
/// rules alone).
fn transduce_with(text: &str, reading: Option<Reading>) -> String {
    let (asked, text) = without_front_end(text.trim());
    let original = text.as_str();
    let (masked_raw, ids) = mask(original);
    let masked = masked_raw.to_lowercase().trim_end_matches(['?', '.', '!', ' ']).to_string();
    // Masking leaves runs of spaces; patterns count words by single spaces.
    // "pre-commit hooks" configure a tool; they commit nothing.
    // A contraction split by a stray space ("can' t") is still the contraction.
    let lower = masked
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("pre-commit", "precommit")
        .replace("' t ", "'t ");
    // "What about renaming the flag?": the change a gerund suggests, asked for.
    let (suggested, lower) = match suggestion().find(&lower) {
        Some(m) => {
            let gerund = &lower[lower[..m.end()].rfind(' ').map_or(0, |at| at + 1)..];
            match imperative_title(gerund) {
                imperative if imperative != gerund => (true, format!("please {imperative}")),
                _ => (false, lower),
            }
        }
        None => (false, lower),
    };
    let lower = imperative_title(&lower);
    let proposed = suggested || proposal().is_match(&lower);
    let lower = proposal().replace_all(&lower, "${1}please ${2}").into_owned();

    // "Remember that …" / "forget …": the rest of the request, as written, is the memory.
    for (verb, cue) in [("remember", remember()), ("forget", forget())] {
        if let Some(m) = cue.find(original) {
            let text = original[m.end()..].trim().trim_end_matches('.').to_string();
            // "Don't forget to run the tests" is an instruction to act, not something to keep.
            let to_act = verb == "remember" && text.to_lowercase().starts_with("to ");
            if !text.is_empty() && !to_act {
                // "/memory:forget": where the readers disagree, the second tells keeping from dropping.
                return match overruling(&reading, "instruction", verb) {
                    Some(r) if matches!(r.verb(), "remember" | "forget") => memory_intent(r.verb(), &text, DISPUTED),
                    _ => memory_intent(verb, &text, 0.95),
                };
            }
        }
    }

    // "The project uses a deprecated API, replace it": a fact said before an order is the order's reason.
    let order_after = clause_end().split(&lower).skip(1).any(|c| change(c.trim()).is_some_and(|(at, _, _)| at == 0));
    if keep_fact().is_match(original) && !order_after {
        return memory_intent("remember", original.trim_end_matches('.'), 0.8);
    }
    // "Run test_parse": a test named by its name is run; the second reader does not read names.
    let named_test = run_named_test().is_match(original.trim_end_matches(['.', '!']));
    // A question is never a standing rule: "what breaks if you change X?" asks.
    let questioned = (original.ends_with('?') || question_word().is_match(&lower)) && !polite().is_match(&lower);
    let before_semicolon = lower.split(';').next().unwrap_or(&lower);
    let task_first = change(before_semicolon).is_some_and(|(_, _, specific)| specific);
    let original_lower = original.to_lowercase();
    let mut constraints: Vec<String> =
        constraint().find_iter(&original_lower).map(|m| m.as_str().trim().to_string()).collect();
    // "Write tests for X, and do not change null.go": a task said with a constraint on it.
    let task_with_constraint = change(&lower).is_some_and(|(_, _, specific)| specific) && !constraints.is_empty();
    // "Implement a login code. The code must always have six digits": a task, then what it must do.
    let first_sentence = sentence_break().find(&lower).map_or(lower.as_str(), |m| &lower[..m.start()]);
    let opens_a_task = first_sentence.len() < lower.len()
        && imperative_make().is_match(&lower)
        && !instruction().is_match(first_sentence)
        && !modal().is_match(first_sentence);
    let standing = (!questioned && !opens_a_task && instruction().is_match(&lower))
        || (!questioned && then_forbid().is_match(&lower) && !task_first)
        || (!original.ends_with('?')
            && negated_imperative().is_match(&lower)
            && !negated_symptom().is_match(&lower)
            && !clause_break().is_match(&lower))
        || (!original.ends_with('?')
            && (habitual().is_match(&lower) || answer_style().is_match(&lower) || order_each_time().is_match(&lower)));
    let (category, verb, cue, cues): (&str, &str, &Regex, usize) = if standing {
        // The first cue speaks: "always handle errors, never assign to _" requires.
        let verb = [("forbid", forbid()), ("require", require()), ("prefer", prefer())]
            .iter()
            .enumerate()
            .filter_map(|(rank, (verb, re))| re.find(&lower).map(|m| ((m.start(), rank), *verb)))
            .min();
        // An order first and a prohibition after it ("verify claims; do not infer") requires.
        let first_clause = clause_end().find(&lower).map_or(lower.len(), |m| m.start());
        let verb = match verb {
            Some(((at, _), _)) if at > first_clause && !conditional().is_match(&lower) => "require",
            Some((_, verb)) => verb,
            None if answer_style().is_match(&lower) => "prefer",
            None => "require",
        };
        let cue = [instruction(), then_forbid(), habitual(), answer_style(), order_each_time()]
            .into_iter()
            .find(|c| c.is_match(&lower))
            .unwrap_or(negated_imperative());
        ("instruction", verb, cue, 1)
    } else if named_test {
        ("query", "status", run_verb(), 1)
    } else {
        read_task(&lower, asked || original.ends_with('?'))
    };
    // The second reader (a classifier trained on labelled requests, `reader.rs`) speaks where it
    // disagrees with the rules by a clear margin: the rules read the phrasings they were written
    // for, the classifier generalises further on the ones they were not (tests/fixtures/perception).
    let disputed = !named_test && reading.as_ref().is_some_and(|r| (r.category(), r.verb()) != (category, verb));
    // "Can we also rename X?": a proposed change stays a change; the second reader may still tell which.
    let overruled = match overruling(&reading, category, verb) {
        _ if named_test => None,
        Some(r) if proposed && category == "mutation" && r.category() != "mutation" => None,
        // "Write tests for X; do not change Y": a task said first stays a task, whatever rule follows it.
        Some(r) if task_with_constraint && category == "mutation" && r.category() == "instruction" => None,
        // "Docker image is too large": a problem stated is a bug to fix, neither a fact to keep nor a question.
        Some(r)
            if category == "mutation" && verb == "fix" && symptom().is_match(&lower) && r.category() != "mutation" =>
        {
            None
        }
        // "Add a tool to find all callers": a request that opens by making something asks for it.
        Some(r) if category == "mutation" && r.category() == "query" && makes_a_tool().is_match(&lower) => None,
        // "Would it be possible to split up large files?": a change asked for so is asked for.
        Some(r) if category == "mutation" && r.category() == "query" && possible_to().is_match(&lower) => None,
        other => other,
    };
    let (category, verb, cue, cues) = match overruled {
        Some(r) => {
            // "Keep in mind we deploy on Fridays": a memory said without the rules' cue is the whole request.
            if r.category() == "instruction" && matches!(r.verb(), "remember" | "forget") {
                return memory_intent(r.verb(), original.trim_end_matches('.'), DISPUTED);
            }
            (r.category(), r.verb(), cue_of(r.category(), r.verb()), 1)
        }
        None => (category, verb, cue, cues),
    };
    // "Run that test again": the target is what follows "run", not what the cue swallowed.
    let cue = if verb == "status" && run_verb().is_match(&lower) { run_verb() } else { cue };
    // "What does parse call": the target sits inside the cue.
    let inside = if verb == "search" { callees().captures(&lower).map(|c| c[1].to_string()) } else { None };

    // What a constraint names ("only in calc/ops.py") is not the target; the target is said before it.
    // Where a move or an extraction puts code ("move mul into calc/products.py") is not what it moves.
    let destination = |i: &String| {
        let i = i.to_lowercase();
        verb == "refactor"
            && ["into ", "to ", "in a new file ", "into a new file "]
                .iter()
                .any(|p| original_lower.contains(&format!("{p}{i}")))
    };
    let moved_to = ids.iter().any(destination);
    let placed = ids.iter().find(|i| placed_in(original, i)).cloned();
    let ids: Vec<String> = ids
        .into_iter()
        .filter(|i| !constraints.iter().any(|c| c.contains(&i.to_lowercase())) && !destination(i))
        .collect();
    let lower = match constraint_start().find(&lower) {
        Some(m) if m.start() > 0 => lower[..m.start()].trim_end_matches([',', ' ']).to_string(),
        _ => lower,
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
        _ if disputed => DISPUTED,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> serde_json::Value {
        serde_json::from_str(&transduce(text)).expect("intent JSON")
    }

    /// The intent the rules alone read, without the trained second reader.
    fn rules(text: &str) -> serde_json::Value {
        serde_json::from_str(&transduce_with(text, None)).expect("intent JSON")
    }

    /// Each case reads as its category and verb through `read`.
    fn assert_reads(read: fn(&str) -> serde_json::Value, cases: &[(&str, &str, &str)]) {
        for (text, category, verb) in cases {
            let v = read(text);
            assert_eq!((reading(&v).0, reading(&v).1), (*category, *verb), "{text}: {v}");
        }
    }

    /// How the rules alone read each case, without the trained second reader.
    fn rules_read_as(cases: &[(&str, &str, &str)]) {
        assert_reads(rules, cases);
    }

    /// A typo in a code name is fixed by renaming it; in prose or a docstring it is not a rename.
    #[test]
    fn a_typo_in_a_name_is_a_rename() {
        rules_read_as(&[
            ("Fix typo in variable name", "mutation", "rename"),
            ("fix: tiny typo in variable name", "mutation", "rename"),
            ("Fix variable typo", "mutation", "rename"),
            ("Correct the misspelled function name in parser.py", "mutation", "rename"),
            ("Fix typo in the README", "mutation", "document"),
            ("Fix typo in docstring of function parse", "mutation", "document"),
            ("Is that variable name a typo?", "query", "explain"),
        ]);
    }

    /// Asking for a release is asking for a tag: a commit-family change. Release notes and release builds are not.
    #[test]
    fn asking_for_a_release_is_a_commit() {
        rules_read_as(&[
            ("Could you release v1.03?", "mutation", "commit"),
            ("Please cut a new release from the current main", "mutation", "commit"),
            ("Can you create a version with the latest fix?", "mutation", "commit"),
            ("Please provide an up to date release.", "mutation", "commit"),
            ("Add release notes for 2.0", "mutation", "document"),
            ("make a release build of the cli", "mutation", "implement"),
            ("When is the next release?", "query", "explain"),
        ]);
    }

    /// A problem stated without a verb of change is a bug report; asked about, or with a change
    /// named, it is read as before.
    #[test]
    fn a_stated_problem_is_a_fix() {
        rules_read_as(&[
            ("Docker image is too large", "mutation", "fix"),
            ("CI no longer runs tests on the main branch", "mutation", "fix"),
            ("Null values returned by the parser are ignored", "mutation", "fix"),
            ("Install failures on Windows since 2.0", "mutation", "fix"),
            ("an error pops up when I start the app", "mutation", "fix"),
            ("Why is the docker image so large?", "query", "explain"),
            ("Make the docker image smaller", "mutation", "implement"),
            ("Run the suite and highlight any failures", "query", "status"),
        ]);
        // Neither a fact to keep nor a question, whatever the second reader makes of it.
        reads_as(&[
            ("docker image is too large", "mutation", "fix"),
            ("Docker image is huge (6.5 GB)", "mutation", "fix"),
        ]);
    }

    /// Asking how the work stands is a status question; an update asked for is a change.
    #[test]
    fn asking_for_news_is_status() {
        rules_read_as(&[
            ("any updates?", "query", "status"),
            ("Is there any update on the release?", "query", "status"),
            ("any chance of getting this merged soon?", "query", "status"),
            ("Bugfix release when?", "query", "status"),
            ("update the dependencies", "mutation", "implement"),
            ("Add a progress bar to the download", "mutation", "implement"),
        ]);
    }

    /// A rule for every time a condition holds, or for how answers are given, is standing; a
    /// condition on a one-off task is not.
    #[test]
    fn a_rule_for_every_time_is_an_instruction() {
        rules_read_as(&[
            ("whenever you compare two libraries, use everyday examples", "instruction", "require"),
            ("When asked to remember something, update CLAUDE.md", "instruction", "require"),
            ("if you don't understand something, don't edit it", "instruction", "forbid"),
            ("respond in the user's language", "instruction", "prefer"),
            ("If the tests fail, fix them", "mutation", "fix"),
            ("respond with a 404 when the user is missing", "mutation", "implement"),
            ("When does the cache expire?", "query", "explain"),
        ]);
    }

    /// "What about renaming …", "would it be possible to …": a change suggested or asked for.
    #[test]
    fn a_suggested_change_is_asked_for() {
        rules_read_as(&[
            ("What about renaming the flag to `--old-flag`?", "mutation", "rename"),
            ("how about adding tests for parse_config?", "mutation", "test"),
            ("What about the tests?", "query", "explain"),
        ]);
        reads_as(&[
            ("Would it be possible to split up large files?", "mutation", "refactor"),
            ("Is it possible to disable telemetry?", "query", "explain"),
            ("Add a tool to find all callers of a function", "mutation", "implement"),
            ("find all callers of parse_config", "query", "search"),
        ]);
    }

    /// "Tell me …", "compare X and Y", a question after a framing clause, "… working or not":
    /// asked, whatever change they mention; the same words inside an order are not.
    #[test]
    fn asking_to_be_told_is_a_question() {
        rules_read_as(&[
            ("tell me the commands to verify the install", "query", "explain"),
            ("read the http module and tell me how it differs from axios", "query", "explain"),
            ("Compare Cloudflare KV and Durable Objects for log ingestion", "query", "explain"),
            ("based on the readme, who is the primary audience for this project", "query", "explain"),
            ("can you test these changes are working or not", "query", "status"),
            ("tell the user when the upload is done", "mutation", "implement"),
            ("add a compare button to the diff view", "mutation", "implement"),
            ("Given an empty list, return None instead of raising", "mutation", "fix"),
        ]);
    }

    /// More problems stated, questions about what to test or what is missing, facts about the
    /// project said in rule files, and a task whose later sentences say what it must do.
    #[test]
    fn symptoms_test_questions_project_facts_and_a_task_with_its_requirements() {
        rules_read_as(&[
            ("Sensor becomes unavailable after reboot", "mutation", "fix"),
            ("Switchable impls are not thread-safe", "mutation", "fix"),
            ("Is this class thread-safe?", "query", "review"),
            ("What test cases should I consider for this function?", "query", "review"),
            ("Which remaining branches are worth testing?", "query", "review"),
            ("Should line 53 use defmodule instead?", "query", "review"),
            ("What should I name this function?", "query", "explain"),
            ("Project is using Expo and best practices.", "instruction", "remember"),
            ("`@/` is an alias for `src/react`", "instruction", "remember"),
            ("The project uses a deprecated API, replace it with the new one", "mutation", "refactor"),
            ("Implement a login code generator. The code must always have six digits.", "mutation", "implement"),
        ]);
        // A rule whose first word could open a task is still a rule.
        reads_as(&[("Build output should not be committed; only source files.", "instruction", "forbid")]);
    }

    /// public14's families: more problems stated, debugging, asking whether all is well or how
    /// things stand, asking to be given an explanation, and rules for every time something is done.
    #[test]
    fn symptoms_news_explanations_and_orders_for_every_time() {
        rules_read_as(&[
            ("Server leaks memory under load", "mutation", "fix"),
            ("Count() method not thread safe", "mutation", "fix"),
            ("Wrong default setting of HTTP port in jetty.xml", "mutation", "fix"),
            ("Deprecated config options are not processed", "mutation", "fix"),
            ("Whoops, ff9900 should be 9fef00 instead", "mutation", "fix"),
            ("Continue debugging the scraper", "mutation", "fix"),
            ("It should be possible to run a single test instead of a whole file", "mutation", "implement"),
            ("Please confirm that everything is good now", "query", "status"),
            ("give me a summary of the current state of the project", "query", "status"),
            ("Give me a short explanation of how the parser works", "query", "explain"),
            ("Give the button a tooltip", "mutation", "implement"),
            ("from this point forward, record every prompt in PROMPTS.md", "instruction", "require"),
            ("Update tests when modifying existing logic", "instruction", "require"),
            ("Run the linter before committing", "instruction", "require"),
            ("Fix the crash when parsing dates", "mutation", "fix"),
            ("Add a check before saving the form", "mutation", "implement"),
        ]);
    }

    /// public15's questions read as changes: running the tests, profiling, asking for instructions.
    #[test]
    fn running_the_tests_profiling_and_asking_for_instructions_are_questions() {
        rules_read_as(&[
            ("Run all backend and frontend tests now.", "query", "status"),
            ("Need to profile start up process", "query", "review"),
            ("give me the instructions for the dns change", "query", "explain"),
            ("Run the migration script", "mutation", "implement"),
            ("Add a profile page for users", "mutation", "implement"),
            ("Lets create a plan for project setup.", "query", "explain"),
            ("Create a plan view in the dashboard", "mutation", "implement"),
        ]);
    }

    fn reading(v: &serde_json::Value) -> (&str, &str, f64) {
        (
            v["category"].as_str().unwrap_or(""),
            v["verb"].as_str().unwrap_or(""),
            v["confidence"].as_f64().unwrap_or(0.0),
        )
    }

    /// Each request reads as its category and verb.
    fn reads_as(cases: &[(&str, &str, &str)]) {
        assert_reads(read, cases);
    }

    /// The training script wrote what its model decides on a sample of the training rows; masking
    /// names here and computing the features in `reader.rs` must give the same label and margin.
    #[test]
    fn the_second_reader_decides_as_the_trained_model_does() {
        let check = include_str!("../../../tests/fixtures/perception/reader_check.tsv");
        let mut rows = 0;
        for line in check.lines().filter(|l| !l.starts_with('#')) {
            let mut cols = line.splitn(3, '\t');
            let (label, margin, text) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
            let margin: f64 = margin.parse().unwrap();
            let reading = second_reading(text).unwrap();
            assert_eq!(reading.label, label, "{text:?}");
            assert!((reading.margin - margin).abs() < 1e-3, "{text:?}: margin {} against {margin}", reading.margin);
            rows += 1;
        }
        assert!(rows > 300, "{rows} rows checked");
    }

    #[test]
    fn a_question_is_never_a_rule_and_wanting_to_know_is_asking() {
        reads_as(&[
            // "If you change …" opens a rule, but a question asks.
            ("What breaks if you change parse_config?", "query", "impact"),
            ("When you change the schema, update the docs", "instruction", "require"),
            ("I'm planning to change a function signature and want to know what breaks first.", "query", "impact"),
            ("I'd like to know how to delete a user", "query", "explain"),
            ("we're wondering how the cache module picks what to evict", "query", "explain"),
            ("locate the config loader", "query", "search"),
            ("confirm nothing regressed", "query", "status"),
            ("check that no tests fail after the merge", "query", "status"),
        ]);
    }

    #[test]
    fn git_state_project_facts_and_whether_a_removal_is_safe() {
        reads_as(&[
            ("list all branches", "query", "status"),
            ("show me staged changes", "query", "status"),
            ("what happened on this branch", "query", "status"),
            ("This project uses Vitest for testing.", "instruction", "remember"),
            ("Is the lodash dependency really needed?", "query", "impact"),
            ("can I just delete node_modules?", "query", "impact"),
            ("any concerns with renaming the package?", "query", "impact"),
            ("how can I delete a user with this API?", "query", "explain"),
            ("Can you tag the new releases?", "mutation", "commit"),
            ("Would you mind adding a CONTRIBUTING guide?", "mutation", "document"),
        ]);
    }

    #[test]
    fn a_proposal_asks_for_the_change_and_the_state_of_a_build_is_asked_or_reported() {
        rules_read_as(&[
            ("can we fix the flaky login test?", "mutation", "fix"),
            ("could we first commit these changes?", "mutation", "commit"),
            ("Looks good. Can we also rename fetch_all to load_all?", "mutation", "rename"),
            ("can we safely remove the legacy folder?", "query", "impact"),
            ("can I just remove the legacy folder?", "query", "impact"),
            ("why is the pipeline failing?", "query", "status"),
            ("why are the checks failing on this PR?", "query", "status"),
            ("is this branch green?", "query", "status"),
            ("The nightly build is failing on Windows", "mutation", "fix"),
            ("is this merged yet?", "query", "status"),
            ("has this been pushed yet?", "query", "status"),
            ("what's still outstanding?", "query", "status"),
            ("where do things stand?", "query", "status"),
            ("why is this function returning None?", "query", "explain"),
        ]);
    }

    #[test]
    fn what_a_change_should_achieve_is_not_its_target() {
        for (text, target) in [
            ("refactor f to be simpler", "f"),
            ("split the loader so that it streams", "loader"),
            ("simplify parse_header for readability", "parse_header"),
            ("rewrite the config module to make it testable", "config module"),
            ("refactor the retry logic", "retry logic"),
        ] {
            let v = rules(text);
            assert_eq!(v["target"], target, "{text}: {v}");
        }
    }

    #[test]
    fn a_target_placed_in_a_file_says_which_file() {
        for (text, target, placed) in [
            ("write tests for UnmarshalText in null.go; do not change null.go", "UnmarshalText", Some("in: null.go")),
            ("fix parse_header in src/http/headers.py", "parse_header", Some("in: src/http/headers.py")),
            ("explain load_config from `config/loader.py`", "load_config", Some("in: config/loader.py")),
            ("refactor fetch_all in the client", "fetch_all", None),
            ("rename parse_header to parse_headers", "parse_header", None),
        ] {
            let v = rules(text);
            assert_eq!(v["target"], target, "{text}: {v}");
            let constraints: Vec<&str> =
                v["constraints"].as_array().unwrap().iter().filter_map(|c| c.as_str()).collect();
            let found = constraints.iter().copied().find(|c| c.starts_with(LOCATED_IN));
            assert_eq!(found, placed, "{text}: {v}");
        }
    }

    #[test]
    fn a_proposed_change_is_never_overruled_into_a_question() {
        let sure = |text: &str, label: &'static str| -> (String, String) {
            let v: serde_json::Value = serde_json::from_str(&transduce_with(text, second(label, 5.0))).unwrap();
            (v["category"].as_str().unwrap().to_string(), v["verb"].as_str().unwrap().to_string())
        };
        let text = "Looks good. Can we also rename fetch_all to load_all?";
        assert_eq!(sure(text, "query/explain"), ("mutation".into(), "rename".into()), "not into a question");
        assert_eq!(sure(text, "mutation/refactor"), ("mutation".into(), "refactor".into()), "the change may differ");
        // Without the proposal, a question stays open to the second reader.
        assert_eq!(sure("Is there a rename helper here?", "query/search"), ("query".into(), "search".into()));
    }

    #[test]
    fn what_a_request_makes_names_its_verb_and_a_symptom_with_never_is_a_bug() {
        rules_read_as(&[
            ("Add the breaking changes of v3 to the upgrade guide", "mutation", "document"),
            ("Write migration notes for the 2.0 release", "mutation", "document"),
            ("add a usage example to docs/cli.md", "mutation", "document"),
            ("what breaks if I upgrade to v3?", "query", "impact"),
            ("Maybe add a retry to the fetch helper?", "mutation", "implement"),
            ("is parse_header used anywhere?", "query", "search"),
            ("is the legacy module still used, or can it be removed safely?", "query", "impact"),
            ("Worker threads are never joined on shutdown", "mutation", "fix"),
            ("Never commit secrets", "instruction", "forbid"),
            ("the export command is never executed by a test", "mutation", "test"),
            ("Replace the old name in all package names", "mutation", "rename"),
            ("write tests for parse in util.go; put them in a new file and do not change util.go", "mutation", "test"),
            ("verify claims; do not infer", "instruction", "require"),
            ("What is the current status of this pull request?", "query", "status"),
            ("what does parse_header call?", "query", "search"),
            ("what is the difference between load and loads?", "query", "explain"),
            ("do all the tests pass now?", "query", "status"),
            ("The windows build keeps failing, can we fix it?", "mutation", "fix"),
            ("so can we tag the release as v1.2.0?", "mutation", "commit"),
            ("Evaluate the upgrade to Django 5", "query", "impact"),
            ("comment on my pull request description", "query", "review"),
            ("wait for CI to pass", "query", "status"),
        ]);
    }

    #[test]
    fn the_second_reader_speaks_where_the_rules_find_no_cue() {
        // A fact stated as a rule file's line: no verb the rules know, a memory to the classifier,
        // kept as written.
        let v = read("Uses VS Code with vim keybindings");
        assert_eq!(reading(&v), ("instruction", "remember", DISPUTED));
        assert_eq!(v["target"], "Uses VS Code with vim keybindings");
        // "Enhance … coverage": the rules' generic change, the classifier's test writing.
        let v = read("Enhance testing coverage for the parser module");
        assert_eq!(reading(&v), ("mutation", "test", DISPUTED));
    }

    #[test]
    fn where_the_readers_agree_the_rules_stand_as_sure_as_before() {
        for (text, category, verb) in [
            ("fix the failing tests", "mutation", "fix"),
            ("rename parse to parse_input", "mutation", "rename"),
            ("who calls login", "query", "search"),
            ("explain the architecture", "query", "explain"),
        ] {
            let r = second_reading(text).expect("the embedded model");
            assert_eq!((r.category(), r.verb()), (category, verb), "{text}: the classifier");
            assert_eq!(reading(&read(text)), (category, verb, 0.95), "{text}");
        }
    }

    fn second(label: &'static str, margin: f64) -> Option<Reading> {
        Some(Reading { label, margin })
    }

    #[test]
    fn the_second_reader_overrules_by_a_clear_margin_and_never_towards_a_change() {
        let over = SECOND_READER_MARGIN + 0.01;
        let under = SECOND_READER_MARGIN - 0.01;
        // Within a category, and from a change to a question or a rule: by a clear margin only.
        assert!(overruling(&second("mutation/test", over), "mutation", "implement").is_some());
        assert!(overruling(&second("mutation/test", under), "mutation", "implement").is_none());
        assert!(overruling(&second("query/status", over), "mutation", "implement").is_some());
        assert!(overruling(&second("instruction/remember", over), "mutation", "implement").is_some());
        assert!(overruling(&second("query/explain", over), "instruction", "require").is_some());
        // Never a question or a rule made a change, however sure the classifier is.
        assert!(overruling(&second("mutation/delete", 5.0), "query", "impact").is_none());
        assert!(overruling(&second("mutation/implement", 5.0), "instruction", "require").is_none());
        // Agreement, or no model, is no overruling.
        assert!(overruling(&second("query/search", 5.0), "query", "search").is_none());
        assert!(overruling(&None, "query", "search").is_none());
    }
}
