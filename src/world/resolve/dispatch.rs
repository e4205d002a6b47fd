//! Which methods a call on a typed value may run: the type's own or its
//! bases', an interface's or trait's implementations, a class's overrides in
//! its subclasses when the value may be a subclass's instance, and a Rust
//! trait's methods on a type the project does not answer for when the trait
//! is in scope. Pure over the index; knows nothing about how a receiver's
//! type was found.

use nerd_logic::vocab::{Provenance, SymbolKind};
use rustc_hash::FxHashSet as HashSet;

use super::call::{Cx, Outcome};
use super::index::{is_type, owner_name, path_of, type_scope, Index, TypeKey};
use super::names::std_method;
use super::value::Dispatch;
use crate::world::lang::Lang;
use crate::world::project::ProjectedSymbol;

/// How many subclasses one virtual call looks through for overrides.
const MAX_SUBCLASSES: usize = 512;

impl<'a> Index<'a> {
    /// Rust: a method of a type the project does not answer for (a standard
    /// type, a type of no known type) reaches project code only through a
    /// project trait in scope in the calling file (declared there or imported:
    /// `use itertools::Itertools`), implemented for that type by a blanket or
    /// a specific impl. Its method of that name, and the implementations'
    /// overrides, answer, unless the language's own types answer the name too
    /// and `typed` is false. A `typed` receiver is a project type lacking the
    /// method: no standard type's method of that name is the one it runs.
    pub(super) fn trait_methods_in_scope(&self, cx: &Cx<'_, 'a>, name: &str, typed: bool) -> Option<Outcome<'a>> {
        if cx.file.lang != Lang::Rust || !typed && std_method(Lang::Rust, name) {
            return None;
        }
        let mut found = Vec::new();
        for method in self.methods_by_name.get(&(Lang::Rust, name)).into_iter().flatten() {
            let Some(owner) = self.owner_of(method).filter(|o| self.is_abstract(*o)) else { continue };
            let in_scope = self.declared.get(&owner).into_iter().flatten().any(|t| self.trait_in_scope(cx, t));
            if in_scope && self.reachable(cx, method) {
                // A call on the trait itself: its method and the implementations'.
                found.extend(self.methods_on(cx, &[owner], name, Dispatch::Static).0);
            }
        }
        (!found.is_empty()).then_some(Outcome::Found(found, Provenance::Inferred))
    }

    /// Whether the calling file can call the methods of the trait `t`: it declares or imports it.
    pub(super) fn trait_in_scope(&self, cx: &Cx<'_, 'a>, t: &'a ProjectedSymbol) -> bool {
        if path_of(&t.id) == cx.file.path {
            return true;
        }
        let Some(imports) = self.imports.get(cx.file.path) else { return false };
        let names_it = |files: &[&'a str], item: &str| self.exported(files, item, is_type).iter().any(|s| s.id == t.id);
        let named = imports.names.get(t.name.as_str()).into_iter().flatten();
        // `use some::Trait as _;` brings the trait's methods in scope without a name.
        let unnamed = imports.names.get("_").into_iter().flatten().filter(|b| b.item == Some(t.name.as_str()));
        named.chain(unnamed).any(|b| names_it(&b.files, b.item.unwrap_or(&t.name)))
            || imports.stars.iter().any(|star| names_it(star, &t.name))
    }

    /// The methods named `method` of `types`, their bases when they lack it,
    /// for an interface or trait among `types` those of every type
    /// implementing it, and,
    /// when the value may be a subclass's instance (TypeScript, Python), the
    /// overrides its subclasses declare. The flag says whether dispatch was involved.
    pub(super) fn methods_on(
        &self,
        cx: &Cx<'_, 'a>,
        types: &[TypeKey<'a>],
        method: &str,
        dispatch: Dispatch,
    ) -> (Vec<&'a ProjectedSymbol>, bool) {
        let family = cx.file.lang.family();
        let mut out: Vec<&'a ProjectedSymbol> = Vec::new();
        let mut dispatched = false;
        let mut queue: Vec<(TypeKey<'a>, u32)> = types.iter().map(|t| (*t, 0)).collect();
        let mut seen: Vec<TypeKey<'a>> = Vec::new();
        while let Some((t, level)) = queue.pop() {
            if seen.contains(&t) || level > 4 {
                continue;
            }
            seen.push(t);
            let own = self.methods.get(&(t, method)).map(Vec::as_slice).unwrap_or_default();
            out.extend(own);
            // A value of a concrete type, or of an interface that extends
            // another, runs no method of its base's other implementations:
            // those are reached only from the receiver's own types, or, in
            // Go, through an interface embedded in a struct (whatever value
            // the struct holds there answers).
            if self.is_abstract(t) && (level == 0 || family == Lang::Go) {
                dispatched = true;
                for implementor in self.implementors.get(&t).into_iter().flatten() {
                    out.extend(self.methods.get(&(*implementor, method)).into_iter().flatten());
                }
                if family == Lang::Go {
                    // Go interfaces are satisfied structurally: every concrete method of that name.
                    let concrete = self.methods_by_name.get(&(family, method)).into_iter().flatten();
                    out.extend(concrete.filter(|m| !self.owner_of(m).is_some_and(|o| self.is_abstract(o))));
                }
            }
            if own.is_empty() {
                queue.extend(self.supertypes.get(&t).into_iter().flatten().map(|b| (*b, level + 1)));
            }
        }
        if dispatch == Dispatch::Virtual && matches!(family, Lang::TypeScript | Lang::Python) {
            let overrides = self.overrides(types, method);
            dispatched |= !overrides.is_empty();
            out.extend(overrides);
        }
        (out, dispatched)
    }

    /// The methods named `method` that subclasses of `types`, at any depth,
    /// declare: what a call on `this` or on a declared instance may run.
    pub(super) fn overrides(&self, types: &[TypeKey<'a>], method: &str) -> Vec<&'a ProjectedSymbol> {
        let mut out = Vec::new();
        let mut queue: Vec<TypeKey<'a>> =
            types.iter().flat_map(|t| self.implementors.get(t).into_iter().flatten()).copied().collect();
        let mut seen: HashSet<TypeKey<'a>> = HashSet::default();
        while let Some(t) = queue.pop() {
            if seen.len() >= MAX_SUBCLASSES || !seen.insert(t) {
                continue;
            }
            out.extend(self.methods.get(&(t, method)).into_iter().flatten());
            queue.extend(self.implementors.get(&t).into_iter().flatten());
        }
        out
    }

    /// The type a method belongs to.
    pub(super) fn owner_of(&self, method: &'a ProjectedSymbol) -> Option<TypeKey<'a>> {
        let file = self.files.get(path_of(&method.id))?;
        let lang = file.lang.family();
        Some(TypeKey { lang, scope: type_scope(lang, file.path), name: owner_name(&method.id) })
    }

    pub(super) fn is_abstract(&self, t: TypeKey<'a>) -> bool {
        self.declared
            .get(&t)
            .is_some_and(|ts| ts.iter().any(|s| matches!(s.kind, SymbolKind::Interface | SymbolKind::Trait)))
    }

    /// Whether some type among `types` (or their bases) derives from a type outside the project.
    pub(super) fn has_foreign_base(&self, types: &[TypeKey<'a>]) -> bool {
        let mut queue: Vec<TypeKey<'a>> = types.to_vec();
        let mut seen: Vec<TypeKey<'a>> = Vec::new();
        while let Some(t) = queue.pop() {
            if seen.contains(&t) || seen.len() > 32 {
                continue;
            }
            if self.foreign_base.contains(&t) {
                return true;
            }
            seen.push(t);
            queue.extend(self.supertypes.get(&t).into_iter().flatten());
        }
        false
    }
}
