//! Matches an invocation's token trees against a rule's matcher, binding
//! each metavariable to the bytes it took (once per round of a repetition).
//! Fragments the grammar parses end where their follow set allows. Knows
//! token trees and rules only.

use std::collections::HashMap;
use std::ops::Range;

use super::rules::{Fragment, Pat, Repeat};
use super::tokens::{TokenKind, Tt};

/// Steps one invocation may take to match a rule before it is given up.
const MATCH_BUDGET: u32 = 200_000;

/// What a metavariable matched: file bytes, or one binding per repetition.
#[derive(Clone, Debug)]
pub(super) enum Bound {
    Tokens(Range<usize>),
    Repeated(Vec<Bound>),
}

pub(super) type Binds = HashMap<Vec<u8>, Bound>;

pub(super) struct Matcher<'s> {
    source: &'s [u8],
    budget: u32,
}

impl<'s> Matcher<'s> {
    pub fn new(source: &'s [u8]) -> Matcher<'s> {
        Matcher { source, budget: MATCH_BUDGET }
    }

    /// Matches `pats` against all of `tokens`.
    pub fn whole(&mut self, pats: &[Pat], tokens: &[Tt]) -> Option<Binds> {
        self.prefix(pats, tokens, true).map(|(_, binds)| binds)
    }

    /// Matches `pats` against a prefix of `tokens` (all of them when
    /// `to_end`): the first way that works, longest repetitions first.
    fn prefix(&mut self, pats: &[Pat], tokens: &[Tt], to_end: bool) -> Option<(usize, Binds)> {
        self.budget = self.budget.checked_sub(1)?;
        let Some((first, rest)) = pats.split_first() else {
            return (!to_end || tokens.is_empty()).then(|| (0, Binds::new()));
        };
        if let Pat::Repetition { body, separator, repeat } = first {
            let (ends, rounds) = self.rounds(body, separator.as_deref(), *repeat, tokens);
            let least = usize::from(*repeat == Repeat::OneOrMore);
            for n in (least..=rounds.len()).rev() {
                if let Some((more, rest_binds)) = self.prefix(rest, &tokens[ends[n]..], to_end) {
                    let mut binds = repeated(body, &rounds[..n]);
                    binds.extend(rest_binds);
                    return Some((ends[n] + more, binds));
                }
                if self.budget == 0 {
                    return None;
                }
            }
            return None;
        }
        for (used, mut binds) in self.one(first, tokens) {
            if let Some((more, rest_binds)) = self.prefix(rest, &tokens[used..], to_end) {
                binds.extend(rest_binds);
                return Some((used + more, binds));
            }
            if self.budget == 0 {
                return None;
            }
        }
        None
    }

    /// The ways one pattern other than a repetition can match at the start
    /// of `tokens`, most tokens first.
    fn one(&mut self, pat: &Pat, tokens: &[Tt]) -> Vec<(usize, Binds)> {
        let text = |t: &Tt| &self.source[t.span.clone()];
        match pat {
            Pat::Token(word) => match tokens.first() {
                Some(t) if !matches!(t.kind, TokenKind::Group(_)) && text(t) == word.as_slice() => {
                    vec![(1, Binds::new())]
                }
                _ => Vec::new(),
            },
            Pat::Group(open, inner) => match tokens.first() {
                Some(t) if t.kind == TokenKind::Group(*open) => {
                    self.whole(inner, &t.children).map(|binds| (1, binds)).into_iter().collect()
                }
                _ => Vec::new(),
            },
            Pat::Var(name, fragment) => fragment_lengths(self.source, *fragment, tokens)
                .into_iter()
                .map(|n| {
                    let span = match (tokens.first(), n) {
                        (Some(first), 1..) => first.span.start..tokens[n - 1].span.end,
                        _ => 0..0,
                    };
                    (n, Binds::from([(name.clone(), Bound::Tokens(span))]))
                })
                .collect(),
            Pat::Repetition { .. } => Vec::new(),
        }
    }

    /// A repetition matched as many times as it can: where each round ends
    /// (`ends[n]` after `n` rounds) and each round's bindings.
    fn rounds(
        &mut self,
        body: &[Pat],
        separator: Option<&[u8]>,
        repeat: Repeat,
        tokens: &[Tt],
    ) -> (Vec<usize>, Vec<Binds>) {
        let mut ends = vec![0usize];
        let mut rounds: Vec<Binds> = Vec::new();
        let mut at = 0;
        while repeat != Repeat::AtMostOnce || rounds.is_empty() {
            let mut start = at;
            if let (Some(sep), false) = (separator, rounds.is_empty()) {
                match tokens.get(at) {
                    Some(t) if &self.source[t.span.clone()] == sep => start += 1,
                    _ => break,
                }
            }
            match self.prefix(body, &tokens[start..], false) {
                Some((used, binds)) if used > 0 => {
                    at = start + used;
                    ends.push(at);
                    rounds.push(binds);
                }
                _ => break,
            }
        }
        (ends, rounds)
    }
}

/// The bindings of a repetition's `rounds`: each name its body binds, once per round.
fn repeated(body: &[Pat], rounds: &[Binds]) -> Binds {
    variables(body)
        .into_iter()
        .map(|name| {
            let each = rounds.iter().filter_map(|b| b.get(&name).cloned()).collect();
            (name, Bound::Repeated(each))
        })
        .collect()
}

/// The names a matcher binds.
fn variables(pats: &[Pat]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for p in pats {
        match p {
            Pat::Var(name, _) => out.push(name.clone()),
            Pat::Group(_, inner) | Pat::Repetition { body: inner, .. } => out.extend(variables(inner)),
            Pat::Token(_) => {}
        }
    }
    out
}

/// How many tokens a fragment can take at the start of `tokens`, most first.
/// Fragments the grammar parses (an expression, a type) end where a token
/// their follow set allows appears outside brackets.
fn fragment_lengths(source: &[u8], fragment: Fragment, tokens: &[Tt]) -> Vec<usize> {
    let text = |t: &Tt| &source[t.span.clone()];
    let Some(first) = tokens.first() else {
        return if fragment == Fragment::Vis { vec![0] } else { Vec::new() };
    };
    let is = |kind: TokenKind| first.kind == kind;
    let until = |stop: &dyn Fn(&Tt) -> bool| {
        let n = tokens.iter().position(stop).unwrap_or(tokens.len());
        if n == 0 {
            Vec::new()
        } else {
            vec![n]
        }
    };
    let word_in = |t: &Tt, words: &[&[u8]]| !matches!(t.kind, TokenKind::Group(_)) && words.contains(&text(t));
    match fragment {
        Fragment::Tt => vec![1],
        Fragment::Ident if is(TokenKind::Ident) => vec![1],
        Fragment::Lifetime if is(TokenKind::Lifetime) => vec![1],
        Fragment::Literal if is(TokenKind::Literal) || word_in(first, &[b"true", b"false"]) => vec![1],
        Fragment::Literal if text(first) == b"-" && tokens.get(1).is_some_and(|t| t.kind == TokenKind::Literal) => {
            vec![2]
        }
        Fragment::Block if is(TokenKind::Group(b'{')) => vec![1],
        Fragment::Vis if text(first) == b"pub" => match tokens.get(1) {
            Some(t) if t.kind == TokenKind::Group(b'(') => vec![2, 1],
            _ => vec![1],
        },
        Fragment::Vis => vec![0],
        Fragment::Expr | Fragment::Meta => until(&|t| word_in(t, &[b",", b";", b"=>"])),
        Fragment::Stmt => until(&|t| word_in(t, &[b";", b"=>"])),
        Fragment::Pat => until(&|t| word_in(t, &[b",", b"=>", b"=", b"|", b"if", b"in"])),
        Fragment::Item => {
            let end = tokens.iter().position(|t| t.kind == TokenKind::Group(b'{') || text(t) == b";");
            end.map_or_else(|| vec![tokens.len()], |n| vec![n + 1])
        }
        Fragment::Ty => {
            let mut depth = 0i32;
            let n = tokens
                .iter()
                .position(|t| {
                    match text(t) {
                        b"<" => depth += 1,
                        b">" if depth > 0 => depth -= 1,
                        b">>" if depth > 1 => depth -= 2,
                        _ => {}
                    }
                    depth == 0
                        && (t.kind == TokenKind::Group(b'{')
                            || word_in(t, &[b",", b";", b"=>", b"=", b"|", b":", b">", b">>", b"as", b"where"]))
                })
                .unwrap_or(tokens.len());
            if n == 0 {
                Vec::new()
            } else {
                vec![n]
            }
        }
        Fragment::Ident | Fragment::Lifetime | Fragment::Literal | Fragment::Block => Vec::new(),
    }
}
