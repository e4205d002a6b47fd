//! Questions answered from facts, no model needed: where a symbol is defined
//! and what calls it, what breaks if it changes (a hypothetical `modified`
//! fact run through the impact rules), what a symbol is, a breadth-first
//! survey of the repository, and a review of the working tree's changes.
//! Every answer is text built from the projected world and derived atoms.
//! Knows nothing about acting or about models.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use nerd_logic::vocab::SymbolKind;
use nerd_logic::{evaluate, Fixpoint, Sym, SymbolId};

use crate::kernel::Loaded;
use crate::perceive::direction::{Calls, Reach};
use crate::perceive::focus::Candidate;
use crate::world::project::ProjectedSymbol;

/// Call sites listed before the rest is summarised.
const MAX_LISTED: usize = 25;

/// The strings of a unary relation's ids, sorted and without duplicates.
fn names(fixpoint: &Fixpoint, ids: &[(Sym,)]) -> Vec<String> {
    let s = &fixpoint.facts().symbols;
    let set: BTreeSet<String> = ids.iter().map(|&(x,)| s.resolve(x).to_string()).collect();
    set.into_iter().collect()
}

/// A symbol with the file that defines it.
struct Found<'a> {
    path: &'a str,
    symbol: &'a ProjectedSymbol,
}

fn lookup<'a>(loaded: &'a Loaded, id: &str) -> Option<Found<'a>> {
    let path = id.split('#').next()?;
    let (_, projection) = loaded.projections.get(path)?;
    let symbol = projection.symbols.iter().find(|s| s.id == id)?;
    Some(Found { path: loaded.projections.get_key_value(path)?.0, symbol })
}

/// `(caller, path, line)` of every resolved call to `id`.
fn callers<'a>(loaded: &'a Loaded, id: &str) -> Vec<(&'a str, &'a str, u32)> {
    let mut out: Vec<(&str, &str, u32)> = loaded
        .resolution
        .files
        .iter()
        .flat_map(|(path, r)| {
            r.calls
                .iter()
                .filter(move |(_, callee, _, _)| callee == id)
                .map(move |(c, _, l, _)| (c.as_str(), path.as_str(), *l))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// What `id` calls, each callee once with the lines that call it.
fn callees<'a>(loaded: &'a Loaded, id: &str) -> Vec<(&'a str, Vec<u32>)> {
    let path = id.split('#').next().unwrap_or_default();
    let mut lines: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
    if let Some(r) = loaded.resolution.files.get(path) {
        for (_, callee, line, _) in r.calls.iter().filter(|(c, _, _, _)| c == id) {
            lines.entry(callee.as_str()).or_default().insert(*line);
        }
    }
    lines.into_iter().map(|(callee, at)| (callee, at.into_iter().collect())).collect()
}

/// "line 6", "lines 6, 9".
fn lines_of(at: &[u32]) -> String {
    let numbers: Vec<String> = at.iter().map(u32::to_string).collect();
    format!("{} {}", if at.len() == 1 { "line" } else { "lines" }, numbers.join(", "))
}

fn describe(f: &Found<'_>) -> String {
    let sig = if f.symbol.signature.is_empty() { String::new() } else { format!(": {}", f.symbol.signature) };
    format!("{} `{}` at {}:{}{}", f.symbol.kind, f.symbol.name, f.path, f.symbol.line, sig)
}

fn list<T>(items: &[T], show: impl Fn(&T) -> String) -> Vec<String> {
    let mut lines: Vec<String> = items.iter().take(MAX_LISTED).map(|i| format!("  {}", show(i))).collect();
    if items.len() > MAX_LISTED {
        lines.push(format!("  … and {} more", items.len() - MAX_LISTED));
    }
    lines
}

/// The symbols a question is about: the best-grounded candidates that name symbols.
fn symbols_of<'a>(loaded: &'a Loaded, focus: &[Candidate]) -> Vec<Found<'a>> {
    crate::perceive::focus::best(focus)
        .filter(|c| !c.symbol.is_empty())
        .filter_map(|c| lookup(loaded, &c.symbol))
        .collect()
}

