//! Reads the calls that Rust macro tokens hold, which the grammar keeps
//! unparsed: an invocation's arguments (`assert!(x.is_ok())`) and a
//! `macro_rules!` transcriber, what the macro expands to (`$crate` read as
//! `crate`, a metavariable as a name of no function). Each call found is
//! placed where the tokens start, on its own line: an invocation's calls
//! belong to the code around it, a transcriber's to the macro. Knows one
//! file's syntax only.

use std::collections::HashSet;

use tree_sitter::{Node, Query, QueryCursor, StreamingIterator};

use super::expand::tokens::{tokenize, TokenKind, Tt};
use super::{compact, parse, CallForm, CallSite, Roles};
use crate::world::lang::{GrammarError, Lang};
use crate::world::locals::Locals;

/// How deep macro tokens are read inside macro tokens.
const MACRO_DEPTH: u32 = 3;

/// What a token tree is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Tokens {
    /// A macro invocation's arguments, read as the arguments of a call.
    Arguments,
    /// A `macro_rules!` rule's right-hand side, read as a block.
    Transcriber,
}

/// Reads macro tokens with one language's query.
pub(super) struct Reader<'q> {
    pub lang: Lang,
    pub query: &'q Query,
    pub roles: &'q Roles,
}

impl Reader<'_> {
    /// The calls in the token tree `tokens`.
    pub fn calls(
        &self,
        kind: Tokens,
        tokens: Node<'_>,
        source: &[u8],
        locals: &mut Locals<'_, '_>,
        out: &mut Vec<CallSite>,
    ) -> Result<(), GrammarError> {
        let at = (tokens.start_byte(), tokens.start_position().row as u32);
        match kind {
            Tokens::Arguments => self.read(kind, (&source[tokens.byte_range()], at), 0, None, locals, out),
            Tokens::Transcriber => {
                let (text, metavariables) = transcribed(&source[tokens.byte_range()]);
                self.read(kind, (&text, at), 0, Some(&metavariables), locals, out)
            }
        }
    }

    /// Reads `text` (a token tree with its delimiters, found at byte `at` and
    /// row `first_row` of the file: nested tokens keep the outermost's place)
    /// at `depth`; `transcriber` holds the metavariables of the transcriber
    /// the text is in, if it is in one.
    fn read(
        &self,
        kind: Tokens,
        (text, (at, first_row)): (&[u8], (usize, u32)),
        depth: u32,
        transcriber: Option<&HashSet<String>>,
        locals: &mut Locals<'_, '_>,
        out: &mut Vec<CallSite>,
    ) -> Result<(), GrammarError> {
        if depth >= MACRO_DEPTH || text.len() < 3 || text.contains(&b'$') {
            return Ok(());
        }
        // Arguments with no parenthesis hold no call, with no `!` no macro and
        // with no brace no struct literal (`assert!(a == b)`, `vec![x; n]`,
        // `criterion_group!(benches, parse, print)`): what they can name is a
        // function handed on by name, read off the tokens without a parse.
        let inner = &text[1..text.len() - 1];
        if kind == Tokens::Arguments && !inner.iter().any(|b| matches!(b, b'(' | b'!' | b'{')) {
            named_arguments(inner, (at, first_row), locals, out);
            return Ok(());
        }
        // A tt-muncher's state (`0 $stack $bail (…)`) is no code: the parser's
        // error recovery costs it a hundred times a parse, and reads nothing.
        if transcriber.is_some() && kind == Tokens::Arguments && !could_be_expressions(inner) {
            return Ok(());
        }
        let (prefix, suffix): (&[u8], &[u8]) = match kind {
            Tokens::Arguments => (b"fn m(){f(", b");}"),
            Tokens::Transcriber => (b"fn m(){", b"\n}"),
        };
        let mut wrapped = Vec::with_capacity(text.len() + 16);
        wrapped.extend_from_slice(prefix);
        wrapped.extend_from_slice(inner);
        wrapped.extend_from_slice(suffix);
        let Some(tree) = parse(self.lang, &wrapped)? else { return Ok(()) };
        let mut nested = Vec::new();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(self.query, tree.root_node(), wrapped.as_slice());
        while let Some(m) = matches.next() {
            let mut found = self.roles.read(m);
            nested.append(&mut found.macros);
            // The wrapper's own `f(...)` call is not in the source.
            let Some(call) = found.call_site(&wrapped, first_row).filter(|c| c.at >= prefix.len()) else { continue };
            // A metavariable stands for tokens the caller writes, never for a function here.
            if transcriber.is_some_and(|names| names.contains(&call.name)) {
                continue;
            }
            // The macro stands in the function that binds the names its arguments use.
            if call.form == CallForm::Reference && call.qualifier.is_none() && locals.binds(at, &call.name) {
                continue;
            }
            out.push(CallSite { at, node_id: None, ..call });
        }
        for node in nested {
            let row = first_row + node.start_position().row as u32;
            let inner = (&wrapped[node.byte_range()], (at, row));
            self.read(Tokens::Arguments, inner, depth + 1, transcriber, locals, out)?;
        }
        Ok(())
    }
}

/// Whether tokens could be expressions: no two words (names or literals,
/// keywords aside) stand side by side at their top level. Groups are not
/// looked into: `paste!`'s `[<name _ $t>]` pastes words together inside one.
fn could_be_expressions(text: &[u8]) -> bool {
    let keyword = |w: &[u8]| {
        std::str::from_utf8(w).is_ok_and(|w| Lang::Rust.keywords().contains(&w) || RESERVED_AND_WEAK.contains(&w))
    };
    let word = |t: &Tt| matches!(t.kind, TokenKind::Ident | TokenKind::Literal) && !keyword(&text[t.span.clone()]);
    tokenize(text, 0..text.len()).is_none_or(|tokens| tokens.windows(2).all(|pair| !(word(&pair[0]) && word(&pair[1]))))
}

