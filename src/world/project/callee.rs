//! Reads what a call or a reference names off the syntax of its callee: the
//! queries capture the callee whole (`@callee`) and this reads its name and
//! qualifier from its fields. A pattern that spelled each shape out cost
//! the query's compilation a parse-table analysis per nested node, and its
//! matching a live state over every receiver chain. Knows node kinds and
//! field names of each grammar; nothing about facts.

use tree_sitter::Node;

use crate::world::lang::Lang;

/// Where a callee stands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// The function of a call (`f()`, `x.f()`, `a::f()`).
    Call,
    /// The constructor of a `new` expression.
    New,
    /// A function named as a value (`xs.map(f)`).
    Value,
    /// The macro of a Rust macro invocation.
    Macro,
}

/// A callee's parts.
#[derive(Default)]
pub(super) struct Parts<'t> {
    pub name: Option<Node<'t>>,
    /// A path or an object that qualifies the name (`a::f`, `obj.f` in
    /// languages where a member call is qualified rather than a method call).
    pub qualifier: Option<Node<'t>>,
    /// The value a Rust method is called on (`x` in `x.f()`).
    pub receiver: Option<Node<'t>>,
    /// A member called or constructed, which is no read of it.
    pub not_read: Option<Node<'t>>,
}

/// The parts of `callee` at `place`; no name where the shape is none the
/// language's projection reads.
pub(super) fn parts<'t>(lang: Lang, callee: Node<'t>, place: Place) -> Parts<'t> {
    match lang {
        Lang::Rust => rust(callee, place, true),
        Lang::TypeScript | Lang::Tsx => typescript(lang, callee, place),
        Lang::Python => python(callee, place),
        Lang::Go => go(callee),
    }
}