/// "Where is X defined", "what calls X", "what is X": definition, callers, callees, tests.
pub fn locate(question: &str, focus: &[Candidate], loaded: &Loaded) -> String {
    let asked = crate::perceive::direction::asked(question);
    let found = symbols_of(loaded, focus);
    if found.is_empty() {
        return match focus.first() {
            Some(c) => file_summary(&c.path, loaded),
            None => "Nothing in this workspace matches that name.".to_string(),
        };
    }
    let tests = test_links(loaded);
    let mut out = Vec::new();
    for f in &found {
        out.push(format!("{} is the {}", f.symbol.name, describe(f)));
        if asked != Calls::Callees {
            let calls = callers(loaded, &f.symbol.id);
            if calls.is_empty() {
                out.push("No resolved call sites call it.".to_string());
            } else {
                out.push(format!("Called from {} site(s):", calls.len()));
                out.extend(list(&calls, |(caller, path, line)| format!("{caller}  ({path}:{line})")));
            }
        }
        if asked != Calls::Callers {
            let made = callees(loaded, &f.symbol.id);
            if !made.is_empty() {
                out.push(format!("It calls {} symbol(s):", made.len()));
                out.extend(list(&made, |(callee, at)| format!("{callee}  ({})", lines_of(at))));
            } else if asked == Calls::Callees {
                out.push(
                    "It calls no symbol of this workspace (calls into libraries and unresolved calls are not listed)."
                        .to_string(),
                );
            }
        }
        let covering: Vec<&str> =
            tests.iter().filter(|(_, s)| *s == f.symbol.id).map(|(t, _)| t.as_str()).collect::<Vec<_>>();
        if !covering.is_empty() {
            out.push(format!("Tests that exercise it: {}", covering.join(", ")));
        }
        let observed: Vec<&str> = loaded
            .resolution
            .observed
            .iter()
            .filter(|(t, s)| *s == f.symbol.id && !covering.contains(&t.as_str()))
            .map(|(t, _)| t.as_str())
            .collect();
        if !observed.is_empty() {
            let shown: Vec<&str> = observed.iter().take(10).copied().collect();
            let more = observed.len().saturating_sub(shown.len());
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            out.push(format!("Tests whose run executed it (nerd index --coverage): {}{more}", shown.join(", ")));
        }
        out.push(String::new());
    }
    out.join("\n").trim_end().to_string()
}

fn test_links(loaded: &Loaded) -> Vec<(String, String)> {
    loaded.resolution.test_of().into_iter().map(|(t, s)| (t.to_string(), s.to_string())).collect()
}

fn file_summary(path: &str, loaded: &Loaded) -> String {
    let Some((lang, projection)) = loaded.projections.get(path) else {
        return format!("{path} is in the workspace but has no projected symbols.");
    };
    let top: Vec<&ProjectedSymbol> = projection.symbols.iter().filter(|s| s.depth == 0).collect();
    let mut out = vec![format!("{path} ({}) defines {} top-level symbol(s):", lang.name(), top.len())];
    out.extend(list(&top, |s| format!("{} {} (line {})", s.kind, s.name, s.line)));
    let prefix = format!("{path}#");
    let users: BTreeSet<&str> = loaded
        .resolution
        .files
        .iter()
        .filter(|(from, r)| *from != path && r.calls.iter().any(|(_, callee, _, _)| callee.starts_with(&prefix)))
        .map(|(from, _)| from.as_str())
        .collect();
    if !users.is_empty() {
        out.push(format!("Called from: {}", users.into_iter().collect::<Vec<_>>().join(", ")));
    }
    out.join("\n")
}

