//! The rules' verdict on a request: a memory to keep or drop, or a category and verb with the
//! cue that decided them, read in turn as a request in another language, a standing rule, a
//! report, a named test to run, advice asked, a wish or a task; and what about the request a
//! second reader that disagrees must respect. Where a request's target lies is read elsewhere.

use super::cues::*;
use super::request::Request;
use super::task::{change, read_task};
use super::Reading;
use super::{memory_intent, overruling, Verdict, DISPUTED};

/// What about a request makes the rules' reading stand where the second reader disagrees.
pub(super) struct Marks {
    /// "Run test_parse": a test named by its name is run.
    pub named_test: bool,
    /// Read by its own language's cues.
    pub foreign: bool,
    /// "What about renaming the flag?": a change proposed.
    pub proposed: bool,
    /// "Write tests for X, and do not change null.go": a task said with a constraint on it.
    pub task_with_constraint: bool,
    /// "It would be nice to see all the packages that depend on mine": a change wished for.
    pub wish: bool,
}

/// The intent JSON of a memory the request asks to keep or drop, where it asks that.
pub(super) fn memory_said(request: &Request, reading: &Option<Reading>, foreign: bool) -> Option<String> {
    let original = request.original.as_str();
    // "Remember that …" / "forget …": the rest of the request, as written, is the memory.
    for (verb, cue) in [("remember", remember()), ("forget", forget())] {
        if let Some(m) = cue.find(original) {
            let text = original[m.end()..].trim().trim_end_matches('.').to_string();
            // "Don't forget to run the tests" is an instruction to act, not something to keep.
            let to_act = verb == "remember" && text.to_lowercase().starts_with("to ");
            if !text.is_empty() && !to_act {
                // "/memory:forget": where the readers disagree, the second tells keeping from dropping.
                return Some(match overruling(reading, "instruction", verb) {
                    Some(r) if matches!(r.verb(), "remember" | "forget") => memory_intent(r.verb(), &text, DISPUTED),
                    _ => memory_intent(verb, &text, 0.95),
                });
            }
        }
    }
    // "The project uses a deprecated API, replace it": a fact said before an order is the order's reason.
    let lower = request.lower.as_str();
    let order_after = clause_end().split(lower).skip(1).any(|c| change(c.trim()).is_some_and(|(at, _, _)| at == 0));
    (keep_fact().is_match(original) && !order_after && !foreign)
        .then(|| memory_intent("remember", original.trim_end_matches('.'), 0.8))
}

