//! Patch proposals: what a model writes when asked to change code, parsed
//! strictly into span replacements or a unified diff, then checked against the
//! files they touch and the focus: paths inside the focus only, line ranges in
//! bounds and disjoint, hunks that apply exactly (at most a small offset), a
//! bounded size. The result is the new content of each file; nothing is
//! written here. A reply may also carry a control packet: memory operations
//! (a note, a `knowledge_link` fact to keep, forgetting what a model noted)
//! and a self-correction, checked here like intents: a reply that tries to
//! promote any other predicate (a permission, an approval, a derived atom) is
//! refused whole. Knows nothing about models or the router.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::model::Shown;
use crate::perceive::grammar::number_ranges;

/// Bytes a proposal may have.
pub const MAX_PATCH_BYTES: usize = 256 * 1024;
/// Files one proposal may change.
pub const MAX_FILES: usize = 16;
/// Lines a hunk may have moved from where its header says it starts.
const MAX_OFFSET: usize = 40;

/// One file's change: its whole old content and its whole new content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub path: String,
    pub old: String,
    pub new: String,
}

/// Why a proposal is refused; the text is fed back to the model on the next attempt.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PatchError {
    #[error("not a patch proposal: {0}")]
    Shape(String),
    #[error("the proposal is larger than {MAX_PATCH_BYTES} bytes")]
    TooLarge,
    #[error("the proposal changes nothing: give `edits` or a `diff`")]
    Empty,
    #[error("give either `edits` or `diff`, not both")]
    BothForms,
    #[error("the proposal changes more than {MAX_FILES} files")]
    TooManyFiles,
    #[error("`{0}` is not a workspace-relative path")]
    BadPath(String),
    #[error("`{path}` is outside the focus of this task (allowed: {allowed})")]
    OutsideFocus { path: String, allowed: String },
    #[error("`{0}` cannot be read")]
    Unreadable(String),
    #[error("{path}: lines {start}-{end} are not within its {len} lines")]
    LineRange { path: String, start: u32, end: u32, len: usize },
    #[error(
        "{path}: end_line {end} is before start_line {start} (to insert before line {start}, end_line is {start} - 1)"
    )]
    Inverted { path: String, start: u32, end: u32 },
    #[error("{path}: edits overlap at line {line}")]
    Overlap { path: String, line: u32 },
    #[error("{path}: the hunk at line {line} does not match the file")]
    HunkMismatch { path: String, line: u32 },
    #[error("malformed diff: {0}")]
    BadDiff(String),
    #[error("memory operation refused: {0}")]
    Control(String),
}

/// Characters a note or a self-correction may have.
pub const MAX_NOTE_CHARS: usize = 500;
/// Memory operations one reply may carry.
pub const MAX_OPERATIONS: usize = 8;

/// A memory operation a model asks for, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryOp {
    /// Keep a fact about the project in words ("the retry delay is set in config/billing.toml").
    Note { text: String, subject: Option<String> },
    /// Keep `knowledge_link(A, Relation, B)` in graph memory.
    Link { a: String, relation: String, b: String },
    /// Forget a memory a model noted (never one the user or the agent wrote).
    Forget { id: i64 },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OperationWire {
    op: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    fact: Option<String>,
    #[serde(default)]
    id: Option<i64>,
}

fn bounded(what: &str, text: &str) -> Result<String, PatchError> {
    let t = text.trim();
    if t.is_empty() || t.chars().count() > MAX_NOTE_CHARS {
        return Err(PatchError::Control(format!("{what} must have 1 to {MAX_NOTE_CHARS} characters")));
    }
    Ok(t.to_string())
}