fn rust(callee: Node<'_>, place: Place, outermost: bool) -> Parts<'_> {
    let kind = |n| Lang::Rust.kind(n);
    match kind(callee) {
        "identifier" => Parts { name: Some(callee), ..Parts::default() },
        // A method call: `x.f()` or `x.f::<T>()`.
        "field_expression" if place == Place::Call => match fields_of(Lang::Rust, callee, ["value", "field"]) {
            [value, Some(method)] if kind(method) == "field_identifier" => {
                Parts { name: Some(method), receiver: value, ..Parts::default() }
            }
            _ => Parts::default(),
        },
        "scoped_identifier" => match fields_of(Lang::Rust, callee, ["path", "name"]) {
            [Some(path), Some(name)] if kind(name) == "identifier" => {
                Parts { name: Some(name), qualifier: Some(path), ..Parts::default() }
            }
            _ => Parts::default(),
        },
        // `f::<T>`, once: the grammar nests no generic function in another.
        "generic_function" if outermost && place != Place::Macro => {
            let [function] = fields_of(Lang::Rust, callee, ["function"]);
            function.map_or_else(Parts::default, |f| rust(f, place, false))
        }
        _ => Parts::default(),
    }
}

fn typescript(lang: Lang, callee: Node<'_>, place: Place) -> Parts<'_> {
    let kind = |n| lang.kind(n);
    match kind(callee) {
        "identifier" => Parts { name: Some(callee), ..Parts::default() },
        "member_expression" => {
            // A member called or constructed is no read of it, whatever its name.
            let not_read = matches!(place, Place::Call | Place::New).then_some(callee);
            let [object, property] = fields_of(lang, callee, ["object", "property"]);
            // A private member (`this.#run()`) is read only where it is called.
            let readable = property.filter(|p| {
                kind(*p) == "property_identifier" || (place == Place::Call && kind(*p) == "private_property_identifier")
            });
            match readable {
                Some(name) => Parts { name: Some(name), qualifier: object, receiver: None, not_read },
                None => Parts { not_read, ..Parts::default() },
            }
        }
        _ => Parts::default(),
    }
}

fn python(callee: Node<'_>, place: Place) -> Parts<'_> {
    let kind = |n| Lang::Python.kind(n);
    match kind(callee) {
        "identifier" => Parts { name: Some(callee), ..Parts::default() },
        "attribute" => {
            // An attribute called (or decorating) is no read of it.
            let not_read = (place == Place::Call).then_some(callee);
            match fields_of(Lang::Python, callee, ["object", "attribute"]) {
                [object, Some(name)] if kind(name) == "identifier" => {
                    Parts { name: Some(name), qualifier: object, receiver: None, not_read }
                }
                _ => Parts { not_read, ..Parts::default() },
            }
        }
        _ => Parts::default(),
    }
}

fn go(callee: Node<'_>) -> Parts<'_> {
    let kind = |n| Lang::Go.kind(n);
    match kind(callee) {
        "identifier" => Parts { name: Some(callee), ..Parts::default() },
        "selector_expression" => match fields_of(Lang::Go, callee, ["operand", "field"]) {
            [operand, Some(name)] if kind(name) == "field_identifier" => {
                Parts { name: Some(name), qualifier: operand, ..Parts::default() }
            }
            _ => Parts::default(),
        },
        _ => Parts::default(),
    }
}

/// Whether a TypeScript test-defining call's callee names a test: `it`,
/// `test`, a modifier of one (`it.skip`) or a table of them (`test.each(t)`).
pub(super) fn names_a_test(callee: Node<'_>, source: &[u8]) -> bool {
    let is_test = |n: Option<Node<'_>>| {
        n.is_some_and(|n| n.kind() == "identifier" && matches!(&source[n.byte_range()], b"it" | b"test"))
    };
    match callee.kind() {
        "identifier" => is_test(Some(callee)),
        "member_expression" => is_test(field(callee, "object")),
        "call_expression" => field(callee, "function")
            .filter(|f| f.kind() == "member_expression")
            .is_some_and(|f| is_test(field(f, "object"))),
        _ => false,
    }
}

/// The member a TypeScript assignment binds back onto itself, `this.m` in
/// `this.m = this.m.bind(this)`: no read of it.
pub(super) fn bound_back<'t>(assignment: Node<'t>, source: &[u8]) -> Option<Node<'t>> {
    let left = field(assignment, "left")?;
    let call = field(assignment, "right").filter(|r| r.kind() == "call_expression")?;
    let function = field(call, "function").filter(|f| f.kind() == "member_expression")?;
    let property = field(function, "property")?;
    let object = field(function, "object").filter(|o| o.kind() == "member_expression")?;
    (&source[property.byte_range()] == b"bind" && source[object.byte_range()] == source[left.byte_range()])
        .then_some(object)
}

/// The child of `node` in field `name`, read off its children: the grammar's
/// own lookup answers wrongly inside a TypeScript type query (`typeof
/// f._zod.optin` gave the inner `_zod` as the outer's property).
pub(super) fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    let [found] = fields(node, [name]);
    found
}

/// `fields` of a node of `lang`'s grammar: the grammar's own lookup by
/// field id where no alias renamed the node (the members of a TypeScript
/// type query, where that lookup errs, are aliases), else `fields`.
pub(super) fn fields_of<'t, const N: usize>(lang: Lang, node: Node<'t>, names: [&str; N]) -> [Option<Node<'t>>; N] {
    if node.kind_id() != node.grammar_id() {
        return fields(node, names);
    }
    names.map(|name| lang.child(node, name))
}

