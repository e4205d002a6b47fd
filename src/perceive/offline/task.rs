//! Reading a task's category and verb from its sentences: which sentence speaks, and the
//! first cue in it. Standing rules, memories and the second reader are read elsewhere.

use regex::Regex;

use super::cues::*;

/// Whether a sentence opens like a question ("do not fail on …" is an order and "does not
/// compile with …" a symptom, not "do …?"), or says it wants to know ("… and want to know what
/// breaks before I start").
fn asks(sentence: &str) -> bool {
    let stated = negated_statement().is_match(sentence) && !negated_question().is_match(sentence);
    (interrogative().is_match(sentence) && !stated) || wants_to_know().is_match(sentence)
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
pub(super) fn change(text: &str) -> Option<(usize, VerbCue, bool)> {
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
pub(super) fn read_task(lower: &str, question_mark: bool) -> (&'static str, &'static str, &'static Regex, usize) {
    let all = sentences(lower, question_mark);
    let has_cue = |text: &str| earliest(&QUERIES, text).is_some() || change(text).is_some();
    // An order said in a sentence of its own ("fix it", "add a test") speaks before a question; a
    // problem only described ("the symbol for it does not seem to exist") speaks after the question
    // it leads to ("where is it defined?"), where that question has a cue of its own.
    let orders = |text: &str| {
        change(text).is_some_and(|(at, _, _)| at == 0)
            || earliest(&QUERIES, text).is_some_and(|(at, _)| at == 0)
            || imperative_make().is_match(text)
    };
    let order = all
        .iter()
        .filter(|(text, _)| polite().is_match(text))
        .chain(all.iter().filter(|(text, asked)| !asked && !polite().is_match(text) && orders(text)))
        .chain(all.iter().rev().filter(|(text, asked)| *asked && !polite().is_match(text)))
        .chain(all.iter().filter(|(text, asked)| !asked && !polite().is_match(text) && !orders(text)));
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
    // "Is it safe to use the same function in multiple threads?": thread safety is judged, it is no
    // change whose impact is asked.
    let query = match query {
        Some((at, ("impact", _))) if practice_safety().is_match(text) => Some((at, ("review", q_review as fn() -> _))),
        other => other,
    };
    let mutation = change(text);
    let agreeing = MUTATIONS.iter().filter(|(_, re)| re().is_match(text)).count().max(1);
    // "Add rate limiting to this endpoint and add tests": the first conjunct's change is the task.
    let first = conjunct().split(text).next().unwrap_or(text);
    let first_change =
        if first.len() < text.len() && earliest(&QUERIES, first).is_none() { change(first) } else { None };
    // "Remove X from A and place them in B" moves: the conjuncts are one change.
    let first_change = first_change.filter(|_| !m_relocate().is_match(text));
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
        // Unless an order to review opens the request: "identify memory leaks in the map" asks for a review.
        (None | Some((_, ("review", _))), None | Some((_, _, false)))
            if !asks && symptom().is_match(text) && !review_order().is_match(text) =>
        {
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
