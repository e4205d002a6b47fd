//! Reads type text as written (`&mut Foo<T>`, `*pkg.Foo`, `Optional["Foo"]`,
//! `Promise<Foo> | undefined`) down to the one type name a receiver's
//! methods are looked up on, and a signature down to its declared return
//! type. Pure text over one language's syntax; knows nothing about symbols.

use crate::world::imports::split_top_level;
use crate::world::lang::Lang;

/// Wrappers whose methods are the wrapped type's (by auto-deref, awaiting or narrowing).
const TRANSPARENT: &[&str] = &[
    "Box",
    "Rc",
    "Arc",
    "RefCell",
    "Ref",
    "RefMut",
    "Cow",
    "Mutex",
    "MutexGuard",
    "Pin",
    "Optional",
    "t.Optional",
    "typing.Optional",
    // `Union[A, B]` reads as `A | B`: its first alternative.
    "Union",
    "t.Union",
    "typing.Union",
    "Promise",
    "Readonly",
    "type",
    "t.Type",
    "typing.Type",
    "ClassVar",
    "t.ClassVar",
    "Final",
    "t.Final",
];

/// The name of the type `text` denotes, with the qualifier it was written with
/// (`pkg` of `pkg.Foo`, `crate::a` of `crate::a::Foo`), or `None` for a type
/// that names no single type (a tuple, a slice, a function type).
pub fn type_name(lang: Lang, text: &str) -> Option<(Option<&str>, &str)> {
    let mut t = text.trim();
    for _ in 0..8 {
        t = t.trim().trim_matches(|c| c == '"' || c == '\'');
        let before = t;
        for prefix in ["&", "*", "mut ", "dyn ", "impl ", "const ", "readonly ", "unique symbol "] {
            t = t.strip_prefix(prefix).unwrap_or(t).trim_start();
        }
        if t.starts_with('\'') {
            // A lifetime: `&'a Foo`.
            t = t.split_once(' ').map_or("", |(_, rest)| rest);
        }
        // `Foo | None`, `Foo | undefined`: the first alternative that is a type.
        if let Some(first) = split_top_level(t, '|')
            .into_iter()
            .map(str::trim)
            .find(|a| !matches!(*a, "None" | "null" | "undefined" | "void"))
        {
            t = first;
        }
        if let Some((head, inner)) = generic(t) {
            let last = head.rsplit("::").next().unwrap_or(head);
            if TRANSPARENT.contains(&last) {
                t = split_top_level(inner, ',').into_iter().next().unwrap_or(inner);
                continue;
            }
        }
        if t == before {
            break;
        }
    }
    let end = t.find(['<', '[', '(', ' ', '{', '?', '!']).unwrap_or(t.len());
    let path = &t[..end];
    let (qualifier, name) = match lang {
        Lang::Rust => match path.rsplit_once("::") {
            Some((q, n)) => (Some(q), n),
            None => (None, path),
        },
        _ => match path.rsplit_once('.') {
            Some((q, n)) => (Some(q), n),
            None => (None, path),
        },
    };
    // JavaScript names may begin with `$` (zod's `$ZodType`, `$constructor`).
    let dollar = lang.family() == Lang::TypeScript;
    let identifier = name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || dollar && c == '$')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    identifier.then_some((qualifier, name))
}

/// `Head<inner>` or `Head[inner]`: the head and the text between the brackets.
pub fn generic(t: &str) -> Option<(&str, &str)> {
    let open = t.find(['<', '['])?;
    let close = if t.as_bytes()[open] == b'<' { '>' } else { ']' };
    let inner = t[open + 1..].strip_suffix(close)?;
    Some((t[..open].trim(), inner))
}

/// The parameter names a signature declares (`self`, `runner`, `*args` as
/// `args`), read between its first `(` and the matching `)`.
pub fn parameter_names(signature: &str) -> Vec<&str> {
    parameters(signature).into_iter().map(|(name, _)| name).collect()
}

/// The annotation written on the parameter at `index` of `parameter_names`
/// (`ctx: Context = None` → `Context`), if it has one.
pub fn parameter_annotation(signature: &str, index: usize) -> Option<&str> {
    let (_, parameter) = parameters(signature).into_iter().nth(index)?;
    let (_, annotation) = parameter.split_once(':')?;
    let annotation = split_top_level(annotation, '=').into_iter().next()?.trim();
    (!annotation.is_empty()).then_some(annotation)
}

