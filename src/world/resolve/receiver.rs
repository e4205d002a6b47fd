//! Resolves one call: a bare name through the file, its imports, its package
//! and, as a last resort, a unique name (a `name_only` guess); a path or a
//! method call through what the receiver is: `self`'s type, a local whose
//! type a hint gives (an annotation, a constructor, a function's declared
//! return type), a field, a module; what an unannotated Python parameter holds
//! is `parameters.rs`'s, which methods of a typed value may run `dispatch.rs`'s. A receiver the language's own library answers
//! is never linked to the project. Pure over the index; knows nothing about
//! storage.

use nerd_logic::vocab::{Provenance, SymbolKind};

use super::call::{Cx, Outcome};
use super::index::{callable, container_of, is_type, path_of, type_scope, Index, TypeKey, TypeLookup};
use super::names::{builtin_function, builtin_global, std_method};
use super::types::{parameter_names, result_alias_error_type, return_type, type_name};
use super::value::{Dispatch, Value};
use super::FileView;
use crate::world::imports::split_top_level;
use crate::world::lang::Lang;
use crate::world::project::{HintKind, ProjectedSymbol, TypeHint, PASSED, RETURN_VAR};
use crate::world::walk::dir_of;

/// How many steps one resolution may take through hints, results and fields.
pub(super) const MAX_DEPTH: u32 = 8;

/// Rust methods of the standard library that give a view of the value they
/// are called on, of its own type: `Clone`, `Borrow`, `AsRef`, `Deref`, a
/// `RefCell`'s or `Mutex`'s access (wrappers are transparent to resolution:
/// see `types::type_name`), an iterator's `by_ref`.
const RUST_VIEWS: &[&str] =
    &["clone", "to_owned", "borrow", "borrow_mut", "as_ref", "as_mut", "deref", "deref_mut", "by_ref"];

/// Rust methods of `Result` that give its error value.
const RESULT_ERROR: &[&str] = &["unwrap_err", "expect_err"];

/// Whether a method of this name is one `std_method_value` answers for.
fn gives_std_view(lang: Lang, name: &str) -> bool {
    lang == Lang::Rust && (RUST_VIEWS.contains(&name) || RESULT_ERROR.contains(&name))
}

/// The innermost function or method of `file` whose span holds `line`.
fn function_at<'a>(file: &FileView<'a>, line: u32) -> Option<&'a ProjectedSymbol> {
    file.projection
        .symbols
        .iter()
        .filter(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method))
        .filter(|s| s.line <= line && line <= s.end_line)
        .max_by_key(|s| s.depth)
}

fn plain_callable(kind: SymbolKind) -> bool {
    callable(kind) && kind != SymbolKind::Method
}

