//! Type hints as the projection finds them: what a query match says a name
//! holds (an annotation, a callee's result, a base, an alias, what a
//! decorator or a callee passes), and the hints read from the tree itself
//! (what an arrow function or an overloaded implementation returns). Their
//! scopes are `Enclosing`'s; what they mean is resolution's.

use tree_sitter::Node;

use super::callee::{field, fields_of};
use super::{compact, line_of, text, HintKind};
use crate::world::lang::Lang;

/// A type hint before its scope is known.
pub(super) struct HintSite {
    pub(super) at: usize,
    pub(super) line: u32,
    pub(super) var: String,
    pub(super) kind: HintKind,
    pub(super) text: String,
    pub(super) field: bool,
    /// A decorated definition's name: it binds in the scope around the definition.
    pub(super) decorated: bool,
}

/// The name a hint on what a function returns binds: a keyword, so never a variable.
pub const RETURN_VAR: &str = "return";

/// Marks a call hint whose name holds what the callee passes, not what it
/// returns: `callee(@)` for a decorator's first argument to the function it
/// wraps (`click.pass_context(@)`), `callee(@A.P)` for parameter P of the
/// function given as argument A (`core.$constructor(@1.0)` for `inst` of
/// `core.$constructor("X", (inst, def) => …)`).
pub const PASSED: &str = "(@";
/// Ends the text of a decorator's hint: see `PASSED`.
pub const PASSED_FIRST: &str = "(@)";

/// The captures of one type-hint match.
#[derive(Default)]
pub(super) struct HintCaptures<'t> {
    pub(super) var: Option<Node<'t>>,
    pub(super) text: Option<(Node<'t>, HintKind)>,
    pub(super) field: bool,
    /// What the enclosing function returns: the hint binds `return`.
    pub(super) returned: bool,
    /// A decorated function's name holds what its outermost decorator makes:
    /// the hint is placed at the decorator, in the scope around the function.
    pub(super) decorated: bool,
    /// The tuple pattern the name is one element of (`let (a, mut b) = f()`).
    pub(super) tuple: Option<Node<'t>>,
    /// The name is a decorated function's first parameter and the text its
    /// decorator, which may say what it passes there (`@click.pass_context`).
    pub(super) passes: bool,
    /// The name is an unannotated parameter of this function, which may be
    /// an argument of a call (`callback_site`).
    pub(super) callback: Option<Node<'t>>,
}

impl<'t> HintCaptures<'t> {
    /// That the name `var` holds what `text` writes, and nothing more.
    fn holding(var: Node<'t>, text: (Node<'t>, HintKind)) -> Self {
        HintCaptures { var: Some(var), text: Some(text), ..Default::default() }
    }

    /// The same, of a field of the enclosing type.
    fn field_holding(var: Node<'t>, text: (Node<'t>, HintKind)) -> Self {
        HintCaptures { field: true, ..Self::holding(var, text) }
    }
}

impl HintCaptures<'_> {
    pub(super) fn site(&self, source: &[u8]) -> Option<HintSite> {
        // A callback's parameter: the text is the callee of the call the function is passed to.
        let callback = match (self.callback, self.var) {
            (Some(function), Some(var)) => Some(callback_site(function, var)?),
            _ => None,
        };
        let (node, kind) = match callback {
            Some((callee, _, _)) => (callee, HintKind::Call),
            None => self.text?,
        };
        let var = match (self.var, kind) {
            (_, HintKind::Base) => String::new(),
            _ if self.returned => RETURN_VAR.to_string(),
            (Some(v), _) => text(v, source).to_string(),
            (None, _) => return None,
        };
        let anchor = if self.decorated { node } else { self.var.unwrap_or(node) };
        let mut written = compact(text(node, source), 120);
        let element = self.tuple.zip(self.var).and_then(|(tuple, var)| element_holding(tuple, var));
        if let (Some(element), HintKind::Call) = (element, kind) {
            written = format!("{written}().{element}");
        }
        if self.passes && kind == HintKind::Call {
            written = format!("{written}{PASSED_FIRST}");
        }
        if let Some((_, argument, parameter)) = callback {
            written = format!("{written}{PASSED}{argument}.{parameter})");
        }
        let (at, line, field, decorated) = (anchor.start_byte(), line_of(anchor), self.field, self.decorated);
        Some(HintSite { at, line, var, kind, text: written, field, decorated })
    }
}

