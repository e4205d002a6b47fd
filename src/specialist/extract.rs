//! Knowledge from structure, without a model: documents (Markdown,
//! reStructuredText, plain text) are read into sections by their headings,
//! each paragraph becoming a `concept`, `pattern` or `anti_pattern` atom under
//! its section's title and each code block an `example`; source files become
//! `api` atoms, one per public definition with its signature and doc comment.
//! Knows nothing about where files come from or how atoms are stored.

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

use crate::world::lang::Lang;

/// Characters an atom's text keeps at most (cut at a sentence end where one is near).
pub const MAX_TEXT: usize = 1200;
/// Words a paragraph needs to be worth keeping.
const MIN_WORDS: usize = 5;

/// The kinds of knowledge atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Concept,
    Api,
    Pattern,
    AntiPattern,
    Example,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Concept => "concept",
            Kind::Api => "api",
            Kind::Pattern => "pattern",
            Kind::AntiPattern => "anti_pattern",
            Kind::Example => "example",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        [Kind::Concept, Kind::Api, Kind::Pattern, Kind::AntiPattern, Kind::Example]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One piece of knowledge: `knowledge(Name, Concept, Kind, Text, Source)` without the name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    pub concept: String,
    pub kind: Kind,
    pub text: String,
    /// `label:line`.
    pub source: String,
}

impl Atom {
    /// The digest that identifies the atom: the same knowledge read twice is kept once.
    pub fn digest(&self) -> String {
        crate::digest::sha256_hex(format!("{}\0{}\0{}", self.kind, self.concept, self.text).as_bytes())
    }
}

/// Whether `path` names a document this module reads.
pub fn is_document(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".rst", ".txt", ".adoc"].iter().any(|e| lower.ends_with(e))
        || ["readme", "changelog", "changes"].iter().any(|n| lower.rsplit('/').next() == Some(*n))
}

/// A paragraph's kind by its words: advice against, advice for, or plain description.
fn paragraph_kind(text: &str) -> Kind {
    let lower = format!(" {} ", text.to_lowercase());
    const AGAINST: &[&str] = &[
        " don't ",
        " do not ",
        " never ",
        " avoid ",
        " should not ",
        " shouldn't ",
        " must not ",
        " deprecated",
        " discouraged",
        " not recommended",
        " is unsafe",
        " pitfall",
        " beware ",
    ];
    const FOR: &[&str] =
        &[" should ", " recommended", " prefer ", " best practice", " instead of ", " make sure ", " always "];
    if AGAINST.iter().any(|c| lower.contains(c)) {
        Kind::AntiPattern
    } else if FOR.iter().any(|c| lower.contains(c)) {
        Kind::Pattern
    } else {
        Kind::Concept
    }
}

/// Inline markup removed: RST roles and literals, Markdown links, emphasis and code spans.
fn plain(text: &str) -> String {
    static ROLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r":[A-Za-z][\w:.+-]*:`~?([^`<]*?)\s*(?:<[^`]*>)?`").expect("valid"));
    static LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\]]*)\]\([^)]*\)").expect("valid"));
    static RST_LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`<]*?)\s*<[^`]*>`_{1,2}").expect("valid"));
    let s = ROLE.replace_all(text, "$1");
    let s = RST_LINK.replace_all(&s, "$1");
    let s = LINK.replace_all(&s, "$1");
    let s = s.replace("``", "`").replace("**", "").replace('`', "");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to at most `MAX_TEXT` characters, at a sentence end where one is near.
fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_TEXT).collect();
    match cut.rfind(". ") {
        Some(i) if i > MAX_TEXT / 2 => cut[..=i].to_string(),
        _ => format!("{cut}…"),
    }
}

/// Whether a line is only one punctuation character repeated: an RST or setext heading underline.
fn underline(line: &str) -> Option<char> {
    let t = line.trim_end();
    let c = t.chars().next()?;
    (t.len() >= 3 && "=-~^\"'*+#_:`.".contains(c) && t.chars().all(|x| x == c) && !line.starts_with(' ')).then_some(c)
}

/// Directives whose indented body is code.
const CODE_DIRECTIVES: &[&str] =
    &["code-block", "code", "sourcecode", "testcode", "doctest", "click:example", "highlight", "example"];