/// The rules' category and verb for a request that keeps or drops no memory (`foreign`: how its
/// own language's cues read it, where they speak), and what the second reader must respect.
pub(super) fn verdict(request: &Request, foreign: Option<(&'static str, &'static str)>) -> (Verdict, Marks) {
    let original = request.original.as_str();
    let original_lower = original.to_lowercase();
    let lower = request.lower.as_str();
    // "Run test_parse": a test named by its name is run; the second reader does not read names.
    let named_test = run_named_test().is_match(original.trim_end_matches(['.', '!']));
    // A question is never a standing rule: "what breaks if you change X?" asks.
    let questioned =
        (request.asked || original.ends_with('?') || question_word().is_match(lower)) && !polite().is_match(lower);
    // "It would be nice to see all the packages that depend on mine": a wish, not a question.
    let wish = wished().is_match(lower) && !questioned;
    let before_semicolon = lower.split(';').next().unwrap_or(lower);
    let task_first = change(before_semicolon).is_some_and(|(_, _, specific)| specific);
    // The change the whole request names, read once for the two tests below that ask about it.
    let whole_change = change(lower);
    // "Write tests for X, and do not change null.go": a task said with a constraint on it.
    let task_with_constraint =
        whole_change.is_some_and(|(_, _, specific)| specific) && constraint().is_match(&original_lower);
    // "Implement a login code. The code must always have six digits": a task, then what it must do.
    let first_sentence = sentence_break().find(lower).map_or(lower, |m| &lower[..m.start()]);
    let opens_a_task = first_sentence.len() < lower.len()
        && imperative_make().is_match(lower)
        && !instruction().is_match(first_sentence)
        && !modal().is_match(first_sentence);
    // A rule said as a condition that holds every time, as how answers are given, or as an order
    // for every time something is done: its cue, where the request is no question.
    let ruled = [habitual(), answer_style(), order_each_time()]
        .into_iter()
        .find(|c| !original.ends_with('?') && c.is_match(lower) && !person_acts().is_match(lower));
    // "Write tests for X instead of Y": a request that opens by writing tests asks for them.
    let tests_first = whole_change.is_some_and(|(at, (verb, _), _)| at == 0 && verb == "test");
    let standing = (!questioned
        && !opens_a_task
        && !tests_first
        && !change_in_passive().is_match(lower)
        && instruction().is_match(lower))
        || (!questioned && then_forbid().is_match(lower) && !task_first)
        || (!original.ends_with('?')
            && negated_imperative().is_match(lower)
            && !negated_symptom().is_match(lower)
            && !clause_break().is_match(lower))
        || ruled.is_some();
    let (category, verb, cue, cues) = if let Some((category, verb)) = foreign {
        (category, verb, super::cue_of(category, verb), 1)
    } else if standing {
        // The first cue speaks: "always handle errors, never assign to _" requires.
        let verb = [("forbid", forbid()), ("require", require()), ("prefer", prefer())]
            .iter()
            .enumerate()
            .filter_map(|(rank, (verb, re))| re.find(lower).map(|m| ((m.start(), rank), *verb)))
            .min();
        // An order first and a prohibition after it ("verify claims; do not infer") requires.
        let first_clause = clause_end().find(lower).map_or(lower.len(), |m| m.start());
        let verb = match verb {
            Some(((at, _), _)) if at > first_clause && !conditional().is_match(lower) => "require",
            Some((_, verb)) => verb,
            None if answer_style().is_match(lower) => "prefer",
            None => "require",
        };
        let cue = [instruction(), then_forbid()]
            .into_iter()
            .find(|c| c.is_match(lower))
            .or(ruled)
            .unwrap_or(negated_imperative());
        ("instruction", verb, cue, 1)
    } else if no_change_wanted().is_match(lower)
        && report_asked().is_match(lower)
        && !writes_a_document().is_match(lower)
    {
        // A report asked for with nothing to change: what about, by a specific cue where one speaks.
        specific_query(lower, ("review", q_review))
    } else if named_test {
        ("query", "status", run_verb(), 1)
    } else if advice_asked().is_match(lower) && !standing_from_now().is_match(lower) {
        // "Large list is slow in production. Any idea?": advice asked for after the problem.
        ("query", "explain", q_explain(), 1)
    } else if bug_tag().is_match(&original_lower)
        && change(bug_tag().find(lower).map_or(lower, |m| lower[m.end()..].trim()))
            .is_none_or(|(at, _, specific)| at > 0 || !specific)
    {
        // A title tagged as a bug reports one, asked or not, unless it opens with the change it wants.
        ("mutation", "fix", m_fix(), 1)
    } else if question_tag().is_match(&original_lower) {
        // "[Question] List endpoints via url": a title tagged as a question asks, by its own cue.
        specific_query(lower, ("explain", q_explain))
    } else if wish {
        let wished_for = wished().replace(lower, "");
        match change(wished_for.trim()) {
            Some((_, (verb, cue), true)) => ("mutation", verb, cue(), 1),
            // "I'd love to get your eyes on the changes": a review wished for is a review.
            _ if !lower.contains("ability to") && q_review().is_match(&wished_for) => {
                ("query", "review", q_review(), 1)
            }
            _ => ("mutation", "implement", m_implement(), 1),
        }
    } else {
        read_task(lower, request.asked || original.ends_with('?'))
    };
    let marks =
        Marks { named_test, foreign: foreign.is_some(), proposed: request.proposed, task_with_constraint, wish };
    (Verdict { category, verb, cue, cues }, marks)
}

/// A query read by the first specific cue that speaks (any but explain's), else as `otherwise`.
fn specific_query(lower: &str, otherwise: VerbCue) -> (&'static str, &'static str, &'static regex::Regex, usize) {
    let (verb, re) = QUERIES.iter().find(|(verb, re)| *verb != "explain" && re().is_match(lower)).unwrap_or(&otherwise);
    ("query", verb, re(), 1)
}
