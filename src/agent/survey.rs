//! Surveys of the workspace's top-level areas: what each holds (files,
//! symbols, public symbols and how many carry a doc comment), which other
//! areas its code calls through resolved edges, its most-called symbols, and
//! its functions with the most branch points. The same survey runs in a
//! delegated child (over the part of the world its token covers) and in the
//! agent itself (for areas no child surveyed); either way it becomes
//! `area_*` atoms (the most-called symbols, which need every caller, always
//! come from the agent's whole world), and
//! the answer is read off the kernel's fixpoint, cycles between areas included.
//! Knows nothing about processes or tokens.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use nerd_logic::vocab::{ChildStatus, SymbolKind, Visibility};
use nerd_logic::{Atom, Facts, Fixpoint, Term};

use crate::kernel::Loaded;
use crate::world::project::ProjectedSymbol;
use crate::world::{branches, doc};

/// Most-called symbols and most-branching functions kept per area.
const TOP: usize = 5;
/// Bytes of one file a survey reads at most (larger files are counted, not read).
const MAX_READ: u64 = 4 << 20;
/// The predicates an area's survey reports, and so all a delegated child may
/// report; `area_hub` needs callers from anywhere, so the parent derives it.
pub const REPORTED: &[&str] = &["area_summary", "area_uses", "area_complex"];

/// The area of a workspace path: its first folder, `.` for files at the root.
pub fn area_of(path: &str) -> &str {
    path.split_once('/').map_or(".", |(head, _)| head)
}

/// The path glob that covers exactly one area.
pub fn scope_of(area: &str) -> String {
    if area == "." {
        "*".to_string()
    } else {
        format!("{area}/**")
    }
}

/// `area(Area, Files, Symbols)` for every area holding projected code.
pub fn assert_areas(f: &mut Facts, loaded: &Loaded) {
    let mut areas: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
    for (path, (_, projection)) in &loaded.projections {
        let slot = areas.entry(area_of(path)).or_default();
        slot.0 += 1;
        slot.1 += projection.symbols.len() as u32;
    }
    for (area, (files, symbols)) in areas {
        let a = f.sym(area);
        f.area.push((a, files, symbols));
    }
}

/// What one area's survey found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    pub area: String,
    pub files: u32,
    pub symbols: u32,
    pub public: u32,
    pub documented: u32,
    /// Resolved calls from this area into each other area.
    pub uses: BTreeMap<String, u32>,
    /// The functions with the most branch points.
    pub complex: Vec<(String, u32)>,
}

impl Findings {
    /// The findings as the atoms a child reports and the kernel reads.
    pub fn atoms(&self) -> Vec<Atom> {
        let s = |x: &str| Term::Str(x.to_string());
        let n = |x: u32| Term::Int(i64::from(x));
        let area = || s(&self.area);
        let mut out = vec![Atom::new(
            "area_summary",
            vec![area(), n(self.files), n(self.symbols), n(self.public), n(self.documented)],
        )];
        out.extend(self.uses.iter().map(|(other, calls)| Atom::new("area_uses", vec![area(), s(other), n(*calls)])));
        out.extend(self.complex.iter().map(|(id, b)| Atom::new("area_complex", vec![area(), s(id), n(*b)])));
        out
    }
}

/// The areas that `covers` lets a survey read every file of, with at least one file.
pub fn covered_areas(loaded: &Loaded, covers: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut all: BTreeMap<&str, bool> = BTreeMap::new();
    for path in loaded.projections.keys() {
        let whole = all.entry(area_of(path)).or_insert(true);
        *whole &= covers(path);
    }
    all.into_iter().filter(|(_, whole)| *whole).map(|(a, _)| a.to_string()).collect()
}

