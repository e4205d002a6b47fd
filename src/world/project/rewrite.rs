//! Same-length rewrites of source that compiles but that the grammar
//! releases reject (TypeScript variance modifiers, Rust `~` in token trees):
//! every byte offset, and so every line, stays the same. Knows bytes only.

use crate::world::lang::Lang;

/// A same-length rewrite of source the grammar releases reject although it
/// compiles, or `None`.
pub(super) fn rewrite_for_grammar(lang: Lang, source: &[u8]) -> Option<Vec<u8>> {
    match lang {
        Lang::TypeScript | Lang::Tsx => blank_variance_annotations(source),
        // `~` is no Rust operator: it only appears in literals, comments and macro
        // token trees (`(~~~~ $($fuel:tt)*)`), which the grammar's token trees refuse.
        Lang::Rust if source.contains(&b'~') => {
            Some(source.iter().map(|&b| if b == b'~' { b' ' } else { b }).collect())
        }
        _ => None,
    }
}

/// Blanks TypeScript variance and `const` modifiers in type parameter lists
/// (`<in out T>`, `<out Output = unknown>`), and names an anonymous default
/// export's signature, which the grammar release does not parse. `None`
/// when there is nothing to rewrite.
fn blank_variance_annotations(source: &[u8]) -> Option<Vec<u8>> {
    let ident_start = |b: u8| b.is_ascii_alphabetic() || b == b'_' || b == b'$';
    let ident_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    // Whitespace and comments (`/** @ts-ignore */` may stand before a modifier).
    let skip_ws = |mut i: usize| loop {
        while i < source.len() && source[i].is_ascii_whitespace() {
            i += 1;
        }
        if source[i..].starts_with(b"//") {
            i += source[i..].iter().position(|&b| b == b'\n').unwrap_or(source.len() - i);
        } else if source[i..].starts_with(b"/*") {
            i += source[i + 2..].windows(2).position(|w| w == b"*/").map_or(source.len() - i, |p| p + 4);
        } else {
            return i;
        }
    };
    let word_at = |i: usize| -> Option<usize> {
        let end = (i..source.len()).find(|&j| !ident_char(source[j])).unwrap_or(source.len());
        (end > i && ident_start(source[i])).then_some(end)
    };
    let mut out: Option<Vec<u8>> = None;
    // A declaration file's anonymous default export, `export default function (): T;`,
    // becomes a named signature of the same length.
    const ANONYMOUS: &[u8] = b"default function (";
    for at in (0..source.len()).filter(|&i| source[i..].starts_with(ANONYMOUS)) {
        let buffer = out.get_or_insert_with(|| source.to_vec());
        buffer[at..at + ANONYMOUS.len()].copy_from_slice(b"function default_(");
    }
    for (i, &b) in source.iter().enumerate() {
        if b != b'<' && b != b',' {
            continue;
        }
        let mut j = skip_ws(i + 1);
        let mut modifiers = Vec::new();
        while let Some(end) = word_at(j) {
            let word = &source[j..end];
            if !(word == b"in" || word == b"out" || word == b"const") {
                break;
            }
            modifiers.push((j, end));
            j = skip_ws(end);
        }
        // The modifiers must be followed by the parameter's name and then
        // `,`, `>`, `=` or `extends`: anything else is an expression.
        let Some(name_end) = (!modifiers.is_empty()).then(|| word_at(j)).flatten() else { continue };
        let after = skip_ws(name_end);
        let follows = source.get(after).is_some_and(|c| matches!(c, b',' | b'>' | b'='))
            || source[after..].starts_with(b"extends");
        if !follows {
            continue;
        }
        let buffer = out.get_or_insert_with(|| source.to_vec());
        for (start, end) in modifiers {
            buffer[start..end].fill(b' ');
        }
    }
    out
}
