//! The precise tier: call edges read from a language's own indexer (a SCIP
//! index, or references a language server reported), mapped onto nerd's
//! symbols, and laid over the heuristic edges of the files it covered. An
//! indexer's reference is a fact about a name at a place; nerd's symbols say
//! which definition encloses that place. Pure; knows nothing about running
//! the indexers or storing their output.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use nerd_logic::symbols::bare_name;
use nerd_logic::vocab::{Provenance, SymbolKind};

use super::{sort_unique, Resolution};
use crate::world::project::ProjectedSymbol;
use crate::world::scip;

/// What the precise tier knows about one file it covered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreciseFile {
    pub path: String,
    /// `(caller, callee, line, callee's file)`.
    pub calls: Vec<(String, String, u32, String)>,
    /// `(line, name)` of the names the indexer resolved here, to the project
    /// or outside it: a heuristic edge or unresolved call at such a place is
    /// replaced by what the indexer said.
    pub sites: Vec<(u32, String)>,
    /// Whether `sites` holds every name the indexer resolved here (a SCIP
    /// index), or only the references of the symbols it was asked about
    /// (gopls): then a place missing from `sites` may still be answered.
    pub every_name: bool,
    /// `(test, symbol)` for calls made by tests of this file.
    pub test_links: Vec<(String, String)>,
    /// Symbols defined here whose references the indexer could not give:
    /// heuristic edges into them stand.
    pub unanswered: Vec<String>,
    /// Callers here whose bodies the indexer does not read (a Rust macro's
    /// transcribers): their heuristic edges stand.
    pub unseen: Vec<String>,
}

/// One file as the precise tier sees it: its text and nerd's symbols in it.
pub struct SourceFile<'a> {
    pub text: &'a str,
    pub symbols: &'a [ProjectedSymbol],
}

/// A symbol an indexer names, found among nerd's symbols.
#[derive(Clone, Copy)]
struct Target<'a> {
    id: &'a str,
    kind: SymbolKind,
    path: &'a str,
}

/// A reference an indexer reported: in `path` at 1-based `line`, the text
/// `name`, and whether a call follows it.
pub struct Reference<'a> {
    pub line: u32,
    pub name: &'a str,
    pub call_shaped: bool,
    pub target: Option<(&'a str, &'a str)>,
}

