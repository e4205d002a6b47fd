//! Same-length rewrites of source that compiles but that the grammar
//! releases reject (TypeScript variance modifiers, Rust `~` in token trees):
//! every byte offset, and so every line, stays the same. Knows bytes only.

use crate::world::lang::Lang;

/// A same-length rewrite to parse instead of `source` at once, or `None`:
/// TypeScript's variance and `const` modifiers, which never parse, blanked.
pub(super) fn before_parse(lang: Lang, source: &[u8]) -> Option<Vec<u8>> {
    match lang {
        Lang::TypeScript | Lang::Tsx => blank_type_parameter_modifiers(source),
        _ => None,
    }
}

/// A same-length rewrite to parse again when `source` did not parse, or `None`.
pub(super) fn after_error(lang: Lang, source: &[u8]) -> Option<Vec<u8>> {
    match lang {
        Lang::TypeScript | Lang::Tsx => name_anonymous_default_export(source),
        // `~` is no Rust operator: it only appears in literals, comments and macro
        // token trees (`(~~~~ $($fuel:tt)*)`), which the grammar's token trees refuse.
        Lang::Rust if source.contains(&b'~') => {
            Some(source.iter().map(|&b| if b == b'~' { b' ' } else { b }).collect())
        }
        _ => None,
    }
}

/// Names an anonymous default export's signature, which the grammar release
/// does not parse in a declaration file: `export default function (): T;`
/// becomes a named signature of the same length.
fn name_anonymous_default_export(source: &[u8]) -> Option<Vec<u8>> {
    const ANONYMOUS: &[u8] = b"default function (";
    let mut out: Option<Vec<u8>> = None;
    for at in memchr::memmem::find_iter(source, ANONYMOUS) {
        out.get_or_insert_with(|| source.to_vec())[at..at + ANONYMOUS.len()].copy_from_slice(b"function default_(");
    }
    out
}

/// Blanks TypeScript variance and `const` modifiers in type parameter lists
/// (`<in out T>`, `<out Output = unknown>`), which the grammar release does
/// not parse. `None` when there is nothing to blank.
fn blank_type_parameter_modifiers(source: &[u8]) -> Option<Vec<u8>> {
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

#[cfg(test)]
mod tests {
    use crate::world::lang::Lang;
    use crate::world::project::project_file;

    /// Projects `source` and lists each symbol as `name: signature`.
    fn signatures(lang: Lang, path: &str, source: &str) -> Vec<String> {
        let projection = project_file(lang, path, source.as_bytes()).unwrap();
        assert_eq!(projection.parse_error, None, "{source}");
        projection.symbols.iter().map(|s| format!("{}: {}", s.name, s.signature)).collect()
    }

    #[test]
    fn type_parameter_modifiers_parse_and_signatures_keep_them() {
        let source = "export interface Box<out T, in out U = unknown> { value: T }\n\
                      export function pick<const T extends string>(key: T): T { return helper(key); }\n\
                      function helper(x: string) { return x < out ? x : out; }\nconst out = 'o';\n";
        let got = signatures(Lang::TypeScript, "a.ts", source);
        assert!(got.iter().any(|s| s == "Box: interface Box<out T, in out U = unknown>"), "{got:?}");
        assert!(got.iter().any(|s| s == "pick: function pick<const T extends string>(key: T): T"), "{got:?}");
        // A comparison with a name `out` is no modifier.
        assert!(got.iter().any(|s| s.starts_with("helper:")), "{got:?}");
        let calls = project_file(Lang::TypeScript, "a.ts", source.as_bytes()).unwrap().calls;
        assert!(calls.iter().any(|c| c.name == "helper" && c.caller == "a.ts#pick"), "{calls:?}");
    }

    #[test]
    fn an_anonymous_default_export_signature_is_named_only_where_it_does_not_parse() {
        // A declaration file's signature does not parse as written: it is named.
        let got = signatures(Lang::TypeScript, "a.d.ts", "export default function (): string;\n");
        assert_eq!(got, ["default_: default function (): string;"]);
        // A function with a body parses: nothing is renamed.
        let got = signatures(
            Lang::TypeScript,
            "b.ts",
            "export default function (): string { return f(); }\nfunction f() { return ''; }\n",
        );
        assert_eq!(got, ["f: function f()"]);
    }
}
