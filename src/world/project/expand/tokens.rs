//! Reads Rust source into token trees: identifiers, lifetimes, literals,
//! punctuation and delimited groups, each with its bytes in the file. Knows
//! Rust's lexical grammar only.

use std::ops::Range;

/// A token tree: a token, or a delimited group of them.
#[derive(Debug)]
pub(in crate::world::project) struct Tt {
    pub kind: TokenKind,
    /// Bytes in the file, delimiters included.
    pub span: Range<usize>,
    pub children: Vec<Tt>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::world::project) enum TokenKind {
    Ident,
    Lifetime,
    Literal,
    Punct,
    /// A group, by its opening delimiter.
    Group(u8),
}

/// Punctuation read as one token, longest first.
const PUNCTS: &[&str] = &[
    "...", "..=", "<<=", ">>=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "..", "+=", "-=", "*=", "/=",
    "%=", "^=", "&=", "|=", "<<", ">>",
];

/// The token trees of `source[range]`; `None` where delimiters do not balance.
pub(in crate::world::project) fn tokenize(source: &[u8], range: Range<usize>) -> Option<Vec<Tt>> {
    let mut stack: Vec<(u8, usize, Vec<Tt>)> = vec![(0, range.start, Vec::new())];
    let end = range.end.min(source.len());
    let mut i = range.start;
    while i < end {
        let b = source[i];
        let start = i;
        let kind = match b {
            _ if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'/' if source.get(i + 1) == Some(&b'/') => {
                i = source[i..end].iter().position(|&c| c == b'\n').map_or(end, |n| i + n);
                continue;
            }
            b'/' if source.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(source, i, end);
                continue;
            }
            b'(' | b'[' | b'{' => {
                stack.push((b, i, Vec::new()));
                i += 1;
                continue;
            }
            b')' | b']' | b'}' => {
                let (open, at, children) = stack.pop()?;
                if open != opening(b) {
                    return None;
                }
                i += 1;
                stack.last_mut()?.2.push(Tt { kind: TokenKind::Group(open), span: at..i, children });
                continue;
            }
            b'"' => {
                i = string_end(source, i + 1, end);
                TokenKind::Literal
            }
            b'\'' => {
                let (next, kind) = quote_end(source, i, end);
                i = next;
                kind
            }
            b'0'..=b'9' => {
                i += 1;
                while i < end
                    && (source[i].is_ascii_alphanumeric()
                        || source[i] == b'_'
                        || (source[i] == b'.' && source.get(i + 1).is_some_and(u8::is_ascii_digit)))
                {
                    i += 1;
                }
                TokenKind::Literal
            }
            _ if b == b'_' || b.is_ascii_alphabetic() || b >= 0x80 => {
                while i < end && (source[i] == b'_' || source[i].is_ascii_alphanumeric() || source[i] >= 0x80) {
                    i += 1;
                }
                match prefixed_literal_end(source, start, i, end) {
                    Some(next) => {
                        i = next;
                        TokenKind::Literal
                    }
                    None => TokenKind::Ident,
                }
            }
            _ => {
                let rest = &source[i..end];
                i += PUNCTS.iter().find(|p| rest.starts_with(p.as_bytes())).map_or(1, |p| p.len());
                TokenKind::Punct
            }
        };
        stack.last_mut()?.2.push(Tt { kind, span: start..i.min(end), children: Vec::new() });
    }
    let (_, _, top) = stack.pop()?;
    stack.is_empty().then_some(top)
}

fn opening(close: u8) -> u8 {
    match close {
        b')' => b'(',
        b']' => b'[',
        _ => b'{',
    }
}

pub(super) fn closing(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

/// The end of a (nested) block comment starting at `i`.
fn block_comment_end(source: &[u8], mut i: usize, end: usize) -> usize {
    let mut depth = 0u32;
    while i + 1 < end {
        match (source[i], source[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    end
}

/// The end of a string whose contents start at `i` (after the quote).
fn string_end(source: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match source[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    end
}

/// A quote starts a character literal (`'a'`, `'\n'`) or a lifetime (`'a`).
fn quote_end(source: &[u8], i: usize, end: usize) -> (usize, TokenKind) {
    if source.get(i + 1) == Some(&b'\\') {
        // The escaped character (a quote in `'\''`) never closes the literal.
        let from = (i + 3).min(end);
        let close = source[from..end].iter().position(|&c| c == b'\'').map_or(end, |n| from + n + 1);
        return (close, TokenKind::Literal);
    }
    // One character, however many bytes it takes, then a closing quote.
    let width = source.get(i + 1).map_or(1, |&b| utf8_width(b));
    if source.get(i + 1 + width) == Some(&b'\'') {
        return (i + 2 + width, TokenKind::Literal);
    }
    let mut j = i + 1;
    while j < end && (source[j] == b'_' || source[j].is_ascii_alphanumeric() || source[j] >= 0x80) {
        j += 1;
    }
    (j.max(i + 1), TokenKind::Lifetime)
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// Where a literal that starts with letters ends: `b"…"`, `r#"…"#`,
/// `br"…"`, `c"…"`, `b'x'`; `None` for an identifier (`r#type` included).
fn prefixed_literal_end(source: &[u8], start: usize, ident_end: usize, end: usize) -> Option<usize> {
    let prefix = &source[start..ident_end];
    let next = source.get(ident_end).copied();
    let raw = matches!(prefix, b"r" | b"br" | b"cr");
    if raw && matches!(next, Some(b'"' | b'#')) {
        let hashes = source[ident_end..end].iter().take_while(|&&c| c == b'#').count();
        let open = ident_end + hashes;
        if source.get(open) != Some(&b'"') {
            return None; // `r#ident`
        }
        let mut closing = vec![b'"'];
        closing.extend(std::iter::repeat_n(b'#', hashes));
        let body = &source[open + 1..end];
        let close = body.windows(closing.len()).position(|w| w == closing.as_slice())?;
        return Some(open + 1 + close + closing.len());
    }
    match (prefix, next) {
        (b"b" | b"c", Some(b'"')) => Some(string_end(source, ident_end + 1, end)),
        (b"b", Some(b'\'')) => Some(quote_end(source, ident_end, end).0),
        _ => None,
    }
}
