//! Writes an expansion: a transcriber with one match's bindings, or a known
//! test macro's items, as Rust source with the file row of every line it
//! copies from the invocation. Knows token trees, rules and bindings only.

use std::collections::HashMap;
use std::ops::Range;

use super::matcher::{Binds, Bound};
use super::rules::Out;
use super::tokens::{closing, TokenKind, Tt};
use super::MAX_EXPANSION;

/// The row of each byte of the file.
pub(super) struct RowIndex {
    line_starts: Vec<usize>,
}

impl RowIndex {
    pub fn new(source: &[u8]) -> RowIndex {
        let newlines = source.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1);
        RowIndex { line_starts: std::iter::once(0).chain(newlines).collect() }
    }

    fn row(&self, byte: usize) -> u32 {
        (self.line_starts.partition_point(|&s| s <= byte).saturating_sub(1)) as u32
    }
}

/// Writes an expansion and the file row of each line it copies.
pub(super) struct Writer<'s> {
    source: &'s [u8],
    row_index: &'s RowIndex,
    pub text: Vec<u8>,
    pub rows: Vec<Option<u32>>,
    /// Where the last copy from the file ended, while the writer is still after it.
    copied_to: Option<usize>,
}

impl<'s> Writer<'s> {
    pub fn new(source: &'s [u8], row_index: &'s RowIndex) -> Writer<'s> {
        Writer { source, row_index, text: Vec::new(), rows: vec![None], copied_to: None }
    }

    fn newline(&mut self, row: Option<u32>) {
        self.text.push(b'\n');
        self.rows.push(row);
    }

    /// Writes tokens of the macro itself.
    fn write(&mut self, word: &[u8]) {
        if self.copied_to.take().is_some() {
            self.newline(None);
        }
        self.text.extend_from_slice(word);
        self.text.push(b' ');
    }

    /// Copies the file's bytes `span`, on lines of their own (a copy that
    /// continues the last one keeps the file's text between them).
    fn copy(&mut self, span: Range<usize>) {
        if span.is_empty() {
            return;
        }
        let gap = self.copied_to.filter(|&end| end <= span.start).map(|end| &self.source[end..span.start]);
        let start = match gap {
            Some(gap) if gap.iter().all(u8::is_ascii_whitespace) => span.start - gap.len(),
            _ => {
                self.newline(None);
                span.start
            }
        };
        let mut row = self.row_index.row(start);
        if let Some(last) = self.rows.last_mut() {
            last.get_or_insert(row);
        }
        for &b in &self.source[start..span.end] {
            if b == b'\n' {
                row += 1;
                self.newline(Some(row));
            } else {
                self.text.push(b);
            }
        }
        self.copied_to = Some(span.end);
    }

    /// Writes a transcriber with the bindings of one match; `None` where a
    /// metavariable repeats at another depth than it was matched at.
    pub fn transcribe(&mut self, outs: &[Out], binds: &Binds) -> Option<()> {
        self.transcribe_in(outs, &Scope { binds: binds.iter().map(|(k, v)| (k.as_slice(), v)).collect(), outer: None })
    }

    fn transcribe_in(&mut self, outs: &[Out], scope: &Scope<'_>) -> Option<()> {
        for out in outs {
            if self.text.len() > MAX_EXPANSION {
                return None;
            }
            match out {
                Out::Text(word) => self.write(word),
                Out::Group(open, inner) => {
                    self.write(&[*open]);
                    self.transcribe_in(inner, scope)?;
                    self.write(&[closing(*open)]);
                }
                Out::Var(name) => match scope.get(name) {
                    Some(Bound::Tokens(span)) => self.copy(span.clone()),
                    Some(Bound::Repeated(_)) => return None,
                    // A `$` the macro writes as it is, such as one a nested macro_rules! reads.
                    None => {
                        self.write(b"$");
                        self.write(name);
                    }
                },
                Out::Repetition { body, separator } => {
                    let repeated: Vec<(&[u8], &Vec<Bound>)> = used_variables(body)
                        .into_iter()
                        .filter_map(|name| match scope.get(name) {
                            Some(Bound::Repeated(each)) => Some((name.as_slice(), each)),
                            _ => None,
                        })
                        .collect();
                    let rounds = repeated.iter().map(|(_, each)| each.len()).min()?;
                    for round in 0..rounds {
                        if round > 0 {
                            if let Some(sep) = separator {
                                self.write(sep);
                            }
                        }
                        let binds = repeated.iter().map(|(name, each)| (*name, &each[round])).collect();
                        self.transcribe_in(body, &Scope { binds, outer: Some(scope) })?;
                    }
                }
            }
        }
        Some(())
    }

    /// The known test macros' expansion: the invocation's items, each
    /// function among them marked a test.
    pub fn tests_of(&mut self, source: &[u8], tokens: &[Tt]) {
        let word = |t: &Tt| &source[t.span.clone()];
        let qualifier = |t: &Tt| {
            t.kind == TokenKind::Group(b'(') || matches!(word(t), b"pub" | b"async" | b"unsafe" | b"const" | b"extern")
        };
        let mut from = tokens.first().map_or(0, |t| t.span.start);
        for (i, t) in tokens.iter().enumerate() {
            if t.kind == TokenKind::Ident && word(t) == b"fn" {
                // `#[test]` goes before `pub`, `async` and the like.
                let first = tokens[..i].iter().rposition(|q| !qualifier(q)).map_or(0, |p| p + 1);
                let at = tokens[first].span.start.max(from);
                self.copy(from..at);
                self.write(b"#[test]");
                from = at;
            }
        }
        if let Some(last) = tokens.last() {
            self.copy(from..last.span.end);
        }
    }

    /// The paste crate's expansion: `tokens` as written, each `[< … >]` joined
    /// into one identifier (`[<parse_ $t:lower>]` with `U8` is `parse_u8`).
    pub fn pasted(&mut self, source: &[u8], tokens: &[Tt]) {
        let mut run: Option<Range<usize>> = None;
        for t in tokens {
            let pasted = joined(source, t);
            if pasted.is_none() && !holds_paste(source, t) {
                run = Some(run.map_or(t.span.clone(), |r| r.start..t.span.end));
                continue;
            }
            if let Some(r) = run.take() {
                self.copy(r);
            }
            match (pasted, t.kind) {
                (Some(ident), _) => self.write(ident.as_bytes()),
                (None, TokenKind::Group(open)) => {
                    self.write(&[open]);
                    self.pasted(source, &t.children);
                    self.write(&[closing(open)]);
                }
                (None, _) => self.copy(t.span.clone()),
            }
        }
        if let Some(r) = run {
            self.copy(r);
        }
    }
}