/// The children of `node` in fields `names`, in one pass over its children
/// (by index: a tree cursor would cost an allocation per callee).
pub(super) fn fields<'t, const N: usize>(node: Node<'t>, names: [&str; N]) -> [Option<Node<'t>>; N] {
    let mut found = [None; N];
    for i in 0..node.child_count() {
        let Some(field) = node.field_name_for_child(i) else { continue };
        if let Some(slot) = names.iter().position(|n| *n == field) {
            if found[slot].is_none() {
                found[slot] = node.child(i);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name and qualifier read off each callee `kind` in `source`, at `place`.
    fn read(lang: Lang, source: &str, kind: &str, place: Place) -> Vec<(String, Option<String>, bool)> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).unwrap();
        let tree = parser.parse(source, None).unwrap();
        let text = |n: Node<'_>| n.utf8_text(source.as_bytes()).unwrap().to_string();
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == kind {
                let parts = parts(lang, node, place);
                if let Some(name) = parts.name {
                    out.push((text(name), parts.qualifier.or(parts.receiver).map(text), parts.not_read.is_some()));
                }
            }
            stack.extend(node.children(&mut node.walk()));
        }
        out.sort();
        out
    }

    #[test]
    fn a_member_in_a_type_query_is_read_by_its_own_fields() {
        let got = read(Lang::TypeScript, "type T = typeof f._zod.optin;", "member_expression", Place::Value);
        assert_eq!(got, [("_zod".into(), Some("f".into()), false), ("optin".into(), Some("f._zod".into()), false)]);
    }

    #[test]
    fn typescript_private_members_are_read_only_where_called() {
        let got = read(Lang::TypeScript, "this.#run(); x.#y; new a.#B();", "member_expression", Place::Call);
        assert!(got.contains(&("#run".into(), Some("this".into()), true)), "{got:?}");
        assert!(read(Lang::TypeScript, "x.#y;", "member_expression", Place::Value).is_empty());
        assert!(read(Lang::TypeScript, "new a.#B();", "member_expression", Place::New).is_empty());
    }

    #[test]
    fn typescript_tests_and_bindings_by_their_callees() {
        let source = "it('a', f); it.skip('b', f); test.each(t)('c', f); x.it('d'); each(t)('e'); this.m = this.m.bind(this); this.n = this.o.bind(this);";
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&Lang::TypeScript.grammar()).unwrap();
        let tree = parser.parse(source, None).unwrap();
        let (mut tests, mut bound) = (Vec::new(), Vec::new());
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            let text = |n: Node<'_>| n.utf8_text(source.as_bytes()).unwrap().to_string();
            match node.kind() {
                "call_expression" if field(node, "function").is_some_and(|f| names_a_test(f, source.as_bytes())) => {
                    tests.push(text(field(node, "arguments").unwrap()))
                }
                "assignment_expression" => bound.extend(bound_back(node, source.as_bytes()).map(text)),
                _ => {}
            }
            stack.extend(node.children(&mut node.walk()));
        }
        tests.sort();
        // (`test.each(t)` names a test too; the query keeps calls whose first argument is a title.)
        assert_eq!(tests, ["('a', f)", "('b', f)", "('c', f)", "(t)"]);
        assert_eq!(bound, ["this.m"]);
    }

    #[test]
    fn rust_callees_by_shape_and_place() {
        let source = "fn f() { x.go(); a::b::run(); make::<u8>(); v.map::<u8>(); }";
        let calls = |kind| read(Lang::Rust, source, kind, Place::Call);
        // (`v.map` is also the field expression inside `v.map::<u8>`.)
        assert_eq!(
            calls("field_expression"),
            [("go".into(), Some("x".into()), false), ("map".into(), Some("v".into()), false)]
        );
        // (`a::b` is also the path inside `a::b::run`.)
        assert_eq!(
            calls("scoped_identifier"),
            [("b".into(), Some("a".into()), false), ("run".into(), Some("a::b".into()), false)]
        );
        assert_eq!(calls("generic_function"), [("make".into(), None, false), ("map".into(), Some("v".into()), false)]);
        // Named as a value, a field expression names no function.
        assert!(read(Lang::Rust, source, "field_expression", Place::Value).is_empty());
        assert!(read(Lang::Rust, source, "generic_function", Place::Macro).is_empty());
    }
}
