//! A request as every reading stage sees it: what chat front ends add removed, names masked,
//! words normalised and titles read as the imperatives they stand for. Decides no category or
//! verb, and knows nothing of the second reader.

use super::cues::*;

/// One request in the forms the rules read it in.
pub(super) struct Request {
    /// As written, without front-end mentions and slash commands (`？` read as `?`).
    pub original: String,
    /// Whether the front end or the script marks it as asked (`/ask`, a Chinese question word).
    pub asked: bool,
    /// The original with names masked, not lowercased.
    pub masked_raw: String,
    /// The names masked, in the order the request says them.
    pub ids: Vec<String>,
    /// Masked, lowercased, single-spaced, with compounds joined and titles made imperative.
    pub lower: String,
    /// Whether a change is proposed ("what about renaming…", "we could…") rather than ordered.
    pub proposed: bool,
}

impl Request {
    pub fn read(text: &str) -> Request {
        let (asked, text) = without_front_end(text.trim());
        // A full-width question mark ends a question as `?` does.
        let original = text.replace('？', "?");
        let asked = asked || cjk_question().is_match(&original);
        let (masked_raw, ids) = mask(&original);
        let masked = masked_raw.to_lowercase().trim_end_matches(['?', '.', '!', ' ']).to_string();
        // Masking leaves runs of spaces; patterns count words by single spaces.
        // "pre-commit hooks" configure a tool; they commit nothing.
        // A contraction split by a stray space ("can' t") is still the contraction.
        let lower = masked
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace("pre-commit", "precommit")
            // A drop-down is a kind of menu: nothing is dropped.
            .replace("drop-down", "dropdown")
            .replace("drop down", "dropdown")
            .replace("drag and drop", "draganddrop")
            .replace("drag-and-drop", "draganddrop")
            // Markdown emphasis is no word: "is *very* slow" is very slow.
            .replace('*', "")
            // Suggestions for a refactoring are a review's findings, not the refactoring.
            .replace("refactoring suggestions", "suggestions")
            .replace("refactor suggestions", "suggestions")
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
        Request { original, asked, masked_raw, ids, lower, proposed }
    }
}

/// Masks identifiers, returning the masked text and the identifiers in order.
pub(super) fn mask(text: &str) -> (String, Vec<String>) {
    let mut ids = Vec::new();
    let after_spans = code_span().replace_all(text, |c: &regex::Captures| {
        let inner = c.get(1).or(c.get(2)).or(c.get(4)).map_or("", |m| m.as_str());
        ids.push(inner.to_string());
        let around = |i| c.get(i).map_or("", |m| m.as_str());
        let marker = if names_a_document(inner) { " markdown file" } else { "" };
        format!("{} ID{marker} {}", around(3), around(5))
    });
    let masked = identifier().replace_all(&after_spans, |c: &regex::Captures| {
        let id = c[0].trim_end_matches("()");
        ids.push(id.to_string());
        // A document named by its file ("create NOTES.md") still reads as a document.
        if names_a_document(id) {
            " ID markdown file ".to_string()
        } else {
            " ID ".to_string()
        }
    });
    // In the order the request says them, quoted or not: "explain load_config from `config.py`".
    ids.sort_by_key(|id| text.find(id.as_str()).unwrap_or(usize::MAX));
    (masked.into_owned(), ids)
}

/// Whether a name is a document's file: Markdown, reStructuredText or AsciiDoc, or a file a
/// project keeps its prose in as plain text ("INSTALL.txt"; "install.sh" is a script).
/// `scripts/train_perception.py` tells documents the same way.
fn names_a_document(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let stem = file.split('.').next().unwrap_or(file);
    [".md", ".mdx", ".rst", ".adoc"].iter().any(|e| file.ends_with(e))
        || (file.ends_with(".txt")
            && ["readme", "install", "changelog", "contributing", "license", "authors", "changes", "history"]
                .contains(&stem))
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
        // "/test" alone is a bot's command to run the tests; with a target, tests are to be written.
        "tests" | "test" | "retest" if rest.trim().is_empty() => "run the tests",
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
        ("checking", "check"),
        ("mentioning", "mention"),
        ("added", "add"),
        ("created", "create"),
    ];
    // "✨ feat: …", "🐛 fix: …": an emoji before a title says what its type says.
    let lower = lower.trim_start_matches(|c: char| !c.is_ascii() && !c.is_alphanumeric()).trim_start();
    // "[Refactor] split the loader", "[Docs] …": a title's tag says what kind of change follows, as a
    // conventional-commit type does.
    let tagged = kind_tag().captures(lower).map(|c| {
        let rest = lower[c[0].len()..].trim_start_matches([':', '-', ' ']);
        match c[1].trim_end_matches('s') {
            "refactor" | "refactoring" => format!("refactor: {rest}"),
            "doc" | "documentation" => format!("docs: {rest}"),
            "test" => format!("test: {rest}"),
            _ => rest.to_string(),
        }
    });
    let lower = tagged.as_deref().unwrap_or(lower);
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
    // "SQL injection vulnerability fixed": a title said in the past asks for what it reports done
    // ("is this fixed", "the bug was fixed" say no such thing).
    let fixed = fixed_title()
        .captures(&lower)
        .filter(|c| !c[1].split(' ').any(|w| AUXILIARIES.contains(&w)))
        .map(|c| format!("fix {}", &c[1]));
    let lower = fixed.unwrap_or(lower);
    // Templates for pull requests and issues are files to write, not pull requests or bugs.
    let lower = template_words().replace_all(&lower, "$1template").replace("bug report", "bugreport");
    let lower = lower.as_str();
    let (first, rest) = lower.split_once(' ').unwrap_or((lower, ""));
    match VERBS.iter().find(|(third, _)| *third == first) {
        Some((_, imperative)) if !rest.is_empty() => format!("{imperative} {rest}"),
        _ => lower.to_string(),
    }
}
