//! Ground atoms in a uniform shape (`impacted("src/a.rs#f")`), the currency of
//! `nerd query` and `nerd why`: rendering, parsing and JSON-free display.
//! Knows nothing about which predicates exist.

use std::fmt;

/// One argument of a ground atom.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Term {
    Str(String),
    Int(i64),
    Bool(bool),
    /// A ratio in [0, 1] carried as thousandths so facts stay `Eq + Hash`.
    Ratio(u16),
}

/// A predicate applied to ground terms.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Atom {
    pub predicate: String,
    pub args: Vec<Term>,
}

impl Atom {
    pub fn new(predicate: &str, args: Vec<Term>) -> Self {
        Atom { predicate: predicate.to_string(), args }
    }

    /// Argument `i` when it is a string.
    pub fn str_arg(&self, i: usize) -> Option<&str> {
        match self.args.get(i) {
            Some(Term::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// Argument `i` as text: a string as it is, another term as it renders, a missing one empty.
    pub fn arg_text(&self, i: usize) -> String {
        match self.args.get(i) {
            Some(Term::Str(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Str(s) => {
                f.write_str("\"")?;
                for c in s.chars() {
                    match c {
                        '"' => f.write_str("\\\"")?,
                        '\\' => f.write_str("\\\\")?,
                        '\n' => f.write_str("\\n")?,
                        '\t' => f.write_str("\\t")?,
                        c => write!(f, "{c}")?,
                    }
                }
                f.write_str("\"")
            }
            Term::Int(i) => write!(f, "{i}"),
            Term::Bool(b) => write!(f, "{b}"),
            Term::Ratio(r) => write!(f, "{}.{:03}", r / 1000, r % 1000),
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.predicate)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        f.write_str(")")
    }
}

/// Why a piece of text is not a ground atom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomSyntaxError {
    pub position: usize,
    pub message: String,
}

impl fmt::Display for AtomSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.position, self.message)
    }
}

impl std::error::Error for AtomSyntaxError {}

/// Parses `pred("string", 42, true, 0.85)`. Ratios are written as decimals in [0, 1].
pub fn parse_atom(text: &str) -> Result<Atom, AtomSyntaxError> {
    let mut p = Parser { text, pos: 0 };
    p.skip_ws();
    let predicate = p.identifier()?;
    p.skip_ws();
    let mut args = Vec::new();
    if p.eat('(') {
        p.skip_ws();
        if !p.eat(')') {
            loop {
                p.skip_ws();
                args.push(p.term()?);
                p.skip_ws();
                if p.eat(')') {
                    break;
                }
                if !p.eat(',') {
                    return Err(p.error("expected `,` or `)`"));
                }
            }
        }
    }
    p.skip_ws();
    if p.pos != text.len() {
        return Err(p.error("unexpected text after the atom"));
    }
    Ok(Atom { predicate, args })
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn error(&self, message: &str) -> AtomSyntaxError {
        AtomSyntaxError { position: self.pos, message: message.to_string() }
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.text.len() - trimmed.len();
    }

    fn eat(&mut self, c: char) -> bool {
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn identifier(&mut self) -> Result<String, AtomSyntaxError> {
        let len = self.rest().find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(self.rest().len());
        if len == 0 || !self.rest().starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(self.error("expected a predicate name"));
        }
        let id = self.rest()[..len].to_string();
        self.pos += len;
        Ok(id)
    }

    fn term(&mut self) -> Result<Term, AtomSyntaxError> {
        if self.eat('"') {
            let mut s = String::new();
            let mut chars = self.rest().char_indices();
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => {
                        self.pos += i + 1;
                        return Ok(Term::Str(s));
                    }
                    '\\' => match chars.next() {
                        Some((_, 'n')) => s.push('\n'),
                        Some((_, 't')) => s.push('\t'),
                        Some((_, c)) => s.push(c),
                        None => break,
                    },
                    c => s.push(c),
                }
            }
            return Err(self.error("unterminated string"));
        }
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_'))
            .unwrap_or(self.rest().len());
        let word = &self.rest()[..len];
        let term = match word {
            "true" => Term::Bool(true),
            "false" => Term::Bool(false),
            w if w.contains('.') => parse_ratio(w).ok_or_else(|| self.error("expected a ratio between 0 and 1"))?,
            w => match w.parse::<i64>() {
                Ok(i) => Term::Int(i),
                // A bare word is read as a string, so `strategy(idle)` works too.
                Err(_) if !w.is_empty() && w.starts_with(|c: char| c.is_ascii_alphabetic()) => Term::Str(w.to_string()),
                Err(_) => return Err(self.error("expected a string, number or boolean")),
            },
        };
        self.pos += len;
        Ok(term)
    }
}

fn parse_ratio(w: &str) -> Option<Term> {
    let (int, frac) = w.split_once('.')?;
    if frac.is_empty() || frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u16 = int.parse().ok()?;
    let frac_value: u16 = format!("{frac:0<3}").parse().ok()?;
    let value = whole.checked_mul(1000)?.checked_add(frac_value)?;
    (value <= 1000).then_some(Term::Ratio(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        let atom = Atom::new(
            "block_commit",
            vec![Term::Str("error \"E0308\"\n".into()), Term::Int(-3), Term::Bool(true), Term::Ratio(850)],
        );
        let text = atom.to_string();
        assert_eq!(text, r#"block_commit("error \"E0308\"\n", -3, true, 0.850)"#);
        assert_eq!(parse_atom(&text), Ok(atom));
    }

    #[test]
    fn bare_words_and_nullary_atoms() {
        assert_eq!(parse_atom("strategy(idle)").unwrap().args, vec![Term::Str("idle".into())]);
        assert_eq!(parse_atom(" workspace_empty ").unwrap().args, vec![]);
        assert_eq!(parse_atom("p()").unwrap().args, vec![]);
        assert_eq!(parse_atom("p(0.5)").unwrap().args, vec![Term::Ratio(500)]);
    }

    #[test]
    fn malformed_atoms_are_rejected_with_a_position() {
        for bad in ["", "(x)", "p(\"open", "p(1,", "p(1) junk", "p(1.5)", "p(@)", "9p(1)"] {
            assert!(parse_atom(bad).is_err(), "{bad} should not parse");
        }
        assert_eq!(parse_atom("p(1 2)").unwrap_err().position, 4);
    }
}
