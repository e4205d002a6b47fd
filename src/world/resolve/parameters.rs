//! What a parameter holds where no annotation says it: in Python the value of
//! the pytest fixture it names, what the overridden base method declares at
//! its position, what a decorator says it passes first (PEP 612); in
//! TypeScript, for a function passed to a call, what the callee declares for
//! that function's parameter. Pure over the index; knows nothing about
//! storage, nor about receivers beyond the values `receiver.rs` gives.

use nerd_logic::vocab::SymbolKind;

use super::call::{Cx, Outcome};
use super::index::{path_of, Index, TypeKey};
use super::receiver::MAX_DEPTH;
use super::types::{generic, parameter_annotation, parameter_names, return_type};
use super::value::Value;
use crate::world::imports::split_top_level;
use crate::world::lang::Lang;
use crate::world::project::{HintKind, ProjectedSymbol, TypeHint, PASSED, PASSED_FIRST};
use crate::world::walk::{folders_above, join};

impl<'a> Index<'a> {
    /// Python: the caller's first parameter `var` holds what a decorator of
    /// the caller passes there, where the decorator's own first parameter
    /// says so (PEP 612: `def pass_context(f: Callable[Concatenate[Context,
    /// P], R])`). `None` where no decorator of the project says it.
    pub(super) fn passed_by_decorator(&self, cx: &Cx<'_, 'a>, var: &str, depth: u32) -> Option<Value<'a>> {
        if cx.file.lang != Lang::Python {
            return None;
        }
        let hints = self.hints.get(self.innermost_scope(cx))?;
        hints.iter().filter(|h| h.var == var).find_map(|h| {
            let decorator = h.text.strip_suffix(PASSED_FIRST)?;
            let Outcome::Found(found, _) = self.resolve_written(cx, decorator, depth) else { return None };
            let annotation = parameter_annotation(&found[0].signature, 0)?.trim_matches(['"', '\'']);
            let (_, inner) = annotation.split_once("Concatenate[")?;
            let first = split_top_level(inner, ',').into_iter().next()?.trim();
            self.type_in(found[0], first).project_types()
        })
    }

    /// Python: an unannotated parameter of a method that overrides a base
    /// class's method holds what the base method declares at its position
    /// (`def invoke(self, ctx)` under `Command.invoke(self, ctx: Context)`),
    /// as a type checker reads it.
    pub(super) fn inherited_parameter(&self, cx: &Cx<'_, 'a>, var: &str, depth: u32) -> Option<Value<'a>> {
        if cx.file.lang != Lang::Python || depth > MAX_DEPTH {
            return None;
        }
        let method = self.by_id.get(cx.caller).filter(|s| s.kind == SymbolKind::Method)?;
        let position = parameter_names(&method.signature).iter().position(|p| *p == var)?;
        if position == 0 || parameter_annotation(&method.signature, position).is_some() {
            return None;
        }
        let owner = self.owner_of(method)?;
        // The bases nearest first, the first base before the second, as Python's method order reads them.
        let mut queue: Vec<TypeKey<'a>> = self.supertypes.get(&owner).cloned().unwrap_or_default();
        let mut seen = vec![owner];
        let mut next = 0;
        while let Some(&base) = queue.get(next) {
            next += 1;
            if seen.contains(&base) || seen.len() > 16 {
                continue;
            }
            seen.push(base);
            let Some(declared) = self.methods.get(&(base, method.name.as_str())).and_then(|m| m.first().copied())
            else {
                queue.extend(self.supertypes.get(&base).into_iter().flatten());
                continue;
            };
            let annotation = parameter_annotation(&declared.signature, position)?;
            return Some(self.type_in(declared, annotation).inferred());
        }
        None
    }

    /// Python: a parameter of a function in a test file that names a pytest
    /// fixture (a function of that name in the same file or in a `conftest.py`
    /// of its folder or one above) holds what the fixture returns.
    pub(super) fn fixture_value(&self, cx: &Cx<'_, 'a>, var: &str, depth: u32) -> Option<Value<'a>> {
        if cx.file.lang != Lang::Python || !self.test_files.contains(cx.file.path) || depth > MAX_DEPTH {
            return None;
        }
        let caller = self.by_id.get(cx.caller)?;
        if !parameter_names(&caller.signature).contains(&var) {
            return None;
        }
        let conftests = folders_above(cx.file.path)
            .filter_map(|dir| self.files.get(join(dir, "conftest.py").as_str()).map(|f| f.path));
        let fixture = std::iter::once(cx.file.path).chain(conftests).find_map(|file| {
            self.local.get(&(file, var))?.iter().copied().find(|s| s.depth == 0 && s.kind == SymbolKind::Function)
        })?;
        Some(self.result_value(fixture, depth + 1).inferred())
    }

    /// TypeScript: an unannotated parameter of a function passed to a call
    /// holds what the callee declares for it: parameter P of the function
    /// type the callee declares at argument A, a type parameter of the callee
    /// bound by the declared type of the const the call initialises
    /// (`export const ZodArray: core.$constructor<ZodArray> =
    /// core.$constructor("ZodArray", (inst, def) => …)`: `inst` is a
    /// `ZodArray`). `None` where the callee is not the project's or says
    /// nothing there.
    pub(super) fn callback_parameter(&self, cx: &Cx<'_, 'a>, var: &str, depth: u32) -> Option<Value<'a>> {
        if cx.file.lang.family() != Lang::TypeScript || depth > MAX_DEPTH {
            return None;
        }
        // The parameter's hint is scoped like the calls in its function: by
        // the function around it, or the file (a const's initialiser). It is
        // written inside the caller, before the call: the nearest such one.
        let inside = |line: u32| self.by_id.get(cx.caller).is_none_or(|c| c.line <= line && line <= c.end_line);
        let scoped = |scope: &str| -> Option<&'a TypeHint> {
            let hints = self.hints.get(scope)?;
            let passed = hints.iter().copied().filter(|h| h.var == var && h.text.contains(PASSED));
            passed.filter(|h| h.line <= cx.line && inside(h.line)).max_by_key(|h| h.line)
        };
        let hint = scoped(self.innermost_scope(cx)).or_else(|| scoped(cx.file.path))?;
        let (callee, position) = hint.text.rsplit_once(PASSED)?;
        let (argument, parameter) = position.strip_suffix(')')?.split_once('.')?;
        let (argument, parameter): (usize, usize) = (argument.parse().ok()?, parameter.parse().ok()?);
        // The callee as written where the parameter's function is passed.
        let at = Cx { file: cx.file, caller: cx.caller, line: hint.line };
        let Outcome::Found(found, _) = self.resolve_written(&at, callee.trim(), depth) else { return None };
        let function_type = parameter_annotation(&found[0].signature, argument)?;
        let written = parameter_annotation(function_type, parameter)?;
        // A bound type is written at the const; any other in the callee's signature.
        let (text, at) = self.bound_type_parameter(found[0], written, hint).unwrap_or((written, found[0]));
        self.type_in(at, text).project_types().map(Value::inferred)
    }

    /// What the type parameter `written` of `callee` stands for in the call
    /// that `hint` was written in: the type argument at its place in the
    /// callee's declared return type, read off the declared type of the const
    /// the call initialises (`$constructor<T, D>` against
    /// `core.$constructor<ZodArray>` binds `T` to `ZodArray`), and that const.
    fn bound_type_parameter(
        &self,
        callee: &'a ProjectedSymbol,
        written: &str,
        hint: &TypeHint,
    ) -> Option<(&'a str, &'a ProjectedSymbol)> {
        let signature = callee.signature.as_str();
        let parameters = &signature[..signature.find('(')?];
        let (_, declared) = generic(parameters.trim())?;
        let is_parameter = split_top_level(declared, ',')
            .into_iter()
            .any(|p| p.split([' ', '=']).next().is_some_and(|name| name.trim() == written.trim()));
        if !is_parameter {
            return None;
        }
        let (returned_head, returned) = generic(return_type(Lang::TypeScript, signature)?)?;
        let at = split_top_level(returned, ',').into_iter().position(|a| a.trim() == written.trim())?;
        let file = self.files.get(path_of(&hint.scope))?;
        let constant = file
            .projection
            .symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::Const && s.line <= hint.line && hint.line <= s.end_line)
            .max_by_key(|s| s.depth)?;
        let annotation = self
            .hints
            .get(path_of(&constant.id))?
            .iter()
            .copied()
            .find(|t| t.var == constant.name && t.line == constant.line && t.kind == HintKind::Type && !t.field)?;
        let (annotated_head, arguments) = generic(annotation.text.as_str())?;
        let last = |head: &str| head.rsplit(['.', ':']).next().map(str::trim).unwrap_or_default().to_string();
        if last(annotated_head) != last(returned_head) {
            return None;
        }
        let bound = split_top_level(arguments, ',').into_iter().nth(at)?.trim();
        Some((bound, constant))
    }
}