/// Checks one operation; only `knowledge_link` facts may be promoted.
fn operation(wire: OperationWire) -> Result<MemoryOp, PatchError> {
    let refuse = |m: String| Err(PatchError::Control(m));
    match wire.op.as_str() {
        "note" => Ok(MemoryOp::Note {
            text: bounded("a note", wire.text.as_deref().unwrap_or(""))?,
            subject: wire.subject.as_deref().map(|s| bounded("a subject", s)).transpose()?,
        }),
        "promote" => {
            let text = wire.fact.unwrap_or_default();
            let atom = nerd_logic::parse_atom(&text)
                .map_err(|e| PatchError::Control(format!("`{text}` is not an atom: {e}")))?;
            if atom.predicate != "knowledge_link" {
                return refuse(format!(
                    "a model may promote only knowledge_link(A, Relation, B) facts, not `{}`: what is permitted, \
                     approved or derived is decided by logic, never taken from a model",
                    atom.predicate
                ));
            }
            let strings: Vec<String> = atom
                .args
                .iter()
                .filter_map(|t| match t {
                    nerd_logic::Term::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            match strings.as_slice() {
                [a, relation, b] if atom.args.len() == 3 => Ok(MemoryOp::Link {
                    a: bounded("a link's end", a)?,
                    relation: bounded("a relation", relation)?,
                    b: bounded("a link's end", b)?,
                }),
                _ => refuse("knowledge_link takes three strings: A, Relation, B".into()),
            }
        }
        "forget" => match wire.id {
            Some(id) if id > 0 => Ok(MemoryOp::Forget { id }),
            _ => refuse("forget needs the id of a memory".into()),
        },
        other => refuse(format!("`{other}` is not a memory operation (note, promote, forget)")),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    #[serde(default)]
    explanation: String,
    #[serde(default)]
    edits: Vec<EditWire>,
    #[serde(default)]
    diff: Option<String>,
    #[serde(default)]
    memory_operations: Vec<OperationWire>,
    #[serde(default)]
    self_correction: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditWire {
    path: String,
    start_line: u32,
    end_line: u32,
    replacement: String,
}

/// Replace lines `start_line..=end_line` (1-based) of `path`; `end_line =
/// start_line - 1` inserts before `start_line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub replacement: String,
}

/// One hunk of a unified diff: the lines it expects and the lines it leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old: Vec<String>,
    pub new: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    Spans(Vec<Span>),
    Diff(BTreeMap<String, Vec<Hunk>>),
}

/// A parsed proposal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    pub explanation: String,
    pub body: Body,
    /// What the model asks to keep in (or drop from) memory.
    pub memory: Vec<MemoryOp>,
    /// What the model says it got wrong before ("the failure was in the parser, not the lexer").
    pub self_correction: Option<String>,
}

impl Proposal {
    /// The paths the proposal changes.
    pub fn paths(&self) -> BTreeSet<String> {
        match &self.body {
            Body::Spans(spans) => spans.iter().map(|s| s.path.clone()).collect(),
            Body::Diff(files) => files.keys().cloned().collect(),
        }
    }
}

/// Instructions for writing patches; the patch schema does the rest.
pub const SYSTEM: &str = "You are the patch writer of a coding agent. You get a task, the failures \
the agent observed and the files you may change, with line numbers. Find the root cause and answer only \
with the JSON object the schema describes: a short explanation and line-range edits (1-based, inclusive; \
end_line = start_line - 1 inserts before start_line). Change only the files shown. Never touch tests \
to make them pass unless the task says the test is wrong. Optionally, keep what later requests should know \
in memory_operations (a note, or promote a knowledge_link(\"A\", \"relation\", \"B\") fact), and say in \
self_correction what an earlier attempt got wrong.";

/// What a model writing a patch is asked for.
pub fn task() -> crate::model::Task {
    crate::model::Task {
        name: "propose_patch",
        description: "Propose a patch.",
        system: SYSTEM,
        schema: schema(),
        max_tokens: 4096,
        grammar: Some(gbnf(&[])),
        narrowed: Some(gbnf),
    }
}

/// Edits a grammar-constrained patch may have.
pub const GRAMMAR_EDITS: usize = 4;
/// Characters a grammar-constrained replacement may have.
pub const GRAMMAR_CODE_CHARS: usize = 1500;

/// The patch schema (span edits only) as a GBNF grammar for local models:
/// when files are given, each edit names one of them and addresses only
/// lines the prompt showed of that file (a start line from the first shown
/// line to one past the last, an end line from one before the first to the
/// last: inserting at either end stays possible); with none given, any
/// workspace-relative path and line. Every repetition is bounded, so that a
/// small model can neither name a file outside the focus, put the lines it
/// saw in one file on another, nor run to its token limit.
pub fn gbnf(shown: &[Shown]) -> String {
    let mut g = String::new();
    g.push_str(&format!(
        "root ::= \"{{\" ws \"\\\"explanation\\\":\" ws text \",\" ws \"\\\"edits\\\":\" ws \"[\" ws edit ( \",\" ws edit ){{0,{}}} ws \"]\" ws \"}}\"\n",
        GRAMMAR_EDITS - 1
    ));
    let edit = |name: &str, path: &str, start: &str, end: &str| {
        format!(
            "{name} ::= \"{{\" ws \"\\\"path\\\":\" ws {path} \",\" ws \"\\\"start_line\\\":\" ws {start} \",\" ws \"\\\"end_line\\\":\" ws {end} \",\" ws \"\\\"replacement\\\":\" ws code ws \"}}\"\n"
        )
    };
    g.push_str(&per_file_rules("edit", shown, |name, path, file| match file {
        None => edit(name, path, "line", "line"),
        Some(file) => {
            let starts: Vec<(u32, u32)> = file.lines.iter().map(|&(lo, hi)| (lo, hi.saturating_add(1))).collect();
            let ends: Vec<(u32, u32)> = file.lines.iter().map(|&(lo, hi)| (lo.saturating_sub(1), hi)).collect();
            let start = number_ranges(&starts).unwrap_or_else(|| "line".to_string());
            let end = number_ranges(&ends).unwrap_or_else(|| "line".to_string());
            edit(name, path, &start, &end)
        }
    }));
    g.push_str("line ::= [0-9] [0-9]{0,5}\n");
    g.push_str("text ::= \"\\\"\" char{0,300} \"\\\"\"\n");
    g.push_str(&format!("code ::= \"\\\"\" char{{0,{GRAMMAR_CODE_CHARS}}} \"\\\"\"\n"));
    g.push_str(crate::perceive::grammar::JSON_TEXT_RULES);
    g
}

/// The GBNF rules of `rule` (an edit, a citation), each naming one file of `shown`: `rule` is the
/// alternatives `rule-0 | rule-1 …`, each written by `write(name, the file's literal, Some(file))`;
/// with no file a grammar literal can hold, `rule` alone over any path (`write(rule, any path, None)`).
pub fn per_file_rules(rule: &str, shown: &[Shown], write: impl Fn(&str, &str, Option<&Shown>) -> String) -> String {
    let files = addressable(shown);
    if files.is_empty() {
        return write(rule, ANY_PATH, None);
    }
    let names: Vec<String> = (0..files.len()).map(|i| format!("{rule}-{i}")).collect();
    let mut g = format!("{rule} ::= {}\n", names.join(" | "));
    for (name, (literal, file)) in names.iter().zip(&files) {
        g.push_str(&write(name, literal, Some(file)));
    }
    g
}

/// Any workspace-relative path, as a GBNF JSON string.
const ANY_PATH: &str = "\"\\\"\" [A-Za-z0-9_@+-] [A-Za-z0-9_./@+-]{0,159} \"\\\"\"";

/// The files of `shown` a grammar may name, each with its GBNF literal (names
/// with characters a grammar literal cannot hold are left out).
fn addressable(shown: &[Shown]) -> Vec<(String, &Shown)> {
    shown
        .iter()
        .filter(|s| !s.path.is_empty() && s.path.chars().all(|c| c.is_ascii_alphanumeric() || "_./-+@ ".contains(c)))
        .map(|s| (format!("\"\\\"{}\\\"\"", s.path), s))
        .collect()
}

/// The JSON schema models are asked to answer in.
pub fn schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["explanation", "edits"],
        "properties": {
            "explanation": {"type": "string", "description": "the root cause and the fix, in one or two sentences"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["path", "start_line", "end_line", "replacement"],
                    "properties": {
                        "path": {"type": "string"},
                        "start_line": {"type": "integer", "minimum": 1},
                        "end_line": {"type": "integer", "minimum": 0},
                        "replacement": {"type": "string", "description": "the new text of those lines, newline-terminated"}
                    }
                }
            },
            "memory_operations": {
                "type": "array",
                "maxItems": MAX_OPERATIONS,
                "description": "optional: facts about the project worth keeping for later requests",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["op"],
                    "properties": {
                        "op": {"enum": ["note", "promote", "forget"]},
                        "text": {"type": "string", "description": "note: the fact, in one sentence"},
                        "subject": {"type": "string", "description": "note: the symbol or file it is about"},
                        "fact": {"type": "string", "description": "promote: knowledge_link(\"A\", \"relation\", \"B\")"},
                        "id": {"type": "integer", "description": "forget: a memory you noted before"}
                    }
                }
            },
            "self_correction": {"type": "string", "description": "optional: what an earlier attempt got wrong"}
        }
    })
}

