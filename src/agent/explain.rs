//! Explanations a model writes, and the check of every place they cite. A
//! reply is the articulation layer's dual payload (`articulate::parse_reply`):
//! prose, citations, and a control packet of perception facts. A citation
//! stands only if its file exists, its line is inside it, and its quote is on
//! that line (or within two lines of it); a `path:line` written in the prose
//! stands only if the place exists and, when its sentence names code in
//! backticks, one of those names is there. What does not stand is removed from
//! the text and listed. Knows nothing about models, prompts or the router.

use crate::articulate::{Citation, Reply};
use crate::model::Shown;
use crate::perceive::grammar::number_ranges;

/// Lines around a cited line where its quote or named code may be.
const SLACK: usize = 2;

/// Instructions every model writing an explanation gets; the schema does the rest.
pub const SYSTEM: &str = "You explain code to a developer. You get the request, what nerd's kernel \
established from the index, and the code its activation selected, with line numbers. Answer only with the \
JSON object the schema describes: surface_response is the explanation in plain prose; cite the code it rests \
on as [n], where citations[n-1] gives the path, the line and a short quote copied exactly from that line. \
Cite only code you were shown; every citation is checked, and what cannot be checked is removed. Optionally, \
control.updates may keep knowledge_link(\"A\", \"relation\", \"B\") facts you learned.";

/// What a model writing an explanation is asked for.
pub fn task() -> crate::model::Task {
    crate::model::Task {
        name: "explain",
        description: "Explain code, citing it.",
        system: SYSTEM,
        schema: serde_json::json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["surface_response", "citations"],
            "properties": {
                "surface_response": {"type": "string", "description": "the explanation, citing code as [1], [2]..."},
                "citations": {
                    "type": "array",
                    "maxItems": crate::articulate::MAX_CITATIONS,
                    "items": {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["path", "line", "quote"],
                        "properties": {
                            "path": {"type": "string"},
                            "line": {"type": "integer", "minimum": 1},
                            "quote": {"type": "string", "description": "text copied exactly from that line"}
                        }
                    }
                },
                "control": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {"updates": {"type": "array", "items": {"type": "string"}}}
                }
            }
        }),
        max_tokens: 2048,
        grammar: Some(gbnf(&[])),
        narrowed: Some(gbnf),
    }
}

/// Characters of prose a grammar-bound explanation may have (a local model's
/// reply must fit its token limit).
pub const GRAMMAR_PROSE_CHARS: usize = 1200;
/// Citations a grammar-bound explanation may carry.
pub const GRAMMAR_CITATIONS: usize = 6;

/// The reply schema as a GBNF grammar for a local model: the prose and up to
/// `GRAMMAR_CITATIONS` citations, each naming one of the files of `shown` (the
/// files the prompt showed) and a line of it the prompt showed, when any are
/// given; any path and line otherwise. Every repetition is bounded.
pub fn gbnf(shown: &[Shown]) -> String {
    let mut g = String::new();
    g.push_str(&format!(
        "root ::= \"{{\" ws \"\\\"surface_response\\\":\" ws prose \",\" ws \"\\\"citations\\\":\" ws \"[\" ws ( citation ( \",\" ws citation ){{0,{}}} )? ws \"]\" ws \"}}\"\n",
        GRAMMAR_CITATIONS - 1
    ));
    let citation = |name: &str, path: &str, line: &str| {
        format!(
            "{name} ::= \"{{\" ws \"\\\"path\\\":\" ws {path} \",\" ws \"\\\"line\\\":\" ws {line} \",\" ws \"\\\"quote\\\":\" ws quote ws \"}}\"\n"
        )
    };
    g.push_str(&crate::agent::patch::per_file_rules("citation", shown, |name, path, file| match file {
        None => citation(name, path, "line"),
        Some(file) => {
            let lines: Vec<(u32, u32)> = file.lines.iter().map(|&(lo, hi)| (lo.max(1), hi)).collect();
            citation(name, path, &number_ranges(&lines).unwrap_or_else(|| "line".to_string()))
        }
    }));
    g.push_str("line ::= [1-9] [0-9]{0,5}\n");
    g.push_str(&format!("prose ::= \"\\\"\" char{{1,{GRAMMAR_PROSE_CHARS}}} \"\\\"\"\n"));
    g.push_str("quote ::= \"\\\"\" char{1,160} \"\\\"\"\n");
    g.push_str(crate::perceive::grammar::JSON_TEXT_RULES);
    g
}

