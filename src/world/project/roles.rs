//! Which role each capture of a projection query plays, and what one match
//! captured, read by role: a name, a call, a definition, a type hint; a callee
//! captured whole is read off its fields (`callee.rs`). Knows capture names
//! and syntax nodes; nothing about ids, files or resolution.

use nerd_logic::vocab::SymbolKind;
use tree_sitter::{Node, Query};

use super::hints::HintCaptures;
use super::{callee, compact, line_of, text, CallForm, CallSite, HintKind};
use crate::world::lang::Lang;

/// Which role each capture of a projection query plays.
pub(super) struct Roles {
    lang: Lang,
    definition: Vec<Option<SymbolKind>>,
    name: Option<u32>,
    receiver: Option<u32>,
    qualifier: Option<u32>,
    scope: Option<u32>,
    call: Option<u32>,
    value: Option<u32>,
    macro_call: Option<u32>,
    import: Option<u32>,
    hint_var: Option<u32>,
    hint_type: Option<u32>,
    hint_value: Option<u32>,
    hint_base: Option<u32>,
    hint_alias: Option<u32>,
    hint_field: Option<u32>,
    hint_return: Option<u32>,
    hint_decorated: Option<u32>,
    hint_passes: Option<u32>,
    hint_callback: Option<u32>,
    hint_tuple: Option<u32>,
    /// A node whose hints are read off its fields in code (`hints::node_hints`).
    hint_node: Option<u32>,
    macro_args: Option<u32>,
    macro_body: Option<u32>,
    function_scope: Option<u32>,
    /// A construct that binds names in the function around it (`Locals`).
    local_binding: Option<u32>,
    /// A Rust attribute before an item.
    attribute: Option<u32>,
    not_read: Option<u32>,
    /// A callee captured whole; `callee::parts` reads its name and qualifier.
    callee: Option<u32>,
    /// A declaration that counts only at the top level of its file.
    pub(super) module_item: Option<u32>,
    /// What a TypeScript test-defining call calls (`callee::names_a_test`).
    test_callee: Option<u32>,
    /// An assignment to a member (`callee::bound_back`).
    assigned: Option<u32>,
}

impl Roles {
    pub(super) fn of(query: &Query, lang: Lang) -> Roles {
        let names = query.capture_names();
        let index = |wanted: &str| names.iter().position(|n| *n == wanted).map(|i| i as u32);
        Roles {
            lang,
            definition: names
                .iter()
                .map(|n| n.strip_prefix("definition.").and_then(|k| k.parse::<SymbolKind>().ok()))
                .collect(),
            name: index("name"),
            receiver: index("receiver"),
            qualifier: index("qualifier"),
            scope: index("scope"),
            call: index("reference.call"),
            value: index("reference.value"),
            macro_call: index("reference.macro"),
            import: index("import"),
            hint_var: index("hint.var"),
            hint_type: index("hint.type"),
            hint_value: index("hint.value"),
            hint_base: index("hint.base"),
            hint_alias: index("hint.alias"),
            hint_field: index("hint.field"),
            hint_return: index("hint.return"),
            hint_decorated: index("hint.decorated"),
            hint_passes: index("hint.passes"),
            hint_callback: index("hint.callback"),
            hint_tuple: index("hint.tuple"),
            hint_node: index("hint.node"),
            macro_args: index("macro.args"),
            macro_body: index("macro.body"),
            function_scope: index("function.scope"),
            local_binding: index("local.binding"),
            attribute: index("attribute"),
            not_read: index("member.not_read"),
            callee: index("callee"),
            module_item: index("module.item"),
            test_callee: index("test.callee"),
            assigned: index("member.assigned"),
        }
    }
}

/// What one query match captured, by role.
#[derive(Default)]
pub(super) struct Captured<'t> {
    pub(super) def: Option<(Node<'t>, Option<SymbolKind>)>,
    pub(super) name: Option<Node<'t>>,
    pub(super) receiver: Option<Node<'t>>,
    pub(super) qualifier: Option<Node<'t>>,
    pub(super) call: Option<Node<'t>>,
    pub(super) value: Option<Node<'t>>,
    pub(super) macro_call: Option<Node<'t>>,
    pub(super) imports: Vec<Node<'t>>,
    pub(super) macros: Vec<Node<'t>>,
    pub(super) bodies: Vec<Node<'t>>,
    /// A function whose parameters and locals shadow the module's names.
    pub(super) function: Option<Node<'t>>,
    /// A construct that binds names in the function around it.
    pub(super) binding: Option<Node<'t>>,
    /// A Rust attribute before an item.
    pub(super) attribute: Option<Node<'t>>,
    /// A member called, constructed, decorating or written: no read of it.
    pub(super) not_read: Option<Node<'t>>,
    /// A declaration that counts only at the top level of its file.
    pub(super) module_item: Option<Node<'t>>,
    /// What a TypeScript test-defining call calls: the match stands only if it names a test.
    pub(super) test_callee: Option<Node<'t>>,
    /// An assignment to a member, which may bind a method back onto itself.
    pub(super) assigned: Option<Node<'t>>,
    pub(super) hint: HintCaptures<'t>,
    /// A node whose hints are read in code.
    pub(super) hint_node: Option<Node<'t>>,
}