/// Surveys `area`: the index for its symbols and the calls made from it, its
/// files' text for doc comments and branches. Needs only the area's part of the world.
pub fn survey(root: &Path, loaded: &Loaded, area: &str) -> Findings {
    let mut found = Findings { area: area.to_string(), ..Findings::default() };
    let mut complex: Vec<(String, u32)> = Vec::new();
    for (path, (lang, projection)) in loaded.projections.iter().filter(|(p, _)| area_of(p) == area) {
        found.files += 1;
        found.symbols += projection.symbols.len() as u32;
        let text = read(&root.join(path));
        let lines: Vec<&str> = text.as_deref().map(|t| t.lines().collect()).unwrap_or_default();
        for s in projection.symbols.iter().filter(|s| s.visibility == Visibility::Public && s.kind != SymbolKind::Test)
        {
            found.public += 1;
            if doc::comment(*lang, &lines, s.line).is_some() {
                found.documented += 1;
            }
        }
        let Some(branch_lines) = text.as_deref().and_then(|t| branches::lines(*lang, t.as_bytes())) else { continue };
        complex.extend(innermost_counts(&projection.symbols, &branch_lines));
    }
    for r in loaded.resolution.files.iter().filter(|(p, _)| area_of(p) == area).map(|(_, r)| r) {
        for (_, callee, _, _) in r.calls.iter().filter(|c| c.3.is_certain()) {
            let to = area_of(callee.split('#').next().unwrap_or_default());
            if to != area {
                *found.uses.entry(to.to_string()).or_default() += 1;
            }
        }
    }
    found.complex = top(complex);
    found
}

/// Each branch line's count credited to the innermost function around it,
/// in one sweep over both sorted (definitions nest, so open ones form a stack).
fn innermost_counts(symbols: &[ProjectedSymbol], branch_lines: &[u32]) -> Vec<(String, u32)> {
    let mut functions: Vec<&ProjectedSymbol> = symbols.iter().filter(|s| s.kind.is_code()).collect();
    functions.sort_by_key(|s| (s.line, std::cmp::Reverse(s.end_line)));
    let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
    let (mut open, mut next): (Vec<&ProjectedSymbol>, usize) = (Vec::new(), 0);
    for &line in branch_lines {
        while let Some(f) = functions.get(next).filter(|f| f.line <= line) {
            while open.last().is_some_and(|o| o.end_line < f.line) {
                open.pop();
            }
            open.push(f);
            next += 1;
        }
        while open.last().is_some_and(|o| o.end_line < line) {
            open.pop();
        }
        if let Some(f) = open.last() {
            *counts.entry(f.id.as_str()).or_default() += 1;
        }
    }
    counts.into_iter().map(|(id, n)| (id.to_string(), n)).collect()
}

/// The most-called symbols of each area, by resolved call sites anywhere in
/// `loaded` (the parent's whole world: a child sees only its own area's calls).
pub fn hubs(loaded: &Loaded) -> BTreeMap<String, Vec<(String, u32)>> {
    let mut callers: BTreeMap<&str, u32> = BTreeMap::new();
    for r in loaded.resolution.files.values() {
        for (_, callee, _, _) in r.calls.iter().filter(|c| c.3.is_certain()) {
            *callers.entry(callee.as_str()).or_default() += 1;
        }
    }
    let defined: BTreeSet<&str> =
        loaded.projections.values().flat_map(|(_, p)| p.symbols.iter().map(|s| s.id.as_str())).collect();
    let mut by_area: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    for (id, n) in callers.into_iter().filter(|(id, _)| defined.contains(id)) {
        let area = area_of(id.split('#').next().unwrap_or_default());
        by_area.entry(area.to_string()).or_default().push((id.to_string(), n));
    }
    by_area.into_iter().map(|(a, items)| (a, top(items))).collect()
}

/// `area_hub` atoms for each area's most-called symbols.
pub fn hub_atoms(loaded: &Loaded) -> Vec<Atom> {
    hubs(loaded)
        .into_iter()
        .flat_map(|(area, items)| {
            items.into_iter().map(move |(id, n)| {
                Atom::new("area_hub", vec![Term::Str(area.clone()), Term::Str(id), Term::Int(i64::from(n))])
            })
        })
        .collect()
}

/// Named counts, largest first and ties by name, as `name{suffix} (count), …` (empty for none).
fn ranked(items: impl Iterator<Item = (String, u32)>, suffix: &str) -> String {
    let mut items: Vec<(String, u32)> = items.collect();
    items.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    items.iter().map(|(n, c)| format!("{n}{suffix} ({c})")).collect::<Vec<_>>().join(", ")
}

/// The `TOP` largest by count, ties by name.
fn top(mut items: Vec<(String, u32)>) -> Vec<(String, u32)> {
    items.retain(|(_, n)| *n > 0);
    items.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    items.truncate(TOP);
    items
}