/// An explanation whose citations were checked.
#[derive(Debug, PartialEq, Eq)]
pub struct Checked {
    /// The prose, with citations that did not stand removed.
    pub text: String,
    /// Citations that stand, numbered as in the text.
    pub kept: Vec<(usize, Citation)>,
    /// What was removed and why, one line each.
    pub removed: Vec<String>,
}

impl Checked {
    /// The explanation as shown: the prose, the places it cites, and what was removed.
    pub fn render(&self) -> String {
        let mut text = self.text.trim().to_string();
        if !self.kept.is_empty() {
            text.push_str("\n\nCited (each checked against the file):");
            for (n, c) in &self.kept {
                text.push_str(&format!("\n  [{n}] {}:{}  {}", c.path, c.line, c.quote.trim()));
            }
        }
        if !self.removed.is_empty() {
            text.push_str(&format!("\n\nRemoved {} citation(s) that could not be checked:", self.removed.len()));
            for why in &self.removed {
                text.push_str(&format!("\n  {why}"));
            }
        }
        text
    }
}

/// Whitespace folded, for comparing a quote with a line.
fn folded(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The lines within `SLACK` of 1-based `line`, or `None` when `line` is outside the file.
fn around(content: &str, line: u32) -> Option<Vec<&str>> {
    let lines: Vec<&str> = content.lines().collect();
    let at = (line as usize).checked_sub(1).filter(|i| *i < lines.len())?;
    Some(lines[at.saturating_sub(SLACK)..(at + SLACK + 1).min(lines.len())].to_vec())
}

/// Why citation `c` does not stand, if it does not.
fn refute(c: &Citation, read: &mut dyn FnMut(&str) -> Option<String>) -> Option<String> {
    let Some(content) = read(&c.path) else { return Some(format!("{} is not a file of this workspace", c.path)) };
    let Some(near) = around(&content, c.line) else {
        return Some(format!("{} has {} lines, not {}", c.path, content.lines().count(), c.line));
    };
    let quote = folded(&c.quote);
    if quote.is_empty() {
        return Some("the citation quotes nothing".into());
    }
    let found = near.iter().any(|l| folded(l).contains(&quote));
    (!found).then(|| format!("`{}` is not at {}:{}", c.quote.trim(), c.path, c.line))
}

/// Places written in the prose as `path:line` (a path with a dot and an extension).
fn inline_places(text: &str) -> Vec<(usize, usize, String, u32)> {
    static PLACE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = PLACE.get_or_init(|| {
        regex::Regex::new(r"\b([A-Za-z0-9_./-]+\.[A-Za-z0-9]{1,5}):([0-9]{1,7})\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    re.captures_iter(text)
        .filter_map(|c| {
            let all = c.get(0)?;
            let line = c[2].parse().ok()?;
            Some((all.start(), all.end(), c[1].to_string(), line))
        })
        .collect()
}

/// Names in backticks in the sentence around byte `at` of `text`.
fn named_near(text: &str, at: usize) -> Vec<String> {
    let before = &text[..at];
    let start =
        [before.rfind(". ").map(|i| i + 2), before.rfind('\n').map(|i| i + 1)].into_iter().flatten().max().unwrap_or(0);
    let end = text[at..].find(". ").or_else(|| text[at..].find('\n')).map_or(text.len(), |i| at + i);
    text[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|n| !n.is_empty() && n.len() <= 80 && !n.contains(':'))
        .map(|n| n.trim_end_matches("()").to_string())
        .collect()
}

/// Checks every citation of `reply` against the files `read` returns.
pub fn check(reply: &Reply, read: &mut dyn FnMut(&str) -> Option<String>) -> Checked {
    let mut text = reply.surface_response.clone();
    let (mut kept, mut removed) = (Vec::new(), Vec::new());
    for (i, c) in reply.citations.iter().enumerate() {
        let n = i + 1;
        match refute(c, read) {
            None => kept.push((n, c.clone())),
            Some(why) => {
                removed.push(format!("[{n}] {why}"));
                text = text.replace(&format!("[{n}]"), "(citation removed)");
            }
        }
    }
    // Places in the prose itself, last first so that earlier offsets stay valid.
    let places = inline_places(&text);
    let mut cuts = Vec::new();
    for (start, end, path, line) in places.into_iter().rev() {
        let why = match read(&path) {
            None => Some(format!("{path}:{line}: no such file here")),
            Some(content) => match around(&content, line) {
                None => Some(format!("{path}:{line}: the file has {} lines", content.lines().count())),
                Some(near) => {
                    let names = named_near(&text, start);
                    let said = names.is_empty() || names.iter().any(|n| near.iter().any(|l| l.contains(n.as_str())));
                    (!said).then(|| format!("{path}:{line}: {} is not there", names.join(", ")))
                }
            },
        };
        if let Some(why) = why {
            removed.push(why);
            cuts.push((start, end));
        }
    }
    for (start, end) in cuts {
        text.replace_range(start..end, "(place removed)");
    }
    Checked { text, kept, removed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(path: &str) -> Option<String> {
        match path {
            "calc/ops.py" => Some("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    total = 0\n".into()),
            _ => None,
        }
    }

    #[test]
    fn the_reply_grammar_names_only_the_files_shown_and_bounds_every_repetition() {
        let g = gbnf(&[Shown::new("calc/ops.py", vec![(3, 12)]), Shown::new("bad\"name.py", vec![(1, 2)])]);
        assert_eq!(g.lines().find(|l| l.starts_with("citation ::=")).unwrap(), "citation ::= citation-0");
        let cited = g.lines().find(|l| l.starts_with("citation-0 ::=")).unwrap();
        assert!(cited.contains("\"\\\"calc/ops.py\\\"\""), "{cited}");
        assert!(cited.contains("\"\\\"line\\\":\" ws ( [3-9] | \"1\" [0-2] )"), "only the lines shown: {cited}");
        assert!(g.contains(&format!("( \",\" ws citation ){{0,{}}}", GRAMMAR_CITATIONS - 1)), "{g}");
        assert_eq!(crate::perceive::grammar::unbounded_line(&g), None);
        assert_eq!(crate::perceive::grammar::unbounded_line(&gbnf(&[])), None);
        // The task narrows to the files a prompt shows.
        let narrowed = task().narrowed.unwrap()(&[Shown::any_line("src/lib.rs")]);
        assert!(narrowed.contains("\\\"src/lib.rs\\\"") && !narrowed.contains("calc/ops.py"));
    }

    fn cite(path: &str, line: u32, quote: &str) -> Citation {
        Citation { path: path.into(), line, quote: quote.into() }
    }

    #[test]
    fn citations_stand_only_where_the_quote_is() {
        let reply = Reply {
            surface_response: "`add` sums [1]. `mul` loops [2]. It logs [3]. Also [4].".into(),
            citations: vec![
                cite("calc/ops.py", 2, "return a + b"),
                cite("calc/ops.py", 6, "total  =  0"),
                cite("calc/ops.py", 2, "logging.info"),
                cite("calc/missing.py", 1, "x"),
            ],
            updates: vec![],
        };
        let checked = check(&reply, &mut files);
        let kept: Vec<usize> = checked.kept.iter().map(|(n, _)| *n).collect();
        assert_eq!(kept, [1, 2]);
        assert_eq!(checked.removed.len(), 2, "{:?}", checked.removed);
        assert!(checked.removed[0].contains("`logging.info` is not at calc/ops.py:2"));
        assert!(checked.removed[1].contains("calc/missing.py is not a file"));
        assert!(!checked.text.contains("[3]") && !checked.text.contains("[4]") && checked.text.contains("[2]"));
        assert!(checked.text.contains("It logs (citation removed)."), "{}", checked.text);
        let shown = checked.render();
        assert!(shown.contains("[1] calc/ops.py:2  return a + b") && shown.contains("Removed 2 citation(s)"));
    }

    #[test]
    fn places_in_the_prose_must_exist_and_hold_the_code_their_sentence_names() {
        let reply = Reply {
            surface_response: "`add` is at calc/ops.py:1. `divide` is at calc/ops.py:5. See calc/ops.py:90 and \
                               lib/x.rs:3. The loop starts at calc/ops.py:6."
                .into(),
            citations: vec![],
            updates: vec![],
        };
        let checked = check(&reply, &mut files);
        assert!(checked.text.contains("`add` is at calc/ops.py:1."), "{}", checked.text);
        assert!(checked.text.contains("calc/ops.py:6"), "a place whose sentence names no code only has to exist");
        assert_eq!(checked.removed.len(), 3, "{:?}", checked.removed);
        assert!(!checked.text.contains("calc/ops.py:5") && !checked.text.contains("calc/ops.py:90"));
        assert!(checked.removed.iter().any(|r| r.contains("divide is not there")));
    }
}