/// "What breaks if I change X": the impact rules over a hypothetical change of X. A question
/// that asks for the tests ("which tests cover X?") gets them first and the rest as a count.
pub fn impact(question: &str, focus: &[Candidate], loaded: &Loaded) -> String {
    let found = symbols_of(loaded, focus);
    let targets: Vec<String> = if found.is_empty() {
        focus.first().map(|c| vec![c.path.clone()]).unwrap_or_default()
    } else {
        found.iter().map(|f| f.symbol.id.clone()).collect()
    };
    if targets.is_empty() {
        return "Nothing in this workspace matches that name.".to_string();
    }
    let mut facts = loaded.facts();
    // Only the hypothetical change: what git says is modified is not the question.
    facts.modified.clear();
    facts.modified_own.clear();
    for t in &targets {
        let s = facts.sym(t);
        facts.modified.push(s);
        if !found.is_empty() {
            // A symbol the question names changes in its own code.
            facts.modified_own.push(SymbolId(s));
            facts.refactor_target.push(SymbolId(s));
        }
    }
    let fixpoint = evaluate(facts);
    let derived = fixpoint.relations();
    let impacted = names(&fixpoint, derived.impacted());
    let symbols: Vec<&String> = impacted.iter().filter(|s| s.contains('#') && !targets.contains(s)).collect();
    let files: BTreeSet<&str> = impacted.iter().filter(|s| !s.contains('#')).map(String::as_str).collect();
    let tests: Vec<String> = names(&fixpoint, derived.needs_testing());
    let maybe_tests: Vec<String> = names(&fixpoint, derived.maybe_needs_testing());
    let unknown: Vec<String> =
        names(&fixpoint, derived.coverage_unknown()).into_iter().filter(|s| targets.contains(s)).collect();
    let unsafe_targets = names(&fixpoint, derived.unsafe_to_refactor());
    let headline = format!(
        "Changing {} affects {} other symbol(s) in {} file(s).",
        targets.join(", "),
        symbols.len(),
        files.len()
    );
    let mut out = Vec::new();
    if crate::perceive::direction::reach_asked(question) == Reach::Tests {
        out.extend(test_lines("Tests that reach it", &tests, &maybe_tests, &unknown));
        out.push(headline);
    } else {
        out.push(headline);
        if !symbols.is_empty() {
            out.push("Affected (callers, transitively):".to_string());
            out.extend(list(&symbols, |s| s.to_string()));
        }
        out.extend(test_lines("Tests to run", &tests, &maybe_tests, &unknown));
    }
    if !unsafe_targets.is_empty() {
        out.push(
            "Some callers are reached by no test, so a refactor would be unsafe_to_refactor (see `nerd why`)."
                .to_string(),
        );
    }
    out.join("\n")
}

/// The whole workspace in brief: files, languages, tests, entry points (the areas follow from the survey).
pub fn overview(loaded: &Loaded) -> String {
    let mut langs: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tests = 0;
    let mut entry_points = Vec::new();
    for (path, (lang, projection)) in &loaded.projections {
        *langs.entry(lang.name()).or_default() += 1;
        tests += projection.symbols.iter().filter(|s| s.kind == SymbolKind::Test).count();
        if !runs_the_product(path) {
            continue;
        }
        entry_points.extend(
            projection
                .symbols
                .iter()
                .filter(|s| s.name == "main" && s.depth == 0 && s.kind == SymbolKind::Function)
                .map(|s| format!("{path}:{}", s.line)),
        );
    }
    let mut out = vec![format!(
        "{} files, {} with projected code ({}); {tests} test(s) projected.",
        loaded.files.len(),
        loaded.projections.len(),
        langs.iter().map(|(l, n)| format!("{l} {n}")).collect::<Vec<_>>().join(", ")
    )];
    if !entry_points.is_empty() {
        out.push(format!("Entry points: {}", entry_points.join(", ")));
    }
    out.join("\n")
}

/// Whether a `main` in `path` starts the product: not a Rust build script (`build.rs`), and not
/// a harness kept with the tests (`tests/`, `test/`, `testdata/`).
fn runs_the_product(path: &str) -> bool {
    let (dirs, file) = path.rsplit_once('/').unwrap_or(("", path));
    file != "build.rs" && !dirs.split('/').any(|d| matches!(d, "tests" | "test" | "testdata"))
}

/// Review of the working tree against HEAD: what changed, what it impacts, which tests to run.
pub fn review(loaded: &Loaded) -> String {
    let fixpoint = loaded.evaluate();
    let derived = fixpoint.relations();
    let modified: Vec<String> = {
        let s = &fixpoint.facts().symbols;
        let set: BTreeSet<String> = fixpoint.facts().modified.iter().map(|&m| s.resolve(m).to_string()).collect();
        set.into_iter().collect()
    };
    if modified.is_empty() {
        return "No changes against HEAD to review.".to_string();
    }
    let (files, symbols): (Vec<String>, Vec<String>) = modified.into_iter().partition(|m| !m.contains('#'));
    let impacted: Vec<String> = names(&fixpoint, derived.impacted()).into_iter().filter(|s| s.contains('#')).collect();
    let tests = names(&fixpoint, derived.needs_testing());
    let maybe_tests = names(&fixpoint, derived.maybe_needs_testing());
    let unknown: Vec<String> =
        names(&fixpoint, derived.coverage_unknown()).into_iter().filter(|s| symbols.contains(s)).collect();
    let mut out = vec![format!("{} file(s) changed against HEAD:", files.len())];
    out.extend(list(&files, |f| f.clone()));
    if !symbols.is_empty() {
        out.push(format!("Changed symbols ({}):", symbols.len()));
        out.extend(list(&symbols, |s| s.clone()));
    }
    out.push(format!("{} symbol(s) impacted through callers.", impacted.len()));
    out.extend(test_lines("Tests to run", &tests, &maybe_tests, &unknown));
    out.join("\n")
}