fn read(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_READ {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The survey as the kernel derived it: every area's findings, who surveyed
/// it, and the structure between areas (dependencies, cycles).
pub fn answer(fx: &Fixpoint, surveyed_by: &BTreeMap<String, String>) -> String {
    let s = &fx.facts().symbols;
    let facts = fx.facts();
    let name = |x: nerd_logic::Sym| s.resolve(x).to_string();
    let mut out = Vec::new();
    // The largest areas first: the code a project is about before its tests, docs and scripts.
    let mut summaries: Vec<_> = facts.area_summary.iter().collect();
    summaries.sort_by_cached_key(|r| (std::cmp::Reverse(r.2), name(r.0)));
    let (files, symbols): (u32, u32) = summaries.iter().fold((0, 0), |acc, r| (acc.0 + r.1, acc.1 + r.2));
    out.push(format!("{} area(s), {files} files with projected code, {symbols} symbols.", summaries.len()));
    for &&(a, files, symbols, public, documented) in &summaries {
        let area = name(a);
        let by = surveyed_by.get(&area).map(|b| format!(" [{b}]")).unwrap_or_default();
        let share = (100 * documented).checked_div(public).map(|p| format!(" ({p}%)")).unwrap_or_default();
        out.push(format!(
            "\n{area}/  {files} files, {symbols} symbols, {public} public, {documented} documented{share}{by}"
        ));
        let named = |x: &nerd_logic::SymbolId| name(x.sym());
        let lines = [
            ("calls into", ranked(facts.area_uses.iter().filter(|r| r.0 == a).map(|r| (name(r.1), r.2)), "/")),
            ("most called", ranked(facts.area_hub.iter().filter(|r| r.0 == a).map(|r| (named(&r.1), r.2)), "")),
            ("most branches", ranked(facts.area_complex.iter().filter(|r| r.0 == a).map(|r| (named(&r.1), r.2)), "")),
        ];
        out.extend(lines.into_iter().filter(|(_, l)| !l.is_empty()).map(|(what, l)| format!("  {what}: {l}")));
    }
    let mut cycles: BTreeSet<(String, String)> = BTreeSet::new();
    for &(a, b) in fx.relations().area_cycle() {
        let (a, b) = (name(a), name(b));
        cycles.insert(if a < b { (a, b) } else { (b, a) });
    }
    if !cycles.is_empty() {
        out.push("\nAreas that depend on each other (through resolved calls):".to_string());
        out.extend(cycles.iter().map(|(a, b)| format!("  {a}/ <-> {b}/")));
    }
    let failed: Vec<String> = facts
        .delegate_result
        .iter()
        .filter(|r| r.1 != ChildStatus::Done)
        .map(|r| format!("{} ({})", name(r.0), r.1))
        .collect();
    if !failed.is_empty() {
        out.push(format!("\nChildren that did not finish their survey: {}; surveyed here instead.", failed.join(", ")));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_are_top_folders_and_their_globs_cover_exactly_them() {
        assert_eq!(area_of("src/api/v1.rs"), "src");
        assert_eq!(area_of("setup.py"), ".");
        assert_eq!(scope_of("src"), "src/**");
        assert_eq!(scope_of("."), "*");
    }

    fn function(id: &str, line: u32, end_line: u32) -> ProjectedSymbol {
        ProjectedSymbol::spanning(id, SymbolKind::Function, line, end_line, 0)
    }

    #[test]
    fn each_branch_counts_for_the_innermost_function_around_it() {
        let symbols = vec![function("f", 1, 20), function("f.inner", 5, 8), function("g", 22, 30)];
        let counts = innermost_counts(&symbols, &[2, 5, 6, 9, 21, 25, 25, 40]);
        assert_eq!(counts, vec![("f".to_string(), 2), ("f.inner".to_string(), 2), ("g".to_string(), 2)]);
    }

    #[test]
    fn top_keeps_the_largest_counts_then_names() {
        let items = vec![("b".into(), 2), ("a".into(), 2), ("c".into(), 9), ("z".into(), 0)];
        assert_eq!(top(items), vec![("c".to_string(), 9), ("a".to_string(), 2), ("b".to_string(), 2)]);
    }
}