/// Rust's reserved and weak keywords, beyond `Lang::keywords`: a word beside one may be code too.
const RESERVED_AND_WEAK: &[&str] = &[
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "virtual",
    "try",
    "union",
    "macro_rules",
    "raw",
    "safe",
    "default",
    "auto",
];

/// The arguments of a macro that are a name or a path alone (`parse`,
/// `Error::msg`): functions the macro may call, as a call's arguments are.
fn named_arguments(inner: &[u8], (at, first_row): (usize, u32), locals: &mut Locals<'_, '_>, out: &mut Vec<CallSite>) {
    let Some(tokens) = tokenize(inner, 0..inner.len()) else { return };
    let word = |t: &Tt| &inner[t.span.clone()];
    for argument in tokens.split(|t| t.kind == TokenKind::Punct && matches!(word(t), b"," | b";")) {
        // A name, or names joined by `::`.
        let is_path = !argument.is_empty()
            && argument.len() % 2 == 1
            && argument.iter().enumerate().all(|(i, t)| match i % 2 {
                0 => t.kind == TokenKind::Ident,
                _ => word(t) == b"::",
            });
        let Some(last) = argument.last().filter(|_| is_path) else { continue };
        let name = String::from_utf8_lossy(word(last)).into_owned();
        if matches!(name.as_str(), "true" | "false" | "self" | "Self" | "crate" | "super") {
            continue;
        }
        let qualifier = (argument.len() > 1).then(|| {
            let path = &inner[argument[0].span.start..argument[argument.len() - 2].span.end];
            compact(&String::from_utf8_lossy(path), 80)
        });
        if qualifier.is_none() && locals.binds(at, &name) {
            continue;
        }
        let line = first_row + 1 + inner[..last.span.start].iter().filter(|&&b| b == b'\n').count() as u32;
        out.push(CallSite { at, line, node_id: None, name, qualifier, form: CallForm::Reference });
    }
}

/// A transcriber's tokens as Rust source of the same length, and the names
/// its metavariables became: `$crate` reads ` crate`, a metavariable `$name`
/// reads `_name`, and a repetition `$( … ),*` reads `   … ,  `: its
/// delimiters and operator are blanked, because a token tree the parser cannot read costs it hundreds
/// of times what one it can read does (error recovery), and yields less.
fn transcribed(tokens: &[u8]) -> (Vec<u8>, HashSet<String>) {
    let mut text = tokens.to_vec();
    let mut metavariables = HashSet::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'$' {
            i += 1;
            continue;
        }
        if tokens.get(i + 1) == Some(&b'(') {
            text[i] = b' ';
            if let Some((close, operator)) = repetition(tokens, i + 1) {
                for j in [i + 1, close, operator] {
                    text[j] = b' ';
                }
            }
            i += 1;
            continue;
        }
        let name_end = text[i + 1..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .map_or(text.len(), |n| i + 1 + n);
        let name = &tokens[i + 1..name_end];
        if name == b"crate" || name.is_empty() {
            text[i] = b' ';
        } else {
            text[i] = b'_';
            metavariables.insert(format!("_{}", String::from_utf8_lossy(name)));
        }
        i = name_end.max(i + 1);
    }
    (text, metavariables)
}

/// Where the `)` and the operator (`*`, `+`, `?`) of the repetition whose
/// `(` is at `open` stand: the operator right after the `)` or after a
/// one-character separator.
fn repetition(tokens: &[u8], open: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let close = (open..tokens.len()).find(|&j| {
        match tokens[j] {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        depth == 0
    })?;
    let is_operator = |j: usize| tokens.get(j).is_some_and(|b| matches!(b, b'*' | b'+' | b'?'));
    let operator = [close + 1, close + 2].into_iter().find(|&j| is_operator(j))?;
    Some((close, operator))
}

#[cfg(test)]
mod tests {
    use super::{could_be_expressions, transcribed};

    #[test]
    fn a_transcriber_reads_as_source_of_the_same_length() {
        let (text, names) = transcribed(b"{ $crate::f($e, $($rest),*) }");
        assert_eq!(String::from_utf8(text).unwrap(), "{  crate::f(_e,   _rest , ) }");
        assert_eq!(names, ["_e".to_string(), "_rest".to_string()].into_iter().collect());
        let (text, _) = transcribed(b"{ $( verify($e); )* 0 $(+ $x)* }");
        assert_eq!(String::from_utf8(text).unwrap(), "{    verify(_e);    0   + _x   }");
    }

    #[test]
    fn a_tt_munchers_state_is_no_expression() {
        for code in
            ["(a.b(c), d)", "(x as u8, move |y| y + 1)", "({ let mut v = vec![]; v })", "(b\"x\", 'a', &'a str)"]
        {
            assert!(could_be_expressions(code.as_bytes()), "{code}");
        }
        assert!(could_be_expressions(b"quickcheck! { fn [<parses_ _t:lower>](value: _t) -> bool { true } }"));
        for state in ["0 _stack _bail (_fuel) {(_buf _deref) _parse}", "a b", "1 2"] {
            assert!(!could_be_expressions(state.as_bytes()), "{state}");
        }
    }
}