/// A `[< … >]` group's identifier: its words and literals joined, `:lower`
/// and `:upper` applied to the word before them.
fn joined(source: &[u8], t: &Tt) -> Option<String> {
    let inner = match (t.kind, t.children.first(), t.children.last()) {
        (TokenKind::Group(b'['), Some(first), Some(last))
            if t.children.len() >= 3 && &source[first.span.clone()] == b"<" && &source[last.span.clone()] == b">" =>
        {
            &t.children[1..t.children.len() - 1]
        }
        _ => return None,
    };
    let mut out = String::new();
    let mut last_start = 0;
    let mut i = 0;
    while i < inner.len() {
        let word = String::from_utf8_lossy(&source[inner[i].span.clone()]).into_owned();
        match (inner[i].kind, word.as_str(), inner.get(i + 1)) {
            (TokenKind::Punct, ":", Some(modifier)) => {
                let segment = out.split_off(last_start);
                out.push_str(&match &source[modifier.span.clone()] {
                    b"lower" => segment.to_lowercase(),
                    b"upper" => segment.to_uppercase(),
                    _ => segment,
                });
                i += 2;
                continue;
            }
            (TokenKind::Ident, _, _) => {
                last_start = out.len();
                out.push_str(&word);
            }
            (TokenKind::Literal, _, _) => {
                last_start = out.len();
                out.push_str(word.trim_matches('"'));
            }
            _ => return None,
        }
        i += 1;
    }
    (!out.is_empty()).then_some(out)
}

/// Whether a token tree holds a `[< … >]` group.
fn holds_paste(source: &[u8], t: &Tt) -> bool {
    t.children.iter().any(|c| joined(source, c).is_some() || holds_paste(source, c))
}

/// The bindings a transcriber sees: one round of each repetition it is
/// inside, over the match's own.
struct Scope<'b> {
    binds: HashMap<&'b [u8], &'b Bound>,
    outer: Option<&'b Scope<'b>>,
}

impl Scope<'_> {
    fn get(&self, name: &[u8]) -> Option<&Bound> {
        self.binds.get(name).copied().or_else(|| self.outer?.get(name))
    }
}

/// The metavariables a transcriber uses.
fn used_variables(outs: &[Out]) -> Vec<&Vec<u8>> {
    let mut names = Vec::new();
    for out in outs {
        match out {
            Out::Var(name) => names.push(name),
            Out::Group(_, inner) | Out::Repetition { body: inner, .. } => names.extend(used_variables(inner)),
            Out::Text(_) => {}
        }
    }
    names
}