const NOT_A_WORK_TREE: &str =
    "This workspace is not a git work tree, so there is no commit to compare with (nerd reads git for this).";

/// "What did I change?", "git status": the working tree against HEAD and what is staged, from the
/// git state the world was loaded with.
pub fn changes(root: &Path, loaded: &Loaded) -> String {
    if !crate::world::git::is_work_tree(root) {
        return NOT_A_WORK_TREE.to_string();
    }
    let staged = &loaded.git.staged;
    let mut out = vec![review(loaded)];
    if !staged.is_empty() {
        out.push(format!("Staged for the next commit ({}):", staged.len()));
        out.extend(list(staged, |p| p.clone()));
    }
    out.join("\n")
}

/// "Which branch am I on?": HEAD's branch and how it stands against its upstream.
pub fn branch(root: &Path) -> String {
    let Some(b) = crate::world::git::branch(root) else { return NOT_A_WORK_TREE.to_string() };
    let mut out = match &b.name {
        Some(name) => format!("On branch {name}"),
        None => "HEAD is detached (on no branch)".to_string(),
    };
    if b.unborn {
        out.push_str(", which has no commit yet");
    }
    match &b.upstream {
        Some(up) if b.ahead == 0 && b.behind == 0 => out.push_str(&format!("; level with {up} as of the last fetch.")),
        Some(up) => out.push_str(&format!(
            "; {} commit(s) ahead of {up} and {} behind it, as of the last fetch.",
            b.ahead, b.behind
        )),
        None => out.push_str("; it tracks no upstream branch."),
    }
    out
}

/// The commits shown for "show the recent commits".
const COMMITS_SHOWN: usize = 10;

/// "Show the recent commits", "who last changed parser.py": HEAD's newest commits, those
/// that changed `path` when the question names one.
pub fn commits(root: &Path, path: Option<&str>) -> String {
    if !crate::world::git::is_work_tree(root) {
        return NOT_A_WORK_TREE.to_string();
    }
    let commits = match crate::world::git::log(root, path, COMMITS_SHOWN) {
        Ok(commits) => commits,
        Err(e) if e.contains("does not have any commits") => return "There is no commit yet.".to_string(),
        Err(e) => return format!("git log failed: {e}"),
    };
    let mut out = vec![match (path, commits.len()) {
        (Some(p), 0) => return format!("No commit of HEAD changed {p}."),
        (None, 0) => return "There is no commit yet.".to_string(),
        (Some(p), n) => format!("The {n} newest commit(s) that changed {p}:"),
        (None, n) => format!("The {n} newest commit(s) of HEAD:"),
    }];
    out.extend(commits.iter().map(|c| format!("  {} {} {}: {}", c.hash, c.date, c.author, c.subject)));
    out.join("\n")
}

/// The tests a change needs, and what is not known: "no test reaches it" is
/// said only when no call nerd could not resolve could reach the change.
fn test_lines(heading: &str, tests: &[String], maybe: &[String], unknown: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if !tests.is_empty() {
        out.push(format!("{heading} ({}):", tests.len()));
        out.extend(list(tests, |t| t.clone()));
    }
    if !maybe.is_empty() {
        out.push(format!(
            "Tests that may also reach it, through calls nerd could not resolve or by a path their observed run \
             did not take ({}; `nerd why` on each says which):",
            maybe.len()
        ));
        out.extend(list(maybe, |t| t.clone()));
    }
    if tests.is_empty() && maybe.is_empty() && unknown.is_empty() {
        out.push("No test reaches it: a change here is not checked by any test.".to_string());
    } else if tests.is_empty() {
        out.push(match unknown.first() {
            Some(u) => format!(
                "Unknown whether any test reaches it: no resolved call from a test does, but calls nerd could not \
                 resolve might (`nerd why 'coverage_unknown(\"{u}\")'`)."
            ),
            None => "Unknown whether any test reaches it: none is known to, but the tests above may.".to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn entry_points_are_the_products_own() {
        for path in ["src/main.rs", "cmd/server/main.go", "main.py", "examples/demo/main.go"] {
            assert!(super::runs_the_product(path), "{path}");
        }
        for path in ["build.rs", "crates/x/build.rs", "tests/toml-test/cmd/toml-test/main.go", "go/testdata/main.go"] {
            assert!(!super::runs_the_product(path), "{path}");
        }
    }
}