/// The hints a node the query captured whole (`@hint.node`) holds, read off
/// its fields in the order the query gave them (a match is complete at its
/// last node, so a written type comes before the value after it): a nested
/// pattern costs the query's compiler an analysis per node in it, paid by
/// every process, and reading the node here costs nothing until one matches.
pub(super) fn node_hints<'t>(lang: Lang, node: Node<'t>, source: &[u8]) -> Vec<HintCaptures<'t>> {
    match (lang.family(), lang.kind(node)) {
        (Lang::Python, "assignment") => python_assignment(node, source),
        (Lang::Python, "with_item") => python_with_item(node).into_iter().collect(),
        (Lang::Python, "decorated_definition") => python_decorated(node),
        (Lang::Python, "return_statement") => {
            let call = named_children(node).into_iter().find(|c| c.kind() == "call");
            let callee = call.and_then(|c| field(c, "function")).filter(|f| is_python_callee(*f));
            callee
                .map(|f| HintCaptures { text: Some((f, HintKind::Call)), returned: true, ..Default::default() })
                .into_iter()
                .collect()
        }
        (Lang::TypeScript, _) => typescript_hints(lang, node),
        (Lang::Go, _) => go_hints(node),
        _ => Vec::new(),
    }
}

/// TypeScript: `const x: T = …`, `const x = new T()`, `x = f()`, `x = await f()`, `x = y` (an
/// alias); a parameter's type (a field too where it has an accessibility modifier); a class
/// field's type or construction; `this.x = new T()` or `= y`; `return new T()` or `return f()`;
/// and an arrow function's parameters without a type, which may be a callback's.
fn typescript_hints(lang: Lang, node: Node<'_>) -> Vec<HintCaptures<'_>> {
    let mut out = Vec::new();
    match lang.kind(node) {
        "variable_declarator" => {
            let [name, written, value] = fields_of(lang, node, ["name", "type", "value"]);
            let Some(var) = name.filter(|n| n.kind() == "identifier") else { return out };
            out.extend(ts_types(written).into_iter().map(|t| HintCaptures::holding(var, (t, HintKind::Type))));
            if let Some(value) = value {
                let awaited = || {
                    let inner = if value.kind() == "await_expression" { named_children(value) } else { Vec::new() };
                    inner.into_iter().find_map(ts_called)
                };
                let text = ts_constructed(value)
                    .map(|c| (c, HintKind::Call))
                    .or_else(|| ts_called(value).map(|f| (f, HintKind::Call)))
                    .or_else(|| awaited().map(|f| (f, HintKind::Call)))
                    .or_else(|| is_ts_callee(value).then_some((value, HintKind::Alias)));
                out.extend(text.map(|t| HintCaptures::holding(var, t)));
            }
        }
        "required_parameter" | "optional_parameter" => {
            let [pattern, written] = fields_of(lang, node, ["pattern", "type"]);
            let Some(var) = pattern.filter(|p| p.kind() == "identifier") else { return out };
            let accessible = node.kind() == "required_parameter"
                && named_children(node).iter().any(|c| c.kind() == "accessibility_modifier");
            for t in ts_types(written) {
                if accessible {
                    out.push(HintCaptures::field_holding(var, (t, HintKind::Type)));
                }
                out.push(HintCaptures::holding(var, (t, HintKind::Type)));
            }
        }
        "public_field_definition" => {
            let [name, written, value] = fields_of(lang, node, ["name", "type", "value"]);
            let Some(var) = name.filter(|n| n.kind() == "property_identifier") else { return out };
            out.extend(ts_types(written).into_iter().map(|t| HintCaptures::field_holding(var, (t, HintKind::Type))));
            out.extend(value.and_then(ts_constructed).map(|c| HintCaptures::field_holding(var, (c, HintKind::Call))));
        }
        "assignment_expression" => {
            let [left, right] = fields_of(lang, node, ["left", "right"]);
            let member = left.filter(|l| l.kind() == "member_expression");
            let [object, property] = member.map_or([None, None], |m| fields_of(lang, m, ["object", "property"]));
            let var =
                property.filter(|p| p.kind() == "property_identifier" && object.is_some_and(|o| o.kind() == "this"));
            let text = right.and_then(|r| {
                ts_constructed(r)
                    .map(|c| (c, HintKind::Call))
                    .or_else(|| (r.kind() == "identifier").then_some((r, HintKind::Alias)))
            });
            // A statement of its own (asking for the parent last: it costs a descent from the root).
            if let (Some(var), Some(text)) = (var, text) {
                if node.parent().is_some_and(|p| p.kind() == "expression_statement") {
                    out.push(HintCaptures::field_holding(var, text));
                }
            }
        }
        "return_statement" => {
            let returned = named_children(node)
                .into_iter()
                .find_map(|c| ts_constructed(c).or_else(|| ts_called(c)).map(|t| (t, HintKind::Call)));
            out.extend(returned.map(|t| HintCaptures { text: Some(t), returned: true, ..Default::default() }));
        }
        "arrow_function" => {
            let parameters = field(node, "parameters").filter(|p| p.kind() == "formal_parameters");
            for parameter in parameters.map(named_children).unwrap_or_default() {
                let [pattern, written] = fields_of(lang, parameter, ["pattern", "type"]);
                if let (true, Some(var), None) =
                    (parameter.kind() == "required_parameter", pattern.filter(|p| p.kind() == "identifier"), written)
                {
                    out.push(HintCaptures { var: Some(var), callback: Some(node), ..Default::default() });
                }
            }
        }
        _ => {}
    }
    out
}

/// What a TypeScript type annotation writes: each named child (one, but for comments).
fn ts_types(annotation: Option<Node<'_>>) -> Vec<Node<'_>> {
    annotation.filter(|a| a.kind() == "type_annotation").map(named_children).unwrap_or_default()
}

/// What `new T()` constructs: `T`.
fn ts_constructed(value: Node<'_>) -> Option<Node<'_>> {
    Some(value).filter(|v| v.kind() == "new_expression").and_then(|v| field(v, "constructor"))
}

/// What a call of a name or member calls.
fn ts_called(value: Node<'_>) -> Option<Node<'_>> {
    Some(value)
        .filter(|v| v.kind() == "call_expression")
        .and_then(|c| field(c, "function"))
        .filter(|f| is_ts_callee(*f))
}

/// Go: `x := f()`, `x := T{…}`, `x := &T{…}`, `x := y.(T)` (the first name
/// and the first value), and `var x T`, `var x = f()`, `= &T{…}`, `= T{…}` (each name).
fn go_hints(node: Node<'_>) -> Vec<HintCaptures<'_>> {
    let mut out = Vec::new();
    match Lang::Go.kind(node) {
        "short_var_declaration" => {
            let [left, right] = fields_of(Lang::Go, node, ["left", "right"]);
            let var = left.filter(|l| l.kind() == "expression_list").and_then(|l| named_children(l).into_iter().next());
            if let (Some(var), Some(text)) = (var.filter(|v| v.kind() == "identifier"), go_first_value(right, true)) {
                out.push(HintCaptures::holding(var, text));
            }
        }
        "var_spec" => {
            let names: Vec<Node<'_>> = (0..node.child_count())
                .filter(|&i| node.field_name_for_child(i) == Some("name"))
                .filter_map(|i| node.child(i))
                .filter(|n| n.kind() == "identifier")
                .collect();
            let [written, value] = fields_of(Lang::Go, node, ["type", "value"]);
            let value = go_first_value(value, false);
            out.extend(
                written
                    .into_iter()
                    .flat_map(|t| names.iter().map(move |&n| HintCaptures::holding(n, (t, HintKind::Type)))),
            );
            out.extend(value.into_iter().flat_map(|v| names.iter().map(move |&n| HintCaptures::holding(n, v))));
        }
        _ => {}
    }
    out
}

/// What the first value of a Go expression list holds: a call's callee, or a
/// written type (`T{…}`, `&T{…}`, and where `assertion`, `y.(T)`).
fn go_first_value(list: Option<Node<'_>>, assertion: bool) -> Option<(Node<'_>, HintKind)> {
    let first = list.filter(|l| l.kind() == "expression_list").and_then(|l| named_children(l).into_iter().next())?;
    match first.kind() {
        "call_expression" => field(first, "function")
            .filter(|f| matches!(f.kind(), "identifier" | "selector_expression"))
            .map(|f| (f, HintKind::Call)),
        "composite_literal" => field(first, "type").map(|t| (t, HintKind::Type)),
        "unary_expression" => field(first, "operand")
            .filter(|o| o.kind() == "composite_literal")
            .and_then(|o| field(o, "type"))
            .map(|t| (t, HintKind::Type)),
        "type_assertion_expression" if assertion => field(first, "type").map(|t| (t, HintKind::Type)),
        _ => None,
    }
}

/// A TypeScript name or member, as a callee is written.
fn is_ts_callee(node: Node<'_>) -> bool {
    matches!(node.kind(), "identifier" | "member_expression")
}

/// A Python name or attribute, as a callee or a value is written.
fn is_python_callee(node: Node<'_>) -> bool {
    matches!(node.kind(), "identifier" | "attribute")
}

/// The named children of `node`.
fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    node.named_children(&mut node.walk()).collect()
}

/// `x: T`, `x = f()`, `x = y` (an alias), the same of `self.x` (a field of the
/// class), and a class-level annotation (a field too).
fn python_assignment<'t>(node: Node<'t>, source: &[u8]) -> Vec<HintCaptures<'t>> {
    let [left, right, written] = fields_of(Lang::Python, node, ["left", "right", "type"]);
    let written = written.filter(|t| t.kind() == "type");
    let Some(left) = left else { return Vec::new() };
    let called =
        right.filter(|r| r.kind() == "call").and_then(|c| field(c, "function")).filter(|f| is_python_callee(*f));
    let mut out = Vec::new();
    // A class-level annotation, an assignment statement right in a class's body: its pattern
    // starts at the class, so the query gave it before the others of the same node.
    let in_class_body = left.kind() == "identifier"
        && written.is_some()
        && node
            .parent()
            .filter(|s| s.kind() == "expression_statement")
            .and_then(|s| s.parent())
            .filter(|b| b.kind() == "block")
            .and_then(|b| b.parent().filter(|c| c.kind() == "class_definition").zip(Some(b)))
            .is_some_and(|(class, block)| field(class, "body").is_some_and(|body| body.id() == block.id()));
    if let (true, Some(t)) = (in_class_body, written) {
        out.push(HintCaptures::field_holding(left, (t, HintKind::Type)));
    }
    match left.kind() {
        "identifier" => {
            out.extend(written.map(|t| HintCaptures::holding(left, (t, HintKind::Type))));
            out.extend(called.map(|f| HintCaptures::holding(left, (f, HintKind::Call))));
            out.extend(
                right.filter(|r| is_python_callee(*r)).map(|r| HintCaptures::holding(left, (r, HintKind::Alias))),
            );
        }
        "attribute" => {
            let [object, attribute] = fields_of(Lang::Python, left, ["object", "attribute"]);
            let of_self = object.is_some_and(|o| o.kind() == "identifier" && text(o, source) == "self");
            if let (true, Some(var)) = (of_self, attribute.filter(|a| a.kind() == "identifier")) {
                out.extend(written.map(|t| HintCaptures::field_holding(var, (t, HintKind::Type))));
                out.extend(called.map(|f| HintCaptures::field_holding(var, (f, HintKind::Call))));
                out.extend(
                    right
                        .filter(|r| r.kind() == "identifier")
                        .map(|r| HintCaptures::field_holding(var, (r, HintKind::Alias))),
                );
            }
        }
        _ => {}
    }
    out
}

/// `with open_session() as s:`: `s` holds what the callee returns.
fn python_with_item(node: Node<'_>) -> Option<HintCaptures<'_>> {
    let value = field(node, "value").filter(|v| v.kind() == "as_pattern")?;
    let alias = field(value, "alias").filter(|a| a.kind() == "as_pattern_target")?;
    let call = named_children(value).into_iter().find(|c| c.kind() == "call" && c.start_byte() < alias.start_byte())?;
    let callee = field(call, "function").filter(|f| is_python_callee(*f))?;
    let var = named_children(alias).into_iter().find(|n| n.kind() == "identifier")?;
    Some(HintCaptures { var: Some(var), text: Some((callee, HintKind::Call)), ..Default::default() })
}

/// A decorated function at module level or in a function's body holds what
/// its outermost decorator makes (`@click.group()` makes a `Group`); its first
/// parameter holds what a decorator named without a call passes there.
fn python_decorated(node: Node<'_>) -> Vec<HintCaptures<'_>> {
    let mut out = Vec::new();
    let Some(function) = field(node, "definition").filter(|d| d.kind() == "function_definition") else {
        return out;
    };
    let children = named_children(node);
    let placed = node.parent().is_some_and(|p| match p.kind() {
        "module" => true,
        "block" => p
            .parent()
            .filter(|f| f.kind() == "function_definition")
            .and_then(|f| field(f, "body"))
            .is_some_and(|body| body.id() == p.id()),
        _ => false,
    });
    let outermost = children.first().filter(|d| d.kind() == "decorator");
    let made = outermost.and_then(|d| {
        named_children(*d).into_iter().find_map(|e| match e.kind() {
            "call" => field(e, "function").filter(|f| is_python_callee(*f)),
            "identifier" | "attribute" => Some(e),
            _ => None,
        })
    });
    if let (true, Some(made), Some(name)) = (placed, made, field(function, "name").filter(|n| n.kind() == "identifier"))
    {
        out.push(HintCaptures {
            var: Some(name),
            text: Some((made, HintKind::Call)),
            decorated: true,
            ..Default::default()
        });
    }
    let first = field(function, "parameters").and_then(|p| named_children(p).into_iter().next());
    if let Some(first) = first.filter(|p| p.kind() == "identifier") {
        for decorator in children.iter().filter(|d| d.kind() == "decorator") {
            for named in named_children(*decorator).into_iter().filter(|e| is_python_callee(*e)) {
                out.push(HintCaptures {
                    var: Some(first),
                    text: Some((named, HintKind::Call)),
                    passes: true,
                    ..Default::default()
                });
            }
        }
    }
    out
}

/// TypeScript: what a definition whose value is an arrow function with one
/// call or construction for its body returns (`make = () => new Cart()`,
/// `string: ((arg) => ZodString.create(arg)) as …`): a hint on `return`,
/// placed in the body, so inside the definition. A block body's `return`s
/// are the types query's.
pub(super) fn arrow_return(def: Node<'_>, source: &[u8]) -> Option<HintSite> {
    let mut value = def.child_by_field_name("value")?;
    while matches!(value.kind(), "parenthesized_expression" | "as_expression" | "satisfies_expression") {
        value = value.named_child(0)?;
    }
    if value.kind() != "arrow_function" {
        return None;
    }
    let body = value.child_by_field_name("body")?;
    let callee = match body.kind() {
        "call_expression" => body.child_by_field_name("function")?,
        "new_expression" => body.child_by_field_name("constructor")?,
        _ => return None,
    };
    if !matches!(callee.kind(), "identifier" | "member_expression") {
        return None;
    }
    Some(return_hint(body, HintKind::Call, callee, source))
}

/// A hint on what a function returns (`RETURN_VAR`), placed at the start of
/// its `body` so that it belongs to the function: `written`, of `kind`.
pub(super) fn return_hint(body: Node<'_>, kind: HintKind, written: Node<'_>, source: &[u8]) -> HintSite {
    HintSite {
        at: body.start_byte(),
        line: line_of(body),
        var: RETURN_VAR.to_string(),
        kind,
        text: compact(text(written, source), 120),
        field: false,
        decorated: false,
    }
}

/// A function passed to a call, and its parameter `var`: the callee as
/// written (a name or member), the argument the function is, and the
/// parameter's place among its parameters, both counted from 0. `None` where
/// the function is no argument of a call to a name.
fn callback_site<'t>(function: Node<'t>, var: Node<'t>) -> Option<(Node<'t>, usize, usize)> {
    let arguments = function.parent().filter(|a| a.kind() == "arguments")?;
    let callee = arguments
        .parent()
        .filter(|c| c.kind() == "call_expression")?
        .child_by_field_name("function")
        .filter(|f| matches!(f.kind(), "identifier" | "member_expression"))?;
    let argument = element_holding(arguments, function)?;
    let parameter = element_holding(function.child_by_field_name("parameters")?, var)?;
    Some((callee, argument, parameter))
}

/// The place, counted from 0 among `list`'s named children (comments left
/// out), of the one whose span holds `node`: the element of a tuple pattern
/// a name binds (`b` of `let (a, mut b)` is 1), an argument, a parameter.
/// Found from the list down.
fn element_holding(list: Node<'_>, node: Node<'_>) -> Option<usize> {
    let mut cursor = list.walk();
    let at = list
        .named_children(&mut cursor)
        .filter(|c| !c.kind().ends_with("comment"))
        .position(|c| c.start_byte() <= node.start_byte() && node.end_byte() <= c.end_byte());
    at
}
