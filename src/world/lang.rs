//! The languages nerd projects: file-extension detection, tree-sitter grammars
//! and the compiled projection query of each (from `grammars/<lang>/`).
//! Knows nothing about facts or storage.

use std::sync::OnceLock;

use rustc_hash::FxHashMap as HashMap;

use tree_sitter::{Language, Node, Query};

/// A language with a tree-sitter projection.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Lang {
    Rust,
    Go,
    Python,
    TypeScript,
    Tsx,
}

impl Lang {
    pub const ALL: [Lang; 5] = [Lang::Rust, Lang::Go, Lang::Python, Lang::TypeScript, Lang::Tsx];

    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Go => "go",
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
        }
    }

    pub fn from_name(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The projected language of a path, from its extension.
    pub fn of_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "rs" => Lang::Rust,
            "go" => Lang::Go,
            "py" | "pyi" => Lang::Python,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            _ => return None,
        })
    }

    pub fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        }
    }

    /// The projection query source: definitions, calls, imports and type hints together.
    pub fn query_source(self) -> String {
        let [defs, calls, imports, types] = match self {
            Lang::Rust => [
                include_str!("../../grammars/rust/definitions.scm"),
                include_str!("../../grammars/rust/calls.scm"),
                include_str!("../../grammars/rust/imports.scm"),
                include_str!("../../grammars/rust/types.scm"),
            ],
            Lang::Go => [
                include_str!("../../grammars/go/definitions.scm"),
                include_str!("../../grammars/go/calls.scm"),
                include_str!("../../grammars/go/imports.scm"),
                include_str!("../../grammars/go/types.scm"),
            ],
            Lang::Python => [
                include_str!("../../grammars/python/definitions.scm"),
                include_str!("../../grammars/python/calls.scm"),
                include_str!("../../grammars/python/imports.scm"),
                include_str!("../../grammars/python/types.scm"),
            ],
            Lang::TypeScript | Lang::Tsx => [
                include_str!("../../grammars/typescript/definitions.scm"),
                include_str!("../../grammars/typescript/calls.scm"),
                include_str!("../../grammars/typescript/imports.scm"),
                include_str!("../../grammars/typescript/types.scm"),
            ],
        };
        format!("{defs}\n{calls}\n{imports}\n{types}")
    }

    /// The language's place in `Lang::ALL`, where its tables made once are kept.
    fn slot(self) -> usize {
        Lang::ALL.iter().position(|l| *l == self).unwrap_or(0)
    }

    /// The compiled projection query, built once per process.
    pub fn query(self) -> Result<&'static Query, GrammarError> {
        static QUERIES: [OnceLock<Result<Query, GrammarError>>; 5] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let index = self.slot();
        QUERIES[index]
            .get_or_init(|| {
                Query::new(&self.grammar(), &self.query_source())
                    .map_err(|e| GrammarError { lang: self.name(), message: e.to_string() })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The kind of `node`, a node of a tree this language's grammar parsed:
    /// `Node::kind` read off a table of the grammar's kinds, made once, instead
    /// of a C string converted each time (projection asks it of most nodes).
    pub fn kind<'t>(self, node: Node<'t>) -> &'t str {
        static KINDS: [OnceLock<Vec<Box<str>>>; 5] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let index = self.slot();
        let kinds = KINDS[index].get_or_init(|| {
            let grammar = self.grammar();
            (0..grammar.node_kind_count())
                .map(|id| u16::try_from(id).ok().and_then(|id| grammar.node_kind_for_id(id)).unwrap_or_default().into())
                .collect()
        });
        match kinds.get(usize::from(node.kind_id())) {
            Some(kind) => kind,
            None => node.kind(),
        }
    }

    /// The id of field `name` in this language's grammar, from a table made
    /// once (the grammar's own lookup compares the name with every field's).
    pub fn field_id(self, name: &str) -> Option<u16> {
        static FIELDS: [OnceLock<HashMap<Box<str>, u16>>; 5] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let index = self.slot();
        let fields = FIELDS[index].get_or_init(|| {
            let grammar = self.grammar();
            (1..=grammar.field_count())
                .filter_map(|id| {
                    let id = u16::try_from(id).ok()?;
                    Some((grammar.field_name_for_id(id)?.into(), id))
                })
                .collect()
        });
        fields.get(name).copied()
    }

    /// The child of `node` in field `name`: `Node::child_by_field_name`, with
    /// the field's id from `field_id`'s table.
    pub fn child<'t>(self, node: Node<'t>, name: &str) -> Option<Node<'t>> {
        self.field_id(name).and_then(|id| node.child_by_field_id(id))
    }

    /// The language's reserved words, which no name may be.
    pub fn keywords(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &[
                "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
                "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
                "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
                "where", "while", "yield", "gen",
            ],
            Lang::Go => &[
                "break",
                "case",
                "chan",
                "const",
                "continue",
                "default",
                "defer",
                "else",
                "fallthrough",
                "for",
                "func",
                "go",
                "goto",
                "if",
                "import",
                "interface",
                "map",
                "package",
                "range",
                "return",
                "select",
                "struct",
                "switch",
                "type",
                "var",
            ],
            Lang::Python => &[
                "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
                "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
                "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
            ],
            Lang::TypeScript | Lang::Tsx => &[
                "break",
                "case",
                "catch",
                "class",
                "const",
                "continue",
                "debugger",
                "default",
                "delete",
                "do",
                "else",
                "enum",
                "export",
                "extends",
                "false",
                "finally",
                "for",
                "function",
                "if",
                "import",
                "in",
                "instanceof",
                "new",
                "null",
                "return",
                "super",
                "switch",
                "this",
                "throw",
                "true",
                "try",
                "typeof",
                "var",
                "void",
                "while",
                "with",
                "let",
                "static",
                "yield",
                "await",
                "interface",
                "type",
            ],
        }
    }

    /// The language family rules and resolution treat as one: TSX is TypeScript.
    pub fn family(self) -> Lang {
        if self == Lang::Tsx {
            Lang::TypeScript
        } else {
            self
        }
    }

    /// Whether the language calls a method of this name with no call site
    /// naming it: Python's dunders (operators, `len`, `iter`, `with`,
    /// `repr`), JavaScript's conversions and protocol symbols. Rust and Go
    /// define methods outside their type's body, so none is asked of them.
    pub fn calls_unnamed(self, method: &str) -> bool {
        match self {
            Lang::Python => method.len() > 4 && method.starts_with("__") && method.ends_with("__"),
            Lang::TypeScript | Lang::Tsx => {
                matches!(method, "toString" | "toJSON" | "valueOf" | "constructor") || method.starts_with("[Symbol.")
            }
            Lang::Rust | Lang::Go => false,
        }
    }

    /// Whether a path names a test file by the language's conventions.
    pub fn is_test_path(self, path: &str) -> bool {
        let file = path.rsplit('/').next().unwrap_or(path);
        let in_dir = |dir: &str| path.starts_with(&format!("{dir}/")) || path.contains(&format!("/{dir}/"));
        match self {
            Lang::Rust => in_dir("tests") || file.ends_with("_test.rs") || file == "tests.rs",
            Lang::Go => file.ends_with("_test.go"),
            Lang::Python => {
                file.starts_with("test_") || file.ends_with("_test.py") || file == "conftest.py" || in_dir("tests")
            }
            Lang::TypeScript | Lang::Tsx => {
                [".test.", ".spec."].iter().any(|m| file.contains(m)) || in_dir("__tests__")
            }
        }
    }
}