/// Directives whose body is a warning.
const WARNING_DIRECTIVES: &[&str] = &["warning", "caution", "danger", "attention", "deprecated", "important"];
/// Directives whose body is advice or description worth keeping.
const PROSE_DIRECTIVES: &[&str] = &["note", "tip", "hint", "seealso", "versionadded", "versionchanged", "admonition"];
/// Directives that document an API: their argument is the signature.
const API_DIRECTIVES: &[&str] = &[
    "function",
    "class",
    "method",
    "attribute",
    "data",
    "exception",
    "decorator",
    "module",
    "py:function",
    "py:class",
    "py:method",
    "js:function",
    "option",
    "envvar",
];

struct Reader<'a> {
    label: &'a str,
    /// Titles of the sections that hold the current line, outermost first, with their underline style.
    titles: Vec<(String, usize)>,
    /// Underline styles in the order the document first uses them: their level.
    styles: Vec<(char, bool)>,
    atoms: Vec<Atom>,
}

impl Reader<'_> {
    fn concept(&self) -> String {
        match self.titles.len() {
            0 => self.label.rsplit('/').next().unwrap_or(self.label).to_string(),
            1 => self.titles[0].0.clone(),
            n => format!("{} > {}", self.titles[n - 2].0, self.titles[n - 1].0),
        }
    }

    fn heading(&mut self, title: &str, level: usize) {
        self.titles.retain(|(_, l)| *l < level);
        self.titles.push((plain(title.trim_matches('#').trim()), level));
    }

    fn push(&mut self, kind: Kind, text: &str, line: usize) {
        let text = if kind == Kind::Example { text.trim_end().to_string() } else { plain(text) };
        if kind != Kind::Example && text.split_whitespace().count() < MIN_WORDS {
            return;
        }
        if kind == Kind::Example && text.trim().lines().count() < 2 && text.len() < 20 {
            return;
        }
        let concept = self.concept();
        // A paragraph that leads into the code ("And on the command line:") belongs to it.
        if kind == Kind::Example {
            if let Some(last) = self.atoms.last().filter(|a| a.kind != Kind::Example && a.concept == concept) {
                if last.text.ends_with(':') {
                    let lead = self.atoms.pop().map(|a| a.text).unwrap_or_default();
                    let text = clip(&format!("{lead}\n\n{text}"));
                    self.atoms.push(Atom { concept, kind, text, source: format!("{}:{line}", self.label) });
                    return;
                }
            }
        }
        self.atoms.push(Atom { concept, kind, text: clip(&text), source: format!("{}:{line}", self.label) });
    }

    fn paragraph(&mut self, lines: &[&str], line: usize) {
        let text = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        // Tables and link targets carry little that reads as knowledge.
        if text.starts_with('|') || text.starts_with("+-") || text.starts_with(".. _") || text.starts_with("[") {
            return;
        }
        // RST's `::` ends a lead-in as `:` does.
        let text = match text.strip_suffix("::") {
            Some(t) => format!("{}:", t.trim_end()),
            None => text,
        };
        self.push(paragraph_kind(&text), &text, line);
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines of the indented block that starts after `from` (blank lines kept inside it), and where it ends.
fn indented_block<'a>(lines: &[&'a str], from: usize, base: usize) -> (Vec<&'a str>, usize) {
    let mut i = from;
    let mut body = Vec::new();
    while i < lines.len() {
        let l = lines[i];
        if !l.trim().is_empty() && indent(l) <= base {
            break;
        }
        body.push(l);
        i += 1;
    }
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    (body, i)
}

/// The common indentation of `lines` removed.
fn dedent(lines: &[&str]) -> String {
    let n = lines.iter().filter(|l| !l.trim().is_empty()).map(|l| indent(l)).min().unwrap_or(0);
    lines.iter().map(|l| if l.len() >= n { &l[n..] } else { l.trim_start() }).collect::<Vec<_>>().join("\n")
}