fn checked_path(path: &str) -> Result<String, PatchError> {
    let p = path.trim();
    let bad = p.is_empty()
        || p.starts_with('/')
        || p.contains('\\')
        || p.contains('\0')
        || p.split('/').any(|c| c == ".." || c == ".git" || c == ".nerd");
    if bad {
        return Err(PatchError::BadPath(path.to_string()));
    }
    Ok(p.trim_start_matches("./").to_string())
}

/// Parses model output (bare JSON, fenced JSON, or an HRF envelope's final message).
pub fn parse(text: &str) -> Result<Proposal, PatchError> {
    if text.len() > MAX_PATCH_BYTES {
        return Err(PatchError::TooLarge);
    }
    let body = match crate::hrf::final_content(text) {
        Ok(Some(content)) => content,
        Ok(None) => text.to_string(),
        Err(e) => return Err(PatchError::Shape(format!("{}: {}", e.code, e.message))),
    };
    let wire: Wire =
        serde_json::from_str(crate::articulate::unfence(&body)).map_err(|e| PatchError::Shape(e.to_string()))?;
    let body = match (wire.edits.is_empty(), wire.diff) {
        (false, Some(_)) => return Err(PatchError::BothForms),
        (true, None) => return Err(PatchError::Empty),
        (true, Some(diff)) => Body::Diff(parse_diff(&diff)?),
        (false, None) => Body::Spans(
            wire.edits
                .into_iter()
                .map(|e| {
                    Ok(Span {
                        path: checked_path(&e.path)?,
                        start_line: e.start_line,
                        end_line: e.end_line,
                        replacement: e.replacement,
                    })
                })
                .collect::<Result<_, PatchError>>()?,
        ),
    };
    if wire.memory_operations.len() > MAX_OPERATIONS {
        return Err(PatchError::Control(format!("at most {MAX_OPERATIONS} memory operations a reply")));
    }
    let memory = wire.memory_operations.into_iter().map(operation).collect::<Result<_, _>>()?;
    let self_correction = wire.self_correction.as_deref().map(|t| bounded("a self-correction", t)).transpose()?;
    let proposal = Proposal { explanation: wire.explanation, body, memory, self_correction };
    if proposal.paths().len() > MAX_FILES {
        return Err(PatchError::TooManyFiles);
    }
    Ok(proposal)
}