/// Maps a SCIP index onto nerd's symbols. `files` holds the workspace files
/// the index may name (by path relative to the workspace root); documents
/// for other paths are ignored.
pub fn from_scip(index: &scip::Index, files: &BTreeMap<&str, SourceFile<'_>>) -> Vec<PreciseFile> {
    // Every definition the index reports, as nerd's symbol.
    // Keyed by symbol; a `local` symbol only means something in its document.
    let key = |path: &str, occ: &scip::Occurrence| -> String {
        if occ.is_local() {
            format!("{path}\0{}", occ.symbol)
        } else {
            occ.symbol.clone()
        }
    };
    // The documents of workspace files, each with its text split into lines once.
    let documents: Vec<(&scip::Document, &str, &SourceFile<'_>, Vec<&str>)> = index
        .documents
        .iter()
        .filter_map(|doc| {
            let (&path, file) = files.get_key_value(doc.relative_path.as_str())?;
            Some((doc, path, file, file.text.lines().collect()))
        })
        .collect();
    let mut targets: HashMap<String, Vec<Target<'_>>> = HashMap::default();
    // The packages the workspace defines symbols in, and every symbol any
    // document defines.
    let own_packages: HashSet<&str> = documents
        .iter()
        .flat_map(|(doc, ..)| doc.occurrences.iter().filter(|o| o.is_definition()).filter_map(|o| o.package()))
        .collect();
    let defined: HashSet<&str> = index
        .documents
        .iter()
        .flat_map(|doc| doc.occurrences.iter().filter(|o| o.is_definition()).map(|o| o.symbol.as_str()))
        .collect();
    for (doc, path, file, lines) in &documents {
        let (path, lines) = (*path, lines.as_slice());
        for occ in doc.occurrences.iter().filter(|o| o.is_definition() && !o.symbol.is_empty()) {
            let Some(name) = name_at(lines, occ.range, doc.encoding) else { continue };
            let line = occ.range.start_line + 1;
            // An overload stub (Python `@overload`, a TypeScript signature)
            // is not a symbol of nerd's: its implementation, which follows, is.
            let implementation = || {
                let function = occ.symbol.ends_with(").");
                file.symbols.iter().filter(|s| function && s.name == name && s.line > line).min_by_key(|s| s.line)
            };
            if let Some(s) = defined_at(file.symbols, line, name).or_else(implementation) {
                // Overloads repeat a symbol in one file: the first declaration stands for it.
                let defined = targets.entry(key(path, occ)).or_default();
                if !defined.iter().any(|t| t.path == path) {
                    defined.push(Target { id: &s.id, kind: s.kind, path });
                }
            }
        }
    }
    // One symbol string defined in two files (rust-analyzer names a nested `fn f`
    // alike in every integration test crate of a package) names neither for sure:
    // its references are left to the heuristic tier.
    let ambiguous: HashSet<String> =
        targets.iter().filter(|(_, defined)| defined.len() > 1).map(|(symbol, _)| symbol.clone()).collect();
    let targets: HashMap<String, Target<'_>> = targets
        .into_iter()
        .filter_map(|(symbol, defined)| match defined.as_slice() {
            [only] => Some((symbol, *only)),
            _ => None,
        })
        .collect();
    // An answer nerd cannot place is no answer: a symbol of the workspace's
    // own packages that no document defines (scip-python reports `class
    // ConnectionError` in a module as a use of the builtin, and the module's
    // importers as uses of a symbol defined nowhere), or one defined in two
    // files. The heuristic tier's edges at such a site stand.
    let unplaced = |o: &scip::Occurrence| {
        ambiguous.contains(&o.symbol)
            || (!defined.contains(o.symbol.as_str()) && o.package().is_some_and(|p| own_packages.contains(p)))
    };
    let kinds: HashMap<&str, SymbolKind> = targets.values().map(|t| (t.id, t.kind)).collect();
    let mut out = Vec::new();
    for (doc, path, file, lines) in &documents {
        let (path, lines) = (*path, lines.as_slice());
        let references = doc
            .occurrences
            .iter()
            .filter(|o| !o.is_definition() && o.roles & scip::ROLE_IMPORT == 0 && !o.symbol.is_empty())
            .filter_map(|o| {
                let target = targets.get(&key(path, o)).map(|t| (t.id, t.path));
                // A local the indexer cannot name as one of nerd's symbols (a
                // variable that may hold any function) resolves nothing.
                if target.is_none() && (o.is_local() || unplaced(o)) {
                    return None;
                }
                let name = name_at(lines, o.range, doc.encoding)?;
                let line = lines.get(o.range.start_line as usize)?;
                let start = scip::byte_offset(line, o.range.start_char, doc.encoding);
                // Another declaration of the same symbol (an overload) is no use of it.
                let before = line[..start].trim_end();
                if ["def", "function", "fn", "func"].iter().any(|k| before.ends_with(k)) {
                    return None;
                }
                // A method bound back onto its own property hands nothing on.
                if rebinds_itself(line, name) {
                    return None;
                }
                let end = scip::byte_offset(line, o.range.end_char, doc.encoding);
                Some(Reference { line: o.range.start_line + 1, name, call_shaped: call_follows(&line[end..]), target })
            });
        let mut precise = from_references(path, file.symbols, references, &|id| kinds.get(id).copied());
        precise.every_name = true;
        out.push(precise);
    }
    out
}

/// Builds a file's precise edges from the references an indexer reported in it.
/// `kind_of` gives the kind of a target symbol.
pub fn from_references<'a>(
    path: &str,
    symbols: &[ProjectedSymbol],
    references: impl Iterator<Item = Reference<'a>>,
    kind_of: &dyn Fn(&str) -> Option<SymbolKind>,
) -> PreciseFile {
    use SymbolKind::*;
    let mut file = PreciseFile { path: path.to_string(), ..Default::default() };
    for r in references {
        file.sites.push((r.line, r.name.to_string()));
        let Some((callee, callee_path)) = r.target else { continue };
        let Some(kind) = kind_of(callee) else { continue };
        // Functions are depended on wherever code names them (a call, or a
        // callback passed on); a type only where it is constructed. At a
        // file's top level only calls count: the rest are imports and
        // re-exports, which call nothing.
        let caller = enclosing_caller(symbols, r.line);
        let edge = match kind {
            Function | Method | Test => r.call_shaped || caller.is_some(),
            Class | Struct => r.call_shaped,
            _ => false,
        };
        if !edge {
            continue;
        }
        let caller_id = caller.map_or(path, |c| c.id.as_str()).to_string();
        if kind != Test && caller.is_some_and(|c| c.kind == Test) {
            file.test_links.push((caller_id.clone(), callee.to_string()));
        }
        file.calls.push((caller_id, callee.to_string(), r.line, callee_path.to_string()));
    }
    sort_unique(&mut file.calls);
    sort_unique(&mut file.sites);
    sort_unique(&mut file.test_links);
    file
}

