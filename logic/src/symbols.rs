//! String interning for facts: every string column is a `Sym`, a small copyable
//! id, so joins hash integers. Columns that could be mixed up carry their own
//! id types over it (`PathId`, `SymbolId`) and lines are `Line`, so a caller
//! cannot put a path where a symbol goes. Knows nothing about where strings come from.

use std::sync::Arc;

use rustc_hash::FxHashMap;

/// The bare name of a symbol id (`path#Qualified.name~2` → `name`).
pub fn bare_name(id: &str) -> &str {
    let qualified = id.split_once('#').map_or(id, |(_, q)| q);
    let last = qualified.rsplit('.').next().unwrap_or(qualified);
    last.split('~').next().unwrap_or(last)
}

/// An interned string. Only meaningful together with the `Symbols` that made it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Sym(u32);

/// Declares an interned id that is one kind of string, distinct from every other kind.
macro_rules! interned_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(pub Sym);

        impl $name {
            /// The plain interned string, for rules that join it with other kinds of ids.
            pub fn sym(self) -> Sym {
                self.0
            }
        }
    };
}

interned_id!(
    /// A workspace-relative (or absolute, for paths outside) file path.
    PathId
);
interned_id!(
    /// A symbol id, `path#Qualified.name`.
    SymbolId
);

/// A 1-based line number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Line(pub u32);

/// The interner shared by one set of facts.
#[derive(Default, Clone, Debug)]
pub struct Symbols {
    strings: Vec<Arc<str>>,
    ids: FxHashMap<Arc<str>, Sym>,
}

impl Symbols {
    /// Returns the id of `s`, adding it on first sight.
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        // 2^32 distinct strings would need hundreds of GiB; saturating keeps this total.
        let id = Sym(u32::try_from(self.strings.len()).unwrap_or(u32::MAX));
        let shared: Arc<str> = Arc::from(s);
        self.strings.push(shared.clone());
        self.ids.insert(shared, id);
        id
    }

    /// Returns the id of `s` if it was ever interned.
    pub fn get(&self, s: &str) -> Option<Sym> {
        self.ids.get(s).copied()
    }

    /// The string behind `id`.
    pub fn resolve(&self, id: Sym) -> &str {
        &self.strings[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_reversible() {
        let mut s = Symbols::default();
        let a = s.intern("src/lib.rs");
        let b = s.intern("src/main.rs");
        assert_eq!(s.intern("src/lib.rs"), a);
        assert_ne!(a, b);
        assert_eq!(s.resolve(b), "src/main.rs");
        assert_eq!(s.get("nope"), None);
    }
}
