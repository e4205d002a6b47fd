//! Reads a `macro_rules!` definition into rules: each matcher as patterns
//! (tokens, groups, metavariables with their fragment specifiers,
//! repetitions) and each transcriber as output. Knows token trees only.

use tree_sitter::Node;

use super::super::names_a_test;
use super::tokens::{closing, tokenize, TokenKind, Tt};

/// One rule of a `macro_rules!` macro.
#[derive(Debug)]
pub(super) struct Rule {
    pub matcher: Vec<Pat>,
    pub transcriber: Vec<Out>,
    /// Whether the transcriber writes a test (`#[test]`, `#[tokio::test]`,
    /// `#[quickcheck]`…) or a `macro_rules!` macro.
    pub defines_tests_or_macros: bool,
}

/// The rules of a `macro_rules!` definition that read as patterns.
pub(super) fn rules(definition: Node<'_>, source: &[u8]) -> Vec<Rule> {
    let mut cursor = definition.walk();
    let rules = definition.named_children(&mut cursor).filter(|n| n.kind() == "macro_rule");
    rules
        .filter_map(|rule| {
            let inside = |n: Node<'_>| tokenize(source, n.start_byte() + 1..n.end_byte().saturating_sub(1));
            let matcher = inside(rule.child_by_field_name("left")?)?;
            let transcriber = inside(rule.child_by_field_name("right")?)?;
            let transcriber = outputs(source, &transcriber);
            let defines = defines_tests_or_macros(&transcriber);
            Some(Rule { matcher: patterns(source, &matcher)?, transcriber, defines_tests_or_macros: defines })
        })
        .collect()
}

/// A fragment specifier: what a metavariable matches.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Fragment {
    Tt,
    Ident,
    Lifetime,
    Literal,
    Block,
    Expr,
    Ty,
    Pat,
    Stmt,
    Item,
    Meta,
    Vis,
}

impl Fragment {
    fn parse(word: &[u8]) -> Option<Fragment> {
        Some(match word {
            b"tt" => Fragment::Tt,
            b"ident" => Fragment::Ident,
            b"lifetime" => Fragment::Lifetime,
            b"literal" => Fragment::Literal,
            b"block" => Fragment::Block,
            b"expr" | b"expr_2021" => Fragment::Expr,
            b"ty" | b"path" => Fragment::Ty,
            b"pat" | b"pat_param" => Fragment::Pat,
            b"stmt" => Fragment::Stmt,
            b"item" => Fragment::Item,
            b"meta" => Fragment::Meta,
            b"vis" => Fragment::Vis,
            _ => return None,
        })
    }
}

/// How often a repetition repeats.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Repeat {
    ZeroOrMore,
    OneOrMore,
    AtMostOnce,
}

impl Repeat {
    fn parse(op: &[u8]) -> Option<Repeat> {
        match op {
            b"*" => Some(Repeat::ZeroOrMore),
            b"+" => Some(Repeat::OneOrMore),
            b"?" => Some(Repeat::AtMostOnce),
            _ => None,
        }
    }
}

/// One element of a matcher.
#[derive(Debug)]
pub(super) enum Pat {
    /// A token written as it must appear.
    Token(Vec<u8>),
    Group(u8, Vec<Pat>),
    Var(Vec<u8>, Fragment),
    Repetition {
        body: Vec<Pat>,
        separator: Option<Vec<u8>>,
        repeat: Repeat,
    },
}

/// A matcher's tokens as patterns; `None` for a form this reader does not know.
fn patterns(source: &[u8], tokens: &[Tt]) -> Option<Vec<Pat>> {
    let text = |t: &Tt| source[t.span.clone()].to_vec();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if let TokenKind::Group(open) = t.kind {
            out.push(Pat::Group(open, patterns(source, &t.children)?));
            i += 1;
            continue;
        }
        if &source[t.span.clone()] != b"$" {
            out.push(Pat::Token(text(t)));
            i += 1;
            continue;
        }
        match tokens.get(i + 1) {
            Some(group) if group.kind == TokenKind::Group(b'(') => {
                let body = patterns(source, &group.children)?;
                let (separator, repeat, used) = repetition_tail(source, &tokens[i + 2..])?;
                out.push(Pat::Repetition { body, separator, repeat });
                i += 2 + used;
            }
            Some(name) if name.kind == TokenKind::Ident => {
                let colon = tokens.get(i + 2).filter(|c| &source[c.span.clone()] == b":")?;
                let kind = tokens.get(i + 3).filter(|_| colon.kind == TokenKind::Punct)?;
                out.push(Pat::Var(text(name), Fragment::parse(&source[kind.span.clone()])?));
                i += 4;
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A repetition's separator and operator after `$( … )`, and how many tokens they take.
fn repetition_tail(source: &[u8], rest: &[Tt]) -> Option<(Option<Vec<u8>>, Repeat, usize)> {
    let first = rest.first()?;
    let word = &source[first.span.clone()];
    if let Some(repeat) = Repeat::parse(word) {
        return Some((None, repeat, 1));
    }
    let repeat = Repeat::parse(&source[rest.get(1)?.span.clone()])?;
    Some((Some(word.to_vec()), repeat, 2))
}

/// One element of a transcriber.
#[derive(Debug)]
pub(super) enum Out {
    Text(Vec<u8>),
    Group(u8, Vec<Out>),
    Var(Vec<u8>),
    Repetition { body: Vec<Out>, separator: Option<Vec<u8>> },
}

fn outputs(source: &[u8], tokens: &[Tt]) -> Vec<Out> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let word = &source[t.span.clone()];
        if let TokenKind::Group(open) = t.kind {
            out.push(Out::Group(open, outputs(source, &t.children)));
            i += 1;
            continue;
        }
        match (word, tokens.get(i + 1)) {
            (b"$", Some(group)) if group.kind == TokenKind::Group(b'(') => {
                let (separator, _, used) =
                    repetition_tail(source, &tokens[i + 2..]).unwrap_or((None, Repeat::ZeroOrMore, 0));
                out.push(Out::Repetition { body: outputs(source, &group.children), separator });
                i += 2 + used;
            }
            (b"$", Some(name)) if name.kind == TokenKind::Ident => {
                let name = &source[name.span.clone()];
                out.push(if name == b"crate" { Out::Text(b"crate".to_vec()) } else { Out::Var(name.to_vec()) });
                i += 2;
            }
            _ => {
                out.push(Out::Text(word.to_vec()));
                i += 1;
            }
        }
    }
    out
}

/// Whether transcriber output writes a test attribute or a `macro_rules!` macro.
fn defines_tests_or_macros(outs: &[Out]) -> bool {
    outs.iter().enumerate().any(|(i, out)| match out {
        Out::Text(word) => {
            word.as_slice() == b"macro_rules"
                || (word.as_slice() == b"#"
                    && matches!(outs.get(i + 1), Some(Out::Group(b'[', inner)) if names_a_test(&written(inner))))
        }
        Out::Group(_, inner) | Out::Repetition { body: inner, .. } => defines_tests_or_macros(inner),
        Out::Var(_) => false,
    })
}

/// Transcriber output as text, for the projection's own test of an
/// attribute: its words and groups, metavariables and repetitions left out.
fn written(outs: &[Out]) -> String {
    let mut text = String::new();
    for out in outs {
        match out {
            Out::Text(word) => text.push_str(&String::from_utf8_lossy(word)),
            Out::Group(open, inner) => {
                text.push(char::from(*open));
                text.push_str(&written(inner));
                text.push(char::from(closing(*open)));
            }
            Out::Var(_) | Out::Repetition { .. } => {}
        }
    }
    text
}