/// Whether `line` binds a method back onto its own property
/// (`this.m = this.m.bind(this)`): neither `m` there is a use that hands the
/// method on, since a call `x.m()` reaches it already. The heuristic tier's
/// TypeScript query leaves the same reference out.
fn rebinds_itself(line: &str, name: &str) -> bool {
    let Some((left, right)) = line.trim().split_once('=') else { return false };
    let (left, right) = (left.trim_end(), right.trim_start());
    let member = left.strip_suffix(name).is_some_and(|r| r.ends_with('.'));
    member && !right.starts_with('=') && right.strip_prefix(left).is_some_and(|r| r.starts_with(".bind("))
}

/// The text a single-line range covers.
fn name_at<'t>(lines: &[&'t str], range: scip::Range, encoding: scip::Encoding) -> Option<&'t str> {
    if range.start_line != range.end_line {
        return None;
    }
    let line = lines.get(range.start_line as usize)?;
    let start = scip::byte_offset(line, range.start_char, encoding);
    let end = scip::byte_offset(line, range.end_char, encoding);
    line.get(start..end).filter(|s| !s.is_empty())
}

/// Whether the text after a name makes it a call: `(`, after optional
/// whitespace and a Rust turbofish.
fn call_follows(rest: &str) -> bool {
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix("::<") {
        Some(generic) => match generic.find(">(") {
            Some(i) => &generic[i + 1..],
            None => return false,
        },
        None => rest,
    };
    rest.starts_with('(')
}

/// nerd's symbol named `name` whose span holds `line`, innermost first.
fn defined_at<'s>(symbols: &'s [ProjectedSymbol], line: u32, name: &str) -> Option<&'s ProjectedSymbol> {
    symbols.iter().filter(|s| s.name == name && s.line <= line && line <= s.end_line).max_by_key(|s| s.depth)
}

/// The symbol a line's calls belong to, as the heuristic tier decides it: the
/// outermost enclosing test (a helper nested in a test belongs to the test),
/// else the innermost function or method, else the innermost definition;
/// `None` at the file's top level.
fn enclosing_caller(symbols: &[ProjectedSymbol], line: u32) -> Option<&ProjectedSymbol> {
    use SymbolKind::*;
    let mut enclosing: Vec<&ProjectedSymbol> =
        symbols.iter().filter(|s| s.line <= line && line <= s.end_line).collect();
    enclosing.sort_by_key(|s| s.depth);
    if let Some(test) = enclosing.iter().find(|s| s.kind == Test) {
        return Some(test);
    }
    enclosing.iter().rev().find(|s| matches!(s.kind, Function | Method)).or(enclosing.last()).copied()
}