/// The atoms of a document (`label` names it in each atom's source).
pub fn document(label: &str, text: &str) -> Vec<Atom> {
    let lines: Vec<&str> = text.lines().collect();
    let mut r = Reader { label, titles: vec![], styles: vec![], atoms: vec![] };
    let mut para: Vec<&str> = Vec::new();
    let mut para_line = 0;
    let mut i = 0;
    let flush = |r: &mut Reader, para: &mut Vec<&str>, at: usize| {
        if !para.is_empty() {
            r.paragraph(para, at);
            para.clear();
        }
    };
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        // Markdown fences.
        if t.starts_with("```") || t.starts_with("~~~") {
            flush(&mut r, &mut para, para_line);
            let fence = &t[..3];
            let start = i + 1;
            let mut j = start;
            while j < lines.len() && !lines[j].trim().starts_with(fence) {
                j += 1;
            }
            r.push(Kind::Example, &lines[start..j.min(lines.len())].join("\n"), start + 1);
            i = j + 1;
            continue;
        }
        // Markdown ATX headings.
        if let Some(rest) = t.strip_prefix('#') {
            let level = 1 + rest.chars().take_while(|c| *c == '#').count();
            let title = rest.trim_start_matches('#');
            if level <= 6 && title.starts_with(' ') && indent(line) == 0 {
                flush(&mut r, &mut para, para_line);
                r.heading(title, level);
                i += 1;
                continue;
            }
        }
        // RST overline + title + underline, or title + underline (also Markdown setext).
        if let Some(c) = underline(line) {
            if i + 2 < lines.len() && underline(lines[i + 2]) == Some(c) && !lines[i + 1].trim().is_empty() {
                flush(&mut r, &mut para, para_line);
                let level = style_level(&mut r.styles, (c, true));
                r.heading(lines[i + 1], level);
                i += 3;
                continue;
            }
            if para.len() == 1 && para[0].trim().chars().count() <= t.len() + 2 {
                let title = para[0];
                para.clear();
                let level = style_level(&mut r.styles, (c, false));
                r.heading(title, level);
                i += 1;
                continue;
            }
        }
        // RST directives.
        if let Some(rest) = t.strip_prefix(".. ") {
            if let Some((name, arg)) = rest.split_once("::") {
                flush(&mut r, &mut para, para_line);
                let name = name.trim();
                let base = indent(line);
                // Options of the directive (`:caption: x`) come first in its body.
                let (body, next) = indented_block(&lines, i + 1, base);
                let body: Vec<&str> =
                    body.into_iter().skip_while(|l| l.trim().starts_with(':') || l.trim().is_empty()).collect();
                if CODE_DIRECTIVES.contains(&name) {
                    r.push(Kind::Example, &dedent(&body), i + 2);
                } else if WARNING_DIRECTIVES.contains(&name) {
                    let text = format!("{} {}", arg.trim(), body.join(" "));
                    r.push(Kind::AntiPattern, &text, i + 1);
                } else if PROSE_DIRECTIVES.contains(&name) {
                    let text = format!("{} {}", arg.trim(), body.join(" "));
                    r.push(paragraph_kind(&text), &text, i + 1);
                } else if API_DIRECTIVES.contains(&name) && !arg.trim().is_empty() {
                    let signature = arg.trim();
                    let text = format!("{signature}: {}", body.join(" "));
                    let concept = signature.split('(').next().unwrap_or(signature).trim().to_string();
                    let before = std::mem::take(&mut r.titles);
                    r.titles = vec![(concept, 1)];
                    r.push(Kind::Api, &text, i + 1);
                    r.titles = before;
                }
                i = next;
                continue;
            }
        }
        // RST literal blocks: a paragraph ending in `::`, then an indented block.
        if t.is_empty() {
            let literal = para.last().is_some_and(|l| l.trim_end().ends_with("::"));
            flush(&mut r, &mut para, para_line);
            if literal {
                let j = (i + 1..lines.len()).find(|&j| !lines[j].trim().is_empty()).unwrap_or(lines.len());
                if j < lines.len() && indent(lines[j]) > 0 {
                    let (body, next) = indented_block(&lines, j, 0);
                    r.push(Kind::Example, &dedent(&body), j + 1);
                    i = next;
                    continue;
                }
            }
            i += 1;
            continue;
        }
        // Indented code in Markdown (four spaces after a blank line) is an example.
        if para.is_empty() && indent(line) >= 4 && i > 0 && lines[i - 1].trim().is_empty() && !t.starts_with(['-', '*'])
        {
            let (body, next) = indented_block(&lines, i, 3);
            r.push(Kind::Example, &dedent(&body), i + 1);
            i = next;
            continue;
        }
        if para.is_empty() {
            para_line = i + 1;
        }
        para.push(line);
        i += 1;
    }
    flush(&mut r, &mut para, para_line);
    r.atoms
}

/// The level of a heading style: the order in which the document first used it.
fn style_level(styles: &mut Vec<(char, bool)>, style: (char, bool)) -> usize {
    match styles.iter().position(|s| *s == style) {
        Some(i) => i + 1,
        None => {
            styles.push(style);
            styles.len()
        }
    }
}

