//! The names a function binds for itself (parameters, locals, loop and
//! pattern variables), read off the syntax tree: inside that function such a
//! name is a value of its own, never the module's function of that name.
//! Knows syntax trees only; nothing about symbols or resolution.

use rustc_hash::FxHashSet as HashSet;
use tree_sitter::Node;

use super::lang::Lang;

/// The part of `node` that binds names, if `node` is a binding construct:
/// every identifier under it is bound.
fn binding_part<'t>(lang: Lang, node: Node<'t>) -> Option<Node<'t>> {
    let field = |name: &str| lang.child(node, name);
    match (lang.family(), lang.kind(node)) {
        (Lang::Rust, "parameter" | "let_declaration" | "for_expression" | "let_condition" | "match_arm") => {
            field("pattern")
        }
        (Lang::Rust, "closure_parameters") => Some(node),
        (Lang::Python, "parameters" | "lambda_parameters" | "as_pattern_target") => Some(node),
        (Lang::Python, "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause") => field("left"),
        (Lang::Python, "named_expression") => field("name"),
        (Lang::Go, "parameter_declaration" | "variadic_parameter_declaration" | "var_spec" | "const_spec") => {
            field("name")
        }
        (Lang::Go, "short_var_declaration" | "range_clause") => field("left"),
        (Lang::TypeScript, "required_parameter" | "optional_parameter") => field("pattern").or_else(|| field("name")),
        (Lang::TypeScript, "variable_declarator") => field("name"),
        (Lang::TypeScript, "arrow_function") => field("parameter"),
        (Lang::TypeScript, "for_in_statement") => field("left"),
        (Lang::TypeScript, "catch_clause") => field("parameter"),
        _ => None,
    }
}

/// Whether a node is a name as the language writes one.
fn is_name(kind: &str) -> bool {
    matches!(kind, "identifier" | "shorthand_property_identifier_pattern")
}

/// The names bound inside each function of one file, worked out once per
/// function as references ask.
pub struct Locals<'s, 't> {
    lang: Lang,
    source: &'s [u8],
    /// The file's functions (closures and lambdas included), as the query
    /// found them (`@function.scope`), by where they start.
    functions: Vec<Scope>,
    /// The file's binding constructs (`@local.binding`), by where they start.
    bindings: Vec<Node<'t>>,
    /// The names each function binds itself, by its place in `functions`, once asked.
    bound: Vec<Option<HashSet<&'s str>>>,
}

/// One function and where it lies.
struct Scope {
    start: usize,
    end: usize,
    /// The innermost function around it, by its place in `functions`.
    parent: Option<usize>,
}

impl<'s, 't> Locals<'s, 't> {
    /// The functions and binding constructs of one file, as the query found them.
    pub fn new(lang: Lang, source: &'s [u8], mut nodes: Vec<Node<'t>>, mut bindings: Vec<Node<'t>>) -> Self {
        nodes.sort_by_key(|n| (n.start_byte(), std::cmp::Reverse(n.end_byte())));
        nodes.dedup_by_key(|n| n.id());
        bindings.sort_by_key(|n| (n.start_byte(), n.id()));
        bindings.dedup_by_key(|n| n.id());
        let mut functions: Vec<Scope> = Vec::with_capacity(nodes.len());
        // The functions open around the one being placed, innermost last.
        let mut open: Vec<usize> = Vec::new();
        for node in nodes {
            let (start, end) = (node.start_byte(), node.end_byte());
            while open.last().is_some_and(|&i| functions[i].end <= start) {
                open.pop();
            }
            functions.push(Scope { start, end, parent: open.last().copied() });
            open.push(functions.len() - 1);
        }
        let bound = functions.iter().map(|_| None).collect();
        Locals { lang, source, functions, bindings, bound }
    }

    /// The innermost function whose span holds byte `at`.
    fn innermost(&self, at: usize) -> Option<usize> {
        let mut around = self.functions.partition_point(|f| f.start <= at).checked_sub(1);
        while let Some(i) = around.filter(|&i| at >= self.functions[i].end) {
            around = self.functions[i].parent;
        }
        around
    }