/// Lays the precise tier over `resolution`. In each file it covered, its
/// edges are added as `precise`, and a heuristic edge or unresolved call is
/// dropped where the indexer resolved the same name on the same line, except
/// an `inferred` dispatch edge (an override, an implementation) at a site
/// where the heuristic tier also linked the method the indexer names. Where
/// the indexer resolved nothing (a pytest fixture's value, a parameter a
/// decorator types, code behind `sys.platform`), it has no answer: an edge
/// that name resolution proved or a receiver's inferred type gave stands,
/// and a `name_only` guess into a covered file, which the indexer did not
/// confirm, stays only as an unresolved call, so statements reached through
/// it stay uncertain. Code
/// the indexer does not read (a macro's transcribers) keeps its edges.
/// Everything else stays as it was.
pub fn overlay(resolution: &mut Resolution, precise: &[PreciseFile]) {
    let covered: HashSet<&str> = precise.iter().map(|p| p.path.as_str()).collect();
    let unanswered: HashSet<&str> = precise.iter().flat_map(|p| &p.unanswered).map(String::as_str).collect();
    let known = |callee: &str| {
        callee.split_once('#').is_some_and(|(path, _)| covered.contains(path)) && !unanswered.contains(callee)
    };
    for p in precise {
        let sites: HashSet<(u32, &str)> = p.sites.iter().map(|(l, n)| (*l, n.as_str())).collect();
        let confirmed: HashSet<(&str, &str, u32)> =
            p.calls.iter().map(|(a, b, l, _)| (a.as_str(), b.as_str(), *l)).collect();
        let file = resolution.files.entry(p.path.clone()).or_default();
        // Sites where the heuristic tier linked the very symbol the indexer names.
        let agreed: HashSet<(String, u32)> = file
            .calls
            .iter()
            .filter(|(caller, callee, line, _)| confirmed.contains(&(caller.as_str(), callee.as_str(), *line)))
            .map(|(caller, _, line, _)| (caller.clone(), *line))
            .collect();
        let unseen: HashSet<&str> = p.unseen.iter().map(String::as_str).collect();
        let mut unconfirmed = Vec::new();
        file.calls.retain(|(caller, callee, line, provenance)| {
            if unseen.contains(caller.as_str()) {
                return true;
            }
            let name = bare_name(callee);
            if sites.contains(&(*line, name)) {
                // The indexer names the declared method; the overrides or
                // implementations dispatch may run there stay, where the
                // heuristic tier agreed on that declared method.
                return *provenance == Provenance::Inferred
                    && !confirmed.contains(&(caller.as_str(), callee.as_str(), *line))
                    && agreed.contains(&(caller.clone(), *line));
            }
            // Constructing a class runs its constructor: the indexer names the class only.
            let class = callee.rsplit_once('.').map(|(class, _)| class);
            if matches!(name, "__init__" | "constructor")
                && class.is_some_and(|class| confirmed.contains(&(caller.as_str(), class, *line)))
            {
                return true;
            }
            // The indexer did not name the callee here. An `exact` edge was
            // proved by name resolution (an alias or re-export the indexer
            // named by another symbol), an `implicit` one has no syntax for an
            // indexer to see: they stand. Where the indexer resolved nothing
            // at all, so does an `inferred` one, resting on a receiver's type
            // the indexer could not give; where it may have resolved the name
            // (gopls is asked of symbols, not of places), the indexer's list of
            // the callee's references, without this one, outweighs it. A
            // bare-name guess never stands.
            let guessed = match provenance {
                Provenance::NameOnly => true,
                Provenance::Inferred => !p.every_name,
                _ => false,
            };
            if known(callee) && guessed {
                unconfirmed.push((caller.clone(), name.to_string(), *line));
                return false;
            }
            true
        });
        file.unresolved.retain(|(_, name, line)| !sites.contains(&(*line, bare_name(name))));
        file.unresolved.extend(unconfirmed);
        sort_unique(&mut file.unresolved);
        let kept: BTreeSet<(&str, &str)> = file.calls.iter().map(|(a, b, _, _)| (a.as_str(), b.as_str())).collect();
        let mut links: Vec<(String, String)> = file
            .test_links
            .iter()
            .filter(|(t, s)| kept.contains(&(t.as_str(), s.as_str())))
            .cloned()
            .chain(p.test_links.iter().cloned())
            .collect();
        sort_unique(&mut links);
        file.test_links = links;
        file.calls.extend(p.calls.iter().map(|(a, b, l, _)| (a.clone(), b.clone(), *l, Provenance::Precise)));
        sort_unique(&mut file.calls);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::resolve::FileResolution;
    use std::collections::BTreeSet;

    fn symbol(id: &str, kind: SymbolKind, line: u32, end_line: u32, depth: u32) -> ProjectedSymbol {
        ProjectedSymbol::spanning(id, kind, line, end_line, depth)
    }

    fn reference<'a>(line: u32, name: &'a str, call_shaped: bool, target: Option<(&'a str, &'a str)>) -> Reference<'a> {
        Reference { line, name, call_shaped, target }
    }

    #[test]
    fn a_method_bound_back_onto_its_own_property_is_no_use_of_it() {
        let rebinding = [
            ("    this.parse = this.parse.bind(this);", "parse"),
            ("self.run=self.run.bind(self)", "run"),
            ("a.b.m = a.b.m.bind(a.b);", "m"),
        ];
        for (line, name) in rebinding {
            assert!(rebinds_itself(line, name), "{line}");
        }
        let handing_on = [
            ("const f = this.parse.bind(this);", "parse"),
            ("this.check = this.parse.bind(this);", "parse"),
            ("this.parse = other.parse.bind(this);", "parse"),
            ("this.parse == this.parse.bind(this)", "parse"),
            ("this.parse = this.parse.call(this);", "parse"),
            ("this.xparse = this.xparse.bind(this);", "parse"),
        ];
        for (line, name) in handing_on {
            assert!(!rebinds_itself(line, name), "{line}");
        }
    }

    #[test]
    fn callers_follow_the_heuristic_tiers_rule() {
        use SymbolKind::*;
        let symbols = [
            symbol("t.py#test_a", Test, 1, 10, 0),
            symbol("t.py#test_a.helper", Function, 3, 5, 1),
            symbol("t.py#C", Class, 12, 20, 0),
            symbol("t.py#C.m", Method, 14, 16, 1),
        ];
        // A helper nested in a test belongs to the test.
        let caller_at = |line| enclosing_caller(&symbols, line).map_or("t.py", |s| s.id.as_str());
        assert_eq!(caller_at(4), "t.py#test_a");
        assert_eq!(caller_at(15), "t.py#C.m");
        // Class-level code belongs to the class; top-level code to the file.
        assert_eq!(caller_at(13), "t.py#C");
        assert_eq!(caller_at(30), "t.py");
    }

    #[test]
    fn references_become_edges_by_what_they_name() {
        use SymbolKind::*;
        let symbols = [symbol("a.py#test_x", Test, 1, 10, 0), symbol("a.py#run", Function, 20, 30, 0)];
        let kinds = |id: &str| match id {
            "b.py#f" => Some(Function),
            "b.py#K" => Some(Class),
            "b.py#CONST" => Some(Const),
            _ => None,
        };
        let refs = vec![
            reference(2, "f", true, Some(("b.py#f", "b.py"))),
            // A callback passed by name inside a function is a dependency.
            reference(21, "f", false, Some(("b.py#f", "b.py"))),
            // A class is depended on where it is constructed, not where it is named.
            reference(22, "K", true, Some(("b.py#K", "b.py"))),
            reference(23, "K", false, Some(("b.py#K", "b.py"))),
            reference(24, "CONST", false, Some(("b.py#CONST", "b.py"))),
            // An import at the top level calls nothing.
            reference(40, "f", false, Some(("b.py#f", "b.py"))),
            // A name resolved outside the project is only a site.
            reference(25, "get", true, None),
        ];
        let file = from_references("a.py", &symbols, refs.into_iter(), &kinds);
        let calls: Vec<(&str, &str, u32)> =
            file.calls.iter().map(|(a, b, l, _)| (a.as_str(), b.as_str(), *l)).collect();
        assert_eq!(calls, vec![("a.py#run", "b.py#K", 22), ("a.py#run", "b.py#f", 21), ("a.py#test_x", "b.py#f", 2)]);
        assert_eq!(file.test_links, vec![("a.py#test_x".to_string(), "b.py#f".to_string())]);
        assert!(file.sites.contains(&(25, "get".to_string())) && file.sites.contains(&(40, "f".to_string())));
    }

    #[test]
    fn a_symbol_defined_in_two_files_names_neither() {
        use SymbolKind::*;
        let occurrence = |line: u32, symbol: &str, roles: i32| scip::Occurrence {
            range: scip::Range { start_line: line, start_char: 3, end_line: line, end_char: 4 },
            symbol: symbol.to_string(),
            roles,
        };
        // Two integration test crates of one package, each with a nested `fn f`
        // the indexer names alike, and a helper `g` only one of them defines.
        let text = "fn t() {\nfn f() {}\nfn g() {}\n   f();\n   g();\n}\n";
        let (a, b) = (
            [
                symbol("a.rs#t", Test, 1, 6, 0),
                symbol("a.rs#t.f", Function, 2, 2, 1),
                symbol("a.rs#t.g", Function, 3, 3, 1),
            ],
            [
                symbol("b.rs#t", Test, 1, 6, 0),
                symbol("b.rs#t.f", Function, 2, 2, 1),
                symbol("b.rs#t.g", Function, 3, 3, 1),
            ],
        );
        let files =
            BTreeMap::from([("a.rs", SourceFile { text, symbols: &a }), ("b.rs", SourceFile { text, symbols: &b })]);
        let document = |path: &str, g: &str| scip::Document {
            relative_path: path.to_string(),
            encoding: scip::Encoding::Utf8,
            occurrences: vec![
                occurrence(1, "cargo p 1.0 t/f().", scip::ROLE_DEFINITION),
                occurrence(2, g, scip::ROLE_DEFINITION),
                occurrence(3, "cargo p 1.0 t/f().", 0),
                occurrence(4, g, 0),
            ],
        };
        let index = scip::Index {
            documents: vec![document("a.rs", "cargo p 1.0 a/g()."), document("b.rs", "cargo p 1.0 b/g().")],
        };
        let edges: BTreeSet<(String, String)> =
            from_scip(&index, &files).into_iter().flat_map(|f| f.calls.into_iter().map(|(a, b, ..)| (a, b))).collect();
        let want: BTreeSet<(String, String)> = [("a.rs#t", "a.rs#t.g"), ("b.rs#t", "b.rs#t.g")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(edges, want, "the shared `f` links nowhere; each `g` links in its own file");
        let sites: BTreeSet<(u32, String)> = from_scip(&index, &files).into_iter().flat_map(|f| f.sites).collect();
        assert_eq!(sites, BTreeSet::from([(5, "g".to_string())]), "the heuristic tier keeps the shared `f`'s site");
        // Overloads declare one symbol twice in one file: the first declaration stands for it.
        let text = "function t() {}\nfunction f(a: string): void;\nfunction f(a: number): void;\n   f(1);\n";
        let symbols = [
            symbol("o.ts#t", Function, 1, 1, 0),
            symbol("o.ts#f", Function, 2, 2, 0),
            symbol("o.ts#f~2", Function, 3, 3, 0),
            symbol("o.ts#caller", Function, 4, 4, 0),
        ];
        let files = BTreeMap::from([("o.ts", SourceFile { text, symbols: &symbols })]);
        let overload = |line: u32, start: u32, roles: i32| scip::Occurrence {
            range: scip::Range { start_line: line, start_char: start, end_line: line, end_char: start + 1 },
            symbol: "npm o 1.0 o.ts/f().".to_string(),
            roles,
        };
        let index = scip::Index {
            documents: vec![scip::Document {
                relative_path: "o.ts".into(),
                encoding: scip::Encoding::Utf8,
                occurrences: vec![
                    overload(1, 9, scip::ROLE_DEFINITION),
                    overload(2, 9, scip::ROLE_DEFINITION),
                    overload(3, 3, 0),
                ],
            }],
        };
        let edges: Vec<(String, String)> =
            from_scip(&index, &files).into_iter().flat_map(|f| f.calls.into_iter().map(|(a, b, ..)| (a, b))).collect();
        assert_eq!(edges, vec![("o.ts#caller".to_string(), "o.ts#f".to_string())]);
    }

    #[test]
    fn a_symbol_of_the_workspace_that_no_document_defines_is_no_answer() {
        use SymbolKind::*;
        // scip-python reports `class ConnectionError` as a use of the builtin
        // and its importer's `ConnectionError(e)` as a use of a symbol it
        // defines nowhere; `Timeout` is defined, `ValueError` is the builtin.
        let errors_text = "class ConnectionError(Exception):\n    pass\nclass Timeout(Exception):\n    pass\n";
        let send_text = "def send(e):\n    raise ConnectionError(e)\n    raise Timeout(e)\n    raise ValueError(e)\n";
        let errors = [symbol("errors.py#ConnectionError", Class, 1, 2, 0), symbol("errors.py#Timeout", Class, 3, 4, 0)];
        let send = [symbol("send.py#send", Function, 1, 4, 0)];
        let files = BTreeMap::from([
            ("errors.py", SourceFile { text: errors_text, symbols: &errors }),
            ("send.py", SourceFile { text: send_text, symbols: &send }),
        ]);
        let occurrence = |line: u32, start: u32, end: u32, symbol: &str, roles: i32| scip::Occurrence {
            range: scip::Range { start_line: line, start_char: start, end_line: line, end_char: end },
            symbol: symbol.to_string(),
            roles,
        };
        let own = |descriptor: &str| format!("scip-python python app 0 {descriptor}");
        let builtin = |descriptor: &str| format!("scip-python python python-stdlib 3.11 builtins/{descriptor}");
        let index = scip::Index {
            documents: vec![
                scip::Document {
                    relative_path: "errors.py".into(),
                    encoding: scip::Encoding::Utf8,
                    occurrences: vec![
                        occurrence(0, 6, 21, &builtin("ConnectionError#"), 0),
                        occurrence(2, 6, 13, &own("errors/Timeout#"), scip::ROLE_DEFINITION),
                    ],
                },
                scip::Document {
                    relative_path: "send.py".into(),
                    encoding: scip::Encoding::Utf8,
                    occurrences: vec![
                        occurrence(0, 4, 8, &own("send/send()."), scip::ROLE_DEFINITION),
                        occurrence(1, 10, 25, &own("errors/ConnectionError#"), 0),
                        occurrence(2, 10, 17, &own("errors/Timeout#"), 0),
                        occurrence(3, 10, 20, &builtin("ValueError#"), 0),
                    ],
                },
            ],
        };
        let precise = from_scip(&index, &files);
        let send = precise.iter().find(|f| f.path == "send.py").expect("send.py is covered");
        assert_eq!(send.calls, vec![("send.py#send".into(), "errors.py#Timeout".into(), 3, "errors.py".into())]);
        assert_eq!(send.sites, vec![(3, "Timeout".into()), (4, "ValueError".into())]);
        // Laid over the heuristic tier, the edge the indexer could not place stands.
        let mut r = Resolution::default();
        r.files.entry("send.py".into()).or_default().calls = vec![
            ("send.py#send".into(), "errors.py#ConnectionError".into(), 2, Provenance::Exact),
            ("send.py#send".into(), "errors.py#Timeout".into(), 3, Provenance::Exact),
        ];
        overlay(&mut r, &precise);
        let calls: BTreeSet<(String, u32, Provenance)> =
            r.files["send.py"].calls.iter().map(|(_, b, l, p)| (b.clone(), *l, *p)).collect();
        let want = BTreeSet::from([
            ("errors.py#ConnectionError".to_string(), 2, Provenance::Exact),
            ("errors.py#Timeout".to_string(), 3, Provenance::Precise),
        ]);
        assert_eq!(calls, want);
    }

    fn resolution(calls: &[(&str, &str, u32, Provenance)], unresolved: &[(&str, &str, u32)]) -> Resolution {
        let mut r = Resolution::default();
        let file = r.files.entry("a.py".to_string()).or_insert_with(FileResolution::default);
        file.calls = calls.iter().map(|(a, b, l, p)| (a.to_string(), b.to_string(), *l, *p)).collect();
        file.unresolved = unresolved.iter().map(|(a, n, l)| (a.to_string(), n.to_string(), *l)).collect();
        file.test_links = calls
            .iter()
            .filter(|(a, ..)| a.contains("test"))
            .map(|(a, b, ..)| (a.to_string(), b.to_string()))
            .collect();
        r
    }

    #[test]
    fn the_precise_tier_replaces_what_it_resolved_and_leaves_guesses_uncertain() {
        use Provenance::*;
        let heuristic = || {
            resolution(
                &[
                    // Resolved by the indexer at the same place: replaced.
                    ("a.py#test_x", "b.py#Session.get", 3, NameOnly),
                    // Into a covered file, at a site the indexer did not resolve: an
                    // inferred type stands, a bare-name guess becomes an unresolved call.
                    ("a.py#run", "b.py#Context.invoke", 7, Inferred),
                    ("a.py#run", "b.py#Context.forward", 17, NameOnly),
                    // Into a covered file, proved by name resolution, not contradicted: stands.
                    ("a.py#run", "b.py#taxed_alias", 8, Exact),
                    // Into a file the indexer did not cover: stands.
                    ("a.py#run", "c.py#other", 9, NameOnly),
                    // Into a symbol the indexer could not answer for: stands.
                    ("a.py#run", "b.py#Value.set", 10, Inferred),
                    // A constructor, where the indexer confirms the class is constructed: stands.
                    ("a.py#run", "b.py#Cart.__init__", 13, Inferred),
                    // A constructor of a class the indexer said nothing of there: stands.
                    ("a.py#run", "b.py#Shelf.__init__", 14, Inferred),
                    // Dispatch where the indexer names the declared method the
                    // heuristic tier also linked: the override stays.
                    ("a.py#run", "b.py#Base.render", 15, Inferred),
                    ("a.py#run", "b.py#Child.render", 15, Inferred),
                    // Where the heuristic tier linked another method than the indexer's: replaced.
                    ("a.py#run", "b.py#Other.render", 16, Inferred),
                    // In code the indexer does not read (a macro's transcriber): stands.
                    ("a.py#expand", "b.py#Shelf.total", 20, Inferred),
                ],
                &[("a.py#run", "get", 11), ("a.py#run", "mystery", 12)],
            )
        };
        let precise = |every_name: bool| {
            [
                PreciseFile {
                    path: "a.py".into(),
                    every_name,
                    calls: vec![
                        ("a.py#test_x".into(), "b.py#api_get".into(), 3, "b.py".into()),
                        ("a.py#run".into(), "b.py#Cart".into(), 13, "b.py".into()),
                        ("a.py#run".into(), "b.py#Base.render".into(), 15, "b.py".into()),
                        ("a.py#run".into(), "b.py#Base.render".into(), 16, "b.py".into()),
                    ],
                    sites: vec![(3, "get".into()), (11, "get".into()), (15, "render".into()), (16, "render".into())],
                    test_links: vec![("a.py#test_x".into(), "b.py#api_get".into())],
                    unanswered: vec![],
                    unseen: vec!["a.py#expand".into()],
                },
                PreciseFile { path: "b.py".into(), unanswered: vec!["b.py#Value.set".into()], ..Default::default() },
            ]
        };
        // A SCIP index names every place it resolved.
        let mut r = heuristic();
        overlay(&mut r, &precise(true));
        let file = &r.files["a.py"];
        let calls: BTreeSet<(&str, &str, Provenance)> =
            file.calls.iter().map(|(a, b, _, p)| (a.as_str(), b.as_str(), *p)).collect();
        let expected: BTreeSet<(&str, &str, Provenance)> = [
            ("a.py#test_x", "b.py#api_get", Precise),
            ("a.py#run", "b.py#Cart", Precise),
            ("a.py#run", "b.py#Cart.__init__", Inferred),
            ("a.py#run", "b.py#Context.invoke", Inferred),
            ("a.py#run", "b.py#Shelf.__init__", Inferred),
            ("a.py#run", "b.py#Base.render", Precise),
            ("a.py#run", "b.py#Child.render", Inferred),
            ("a.py#run", "b.py#taxed_alias", Exact),
            ("a.py#run", "c.py#other", NameOnly),
            ("a.py#run", "b.py#Value.set", Inferred),
            ("a.py#expand", "b.py#Shelf.total", Inferred),
        ]
        .into_iter()
        .collect();
        assert_eq!(calls, expected);
        let unresolved: BTreeSet<(&str, u32)> = file.unresolved.iter().map(|(_, n, l)| (n.as_str(), *l)).collect();
        assert_eq!(unresolved, [("forward", 17), ("mystery", 12)].into_iter().collect());
        assert_eq!(file.test_links, vec![("a.py#test_x".to_string(), "b.py#api_get".to_string())]);
        // gopls is asked of symbols: a place missing from its sites may have been
        // resolved, and the callee's references, without it, demote an inferred edge.
        let mut r = heuristic();
        overlay(&mut r, &precise(false));
        let unresolved: BTreeSet<(&str, u32)> =
            r.files["a.py"].unresolved.iter().map(|(_, n, l)| (n.as_str(), *l)).collect();
        let want = [("forward", 17), ("mystery", 12), ("invoke", 7), ("__init__", 14)];
        assert_eq!(unresolved, want.into_iter().collect());
    }

    #[test]
    fn without_precise_files_nothing_changes() {
        let mut r = resolution(&[("a.py#run", "b.py#f", 3, Provenance::NameOnly)], &[("a.py#run", "g", 4)]);
        let before = r.clone();
        overlay(&mut r, &[]);
        assert_eq!(r, before);
    }
}