/// The atoms of a source file: one `api` atom per public, documented
/// definition, its concept the qualified name and its text the signature and
/// doc comment. Tests and private helpers teach nothing about an API.
pub fn source_code(lang: Lang, label: &str, text: &str) -> Vec<Atom> {
    use nerd_logic::vocab::{SymbolKind, Visibility};
    if lang.is_test_path(label) {
        return vec![];
    }
    let Ok(projection) = crate::world::project::project_file(lang, label, text.as_bytes()) else { return vec![] };
    let lines: Vec<&str> = text.lines().collect();
    let mut atoms = Vec::new();
    for s in &projection.symbols {
        if s.visibility != Visibility::Public || matches!(s.kind, SymbolKind::Test | SymbolKind::Variable) {
            continue;
        }
        if s.name.starts_with('_') {
            continue;
        }
        let Some(doc) = crate::world::doc::comment(lang, &lines, s.line) else { continue };
        let concept = s.id.rsplit('#').next().unwrap_or(&s.name).to_string();
        let signature = s.signature.split_whitespace().collect::<Vec<_>>().join(" ");
        atoms.push(Atom {
            concept,
            kind: Kind::Api,
            text: clip(&format!("{signature}: {}", plain(&doc))),
            source: format!("{label}:{}", s.line),
        });
    }
    atoms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(atoms: &[Atom]) -> Vec<(String, Kind)> {
        atoms.iter().map(|a| (a.concept.clone(), a.kind)).collect()
    }

    #[test]
    fn markdown_sections_paragraphs_and_code() {
        let md = "# Retries\n\nThe client retries failed requests with exponential backoff and jitter.\n\n## Configuring\n\nSet `max_retries` on the client to change how many attempts are made.\n\n```python\nclient = Client(max_retries=5)\nclient.get(url)\n```\n\nDo not set a retry count above ten: servers will throttle you.\n";
        let atoms = document("docs/retries.md", md);
        assert_eq!(
            kinds(&atoms),
            vec![
                ("Retries".into(), Kind::Concept),
                ("Retries > Configuring".into(), Kind::Concept),
                ("Retries > Configuring".into(), Kind::Example),
                ("Retries > Configuring".into(), Kind::AntiPattern),
            ]
        );
        assert_eq!(atoms[1].text, "Set max_retries on the client to change how many attempts are made.");
        assert_eq!(atoms[2].source, "docs/retries.md:10");
    }

    #[test]
    fn rst_headings_roles_directives_and_literal_blocks() {
        let rst = "=======\nOptions\n=======\n\nAdding options to commands can be accomplished by the :func:`option` decorator.\n\nName Your Options\n-----------------\n\nThe name is chosen from the longest dashed name, for example::\n\n    @click.option('--count')\n    def f(count): ...\n\n.. warning::\n\n   Never read secrets from a plain option: use :func:`click.prompt` with hide_input.\n\n.. code-block:: python\n\n    click.echo('hi')\n    click.echo('there')\n\n.. function:: echo(message=None, file=None)\n\n   Prints a message plus a newline to the given file or stdout.\n";
        let atoms = document("docs/options.rst", rst);
        assert_eq!(
            kinds(&atoms),
            vec![
                ("Options".into(), Kind::Concept),
                ("Options > Name Your Options".into(), Kind::Example),
                ("Options > Name Your Options".into(), Kind::AntiPattern),
                ("Options > Name Your Options".into(), Kind::Example),
                ("echo".into(), Kind::Api),
            ]
        );
        assert_eq!(atoms[0].text, "Adding options to commands can be accomplished by the option decorator.");
        // The lead-in paragraph travels with its code.
        assert!(
            atoms[1].text.starts_with(
                "The name is chosen from the longest dashed name, for example:\n\n@click.option('--count')"
            ),
            "{}",
            atoms[1].text
        );
        assert!(atoms[4].text.starts_with("echo(message=None, file=None): Prints a message"));
    }

    #[test]
    fn short_lines_and_tables_are_not_knowledge() {
        let atoms = document("x.md", "# T\n\nSee below.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(atoms.is_empty(), "{atoms:?}");
    }

    #[test]
    fn public_documented_definitions_become_api_atoms() {
        let py = "def echo(message=None):\n    \"\"\"Print a message and a newline.\"\"\"\n\ndef _private():\n    \"\"\"Hidden helper.\"\"\"\n\ndef undocumented():\n    pass\n";
        let atoms = source_code(Lang::Python, "click/utils.py", py);
        assert_eq!(kinds(&atoms), vec![("echo".into(), Kind::Api)]);
        assert!(atoms[0].text.ends_with(": Print a message and a newline."), "{}", atoms[0].text);
        assert!(source_code(Lang::Python, "tests/test_utils.py", py).is_empty());
    }
}
