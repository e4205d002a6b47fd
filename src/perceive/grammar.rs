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

/// The decimal numbers from `lo` to `hi` (inclusive; none when `lo > hi`) as
/// sequences of digit ranges: 7..=23 is `[7-9]`, `1 [0-9]`, `2 [0-3]`. A
/// grammar built from them admits exactly those numbers, without leading zeros.
fn digit_ranges(lo: u32, hi: u32) -> Vec<Vec<(u8, u8)>> {
    let mut out = Vec::new();
    let mut from = lo;
    // One run per number of digits: 7..=9, 10..=23.
    while from <= hi {
        let digits = from.checked_ilog10().unwrap_or(0) + 1;
        let top = 10u32.checked_pow(digits).map_or(u32::MAX, |p| p - 1).min(hi);
        let (a, b) = (from.to_string().into_bytes(), top.to_string().into_bytes());
        same_length(&a, &b, &mut Vec::new(), &mut out);
        match top.checked_add(1) {
            Some(next) => from = next,
            None => break,
        }
    }
    out
}

/// Digit ranges for the numbers from `lo` to `hi`, both of the same length,
/// each sequence after `prefix`.
fn same_length(lo: &[u8], hi: &[u8], prefix: &mut Vec<(u8, u8)>, out: &mut Vec<Vec<(u8, u8)>>) {
    let digit = |c: u8| c - b'0';
    let (l, h) = (digit(lo[0]), digit(hi[0]));
    if lo.len() == 1 {
        let mut seq = prefix.clone();
        seq.push((l, h));
        out.push(seq);
        return;
    }
    if l == h {
        prefix.push((l, l));
        same_length(&lo[1..], &hi[1..], prefix, out);
        prefix.pop();
        return;
    }
    let rest = lo.len() - 1;
    let (zeros, nines) = (vec![b'0'; rest], vec![b'9'; rest]);
    // lo's first digit with the rest of lo up to 99…9, unless that is every number after it.
    let full_from = if lo[1..] == zeros[..] {
        l
    } else {
        prefix.push((l, l));
        same_length(&lo[1..], &nines, prefix, out);
        prefix.pop();
        l + 1
    };
    let full_to = if hi[1..] == nines[..] { h } else { h - 1 };
    if full_from <= full_to {
        let mut seq = prefix.clone();
        seq.push((full_from, full_to));
        seq.extend(std::iter::repeat_n((0, 9), rest));
        out.push(seq);
    }
    if hi[1..] != nines[..] {
        prefix.push((h, h));
        same_length(&zeros, &hi[1..], prefix, out);
        prefix.pop();
    }
}

/// A GBNF alternative admitting exactly the numbers of `ranges` (inclusive;
/// an empty range admits nothing), parenthesised; `None` when it admits none.
pub fn number_ranges(ranges: &[(u32, u32)]) -> Option<String> {
    let alternatives: Vec<String> = ranges
        .iter()
        .flat_map(|&(lo, hi)| digit_ranges(lo, hi))
        .map(|seq| {
            let parts: Vec<String> =
                seq.iter().map(|&(a, b)| if a == b { format!("\"{a}\"") } else { format!("[{a}-{b}]") }).collect();
            parts.join(" ")
        })
        .collect();
    (!alternatives.is_empty()).then(|| format!("( {} )", alternatives.join(" | ")))
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

    /// The GBNF number alternative read as a regular expression: its literals and classes mean the same.
    fn as_regex(gbnf: &str) -> regex::Regex {
        let body = gbnf.replace("\"", "").replace(' ', "");
        regex::Regex::new(&format!("^{body}$")).unwrap()
    }

    #[test]
    fn number_ranges_admit_exactly_their_numbers() {
        let cases: &[&[(u32, u32)]] = &[
            &[(7, 23)],
            &[(1, 1)],
            &[(0, 0)],
            &[(0, 9)],
            &[(10, 99)],
            &[(99, 101)],
            &[(120, 1234)],
            &[(1, 9999)],
            &[(305, 318), (1, 40), (998, 1003)],
            &[(400, 399)],
        ];
        for ranges in cases {
            let Some(g) = number_ranges(ranges) else {
                assert!(ranges.iter().all(|(lo, hi)| lo > hi), "{ranges:?} admits numbers");
                continue;
            };
            let re = as_regex(&g);
            for n in 0..12_000u32 {
                let want = ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&n));
                assert_eq!(re.is_match(&n.to_string()), want, "{n} in {ranges:?}: {g}");
            }
            assert!(!re.is_match("07") && !re.is_match("007"), "no leading zeros: {g}");
        }
        assert_eq!(number_ranges(&[(7, 23)]).unwrap(), "( [7-9] | \"1\" [0-9] | \"2\" [0-3] )");
        assert!(number_ranges(&[(4_294_967_290, u32::MAX)]).is_some(), "the top of the range ends");
    }
}