fn is_identifier(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// `callee(args)` → `callee`, when `part` is one call.
fn as_call(part: &str) -> Option<&str> {
    let inner = part.strip_suffix(')')?;
    let mut depth = 0i32;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => return Some(inner[..i].trim()),
            '(' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Drops generic arguments from a written name: `parse::<T>` → `parse`, `make<T>` → `make`.
fn strip_generics(name: &str) -> &str {
    let name = name.split("::<").next().unwrap_or(name);
    name.split('<').next().unwrap_or(name).trim()
}

/// A callee as written (`Foo`, `pkg.New`, `Foo::new`, `self.make`) split
/// into its qualifier, its name and whether it is written in method syntax.
fn split_callee(lang: Lang, text: &str) -> (Option<&str>, &str, bool) {
    let mut text = text.trim();
    // A turbofish belongs to the name: `s.parse::<u8>`.
    if let Some(at) = text.rfind("::<").filter(|_| text.ends_with('>')) {
        text = &text[..at];
    }
    if lang == Lang::Rust {
        if let Some((q, n)) = text.rsplit_once("::") {
            if !n.contains('.') {
                return (Some(q), strip_generics(n), false);
            }
        }
    }
    match split_top_level(text, '.').as_slice() {
        [_] | [] => (None, strip_generics(text), false),
        parts => {
            let last = parts[parts.len() - 1];
            let q = &text[..text.len() - last.len() - 1];
            (Some(q), strip_generics(last), true)
        }
    }
}

impl<'a> Index<'a> {
    /// Resolves a call to `name`, written with `qualifier` (`pkg`, `Type`,
    /// a receiver expression) and in method syntax or not.
    pub(super) fn resolve_call(
        &self,
        cx: &Cx<'_, 'a>,
        name: &str,
        qualifier: Option<&str>,
        method: bool,
        depth: u32,
    ) -> Outcome<'a> {
        if depth > MAX_DEPTH {
            return Outcome::Unknown;
        }
        let outcome = match qualifier.map(str::trim) {
            None | Some("") => self.plain(cx, name, depth),
            Some(q) if cx.file.lang == Lang::Rust && !method => self.path_call(cx, q, name, depth),
            Some(q) => {
                let value = self.receiver_value(cx, q, depth + 1);
                self.call_on(cx, value, name, depth)
            }
        };
        self.keep_reachable(cx, outcome)
    }

    /// Code outside tests never calls into test files (in Go it cannot).
    pub(super) fn reachable(&self, cx: &Cx<'_, 'a>, s: &ProjectedSymbol) -> bool {
        self.test_files.contains(cx.file.path) || !self.in_test_file(s)
    }

    fn keep_reachable(&self, cx: &Cx<'_, 'a>, outcome: Outcome<'a>) -> Outcome<'a> {
        let Outcome::Found(mut found, provenance) = outcome else { return outcome };
        found.retain(|s| self.reachable(cx, s));
        found.sort_by(|a, b| a.id.cmp(&b.id));
        found.dedup_by(|a, b| a.id == b.id);
        match found.len() {
            0 => Outcome::Unknown,
            1 => Outcome::Found(found, provenance),
            _ if provenance == Provenance::NameOnly => Outcome::Found(found, provenance),
            _ => Outcome::Found(found, Provenance::Inferred),
        }
    }

    /// A bare call: the file, a name standing for another, its imports, its
    /// package, the language's builtins, then a unique name anywhere as a guess.
    fn plain(&self, cx: &Cx<'_, 'a>, name: &str, depth: u32) -> Outcome<'a> {
        let file = cx.file;
        let family = file.lang.family();
        let local: Vec<&ProjectedSymbol> = self
            .local
            .get(&(file.path, name))
            .into_iter()
            .flatten()
            .copied()
            .filter(|s| plain_callable(s.kind))
            .collect();
        if !local.is_empty() {
            // The innermost definition visible from the caller: a nested function, else a top-level one.
            let caller_scope = cx.caller.split_once('#').map_or("", |(_, q)| q);
            let best = local
                .iter()
                .copied()
                .filter(|s| {
                    let c = container_of(&s.id);
                    c.is_empty() || caller_scope == c || caller_scope.starts_with(&format!("{c}."))
                })
                .max_by_key(|s| s.depth)
                .unwrap_or(local[0]);
            return Outcome::Found(vec![best], Provenance::Exact);
        }
        if let Some(alias) = self.local_hint(cx, name).filter(|h| h.kind == HintKind::Alias) {
            return self.alias_outcome(alias, depth);
        }
        if let Some(imports) = self.imports.get(file.path) {
            if let Some(bindings) = imports.names.get(name) {
                let mut found = Vec::new();
                let mut external = false;
                for b in bindings {
                    if b.files.is_empty() && b.submodule.is_empty() {
                        external = true;
                    }
                    found.extend(self.exported_callables(&b.files, b.item.unwrap_or(name), depth));
                }
                if !found.is_empty() {
                    return Outcome::Found(found, Provenance::Exact);
                }
                if external {
                    return Outcome::External;
                }
            }
            for star in &imports.stars {
                let found = self.exported_callables(star, name, depth);
                if !found.is_empty() {
                    return Outcome::Found(found, Provenance::Exact);
                }
            }
        }
        if family == Lang::Go {
            let found: Vec<&ProjectedSymbol> = self
                .packages
                .get(dir_of(file.path))
                .into_iter()
                .flatten()
                .flat_map(|f| self.local.get(&(*f, name)).into_iter().flatten().copied())
                .filter(|s| plain_callable(s.kind) && s.depth == 0)
                .collect();
            if !found.is_empty() {
                return Outcome::Found(found, Provenance::Exact);
            }
        }
        if builtin_function(file.lang, name) {
            return Outcome::External;
        }
        let guesses: Vec<&ProjectedSymbol> = self
            .global
            .get(&(family, name))
            .into_iter()
            .flatten()
            .copied()
            .filter(|s| plain_callable(s.kind) && self.reachable(cx, s))
            .collect();
        match guesses.as_slice() {
            [only] => Outcome::Found(vec![*only], Provenance::NameOnly),
            _ => Outcome::Unknown,
        }
    }

    /// A Rust path call: `Type::f()`, `Self::f()`, `module::f()`, `std::…::f()`.
    fn path_call(&self, cx: &Cx<'_, 'a>, qualifier: &str, name: &str, depth: u32) -> Outcome<'a> {
        if qualifier.starts_with('<') {
            return Outcome::Unknown; // `<T as Trait>::f()`
        }
        let segments: Vec<&str> = qualifier
            .split("::")
            .map(strip_generics)
            .filter(|s| !s.is_empty() && !matches!(*s, "crate" | "self" | "super" | "$crate"))
            .collect();
        let (Some(&head), Some(&last)) = (segments.first(), segments.last()) else {
            return self.plain(cx, name, depth);
        };
        if builtin_global(Lang::Rust, head) {
            return Outcome::External;
        }
        // `io::Error::new` with `use std::io`: a path through a module from outside the project.
        if segments.len() > 1 {
            let bindings = self.imports.get(cx.file.path).and_then(|i| i.names.get(head));
            if bindings
                .is_some_and(|bs| !bs.is_empty() && bs.iter().all(|b| b.files.is_empty() && b.submodule.is_empty()))
            {
                return Outcome::External;
            }
        }
        // `fx::Config::load` with `use fixture as fx`: a type of the module the alias binds.
        let through_module = match segments.as_slice() {
            [module, ty] => {
                let bindings = self.imports.get(cx.file.path).and_then(|i| i.names.get(module));
                let files: Vec<&'a str> =
                    bindings.into_iter().flatten().filter(|b| b.item.is_none()).flat_map(|b| b.files.clone()).collect();
                let found = self.exported(&files, ty, is_type);
                (!found.is_empty()).then(|| (self.type_keys(&found), Provenance::Exact))
            }
            _ => None,
        };
        let types = if last == "Self" {
            self.enclosing_type(cx).map(|t| (vec![t], Provenance::Exact))
        } else if through_module.is_some() {
            through_module
        } else {
            match self.type_named(cx.file, last) {
                TypeLookup::Project(t, p) => Some((t, p)),
                TypeLookup::External => return Outcome::External,
                TypeLookup::NotFound => None,
            }
        };
        if let Some((types, provenance)) = types {
            return match self.call_on(cx, Value::Types(types, provenance, Dispatch::Static), name, depth) {
                // A project type without that function: a derived or std trait's (`Foo::default()`) or a variant.
                Outcome::Unknown => Outcome::External,
                other => other,
            };
        }
        let mut files: Vec<&'a str> = Vec::new();
        if let Some(bindings) = self.imports.get(cx.file.path).and_then(|i| i.names.get(last)) {
            for b in bindings.iter().filter(|b| b.item.is_none() || b.item == Some(last)) {
                match b.item {
                    // `use crate::size_hint;`: the module `size_hint`, not the crate root that holds it.
                    Some(item) => {
                        let sub = self.submodule_of(&b.files, item);
                        files.extend(if sub.is_empty() { b.files.clone() } else { sub });
                    }
                    None => files.extend(&b.files),
                }
            }
        }
        if files.is_empty() {
            files = self.module_files(Lang::Rust, last);
        }
        if files.is_empty() && segments.len() == 1 {
            // `itertools::equal(…)` without a `use`: a crate of the workspace, by its name.
            files = self.workspace_crate_root(last);
        }
        let found = self.exported(&files, name, plain_callable);
        if found.is_empty() {
            // Neither a project type nor a project module: a dependency's.
            Outcome::External
        } else {
            Outcome::Found(found, Provenance::Exact)
        }
    }

    /// The callables the module made of `files` exports as `name`, its
    /// aliases of longer names (`const string = ZodString.create`) followed.
    fn exported_callables(&self, files: &[&'a str], name: &str, depth: u32) -> Vec<&'a ProjectedSymbol> {
        let (mut found, aliases) = self.exports(files, name, plain_callable);
        for alias in aliases {
            if let Outcome::Found(targets, _) = self.alias_outcome(alias, depth) {
                found.extend(targets);
            }
        }
        found
    }

    /// What calling a name that stands for another calls: the other name,
    /// resolved where the alias is written.
    fn alias_outcome(&self, alias: &'a TypeHint, depth: u32) -> Outcome<'a> {
        let Some(file) = self.files.get(path_of(&alias.scope)) else { return Outcome::Unknown };
        self.resolve_written(&Cx { file, caller: &alias.scope, line: alias.line }, &alias.text, depth)
    }

    /// Resolves a callee as written (`pkg.f`, `Type::new`, `x.m`) where `cx` says.
    pub(super) fn resolve_written(&self, cx: &Cx<'_, 'a>, callee: &str, depth: u32) -> Outcome<'a> {
        let (qualifier, name, method) = split_callee(cx.file.lang, callee);
        self.resolve_call(cx, name, qualifier, method, depth + 1)
    }

    /// A call of `name` on a value.
    fn call_on(&self, cx: &Cx<'_, 'a>, value: Value<'a>, name: &str, depth: u32) -> Outcome<'a> {
        match value {
            Value::Types(types, provenance, dispatch) => {
                let (found, dispatched) = self.methods_on(cx, &types, name, dispatch);
                if found.is_empty() {
                    if let Some(found) = self.trait_methods_in_scope(cx, name, true) {
                        return found;
                    }
                    // Inherited from a base outside the project, or a callable held in a field.
                    return if self.has_foreign_base(&types) { Outcome::External } else { Outcome::Unknown };
                }
                let provenance = if dispatched { Provenance::Inferred } else { provenance };
                Outcome::Found(found, provenance)
            }
            Value::Module(files) => {
                let found = self.exported_callables(&files, name, depth);
                if found.is_empty() {
                    Outcome::Unknown
                } else {
                    Outcome::Found(found, Provenance::Exact)
                }
            }
            Value::Namespace(namespaces) => {
                let found: Vec<&'a ProjectedSymbol> =
                    self.namespace_members(&namespaces, name).filter(|s| callable(s.kind)).collect();
                if found.is_empty() {
                    Outcome::Unknown
                } else {
                    Outcome::Found(found, Provenance::Exact)
                }
            }
            Value::External => self.trait_methods_in_scope(cx, name, false).unwrap_or(Outcome::External),
            Value::Unknown if depth > MAX_DEPTH => Outcome::Unknown,
            Value::Unknown => {
                self.trait_methods_in_scope(cx, name, false).unwrap_or_else(|| self.guess_method(cx, name))
            }
        }
    }

    /// A method on a receiver of unknown type: a unique project method of that
    /// name, unless the language's own types answer the name too.
    fn guess_method(&self, cx: &Cx<'_, 'a>, name: &str) -> Outcome<'a> {
        if std_method(cx.file.lang, name) {
            return Outcome::Unknown;
        }
        let candidates: Vec<&ProjectedSymbol> = self
            .methods_by_name
            .get(&(cx.file.lang.family(), name))
            .into_iter()
            .flatten()
            .copied()
            .filter(|s| self.reachable(cx, s))
            .collect();
        match candidates.as_slice() {
            [only] => Outcome::Found(vec![*only], Provenance::NameOnly),
            _ => Outcome::Unknown,
        }
    }

    /// An instance of the caller's type or of a subclass (`: this`, `Self`).
    fn virtual_instance(&self, t: Option<TypeKey<'a>>) -> Value<'a> {
        t.map_or(Value::Unknown, |t| Value::Types(vec![t], Provenance::Inferred, Dispatch::Virtual))
    }

    /// The type whose method or function the caller is (`self`, `this`, `cls`, `Self`).
    fn enclosing_type(&self, cx: &Cx<'_, 'a>) -> Option<TypeKey<'a>> {
        let family = cx.file.lang.family();
        let scope = type_scope(family, cx.file.path);
        let qualified = cx.caller.split_once('#').map(|(_, q)| q)?;
        let segments: Vec<&str> = qualified.split('.').collect();
        segments[..segments.len().saturating_sub(1)].iter().rev().find_map(|seg| {
            let seg = seg.split('~').next().unwrap_or(seg);
            let declared = self.types.get(&(family, seg))?.first()?;
            let key = TypeKey { lang: family, scope, name: declared.name.as_str() };
            self.declared.contains_key(&key).then_some(key)
        })
    }

    /// What a receiver expression (`self.session`, `s`, `pkg`, `New().x`) holds.
    fn receiver_value(&self, cx: &Cx<'_, 'a>, expr: &str, depth: u32) -> Value<'a> {
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        let expr = expr.trim().trim_end_matches('?');
        let expr = expr.strip_prefix("await ").unwrap_or(expr).trim();
        let parts = split_top_level(expr, '.');
        let Some((head, rest)) = parts.split_first() else { return Value::Unknown };
        let mut value = self.head_value(cx, head.trim().trim_end_matches('?'), depth);
        for part in rest {
            value = self.member_value(cx, value, part.trim().trim_end_matches('?'), depth + 1);
        }
        value
    }

    fn head_value(&self, cx: &Cx<'_, 'a>, head: &str, depth: u32) -> Value<'a> {
        let lang = cx.file.lang;
        if let Some(callee) = as_call(head) {
            if lang == Lang::Python && callee == "super" {
                return self.bases_of_enclosing(cx);
            }
            // `new Money(1).plus(…)`: the receiver is what the constructor makes.
            let callee = match lang.family() {
                Lang::TypeScript => callee.strip_prefix("new ").map_or(callee, str::trim),
                _ => callee,
            };
            return self.value_of_callee(cx, callee, depth + 1);
        }
        if lang == Lang::Rust && head.contains("::") {
            return Value::Unknown;
        }
        if !is_identifier(head) {
            return Value::Unknown;
        }
        if head == "super" && lang.family() == Lang::TypeScript {
            return self.bases_of_enclosing(cx);
        }
        if matches!(head, "self" | "this" | "cls" | "Self") || self.is_python_self(cx, head) {
            return match self.enclosing_type(cx) {
                Some(t) => Value::Types(vec![t], Provenance::Exact, Dispatch::Virtual),
                None => Value::Unknown,
            };
        }
        if let Some(value) = self.local_value(cx, head, depth) {
            return value;
        }
        if lang.family() == Lang::TypeScript {
            let own = self.namespaces(&[cx.file.path], head);
            if !own.is_empty() {
                return Value::Namespace(own);
            }
        }
        if let Some(bindings) = self.imports.get(cx.file.path).and_then(|i| i.names.get(head)) {
            let mut modules = Vec::new();
            for b in bindings {
                match b.item {
                    None => modules.extend(&b.files),
                    Some(item) => {
                        let types = self.exported(&b.files, item, is_type);
                        if let Some(value) = self.declared_value(lang, item, &types, depth) {
                            return value;
                        }
                        if !types.is_empty() {
                            return Value::Types(self.type_keys(&types), Provenance::Exact, Dispatch::Static);
                        }
                        if lang.family() == Lang::TypeScript {
                            let namespaces = self.namespaces(&b.files, item);
                            if !namespaces.is_empty() {
                                return Value::Namespace(namespaces);
                            }
                        }
                        modules.extend(&b.submodule);
                        // `import { z } from "zod"`, where the package binds `z` to a whole module.
                        modules.extend(self.exported_namespace(&b.files, item));
                    }
                }
            }
            if !modules.is_empty() {
                return Value::Module(modules);
            }
            if bindings.iter().all(|b| b.files.is_empty() && b.submodule.is_empty()) {
                return Value::External;
            }
        }
        match self.type_named(cx.file, head) {
            TypeLookup::Project(types, provenance) => return Value::Types(types, provenance, Dispatch::Static),
            TypeLookup::External => return Value::External,
            TypeLookup::NotFound => {}
        }
        if builtin_global(lang, head) {
            return Value::External;
        }
        Value::Unknown
    }

    /// Python: a method's first parameter is its instance whatever its name (`__self`).
    fn is_python_self(&self, cx: &Cx<'_, 'a>, head: &str) -> bool {
        if cx.file.lang != Lang::Python || head.trim_start_matches('_') != "self" {
            return false;
        }
        let Some(method) = self.by_id.get(cx.caller).filter(|s| s.kind == SymbolKind::Method) else { return false };
        parameter_names(&method.signature).first() == Some(&head)
    }

    /// `super()` (Python), `super` (TypeScript): the bases of the caller's type.
    fn bases_of_enclosing(&self, cx: &Cx<'_, 'a>) -> Value<'a> {
        let Some(t) = self.enclosing_type(cx) else { return Value::Unknown };
        match self.supertypes.get(&t) {
            Some(bases) if !bases.is_empty() => Value::Types(bases.clone(), Provenance::Exact, Dispatch::Static),
            _ => Value::External,
        }
    }

    /// What a hint in the caller's scopes says the local name `var` holds,
    /// or, for a test's parameter, the pytest fixture of that name.
    fn local_value(&self, cx: &Cx<'_, 'a>, var: &str, depth: u32) -> Option<Value<'a>> {
        if let Some(value) = self.passed_by_decorator(cx, var, depth) {
            return Some(value);
        }
        if let Some(value) = self.callback_parameter(cx, var, depth) {
            return Some(value);
        }
        let hint = self.local_hint(cx, var);
        // A parameter shadows the names around its function: a hint written
        // outside the caller (the fixture's own `@pytest.fixture` definition
        // in the same file) does not say what the parameter holds.
        if hint.is_none_or(|h| h.scope != cx.caller) {
            if let Some(value) = self.fixture_value(cx, var, depth) {
                return Some(value);
            }
            if let Some(value) = self.inherited_parameter(cx, var, depth) {
                return Some(value);
            }
        }
        hint.map(|h| self.value_of_hint(h, depth + 1))
    }

    /// The scope whose names a call at `cx.line` sees first: a function nested
    /// in a test that holds the line (its calls are the test's), else the caller.
    pub(super) fn innermost_scope<'c>(&self, cx: &Cx<'c, '_>) -> &'c str {
        if self.by_id.get(cx.caller).is_none_or(|s| s.kind != SymbolKind::Test) {
            return cx.caller;
        }
        match function_at(cx.file, cx.line) {
            Some(f) if f.id.strip_prefix(cx.caller).is_some_and(|rest| rest.starts_with('.')) => &f.id,
            _ => cx.caller,
        }
    }

    /// The hint on the local name `var` that the caller sees: in the caller,
    /// its enclosing functions, its file, and in Go its package; the last one
    /// written before the call, else the first.
    fn local_hint(&self, cx: &Cx<'_, 'a>, var: &str) -> Option<&'a TypeHint> {
        let mut scope = self.innermost_scope(cx);
        let mut scopes = vec![scope];
        while let Some((outer, _)) = scope.rsplit_once('.').filter(|(o, _)| o.contains('#')) {
            scopes.push(outer);
            scope = outer;
        }
        scopes.push(cx.file.path);
        let package: Vec<&'a str> = if cx.file.lang == Lang::Go {
            self.packages
                .get(dir_of(cx.file.path))
                .into_iter()
                .flatten()
                .copied()
                .filter(|p| *p != cx.file.path)
                .collect()
        } else {
            Vec::new()
        };
        scopes.extend(package);
        for scope in scopes {
            let Some(hints) = self.hints.get(scope) else { continue };
            let mut named = hints.iter().copied().filter(|h| h.var == var && !h.text.contains(PASSED)).peekable();
            let Some(first) = named.peek().copied() else { continue };
            return Some(named.rfind(|h| h.line <= cx.line).unwrap_or(first));
        }
        None
    }

    /// The value a hint gives its name, evaluated where the hint is written, once for each depth.
    fn value_of_hint(&self, hint: &'a TypeHint, depth: u32) -> Value<'a> {
        let key = (std::ptr::from_ref(hint) as usize, depth);
        if let Some(known) = self.hint_values.borrow().get(&key) {
            return known.clone();
        }
        let value = self.evaluate_hint(hint, depth);
        self.hint_values.borrow_mut().insert(key, value.clone());
        value
    }

    fn evaluate_hint(&self, hint: &'a TypeHint, depth: u32) -> Value<'a> {
        let Some(file) = self.files.get(path_of(&hint.scope)) else { return Value::Unknown };
        // A field set from a name (`self.command = command`) reads that name
        // where it is written: in the method, whose parameters type it.
        let scope = match (hint.field, hint.kind) {
            (true, HintKind::Alias) => function_at(file, hint.line).map_or(hint.scope.as_str(), |f| f.id.as_str()),
            _ => hint.scope.as_str(),
        };
        let cx = Cx { file, caller: scope, line: hint.line };
        let value = match hint.kind {
            HintKind::Type => self.type_value(&cx, &hint.text),
            HintKind::Call => self.value_of_callee(&cx, &hint.text, depth + 1),
            HintKind::Alias => self.receiver_value(&cx, &hint.text, depth + 1),
            HintKind::Base => Value::Unknown,
        };
        value.inferred()
    }

    /// The value of a type written in `s` (its signature or body), read where `s` is.
    pub(super) fn type_in(&self, s: &'a ProjectedSymbol, text: &str) -> Value<'a> {
        match self.files.get(path_of(&s.id)) {
            Some(file) => self.type_value(&Cx { file, caller: &s.id, line: s.line }, text),
            None => Value::Unknown,
        }
    }

    /// The value of a written type.
    pub(super) fn type_value(&self, cx: &Cx<'_, 'a>, text: &str) -> Value<'a> {
        if type_name(cx.file.lang, text).is_some_and(|(_, name)| name == "Self") {
            return self.virtual_instance(self.enclosing_type(cx));
        }
        match self.written_type(cx.file, text) {
            TypeLookup::Project(types, _) => Value::Types(types, Provenance::Inferred, Dispatch::Virtual),
            TypeLookup::External => Value::External,
            TypeLookup::NotFound => Value::Unknown,
        }
    }

    /// The value a call of `callee` (as written) returns; for `callee().N`,
    /// element `N` of the tuple it returns.
    fn value_of_callee(&self, cx: &Cx<'_, 'a>, callee: &str, depth: u32) -> Value<'a> {
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        let (callee, element) = match callee.rsplit_once("().") {
            Some((called, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => (called, n.parse().ok()),
            _ => (callee, None),
        };
        let (qualifier, name, method) = split_callee(cx.file.lang, callee);
        let outcome = self.resolve_call(cx, name, qualifier, method, depth + 1);
        let std_view = method && gives_std_view(cx.file.lang, name);
        if let (false, true, Some(q), None) = (matches!(outcome, Outcome::Found(..)), std_view, qualifier, element) {
            let receiver = self.receiver_value(cx, q, depth + 1);
            if let Some(value) = self.std_method_value(cx.file.lang, &receiver, name, depth) {
                return value;
            }
        }
        match (outcome, element) {
            (Outcome::Found(found, _), None) => self.result_value(found[0], depth),
            (Outcome::Found(found, _), Some(n)) => self.element_value(found[0], n, depth),
            (Outcome::External, _) => Value::External,
            (Outcome::Unknown, _) => Value::Unknown,
        }
    }

    /// Whether `s` declares that it returns the value it is called on (TypeScript `this`).
    fn returns_this(&self, s: &ProjectedSymbol) -> bool {
        let lang = self.files.get(path_of(&s.id)).map(|f| f.lang);
        lang.is_some_and(|l| l.family() == Lang::TypeScript && return_type(l, &s.signature) == Some("this"))
    }

    /// Rust: what a standard method the project type of `value` does not
    /// declare gives, where the standard library says so: a view of the same
    /// value (`RUST_VIEWS`), or the error type of a project alias of `Result`
    /// (`unwrap_err`). `None` for any other call.
    fn std_method_value(&self, lang: Lang, value: &Value<'a>, name: &str, depth: u32) -> Option<Value<'a>> {
        match value {
            Value::Types(types, ..) if gives_std_view(lang, name) => {
                if RESULT_ERROR.contains(&name) {
                    self.result_alias_error(types, depth)
                } else {
                    Some(value.clone())
                }
            }
            _ => None,
        }
    }

    /// Element `n` of the tuple type a function declares it returns (`(Error, Dropped)`).
    fn element_value(&self, s: &'a ProjectedSymbol, n: usize, depth: u32) -> Value<'a> {
        let Some(file) = self.files.get(path_of(&s.id)) else { return Value::Unknown };
        let Some(returned) = return_type(file.lang, &s.signature) else { return Value::Unknown };
        let Some(list) = returned.trim().strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
            return Value::Unknown;
        };
        let elements = crate::world::imports::split_top_level(list, ',');
        match elements.get(n).map(|e| e.trim()).filter(|e| !e.is_empty()) {
            Some(element) if depth <= MAX_DEPTH => self.type_in(s, element),
            _ => Value::Unknown,
        }
    }

    /// What calling `s` gives: an instance of a type, or a function's declared return type.
    pub(super) fn result_value(&self, s: &'a ProjectedSymbol, depth: u32) -> Value<'a> {
        if is_type(s.kind) {
            // A constructor's result is exactly of its class.
            return self
                .type_key(s)
                .map_or(Value::Unknown, |t| Value::Types(vec![t], Provenance::Inferred, Dispatch::Static));
        }
        let Some(file) = self.files.get(path_of(&s.id)) else { return Value::Unknown };
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        let Some(returned) = return_type(file.lang, &s.signature) else {
            // No declared type: what its `return` statements construct.
            let returns = self.hints.get(s.id.as_str()).and_then(|hs| hs.iter().find(|h| h.var == RETURN_VAR));
            return returns.map_or(Value::Unknown, |hint| self.value_of_hint(hint, depth + 1));
        };
        let cx = Cx { file, caller: &s.id, line: s.line };
        if returned == "this" {
            // A fluent method returns its own receiver: at least the type that declares it.
            return self.virtual_instance(self.enclosing_type(&cx));
        }
        self.type_value(&cx, returned)
    }

    /// A member of a value: a field, a method's result, a module's member.
    fn member_value(&self, cx: &Cx<'_, 'a>, value: Value<'a>, part: &str, depth: u32) -> Value<'a> {
        if depth > MAX_DEPTH {
            return Value::Unknown;
        }
        if let Some(callee) = as_call(part) {
            let name = strip_generics(callee);
            // Rust: a view of a project value that its own type does not
            // declare (`clone()`, `borrow_mut()` of a `RefCell` field,
            // `by_ref()`) is a value of the same type.
            let same = self.std_method_value(cx.file.lang, &value, name, depth);
            let receiver = matches!(value, Value::Types(..)).then(|| value.clone());
            return match (self.call_on(cx, value, name, depth), same) {
                (Outcome::Found(found, _), _) => match receiver {
                    // A fluent method (`: this`) gives back the receiver it was called on.
                    Some(receiver) if self.returns_this(found[0]) => receiver,
                    _ => self.result_value(found[0], depth + 1),
                },
                (_, Some(same)) => same,
                (Outcome::External, None) => Value::External,
                (Outcome::Unknown, None) => Value::Unknown,
            };
        }
        if !is_identifier(part) {
            return Value::Unknown;
        }
        match value {
            Value::Types(types, _, _) => {
                let mut queue: Vec<TypeKey<'a>> = types;
                let mut seen = Vec::new();
                while let Some(t) = queue.pop() {
                    if seen.contains(&t) || seen.len() > 16 {
                        continue;
                    }
                    seen.push(t);
                    if let Some((hint, _)) = self.fields.get(&(t, part)).and_then(|f| f.first()) {
                        return self.value_of_hint(hint, depth + 1);
                    }
                    queue.extend(self.supertypes.get(&t).into_iter().flatten());
                }
                Value::Unknown
            }
            Value::Module(files) => {
                let types = self.exported(&files, part, is_type);
                if let Some(value) = self.declared_value(cx.file.lang, part, &types, depth) {
                    return value;
                }
                if !types.is_empty() {
                    return Value::Types(self.type_keys(&types), Provenance::Exact, Dispatch::Static);
                }
                // `z.util.f()` or `z.coerce.string()`: a namespace, or a const holding functions, the module exports.
                if cx.file.lang.family() == Lang::TypeScript {
                    let namespaces = self.namespaces(&files, part);
                    if !namespaces.is_empty() {
                        return Value::Namespace(namespaces);
                    }
                }
                let mut sub = self.submodule_files(cx.file.lang, &files, part);
                if sub.is_empty() {
                    // `z.coerce`, with `export * as coerce from "./coerce"` somewhere behind `z`.
                    sub = self.exported_namespace(&files, part);
                }
                if !sub.is_empty() {
                    return Value::Module(sub);
                }
                for f in &files {
                    let hint = self.hints.get(*f).and_then(|hs| hs.iter().copied().find(|h| h.var == part));
                    if let Some(hint) = hint {
                        return self.value_of_hint(hint, depth + 1);
                    }
                }
                Value::Unknown
            }
            Value::Namespace(namespaces) => {
                let members: Vec<&'a ProjectedSymbol> = self.namespace_members(&namespaces, part).collect();
                let types: Vec<&'a ProjectedSymbol> = members.iter().copied().filter(|s| is_type(s.kind)).collect();
                if !types.is_empty() {
                    return Value::Types(self.type_keys(&types), Provenance::Exact, Dispatch::Static);
                }
                let inner: Vec<&'a ProjectedSymbol> =
                    members.into_iter().filter(|s| s.kind == SymbolKind::Module).collect();
                if inner.is_empty() {
                    Value::Unknown
                } else {
                    Value::Namespace(inner)
                }
            }
            Value::External => Value::External,
            Value::Unknown => Value::Unknown,
        }
    }

    /// TypeScript: what a name that a module exports both as a type only
    /// (`types`: interfaces, type aliases) and as a const holds where code
    /// uses it as a value: the const's declared type, else what its
    /// initialiser returns (`export interface $ZodString …` beside `export
    /// const $ZodString: $constructor<$ZodString> = $constructor(…)`).
    /// `None` where the name is no such pair.
    fn declared_value(&self, lang: Lang, name: &str, types: &[&'a ProjectedSymbol], depth: u32) -> Option<Value<'a>> {
        let type_only = |s: &&ProjectedSymbol| matches!(s.kind, SymbolKind::Interface | SymbolKind::Type);
        if lang.family() != Lang::TypeScript || types.is_empty() || !types.iter().all(type_only) {
            return None;
        }
        // The const is declared beside the type, at its file's top level.
        let hint = types
            .iter()
            .filter_map(|t| self.hints.get(path_of(&t.id)))
            .flat_map(|hints| hints.iter().copied().filter(|h| h.var == name))
            .min_by_key(|h| h.kind != HintKind::Type)?;
        Some(self.value_of_hint(hint, depth + 1))
    }

    /// Rust: the error type of a project alias of `Result`
    /// (`type Result<T, E = Error> = core::result::Result<T, E>`, or
    /// `type Result<T> = std::result::Result<T, Error>`) among `types`: what
    /// `unwrap_err()` gives. A use that names another error type is read as
    /// the alias's default (the value keeps no type arguments).
    fn result_alias_error(&self, types: &[TypeKey<'a>], depth: u32) -> Option<Value<'a>> {
        let alias = types
            .iter()
            .flat_map(|t| self.declared.get(t).into_iter().flatten())
            .find(|s| s.kind == SymbolKind::Type)?;
        let error = result_alias_error_type(&alias.signature)?;
        (depth <= MAX_DEPTH).then(|| self.type_in(alias, error)).and_then(Value::project_types)
    }

    /// The symbols named `name` declared directly in `namespaces`.
    fn namespace_members<'n>(
        &'n self,
        namespaces: &'n [&'a ProjectedSymbol],
        name: &'n str,
    ) -> impl Iterator<Item = &'a ProjectedSymbol> + 'n {
        namespaces.iter().filter_map(move |ns| self.by_id.get(format!("{}.{name}", ns.id).as_str()).copied())
    }

    /// The TypeScript namespaces declared in code that `name` names in
    /// `files` (a module's own, or one it exports); only TypeScript
    /// namespaces, and consts whose object literal holds functions, are
    /// indexed by name among modules and consts (see `Index::local`).
    fn namespaces(&self, files: &[&'a str], name: &str) -> Vec<&'a ProjectedSymbol> {
        self.exported(files, name, |k| matches!(k, SymbolKind::Module | SymbolKind::Const))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callees_split_into_qualifier_and_name() {
        assert_eq!(split_callee(Lang::Rust, "Foo::new"), (Some("Foo"), "new", false));
        assert_eq!(split_callee(Lang::Rust, "s.parse::<u8>"), (Some("s"), "parse", true));
        assert_eq!(split_callee(Lang::Python, "requests.Session"), (Some("requests"), "Session", true));
        assert_eq!(split_callee(Lang::Go, "NewFlagSet"), (None, "NewFlagSet", false));
        assert_eq!(split_callee(Lang::TypeScript, "a.b(c.d).e"), (Some("a.b(c.d)"), "e", true));
        assert_eq!(as_call("GetCommandLine()"), Some("GetCommandLine"));
        assert_eq!(as_call("f(a(b), c)"), Some("f"));
        assert_eq!(as_call("x"), None);
    }
}