/// A query file that does not compile against its grammar (a build defect).
#[derive(Clone, Debug, thiserror::Error)]
#[error("the {lang} projection query does not compile: {message}")]
pub struct GrammarError {
    pub lang: &'static str,
    pub message: String,
}

/// The coarse language name stored in `file` facts for any path.
pub fn lang_label(path: &str) -> &'static str {
    if let Some(lang) = Lang::of_path(path) {
        return lang.name();
    }
    let file = path.rsplit('/').next().unwrap_or(path);
    let ext = file.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("js" | "mjs" | "cjs" | "jsx") => "javascript",
        Some("md" | "markdown") => "markdown",
        Some("toml") => "toml",
        Some("json") => "json",
        Some("yaml" | "yml") => "yaml",
        Some("c" | "h") => "c",
        Some("cc" | "cpp" | "hpp" | "cxx") => "cpp",
        Some("java") => "java",
        Some("sh" | "bash") => "shell",
        Some("html" | "htm") => "html",
        Some("css") => "css",
        Some("sql") => "sql",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables made once answer what the grammar answers: every node's kind, and every
    /// field's child, over a file of each language (TypeScript and TSX number their kinds
    /// and fields apart).
    #[test]
    fn the_kind_and_field_tables_answer_as_the_grammar_does() {
        let sources = [
            (Lang::Rust, "pub struct S { a: u8 }\nimpl S { fn f(&self) -> u8 { let x = self.a; g::<u8>(x).h() } }\n"),
            (Lang::Go, "package p\ntype T struct{ A int }\nfunc (t *T) F(x int) int { y := t.A; return g(x, y) }\n"),
            (
                Lang::Python,
                "class C(B):\n    @d\n    def f(self, x: int) -> int:\n        y = self.g(x)\n        return y\n",
            ),
            (
                Lang::TypeScript,
                "export class C<in T> { f(x: T): number { const y = this.g(x); return y as number; } }\n",
            ),
            (Lang::Tsx, "export const App = (p: P) => <div onClick={() => p.go(1)}>{p.name}</div>;\n"),
        ];
        for (lang, source) in sources {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).unwrap();
            let tree = parser.parse(source, None).unwrap();
            let grammar = lang.grammar();
            let fields: Vec<&str> =
                (1..=grammar.field_count() as u16).filter_map(|id| grammar.field_name_for_id(id)).collect();
            let mut stack = vec![tree.root_node()];
            let mut asked = 0;
            while let Some(node) = stack.pop() {
                assert_eq!(lang.kind(node), node.kind(), "{lang:?}");
                for field in &fields {
                    assert_eq!(
                        lang.child(node, field),
                        node.child_by_field_name(field),
                        "{lang:?} {} {field}",
                        node.kind()
                    );
                    asked += 1;
                }
                stack.extend(node.children(&mut node.walk()));
            }
            assert!(asked > 100, "{lang:?}: {asked}");
            assert_eq!(lang.field_id("no such field"), None);
        }
    }

    /// Prints what each projection pattern adds to compiling its query, the dearest first
    /// (`cargo test --release -p nerd --lib query_compile_cost -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn query_compile_cost() {
        let time = |lang: Lang, src: &str| {
            (0..5)
                .map(|_| {
                    let t = std::time::Instant::now();
                    let _ = Query::new(&lang.grammar(), src);
                    t.elapsed()
                })
                .min()
                .unwrap_or_default()
        };
        // `NERD_QUERY_LANG` and `NERD_QUERY_FILE` time a draft query instead.
        let draft = std::env::var("NERD_QUERY_LANG").ok().and_then(|l| Lang::from_name(&l));
        let langs = draft.map_or(vec![Lang::Rust, Lang::Go, Lang::Python, Lang::TypeScript], |l| vec![l]);
        for lang in langs {
            let src = match (draft, std::env::var("NERD_QUERY_FILE")) {
                (Some(_), Ok(file)) => std::fs::read_to_string(file).unwrap(),
                _ => lang.query_source(),
            };
            let query = Query::new(&lang.grammar(), &src).unwrap();
            // A pattern's cost: what compiling the whole query saves without it.
            let whole = time(lang, &src);
            let mut costs: Vec<_> = (0..query.pattern_count())
                .map(|i| {
                    let range = query.start_byte_for_pattern(i)..query.end_byte_for_pattern(i);
                    let without = format!("{}{}", &src[..range.start], &src[range.end..]);
                    let text = &src[range];
                    (whole.saturating_sub(time(lang, &without)), text.split_whitespace().collect::<Vec<_>>().join(" "))
                })
                .collect();
            costs.sort_by_key(|c| std::cmp::Reverse(c.0));
            let sum: std::time::Duration = costs.iter().map(|c| c.0).sum();
            println!("{}: whole {whole:?}, patterns' costs {sum:?}", lang.name());
            for (cost, text) in costs.iter().take(25) {
                println!("  {cost:>10.1?}  {}", &text[..text.len().min(150)]);
            }
        }
    }

    /// Prints what matching each projection pattern costs on the files under
    /// `$NERD_QUERY_DIR`, the dearest first: the whole query's time less its
    /// time without the pattern (`cargo test --release -p nerd --lib
    /// query_match_cost -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn query_match_cost() {
        use tree_sitter::{QueryCursor, StreamingIterator};
        let Ok(dir) = std::env::var("NERD_QUERY_DIR") else { return };
        let mut files: std::collections::BTreeMap<Lang, Vec<Vec<u8>>> = Default::default();
        for entry in ignore::WalkBuilder::new(&dir).build().filter_map(Result::ok) {
            let path = entry.path().display().to_string();
            if let (Some(lang), Ok(bytes)) = (Lang::of_path(&path), std::fs::read(entry.path())) {
                files.entry(lang).or_default().push(bytes);
            }
        }
        for (lang, sources) in files {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).unwrap();
            let trees: Vec<_> = sources.iter().filter_map(|s| parser.parse(s, None)).collect();
            let run = |query: &Query| {
                (0..7)
                    .map(|_| {
                        let t = std::time::Instant::now();
                        for (tree, source) in trees.iter().zip(&sources) {
                            let mut cursor = QueryCursor::new();
                            let mut matches = cursor.matches(query, tree.root_node(), source.as_slice());
                            while matches.next().is_some() {}
                        }
                        t.elapsed()
                    })
                    .min()
                    .unwrap_or_default()
            };
            if let Ok(drafts) = std::env::var("NERD_QUERY_FILES") {
                for file in drafts.split(',') {
                    let draft = Query::new(&lang.grammar(), &std::fs::read_to_string(file).unwrap()).unwrap();
                    println!("{file}: {:?}", run(&draft));
                }
                continue;
            }
            let src = lang.query_source();
            let whole = Query::new(&lang.grammar(), &src).unwrap();
            let all = run(&whole);
            let mut costs: Vec<_> = (0..whole.pattern_count())
                .map(|i| {
                    let mut without = Query::new(&lang.grammar(), &src).unwrap();
                    without.disable_pattern(i);
                    let text = &src[whole.start_byte_for_pattern(i)..whole.end_byte_for_pattern(i)];
                    (
                        all.as_secs_f64() - run(&without).as_secs_f64(),
                        text.split_whitespace().collect::<Vec<_>>().join(" "),
                    )
                })
                .collect();
            costs.sort_by(|a, b| b.0.total_cmp(&a.0));
            println!("{} ({} files): whole query {all:?}", lang.name(), trees.len());
            for (cost, text) in costs.iter().take(15) {
                println!("  {:>8.1}ms  {}", cost * 1e3, &text[..text.len().min(150)]);
            }
        }
    }

    #[test]
    fn every_grammar_loads_and_every_query_compiles() {
        for lang in Lang::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).unwrap_or_else(|e| panic!("{}: {e}", lang.name()));
            let query = lang.query().unwrap_or_else(|e| panic!("{e}"));
            assert!(query.capture_names().contains(&"name"), "{}", lang.name());
        }
    }

    #[test]
    fn languages_and_test_paths_are_detected() {
        assert_eq!(Lang::of_path("src/a.rs"), Some(Lang::Rust));
        assert_eq!(Lang::of_path("web/App.tsx"), Some(Lang::Tsx));
        assert_eq!(Lang::of_path("README"), None);
        assert!(Lang::Go.is_test_path("pkg/x_test.go"));
        assert!(!Lang::Go.is_test_path("pkg/x.go"));
        assert!(Lang::Python.is_test_path("tests/test_api.py"));
        assert!(Lang::TypeScript.is_test_path("src/a.spec.ts"));
        assert!(Lang::Rust.is_test_path("tests/cli.rs"));
        assert!(!Lang::Rust.is_test_path("src/contests.rs"));
        assert_eq!(lang_label("docs/x.MD"), "markdown");
    }
}