fn parse_diff(diff: &str) -> Result<BTreeMap<String, Vec<Hunk>>, PatchError> {
    let mut files: BTreeMap<String, Vec<Hunk>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut lines = diff.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("+++ ") {
            let name = rest.split('\t').next().unwrap_or("").trim();
            if name == "/dev/null" {
                return Err(PatchError::BadDiff("deleting files is not a patch".into()));
            }
            let name = name.strip_prefix("b/").unwrap_or(name);
            let path = checked_path(name)?;
            files.entry(path.clone()).or_default();
            current = Some(path);
        } else if line.starts_with("--- ") || line.starts_with("diff ") || line.starts_with("index ") {
            continue;
        } else if let Some(header) = line.strip_prefix("@@ ") {
            let path = current.clone().ok_or_else(|| PatchError::BadDiff("a hunk before any +++ header".into()))?;
            let old_start = header
                .strip_prefix('-')
                .and_then(|h| h.split([',', ' ']).next())
                .and_then(|n| n.parse::<u32>().ok())
                .ok_or_else(|| PatchError::BadDiff(format!("bad hunk header `@@ {header}`")))?;
            let mut hunk = Hunk { old_start, old: Vec::new(), new: Vec::new() };
            while let Some(next) = lines.peek() {
                if next.starts_with("@@ ") || next.starts_with("--- ") || next.starts_with("diff ") {
                    break;
                }
                let next = lines.next().unwrap_or_default();
                match next.chars().next() {
                    Some(' ') => {
                        hunk.old.push(next[1..].to_string());
                        hunk.new.push(next[1..].to_string());
                    }
                    None => {
                        hunk.old.push(String::new());
                        hunk.new.push(String::new());
                    }
                    Some('-') => hunk.old.push(next[1..].to_string()),
                    Some('+') => hunk.new.push(next[1..].to_string()),
                    Some('\\') => {}
                    Some(_) => return Err(PatchError::BadDiff(format!("unexpected line `{next}`"))),
                }
            }
            files.entry(path).or_default().push(hunk);
        } else if !line.trim().is_empty() && current.is_none() {
            return Err(PatchError::BadDiff(format!("unexpected line `{line}` before any file header")));
        }
    }
    if files.values().all(Vec::is_empty) {
        return Err(PatchError::Empty);
    }
    Ok(files)
}