    /// Whether `name`, written at byte `at`, is bound by a function around
    /// it (any of them: a closure sees its enclosing function's locals).
    pub fn binds(&mut self, at: usize, name: &str) -> bool {
        // The innermost function around `at`, then out through its parents, which hold `at` too.
        let mut around = self.innermost(at);
        while let Some(i) = around {
            if self.bound_in(i).contains(name) {
                return true;
            }
            around = self.functions[i].parent;
        }
        false
    }

    /// The names the `i`th function binds itself: those of the binding
    /// constructs in its span that no function inside it holds (those bind
    /// their own, and `binds` asks each function around a name).
    fn bound_in(&mut self, i: usize) -> &HashSet<&'s str> {
        if self.bound[i].is_none() {
            let (start, end) = (self.functions[i].start, self.functions[i].end);
            let first = self.bindings.partition_point(|b| b.start_byte() < start);
            let mut names = HashSet::default();
            for b in self.bindings[first..].iter().take_while(|b| b.start_byte() < end) {
                if self.innermost(b.start_byte()) == Some(i) {
                    if let Some(part) = binding_part(self.lang, *b) {
                        collect_names(self.lang, part, self.source, &mut names);
                    }
                }
            }
            self.bound[i] = Some(names);
        }
        self.bound[i].get_or_insert_with(HashSet::default)
    }
}

