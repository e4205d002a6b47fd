//! Calls that no call syntax writes. A Rust value's `Drop::drop` runs where
//! the value dies, wherever that is: a function that makes values of a type
//! with a `Drop` impl (its declared return type names the type: `Self`,
//! `Error`, `Result<T, Error>`, `Box<Error>`) hands on values whose `drop`
//! will run, so it depends on that `drop`. Pure over the index; knows nothing
//! about how calls were written.

use nerd_logic::vocab::SymbolKind;

use super::index::{Index, TypeKey, TypeLookup};
use super::types::return_type;
use super::FileView;
use crate::world::lang::Lang;
use crate::world::project::ProjectedSymbol;

impl<'a> Index<'a> {
    /// The project types with a `Drop` impl, each with its `drop` method.
    fn droppers(&self) -> Vec<(TypeKey<'a>, &'a ProjectedSymbol)> {
        self.methods_by_name
            .get(&(Lang::Rust, "drop"))
            .into_iter()
            .flatten()
            // `fn drop(&mut self)` of an impl, never a trait's own declaration.
            .filter(|m| m.signature.contains("&mut self"))
            .filter_map(|m| Some((self.owner_of(m)?, *m)))
            .filter(|(owner, _)| !self.is_abstract(*owner))
            .collect()
    }

    /// `(function, drop)`: each function or method of `file` whose declared
    /// return type names a type with a `Drop` impl, with that impl's `drop`.
    pub(super) fn implicit_drops(&self, file: &FileView<'a>) -> Vec<(&'a ProjectedSymbol, &'a ProjectedSymbol)> {
        if file.lang != Lang::Rust {
            return Vec::new();
        }
        let droppers = self.droppers();
        if droppers.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for f in file.projection.symbols.iter().filter(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method))
        {
            let Some(returned) = return_type(Lang::Rust, &f.signature) else { continue };
            for word in returned.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()) {
                let types: Vec<TypeKey<'a>> = if word == "Self" {
                    self.owner_of(f).into_iter().collect()
                } else if droppers.iter().any(|(t, _)| t.name == word) {
                    match self.type_named(file, word) {
                        TypeLookup::Project(types, _) => types,
                        TypeLookup::External | TypeLookup::NotFound => Vec::new(),
                    }
                } else {
                    continue;
                };
                for (t, drop) in &droppers {
                    if types.contains(t) && f.id != drop.id && !out.contains(&(f, *drop)) {
                        out.push((f, *drop));
                    }
                }
            }
        }
        out
    }
}