/// Each named parameter between a signature's first `(` and the matching
/// `)`: its name (`*args` as `args`) and its whole text. A bare `*`
/// separator names nothing and is left out.
fn parameters(signature: &str) -> Vec<(&str, &str)> {
    let Some(open) = signature.find('(') else { return Vec::new() };
    let Some(close) = past_group(signature, open) else { return Vec::new() };
    split_top_level(&signature[open + 1..close - 1], ',')
        .into_iter()
        .map(|p| (p.split([':', '=']).next().unwrap_or("").trim().trim_start_matches('*'), p))
        .filter(|(name, _)| !name.is_empty())
        .collect()
}

/// The index just past the bracket group opening at `open`, if it closes.
fn past_group(s: &str, open: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let (o, c) = match bytes.get(open)? {
        b'(' => (b'(', b')'),
        b'[' => (b'[', b']'),
        b'<' => (b'<', b'>'),
        _ => return None,
    };
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if b == o {
            depth += 1;
        } else if b == c {
            depth -= 1;
            if depth == 0 {
                return Some(i + 1);
            }
        }
    }
    None
}

/// Rust: the error type a type alias of `Result` declares, as written:
/// `pub type Result<T, E = Error> = core::result::Result<T, E>;` → `Error`
/// (a parameter's default), `type Result<T> = Result<T, MyError>` → `MyError`.
pub fn result_alias_error_type(signature: &str) -> Option<&str> {
    let rest = signature[signature.find("type ")? + 5..].trim_start();
    let name_end = rest.find(['<', '=', ' ']).unwrap_or(rest.len());
    let rest = &rest[name_end..];
    let (parameters, rest) = match rest.trim_start().strip_prefix('<') {
        Some(_) => {
            let rest = rest.trim_start();
            let close = past_group(rest, 0)?;
            (split_top_level(&rest[1..close - 1], ','), &rest[close..])
        }
        None => (Vec::new(), rest),
    };
    let aliased = rest.trim_start().strip_prefix('=')?.trim().trim_end_matches(';').trim();
    let (head, arguments) = generic(aliased)?;
    if head.rsplit("::").next() != Some("Result") {
        return None;
    }
    let error = split_top_level(arguments, ',').get(1)?.trim();
    // A parameter of the alias stands for its default, if it has one.
    for parameter in parameters {
        if let Some((name, default)) = parameter.split_once('=') {
            if name.trim() == error {
                return Some(default.trim());
            }
        } else if parameter.trim() == error {
            return None;
        }
    }
    Some(error)
}