/// Lines of `text` with their terminators, and whether the last one had one.
fn split_lines(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_string).collect()
}

fn terminated(s: &str) -> String {
    if s.is_empty() || s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

/// Applies the proposal to the files it names, read through `read`; every
/// path must be in `focus`. Returns (path, old content, new content) per file.
pub fn apply(
    proposal: &Proposal,
    read: &mut dyn FnMut(&str) -> Option<String>,
    focus: &BTreeSet<String>,
) -> Result<Vec<Edit>, PatchError> {
    for path in proposal.paths() {
        if !focus.contains(&path) {
            let allowed = focus.iter().cloned().collect::<Vec<_>>().join(", ");
            return Err(PatchError::OutsideFocus { path, allowed });
        }
    }
    let mut out = Vec::new();
    for path in proposal.paths() {
        let old = read(&path).ok_or_else(|| PatchError::Unreadable(path.clone()))?;
        let new = match &proposal.body {
            Body::Spans(spans) => {
                let mine: Vec<&Span> = spans.iter().filter(|s| s.path == path).collect();
                apply_spans(&path, &old, &mine)?
            }
            Body::Diff(files) => apply_hunks(&path, &old, files.get(&path).map_or(&[][..], Vec::as_slice))?,
        };
        out.push(Edit { path, old, new });
    }
    Ok(out)
}

fn apply_spans(path: &str, old: &str, spans: &[&Span]) -> Result<String, PatchError> {
    let lines = split_lines(old);
    let mut sorted: Vec<&Span> = spans.to_vec();
    sorted.sort_by_key(|s| (s.start_line, s.end_line));
    let mut previous_end = 0u32;
    for s in &sorted {
        if s.end_line + 1 < s.start_line {
            return Err(PatchError::Inverted { path: path.to_string(), start: s.start_line, end: s.end_line });
        }
        let in_range = s.start_line >= 1
            && s.end_line + 1 >= s.start_line
            && (s.end_line as usize) <= lines.len()
            && (s.start_line as usize) <= lines.len() + 1;
        if !in_range {
            return Err(PatchError::LineRange {
                path: path.to_string(),
                start: s.start_line,
                end: s.end_line,
                len: lines.len(),
            });
        }
        if s.start_line <= previous_end {
            return Err(PatchError::Overlap { path: path.to_string(), line: s.start_line });
        }
        previous_end = s.end_line.max(s.start_line.saturating_sub(1));
    }
    let mut out = String::with_capacity(old.len());
    let mut next = 1u32;
    for s in &sorted {
        for line in &lines[(next - 1) as usize..(s.start_line - 1) as usize] {
            out.push_str(line);
        }
        // The replaced text must end its last line, unless it ends the file where the old text did not.
        let is_last = s.end_line as usize == lines.len();
        let keep_unterminated = is_last && !old.ends_with('\n');
        if keep_unterminated {
            out.push_str(&s.replacement);
        } else {
            out.push_str(&terminated(&s.replacement));
        }
        next = s.end_line + 1;
    }
    for line in &lines[(next - 1) as usize..] {
        out.push_str(line);
    }
    Ok(out)
}

fn apply_hunks(path: &str, old: &str, hunks: &[Hunk]) -> Result<String, PatchError> {
    let lines: Vec<&str> = old.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cursor = 0usize;
    for h in hunks {
        let want = (h.old_start as usize).saturating_sub(1).max(cursor);
        let fits = |at: usize| at >= cursor && at + h.old.len() <= lines.len() && lines[at..at + h.old.len()] == h.old;
        let found = (0..=MAX_OFFSET)
            .flat_map(|d| [want.checked_add(d), want.checked_sub(d)])
            .flatten()
            .find(|&at| fits(at))
            .ok_or(PatchError::HunkMismatch { path: path.to_string(), line: h.old_start })?;
        out.extend(lines[cursor..found].iter().map(|l| l.to_string()));
        out.extend(h.new.iter().cloned());
        cursor = found + h.old.len();
    }
    out.extend(lines[cursor..].iter().map(|l| l.to_string()));
    let mut text = out.join("\n");
    if !text.is_empty() && (old.ends_with('\n') || old.is_empty()) {
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";

    fn run(text: &str, focus: &[&str]) -> Result<Vec<Edit>, PatchError> {
        let proposal = parse(text)?;
        let focus: BTreeSet<String> = focus.iter().map(|s| s.to_string()).collect();
        apply(&proposal, &mut |p| (p == "calc.py").then(|| CALC.to_string()), &focus)
    }

    fn with_operations(ops: serde_json::Value) -> Result<Proposal, PatchError> {
        let edit = serde_json::json!([{"path": "calc.py", "start_line": 2, "end_line": 2, "replacement": "    return a + b\n"}]);
        parse(&serde_json::json!({"explanation": "x", "edits": edit, "memory_operations": ops}).to_string())
    }

    #[test]
    fn the_patch_grammar_bounds_every_repetition_and_binds_each_file_to_its_shown_lines() {
        let shown = [
            Shown::new("calc/ops.py", vec![(5, 9)]),
            Shown::new("calc/new.py", vec![(1, 0)]),
            Shown::any_line("README.md"),
            Shown::new("bad\"name.py", vec![(1, 3)]),
        ];
        let g = gbnf(&shown);
        assert_eq!(crate::perceive::grammar::unbounded_line(&g), None);
        assert_eq!(crate::perceive::grammar::unbounded_line(&gbnf(&[])), None);
        let rule = |name: &str| g.lines().find(|l| l.starts_with(&format!("{name} ::="))).unwrap().to_string();
        assert_eq!(rule("edit"), "edit ::= edit-0 | edit-1 | edit-2", "a name a literal cannot hold is left out");
        // Shown lines 5-9: a start from 5 to 10 (insert after the last), an end from 4 (insert before the first) to 9.
        let ops = rule("edit-0");
        assert!(
            ops.contains("\\\"calc/ops.py\\\"\" \",\" ws \"\\\"start_line\\\":\" ws ( [5-9] | \"1\" \"0\" )"),
            "{ops}"
        );
        assert!(ops.contains("\"\\\"end_line\\\":\" ws ( [4-9] )"), "{ops}");
        // A file to create has no lines: it is written by inserting at line 1.
        let new = rule("edit-1");
        assert!(
            new.contains("start_line\\\":\" ws ( \"1\" )") && new.contains("end_line\\\":\" ws ( \"0\" )"),
            "{new}"
        );
        assert!(rule("edit-2").contains("start_line\\\":\" ws line"), "lines unknown: any line");
    }

    #[test]
    fn the_control_packet_keeps_notes_and_links_and_refuses_anything_else() {
        let ok = with_operations(serde_json::json!([
            {"op": "note", "text": "the retry delay is set in config/billing.toml", "subject": "billing/retry.py"},
            {"op": "promote", "fact": "knowledge_link(\"billing/retry.py#backoff\", \"configured_in\", \"config/billing.toml\")"},
            {"op": "forget", "id": 7},
        ]))
        .unwrap();
        assert_eq!(ok.memory.len(), 3);
        assert_eq!(
            ok.memory[1],
            MemoryOp::Link {
                a: "billing/retry.py#backoff".into(),
                relation: "configured_in".into(),
                b: "config/billing.toml".into()
            }
        );
        for bad in [
            serde_json::json!([{"op": "promote", "fact": "permitted(\"exec:git push --force\")"}]),
            serde_json::json!([{"op": "promote", "fact": "approval(\"a1\", \"human\")"}]),
            serde_json::json!([{"op": "promote", "fact": "user_intent(\"i\", \"mutation\", \"delete\", \"/\", \"\")"}]),
            serde_json::json!([{"op": "promote", "fact": "knowledge_link(\"a\", \"b\")"}]),
            serde_json::json!([{"op": "promote", "fact": "knowledge_link(\"a\", "}]),
            serde_json::json!([{"op": "grant", "text": "anything"}]),
            serde_json::json!([{"op": "note", "text": ""}]),
            serde_json::json!([{"op": "note", "text": "x", "approved": true}]),
            serde_json::json!([{"op": "forget"}]),
        ] {
            assert!(with_operations(bad.clone()).is_err(), "{bad}");
        }
        let err = with_operations(serde_json::json!([{"op": "promote", "fact": "permitted(\"x\")"}])).unwrap_err();
        assert!(err.to_string().contains("never taken from a model"), "{err}");
    }

    #[test]
    fn span_edits_replace_exactly_their_lines() {
        let out = run(
            r#"{"explanation":"subtracts","edits":[{"path":"calc.py","start_line":2,"end_line":2,"replacement":"    return a + b"}]}"#,
            &["calc.py"],
        )
        .unwrap();
        assert_eq!(out[0].new, CALC.replace("a - b", "a + b"));
    }

    #[test]
    fn unified_diffs_apply_with_an_offset_and_fences_are_unwrapped() {
        let diff = "--- a/calc.py\n+++ b/calc.py\n@@ -4,2 +4,2 @@ def add\n def add(a, b):\n-    return a - b\n+    return a + b\n";
        let text = format!("```json\n{}\n```", serde_json::json!({"explanation": "x", "diff": diff}));
        let out = run(&text, &["calc.py"]).unwrap();
        assert_eq!(out[0].new, CALC.replace("a - b", "a + b"));
    }

    #[test]
    fn proposals_outside_the_focus_or_out_of_range_are_refused() {
        let outside = r#"{"edits":[{"path":"other.py","start_line":1,"end_line":1,"replacement":"x"}]}"#;
        assert!(matches!(run(outside, &["calc.py"]), Err(PatchError::OutsideFocus { .. })));
        let escape = r#"{"edits":[{"path":"../etc/passwd","start_line":1,"end_line":1,"replacement":"x"}]}"#;
        assert!(matches!(run(escape, &["calc.py"]), Err(PatchError::BadPath(_))));
        let range = r#"{"edits":[{"path":"calc.py","start_line":9,"end_line":12,"replacement":"x"}]}"#;
        assert!(matches!(run(range, &["calc.py"]), Err(PatchError::LineRange { .. })));
        let inverted = r#"{"edits":[{"path":"calc.py","start_line":3,"end_line":1,"replacement":"x"}]}"#;
        assert!(matches!(run(inverted, &["calc.py"]), Err(PatchError::Inverted { start: 3, end: 1, .. })));
        let overlap = r#"{"edits":[{"path":"calc.py","start_line":1,"end_line":2,"replacement":"x"},{"path":"calc.py","start_line":2,"end_line":2,"replacement":"y"}]}"#;
        assert!(matches!(run(overlap, &["calc.py"]), Err(PatchError::Overlap { .. })));
        let mismatch = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,1 @@\n-def sub(a, b):\n+def add(a, b):\n";
        let text = serde_json::json!({"diff": mismatch}).to_string();
        assert!(matches!(run(&text, &["calc.py"]), Err(PatchError::HunkMismatch { .. })));
    }

    #[test]
    fn malformed_output_is_a_shape_error_not_a_panic() {
        for bad in ["", "not json", "{\"edits\": 3}", "{\"permitted\": true}", "{}", "[1,2]"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let both = r#"{"edits":[{"path":"a","start_line":1,"end_line":1,"replacement":""}],"diff":"x"}"#;
        assert_eq!(parse(both), Err(PatchError::BothForms));
    }

    #[test]
    fn insertion_before_a_line_keeps_everything_else() {
        let out = run(
            r#"{"edits":[{"path":"calc.py","start_line":1,"end_line":0,"replacement":"import math\n"}]}"#,
            &["calc.py"],
        )
        .unwrap();
        assert_eq!(out[0].new, format!("import math\n{CALC}"));
    }
}
