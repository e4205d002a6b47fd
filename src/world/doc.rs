//! A symbol's doc comment, read off its file's text by its language's
//! convention: a Python docstring after the signature, `///` or `//` lines
//! (Rust, Go) and `/** … */` blocks (TypeScript) above the definition.
//! Recall keeps its first sentence; a specialist's research keeps it whole.
//! Knows nothing about what symbols mean.

use super::lang::Lang;

/// Characters of a doc comment kept at most.
const MAX_DOC: usize = 200;

/// The doc comment of the symbol defined at `line` (1-based) of `lines`,
/// its whitespace collapsed, if it has one.
pub fn comment(lang: Lang, lines: &[&str], line: u32) -> Option<String> {
    let at = (line as usize).checked_sub(1)?;
    let text = match lang.family() {
        Lang::Python => docstring(lines, at)?,
        _ => comment_above(lines, at)?,
    };
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

/// The first sentence of the doc comment of the symbol defined at `line`
/// (1-based) of `lines`, if it has one.
pub fn first_sentence(lang: Lang, lines: &[&str], line: u32) -> Option<String> {
    let text = comment(lang, lines, line)?;
    let end = text.find(". ").map_or(text.len(), |i| i + 1);
    let sentence: String = text[..end].chars().take(MAX_DOC).collect();
    (!sentence.is_empty()).then_some(sentence)
}

/// The docstring that opens the body of the `def` or `class` at or just below `at`.
fn docstring(lines: &[&str], at: usize) -> Option<String> {
    let def = (at..lines.len().min(at + 8)).find(|&i| {
        let t = lines[i].trim_start();
        t.starts_with("def ") || t.starts_with("async def ") || t.starts_with("class ")
    })?;
    // The signature ends at the first line whose code ends with a colon.
    let end = (def..lines.len().min(def + 30)).find(|&i| code_of(lines[i]).trim_end().ends_with(':'))?;
    let first = (end + 1..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    let opening = lines[first].trim_start().trim_start_matches(['r', 'R', 'u', 'U']);
    let quote = ["\"\"\"", "'''"].into_iter().find(|q| opening.starts_with(q))?;
    let rest = &opening[3..];
    if let Some(close) = rest.find(quote) {
        return Some(rest[..close].to_string());
    }
    let mut text = vec![rest.to_string()];
    for l in lines.iter().skip(first + 1).take(30) {
        match l.find(quote) {
            Some(close) => {
                text.push(l[..close].to_string());
                break;
            }
            None => text.push(l.to_string()),
        }
    }
    Some(text.join(" "))
}

/// A line without a trailing `#` comment (quotes are not tracked: a `#` inside
/// a string on a signature line is rare enough).
fn code_of(line: &str) -> &str {
    line.split('#').next().unwrap_or(line)
}

/// The comment lines directly above `at`, attributes and decorators skipped.
fn comment_above(lines: &[&str], at: usize) -> Option<String> {
    let mut i = at;
    let mut text = Vec::new();
    while i > 0 {
        i -= 1;
        let t = lines[i].trim();
        if t.starts_with("#[") || t.starts_with('@') {
            continue;
        }
        let stripped = if let Some(rest) = t.strip_prefix("///").or_else(|| t.strip_prefix("//")) {
            rest
        } else if t.starts_with("/**") || t.starts_with('*') || t.ends_with("*/") {
            t.trim_start_matches("/**").trim_end_matches("*/").trim_start_matches('*')
        } else {
            break;
        };
        text.push(stripped.trim().to_string());
    }
    text.reverse();
    let text = text.join(" ");
    (!text.trim().is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(lang: Lang, source: &str, line: u32) -> Option<String> {
        let lines: Vec<&str> = source.lines().collect();
        first_sentence(lang, &lines, line)
    }

    #[test]
    fn each_language_has_its_doc_comments_read() {
        let python = "@retry\ndef parse_retry_after(\n    value: str,\n) -> int:  # seconds\n    \"\"\"How long to wait before the next attempt. Reads both forms.\n\n    More.\n    \"\"\"\n    return 0\n\n\nclass Empty:\n    x = 1\n";
        assert_eq!(doc(Lang::Python, python, 1).as_deref(), Some("How long to wait before the next attempt."));
        assert_eq!(doc(Lang::Python, python, 12), None);
        let one_line = "def f():\n    '''Returns one.'''\n    return 1\n";
        assert_eq!(doc(Lang::Python, one_line, 1).as_deref(), Some("Returns one."));

        let rust = "/// Backs off exponentially between\n/// failed charges.\n#[inline]\npub fn backoff() {}\n\nfn bare() {}\n";
        assert_eq!(doc(Lang::Rust, rust, 4).as_deref(), Some("Backs off exponentially between failed charges."));
        assert_eq!(doc(Lang::Rust, rust, 6), None);

        let go = "package p\n\n// NewFlagSet returns a new, empty flag set.\nfunc NewFlagSet() {}\n";
        assert_eq!(doc(Lang::Go, go, 4).as_deref(), Some("NewFlagSet returns a new, empty flag set."));

        let ts = "/**\n * Parses a discriminated union. Fast path first.\n */\nexport function parseUnion() {}\n";
        assert_eq!(doc(Lang::TypeScript, ts, 4).as_deref(), Some("Parses a discriminated union."));
    }
}