/// Every name under `node`, the node itself included.
fn collect_names<'s>(lang: Lang, node: Node<'_>, source: &'s [u8], out: &mut HashSet<&'s str>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if is_name(lang.kind(n)) {
            if let Some(text) = source.get(n.byte_range()).and_then(|b| std::str::from_utf8(b).ok()) {
                out.insert(text);
            }
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

#[cfg(test)]
mod tests {
    use crate::world::lang::Lang;
    use crate::world::project::{project_file, CallForm};

    /// The callers that hand on `f`, the file's own function, by name.
    fn handing_on_f(lang: Lang, path: &str, source: &str) -> Vec<String> {
        let projection = project_file(lang, path, source.as_bytes()).unwrap();
        let mut callers: Vec<String> = projection
            .calls
            .iter()
            .filter(|c| c.form == CallForm::Reference && c.name == "f" && c.qualifier.is_none())
            .map(|c| c.caller.clone())
            .collect();
        callers.sort();
        callers.dedup();
        callers
    }

    /// The kinds `binding_part` reads, by language family: the projection query
    /// captures each as `@local.binding` (a test holds the two lists together).
    fn binding_kinds(family: Lang) -> &'static [&'static str] {
        match family {
            Lang::Rust => {
                &["parameter", "let_declaration", "for_expression", "let_condition", "match_arm", "closure_parameters"]
            }
            Lang::Python => &[
                "parameters",
                "lambda_parameters",
                "as_pattern_target",
                "assignment",
                "augmented_assignment",
                "for_statement",
                "for_in_clause",
                "named_expression",
            ],
            Lang::Go => &[
                "parameter_declaration",
                "variadic_parameter_declaration",
                "var_spec",
                "const_spec",
                "short_var_declaration",
                "range_clause",
            ],
            _ => &[
                "required_parameter",
                "optional_parameter",
                "variable_declarator",
                "arrow_function",
                "for_in_statement",
                "catch_clause",
            ],
        }
    }

    /// The query captures as `@local.binding` exactly the kinds `binding_part` reads.
    #[test]
    fn the_query_captures_every_binding_kind() {
        for lang in Lang::ALL {
            let source = lang.query_source();
            let query = tree_sitter::Query::new(&lang.grammar(), &source).unwrap();
            let mut captured: Vec<&str> = Vec::new();
            for pattern in 0..query.pattern_count() {
                let text = &source[query.start_byte_for_pattern(pattern)..query.end_byte_for_pattern(pattern)];
                if text.contains("@local.binding") {
                    captured
                        .extend(text.split(['(', ')', '[', ']', ' ']).filter(|w| !w.is_empty() && !w.starts_with('@')));
                }
            }
            let mut expected = binding_kinds(lang.family()).to_vec();
            captured.sort_unstable();
            expected.sort_unstable();
            assert_eq!(captured, expected, "{lang:?}");
        }
    }

    /// In each source only `keep` hands on the module's `f`; every other
    /// function binds an `f` of its own (a parameter, a local, a loop or
    /// pattern variable, a closure's parameter, an enclosing function's local).
    #[test]
    fn a_name_a_function_binds_is_its_own_value_not_the_modules_function() {
        let cases = [
            (
                Lang::Python,
                "a.py",
                "def f(x):\n    return x\n\ndef keep(xs):\n    return map(f, xs)\n\n\
                 def param(f, xs):\n    return map(f, xs)\n\ndef local(xs):\n    f = len\n    return map(f, xs)\n\n\
                 def loop(fs):\n    for f in fs:\n        run(f)\n\ndef walrus(xs):\n    if (f := xs[0]):\n        run(f)\n\n\
                 def outer(xs):\n    f = len\n    def inner():\n        return map(f, xs)\n    return inner\n\n\
                 def handler():\n    try:\n        pass\n    except E as f:\n        log(f)\n\n\
                 def comprehension(fs):\n    return [run(f) for f in fs]\n",
            ),
            (
                Lang::Rust,
                "src/a.rs",
                "fn f(x: u8) -> u8 { x }\nfn keep(xs: &[u8]) { xs.iter().copied().map(f); }\n\
                 fn param(f: fn(u8) -> u8, xs: &[u8]) { xs.iter().copied().map(f); }\n\
                 fn local(xs: &[u8]) { let f = |x: u8| x; xs.iter().copied().map(f); }\n\
                 fn closure(fs: &[u8]) { fs.iter().for_each(|f| run(f)); }\n\
                 fn each(fs: &[u8]) { for f in fs { run(f); } }\n\
                 fn arm(o: Option<u8>) { match o { Some(f) => run(f), None => {} } }\n\
                 fn iflet(o: Option<u8>) { if let Some(f) = o { run(f); } }\n\
                 fn in_macro(o: u8) { let f = o; assert_eq!(run(f), f); }\n",
            ),
            (
                Lang::Go,
                "a/a.go",
                "package a\nfunc f(x int) int { return x }\nfunc keep(xs []int) { Map(xs, f) }\n\
                 func param(xs []int, f func(int) int) { Map(xs, f) }\n\
                 func short(xs []int) { f := g; Map(xs, f) }\n\
                 func decl(xs []int) { var f = g; Map(xs, f) }\n\
                 func each(fs []func(int) int) { for _, f := range fs { run(f) } }\n\
                 func lit(xs []int) func() { f := g; return func() { Map(xs, f) } }\n",
            ),
            (
                Lang::TypeScript,
                "src/a.ts",
                "function f(x: number) { return x; }\nexport function keep(xs: number[]) { return xs.map(f); }\n\
                 export function param(xs: number[], f: (x: number) => number) { return xs.map(f); }\n\
                 export function local(xs: number[]) { const f = g; return xs.map(f); }\n\
                 export function arrow(fs: number[]) { return fs.map((f) => run(f)).map(f => run(f)); }\n\
                 export function each(fs: number[]) { for (const f of fs) { run(f); } }\n\
                 export function destructure(o: { f: number }) { const { f } = o; run(f); }\n\
                 export function caught() { try { run(0); } catch (f) { run(f); } }\n",
            ),
        ];
        for (lang, path, source) in cases {
            let keep = match lang {
                Lang::Python => "a.py#keep",
                Lang::Rust => "src/a.rs#keep",
                Lang::Go => "a/a.go#keep",
                _ => "src/a.ts#keep",
            };
            assert_eq!(handing_on_f(lang, path, source), vec![keep.to_string()], "{lang:?}");
        }
    }

    /// A name bound inside a nested function, or a sibling, is not bound
    /// around it: the outer function and the sibling hand on the module's `f`.
    #[test]
    fn a_name_bound_in_a_nested_function_is_not_bound_outside_it() {
        let python = "def f(x):\n    return x\n\n\
                      def outer(xs):\n    def inner(f):\n        return f\n    return map(f, xs)\n\n\
                      def sibling(xs):\n    return map(f, xs)\n";
        assert_eq!(handing_on_f(Lang::Python, "a.py", python), ["a.py#outer", "a.py#sibling"]);
        let typescript = "function f(x: number) { return x; }\n\
                          export function outer(xs: number[]) { const g = (f: number) => f; return xs.map(f); }\n\
                          export function later(xs: number[]) { [1].forEach((f) => f); return xs.map(f); }\n";
        assert_eq!(handing_on_f(Lang::TypeScript, "src/a.ts", typescript), ["src/a.ts#later", "src/a.ts#outer"]);
    }
}
