//! The intent schema as a GBNF grammar, for sampling a local model under real
//! logit masking. Generated from the vocabularies, one branch per category so
//! a verb can never leave its category, and every repetition is bounded (an
//! unbounded list lets a small model run to its token limit).
//! Knows nothing about the model that uses it.

use nerd_logic::vocab::{Category, ContextHint, Verb};

/// Characters a string in the grammar may have.
pub const MAX_STRING_CHARS: usize = 80;
/// Constraints a grammar-constrained answer may list.
pub const MAX_CONSTRAINTS: usize = 4;

/// The rules every grammar here ends with: a character of a JSON string
/// (control characters only escaped) and bounded whitespace.
pub const JSON_TEXT_RULES: &str = "char ::= [^\"\\\\\\x00-\\x1f] | \"\\\\\" [\"\\\\/nt]\nws ::= [ \\n]{0,2}\n";

fn alternatives<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words.map(|w| format!("\"\\\"{w}\\\"\"")).collect::<Vec<_>>().join(" | ")
}

/// The grammar, in llama.cpp's GBNF.
pub fn gbnf() -> String {
    let mut g = String::new();
    let categories: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
    g.push_str(&format!(
        "root ::= {}\n",
        categories.iter().map(|c| format!("{c}-intent")).collect::<Vec<_>>().join(" | ")
    ));
    for c in Category::ALL {
        let verbs = alternatives(Verb::ALL.iter().filter(|v| v.category() == *c).map(|v| v.as_str()));
        g.push_str(&format!(
            "{name}-intent ::= \"{{\" ws \"\\\"category\\\":\" ws \"\\\"{name}\\\"\" \",\" ws \"\\\"verb\\\":\" ws {name}-verb \",\" ws rest\n",
            name = c.as_str()
        ));
        g.push_str(&format!("{}-verb ::= {verbs}\n", c.as_str()));
    }
    g.push_str(
        "rest ::= \"\\\"target\\\":\" ws string \",\" ws \"\\\"constraints\\\":\" ws strings \",\" ws \"\\\"context\\\":\" ws context \",\" ws \"\\\"confidence\\\":\" ws confidence \",\" ws \"\\\"missing\\\":\" ws missing ws \"}\"\n",
    );
    g.push_str(&format!("context ::= {}\n", alternatives(ContextHint::ALL.iter().map(|h| h.as_str()))));
    g.push_str("confidence ::= \"0.\" [0-9] [0-9]? | \"1.0\"\n");
    g.push_str(&format!(
        "strings ::= \"[\" ws ( string ( \",\" ws string ){{0,{}}} )? ws \"]\"\n",
        MAX_CONSTRAINTS - 1
    ));
    g.push_str("missing ::= \"[\" ws ( \"{\" ws \"\\\"param\\\":\" ws string \",\" ws \"\\\"clue\\\":\" ws string \",\" ws \"\\\"hypothesis\\\":\" ws string ws \"}\" )? ws \"]\"\n");
    g.push_str(&format!("string ::= \"\\\"\" char{{0,{MAX_STRING_CHARS}}} \"\\\"\"\n"));
    g.push_str(JSON_TEXT_RULES);
    g
}

/// The first line of a GBNF grammar with an unbounded `*` or `+` outside
/// quoted literals and character classes (a small model can run such a
/// repetition to its token limit).
#[cfg(test)]
pub(crate) fn unbounded_line(grammar: &str) -> Option<&str> {
    grammar.lines().find(|line| {
        let (mut in_quote, mut in_class, mut prev) = (false, false, ' ');
        for c in line.chars() {
            match c {
                '"' if prev != '\\' && !in_class => in_quote = !in_quote,
                '[' if !in_quote => in_class = true,
                ']' if !in_quote && prev != '\\' => in_class = false,
                '*' | '+' if !in_quote && !in_class => return true,
                _ => {}
            }
            prev = c;
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verb_sits_in_its_category_branch_and_repetition_is_bounded() {
        let g = gbnf();
        for v in Verb::ALL {
            let line = g.lines().find(|l| l.starts_with(&format!("{}-verb ::=", v.category()))).unwrap();
            assert!(line.contains(&format!("\\\"{v}\\\"")), "{v} missing from {line}");
            for other in Category::ALL.iter().filter(|c| **c != v.category()) {
                let wrong = g.lines().find(|l| l.starts_with(&format!("{other}-verb ::="))).unwrap();
                assert!(!wrong.contains(&format!("\\\"{v}\\\"")), "{v} leaks into {other}");
            }
        }
        assert_eq!(unbounded_line(&g), None);
    }
}