/// The return type a definition's signature declares, as written.
pub fn return_type(lang: Lang, signature: &str) -> Option<&str> {
    let s = signature.trim();
    let found = match lang {
        Lang::Python | Lang::Rust => {
            // The last `->` outside brackets (a parameter may hold `Fn() -> T`).
            let params = s.find('(').and_then(|o| past_group(s, o))?;
            let rest = &s[params..];
            let arrow = rest.find("->")?;
            let ty = rest[arrow + 2..].trim();
            let ty = ty.split(" where ").next().unwrap_or(ty);
            // A Python annotation ends at the colon that opens the body, which a comment may follow
            // ("-> String:  # only keep parsing …"): the signature runs to the body's first statement.
            match lang {
                Lang::Python => split_top_level(ty, ':').into_iter().next().unwrap_or(ty),
                _ => ty,
            }
        }
        Lang::Go => {
            let mut rest = s.strip_prefix("func")?.trim_start();
            if rest.starts_with('(') {
                rest = rest[past_group(rest, 0)?..].trim_start();
            }
            let name_end = rest.find(['(', '['])?;
            rest = &rest[name_end..];
            if rest.starts_with('[') {
                rest = &rest[past_group(rest, 0)?..];
            }
            let ty = rest[past_group(rest, 0)?..].trim();
            match ty.strip_prefix('(') {
                // `(f *Foo, err error)` or `(*Foo, error)`: the first result's type.
                Some(list) => {
                    let first = split_top_level(list.trim_end_matches(')'), ',').into_iter().next()?.trim();
                    first.rsplit_once(' ').map_or(first, |(_, t)| t)
                }
                None => ty,
            }
        }
        Lang::TypeScript | Lang::Tsx => {
            let open = s.find('(')?;
            let rest = s[past_group(s, open)?..].trim_start();
            rest.strip_prefix(':')?.trim()
        }
    };
    let found = found.trim().trim_end_matches('{').trim();
    (!found.is_empty()).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_stop_at_the_closing_parenthesis() {
        assert_eq!(
            parameter_names("def f(self, runner: CliRunner = None, *args, **kw)"),
            ["self", "runner", "args", "kw"]
        );
        // A comment between the signature and the body is no parameter.
        assert_eq!(parameter_names("def test_x(runner): # uses the runner: a fixture"), ["runner"]);
        assert_eq!(parameter_names("def g(cb: Callable[[int, str], None], x)"), ["cb", "x"]);
        assert!(parameter_names("const x = 1").is_empty());
    }

    #[test]
    fn a_parameter_s_annotation_is_read_by_position() {
        let signature = "def invoke(self, ctx: Context, *, args: t.Dict[str, int] = {}, rest=None)";
        assert_eq!(parameter_names(signature), ["self", "ctx", "args", "rest"]);
        let annotations: Vec<Option<&str>> = (0..5).map(|i| parameter_annotation(signature, i)).collect();
        assert_eq!(annotations, [None, Some("Context"), Some("t.Dict[str, int]"), None, None]);
    }

    #[test]
    fn a_result_alias_gives_its_error_type() {
        let cases = [
            ("pub type Result<T, E = Error> = core::result::Result<T, E>;", Some("Error")),
            ("type Result<T> = std::result::Result<T, ParseError>;", Some("ParseError")),
            ("pub type Fallible<T> = Result<T, crate::Error>;", Some("crate::Error")),
            ("type Result<T, E> = std::result::Result<T, E>;", None),
            ("type Map = HashMap<String, u8>;", None),
            ("struct Result;", None),
        ];
        for (signature, want) in cases {
            assert_eq!(result_alias_error_type(signature), want, "{signature}");
        }
    }

    #[test]
    fn written_types_come_down_to_one_name() {
        let cases = [
            (Lang::Rust, "&mut Foo<T>", Some((None, "Foo"))),
            (Lang::Rust, "Box<dyn Trait + Send>", Some((None, "Trait"))),
            (Lang::Rust, "&'a crate::v::Version", Some((Some("crate::v"), "Version"))),
            (Lang::Rust, "Option<Foo>", Some((None, "Option"))),
            (Lang::Rust, "std::cell::RefCell<Marks>", Some((None, "Marks"))),
            (Lang::Rust, "(u8, u8)", None),
            (Lang::Go, "*pflag.FlagSet", Some((Some("pflag"), "FlagSet"))),
            (Lang::Go, "[]string", None),
            (Lang::Python, "t.Optional[\"Context\"]", Some((None, "Context"))),
            (Lang::Python, "Context | None", Some((None, "Context"))),
            (Lang::Python, "\"Session\"", Some((None, "Session"))),
            (Lang::TypeScript, "Promise<ZodType> | undefined", Some((None, "ZodType"))),
            (Lang::TypeScript, "z.ZodString", Some((Some("z"), "ZodString"))),
            (Lang::TypeScript, "core.$constructor<$ZodType>", Some((Some("core"), "$constructor"))),
            (Lang::Rust, "$T", None),
        ];
        for (lang, text, want) in cases {
            assert_eq!(type_name(lang, text), want, "{text}");
        }
    }

    #[test]
    fn signatures_give_their_declared_return_type() {
        let cases = [
            (Lang::Python, "def session() -> Session", Some("Session")),
            (Lang::Python, "def f(cb: Callable[[], int])", None),
            (
                Lang::Python,
                "def _parse(self, delim: Kind) -> String: # keep parsing while the delimiter matches",
                Some("String"),
            ),
            (Lang::Python, "def table(self) -> dict[str, int]:", Some("dict[str, int]")),
            (Lang::Rust, "pub fn new(f: impl Fn() -> u8) -> Self where T: Clone", Some("Self")),
            (Lang::Rust, "fn run(&self)", None),
            (Lang::Go, "func NewFlagSet(name string, h ErrorHandling) *FlagSet", Some("*FlagSet")),
            (Lang::Go, "func (f *FlagSet) Lookup(name string) (*Flag, error)", Some("*Flag")),
            (Lang::Go, "func (f *FlagSet) Named() (flag *Flag, err error)", Some("*Flag")),
            (Lang::Go, "func Map[K comparable](m map[K]int) Set[K]", Some("Set[K]")),
            (Lang::Go, "func (f *FlagSet) Parse(arguments []string)", None),
            (Lang::TypeScript, "export function make<T>(a: T): Builder<T>", Some("Builder<T>")),
            (Lang::TypeScript, "async parse(data: unknown): Promise<Result>", Some("Promise<Result>")),
        ];
        for (lang, sig, want) in cases {
            assert_eq!(return_type(lang, sig), want, "{sig}");
        }
    }
}