impl Roles {
    /// Sorts one match's captures by the role each plays.
    pub(super) fn read<'t>(&self, m: &tree_sitter::QueryMatch<'_, 't>) -> Captured<'t> {
        let mut out = Captured::default();
        let mut callee_node = None;
        for c in m.captures() {
            let i = Some(c.index);
            if let Some(kind) = self.definition.get(c.index as usize).copied().flatten() {
                out.def = Some((c.node, Some(kind)));
            } else if i == self.scope {
                out.def = Some((c.node, None));
            } else if i == self.name {
                out.name = Some(c.node);
            } else if i == self.receiver {
                out.receiver = Some(c.node);
            } else if i == self.qualifier {
                out.qualifier = Some(c.node);
            } else if i == self.call {
                out.call = Some(c.node);
            } else if i == self.value {
                out.value = Some(c.node);
            } else if i == self.macro_call {
                out.macro_call = Some(c.node);
            } else if i == self.macro_body {
                out.bodies.push(c.node);
            } else if i == self.function_scope {
                out.function = Some(c.node);
            } else if i == self.local_binding {
                out.binding = Some(c.node);
            } else if i == self.attribute {
                out.attribute = Some(c.node);
            } else if i == self.not_read {
                out.not_read = Some(c.node);
            } else if i == self.import {
                out.imports.push(c.node);
            } else if i == self.macro_args {
                out.macros.push(c.node);
            } else if i == self.hint_var {
                out.hint.var = Some(c.node);
            } else if i == self.hint_type {
                out.hint.text = Some((c.node, HintKind::Type));
            } else if i == self.hint_value {
                out.hint.text = Some((c.node, HintKind::Call));
            } else if i == self.hint_base {
                out.hint.text = Some((c.node, HintKind::Base));
            } else if i == self.hint_alias {
                out.hint.text = Some((c.node, HintKind::Alias));
            } else if i == self.hint_tuple {
                out.hint.tuple = Some(c.node);
            } else if i == self.hint_field {
                out.hint.field = true;
            } else if i == self.hint_return {
                out.hint.returned = true;
            } else if i == self.hint_decorated {
                out.hint.decorated = true;
            } else if i == self.hint_passes {
                out.hint.passes = true;
            } else if i == self.hint_node {
                out.hint_node = Some(c.node);
            } else if i == self.hint_callback {
                out.hint.callback = Some(c.node);
            } else if i == self.callee {
                callee_node = Some(c.node);
            } else if i == self.module_item {
                out.module_item = Some(c.node);
            } else if i == self.test_callee {
                out.test_callee = Some(c.node);
            } else if i == self.assigned {
                out.assigned = Some(c.node);
            }
        }
        if let Some(node) = callee_node {
            let place = match (out.call, out.value) {
                (Some(call), _) if self.lang.kind(call) == "new_expression" => callee::Place::New,
                (Some(_), _) => callee::Place::Call,
                (None, Some(_)) => callee::Place::Value,
                (None, None) => callee::Place::Macro,
            };
            let parts = callee::parts(self.lang, node, place);
            out.name = out.name.or(parts.name);
            out.qualifier = out.qualifier.or(parts.qualifier);
            out.receiver = out.receiver.or(parts.receiver);
            out.not_read = out.not_read.or(parts.not_read);
        }
        out
    }
}

impl Captured<'_> {
    /// The call this match captured, if it is one; `first_row` places rows of
    /// a re-parsed macro argument list back in the file.
    pub(super) fn call_site(&self, source: &[u8], first_row: u32) -> Option<CallSite> {
        let name = self.name?;
        let (node, form) = match (self.call, self.value, self.macro_call) {
            // A call's `@receiver` is the value of a method call: it qualifies the call and makes it a method call.
            (Some(call), _, _) if self.receiver.is_some() => (call, CallForm::Method),
            (Some(call), _, _) => (call, CallForm::Call),
            (None, Some(value), _) => (value, CallForm::Reference),
            (None, None, Some(invocation)) => (invocation, CallForm::Macro),
            (None, None, None) => return None,
        };
        Some(CallSite {
            at: node.start_byte(),
            // The line of the name called: in a chain written over several
            // lines (`z.string()\n  .min(1)`) each call is on its own line.
            line: first_row + line_of(name),
            node_id: Some(node.id()),
            name: text(name, source).to_string(),
            qualifier: self.qualifier.or(self.receiver).map(|q| compact(text(q, source), 80)),
            form,
        })
    }
}
