//! What a model call sees, chosen by the kernel: the request's seeds (its
//! grounded target, failing tests, error diagnostics) become `context_seed`
//! facts, the kernel's spreading activation scores what they reach, and the
//! best-scoring code spans that fit the token budget are sent, with the atoms
//! that connect them, instead of whole files. Knows nothing about models or
//! how files are read (the caller passes a reader: the router for the agent,
//! the workspace for `nerd context`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use nerd_logic::context::{select, Spans, Step};
use nerd_logic::vocab::{Severity, TestOutcome};
use nerd_logic::{atoms, Facts, Fixpoint, Line, PathId, Sym};
use serde::Serialize;

use crate::agent::recall::Recollection;
use crate::kernel::Loaded;
use crate::memory::Memory;
use crate::perceive::focus::Candidate;
use crate::world::project::ProjectedSymbol;

/// The default budget (`[context] budget_tokens`).
pub const DEFAULT_BUDGET: usize = 8000;

/// Tokens are estimated as characters / 4, rounded up (the usual rule for
/// code and English with BPE tokenizers).
pub fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// One item the kernel selected, with the code it names.
#[derive(Clone, Debug, Serialize)]
pub struct Item {
    pub id: String,
    /// `symbol` or `test`.
    pub kind: &'static str,
    pub score: u32,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub tokens: usize,
    /// The activation path from the seed that reaches it most cheaply.
    pub why: Vec<String>,
    pub text: String,
    /// The line ranges `text` shows, as the file reads now (an item whose lines an earlier
    /// item sent, or a symbol whose stale range runs past the file, shows fewer).
    #[serde(skip)]
    pub shown: Vec<(u32, u32)>,
}

/// Everything a model call is given, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Context {
    pub budget: usize,
    pub tokens: usize,
    pub seeds: Vec<(String, String)>,
    /// Atoms in the kernel's syntax: seeds, failures, the edges between kept items, scores.
    pub atoms: Vec<String>,
    /// The request's atoms that did not fit in a quarter of the budget.
    pub atoms_left_out: usize,
    pub items: Vec<Item>,
    /// Items reached but left out: no room, or too large for one item.
    pub left_out: usize,
}

/// Asserts `context_seed` facts for the request: confident groundings of
/// its target, failing or erroring tests, and symbols holding error
/// diagnostics; `passing_test` facts for the tests the same run saw pass;
/// `remembered` facts for what earlier requests touched that still exists and
/// is no seed; graph memory's `knowledge_link` facts (a
/// recalled memory linked to its subject by `about`); and `vector_recall`
/// facts for the symbols that still exist and the memories recall found.
/// Returns how many seeds there are.
pub fn seed(f: &mut Facts, index: &SymbolIndex<'_>, candidates: &[Candidate], memory: &Recollection) -> usize {
    let mut seeds: BTreeSet<(String, &'static str)> = BTreeSet::new();
    for c in crate::perceive::focus::best(candidates).filter(|c| c.confidence > 0.0) {
        let item = if c.symbol.is_empty() { c.path.clone() } else { c.symbol.clone() };
        seeds.insert((item, "target"));
    }
    let s = &f.symbols;
    for &(name, path, line, _) in failing_tests(f) {
        if let Some(id) = index.test(s.resolve(path.0), s.resolve(name), line.0) {
            seeds.insert((id.to_string(), nerd_logic::context::FAILING_TEST));
        }
    }
    // The tests the same run saw pass (a test that also failed there is no such evidence).
    let passing: BTreeSet<&str> = f
        .test_outcome
        .iter()
        .filter(|r| r.3 == TestOutcome::Pass)
        .filter_map(|&(name, path, line, _)| index.test(s.resolve(path.0), s.resolve(name), line.0))
        .filter(|id| !seeds.iter().any(|(seed, _)| seed == id))
        .collect();
    for &(_, path, line, _, _) in errors(f) {
        if let Some(id) = index.enclosing(s.resolve(path.0), line.0) {
            seeds.insert((id.to_string(), "diagnostic"));
        }
    }
    for (item, why) in &seeds {
        let row = (f.sym(item), f.sym(why));
        f.context_seed.push(row);
    }
    for id in passing {
        let test = f.sym(id);
        f.passing_test.push(test);
    }
    let known = |item: &str| index.symbol(item).is_some() || index.by_path.contains_key(item);
    for (subject, age) in &memory.touched {
        if known(subject) && !seeds.iter().any(|(item, _)| item == subject) {
            let item = f.sym(subject);
            f.remembered.push((item, *age));
        }
    }
    assert_links(f, &memory.links);
    for m in &memory.memories {
        if let Some(subject) = m.subject.as_deref().filter(|s| known(s)) {
            let row = (f.sym(&format!("memory:{}", m.id)), f.sym("about"), f.sym(subject));
            f.knowledge_link.push(row);
        }
    }
    let query = f.sym("request");
    for (item, score) in &memory.recalled {
        if item.starts_with("memory:") || known(item) {
            let row = (query, f.sym(item), (score.clamp(0.0, 1.0) * 1000.0).round() as u32);
            f.vector_recall.push(row);
        }
    }
    seeds.len()
}

/// Asserts graph memory's links as `knowledge_link` facts.
pub fn assert_links(f: &mut Facts, links: &[crate::store::LinkRow]) {
    for link in links {
        let row = (f.sym(&link.a), f.sym(&link.relation), f.sym(&link.b));
        f.knowledge_link.push(row);
    }
}

/// Failing and erroring test outcomes.
fn failing_tests(f: &Facts) -> impl Iterator<Item = &(Sym, PathId, Line, TestOutcome)> {
    f.test_outcome.iter().filter(|r| matches!(r.3, TestOutcome::Fail | TestOutcome::Error))
}

/// Error diagnostics.
fn errors(f: &Facts) -> impl Iterator<Item = &(Severity, PathId, Line, Sym, Sym)> {
    f.diagnostic.iter().filter(|r| r.0 == Severity::Error)
}

/// Selects within `budget` tokens what the kernel's activation ranks best.
pub fn select_context(
    fixpoint: &Fixpoint,
    index: &SymbolIndex<'_>,
    recalled: &[Memory],
    budget: usize,
    read: &mut dyn FnMut(&str) -> Option<String>,
) -> Context {
    let facts = fixpoint.facts();
    let s = &facts.symbols;
    let program = fixpoint.context();
    let seeds: Vec<(String, String)> = fixpoint
        .facts()
        .context_seed
        .iter()
        .map(|&(item, why)| (s.resolve(item).to_string(), s.resolve(why).to_string()))
        .collect();
    // The request's atoms come first, within a quarter of the budget (a
    // thousand failing tests must not crowd out the code): the intent, then
    // each seed's failure (a test outcome or diagnostic) and the seed itself.
    let mut wanted: Vec<String> = facts.user_intent.iter().map(|r| atoms::user_intent(s, *r).to_string()).collect();
    wanted.extend(failing_tests(facts).map(|r| atoms::test_outcome(s, *r).to_string()));
    wanted.extend(errors(facts).map(|r| atoms::diagnostic(s, *r).to_string()));
    wanted.extend(facts.context_seed.iter().map(|r| atoms::context_seed(s, *r).to_string()));
    wanted.extend(facts.remembered.iter().map(|r| atoms::remembered(s, *r).to_string()));
    wanted.extend(facts.vector_recall.iter().map(|r| atoms::vector_recall(s, *r).to_string()));
    // What graph memory knows about what activation reached, and what recall found.
    wanted.extend(program.links().into_iter().map(|r| atoms::context_link(s, r).to_string()));
    wanted.extend(recalled.iter().map(|m| format!("memory({}, {:?}, {:?})", m.id, m.kind.as_str(), m.text)));
    let mut atoms = Vec::new();
    let mut atom_tokens = 0;
    let mut atoms_left_out = 0;
    for atom in wanted {
        let cost = tokens(&atom) + 1;
        if atom_tokens + cost <= budget / 4 {
            atom_tokens += cost;
            atoms.push(atom);
        } else {
            atoms_left_out += 1;
        }
    }
    let ranked = program.ranked(s);
    let seed_ids: BTreeSet<Sym> = facts.context_seed.iter().map(|r| r.0).collect();
    let mut spans = CodeSpans {
        s,
        index,
        read,
        files: HashMap::new(),
        sent: HashMap::new(),
        texts: HashMap::new(),
        seeds: &seed_ids,
        budget,
    };
    let selection = select(&ranked, &mut spans, budget.saturating_sub(atom_tokens));
    // The calls between kept items, while they fit in what the code left.
    let kept: BTreeSet<Sym> = selection.kept.iter().map(|k| k.0).collect();
    let room = budget.saturating_sub(atom_tokens + selection.tokens);
    let mut edge_tokens = 0;
    for row in facts.calls.iter().filter(|r| r.0 != r.1 && kept.contains(&r.0.sym()) && kept.contains(&r.1.sym())) {
        let atom = atoms::calls(s, *row).to_string();
        let cost = tokens(&atom) + 1;
        if edge_tokens + cost > room {
            break;
        }
        edge_tokens += cost;
        atoms.push(atom);
    }
    atoms.dedup();
    let mut items = Vec::new();
    for &(item, score, cost) in &selection.kept {
        let id = s.resolve(item);
        let Some((path, symbol)) = index.symbol(id) else { continue };
        atoms.push(atoms::context_atom(s, (item, score)).to_string());
        let why = match program.best_seed(item) {
            Some((seed, _)) => {
                let reason = match (program.seed_reason(seed), program.remembered_age(seed)) {
                    (Some(why), _) => s.resolve(why).to_string(),
                    (None, Some(age)) => format!("remembered, {} request(s) ago", age + 1),
                    (None, None) => match program.recalled_score(seed) {
                        Some(score) => format!("recalled for the request, score {:.2}", f64::from(score) / 1000.0),
                        None => "seed".to_string(),
                    },
                };
                describe(s, seed, &reason, &program.path(seed, item))
            }
            None => Vec::new(),
        };
        let (text, shown) = spans.texts.remove(&item).unwrap_or_default();
        items.push(Item {
            id: id.to_string(),
            kind: if symbol.kind == nerd_logic::vocab::SymbolKind::Test { "test" } else { "symbol" },
            score,
            path: path.to_string(),
            start_line: symbol.line,
            end_line: symbol.end_line,
            tokens: cost,
            why,
            text,
            shown,
        });
    }
    // The request's atoms, the kept code (with each item's context_atom line) and the edges that fitted.
    let tokens = atom_tokens + selection.tokens + edge_tokens;
    Context { budget, tokens, seeds, atoms, atoms_left_out, items, left_out: selection.left_out.len() }
}

/// The activation path as sentences: the seed and why, then each step.
fn describe(s: &nerd_logic::Symbols, seed: Sym, why: &str, path: &[Step]) -> Vec<String> {
    let mut out = vec![format!("{} ({why})", s.resolve(seed))];
    out.extend(path.iter().map(|step| format!("{} {}", step.via.as_str(), s.resolve(step.to))));
    out
}

impl Context {
    /// The block a prompt carries: atoms in the kernel's syntax, then the code, with line numbers.
    pub fn render(&self) -> String {
        let mut text = format!(
            "Context chosen by nerd's kernel (spreading activation from the request; {} of {} tokens):\n",
            self.tokens, self.budget
        );
        text.push_str("Facts:\n");
        for atom in &self.atoms {
            text.push_str(&format!("  {atom}\n"));
        }
        if self.atoms_left_out > 0 {
            text.push_str(&format!("  ({} more failure and seed atom(s) did not fit)\n", self.atoms_left_out));
        }
        text.push_str("Code:\n");
        for item in &self.items {
            text.push_str(&format!("=== {}:{}-{} ({}) ===\n", item.path, item.start_line, item.end_line, item.id));
            text.push_str(&item.text);
        }
        if self.left_out > 0 {
            text.push_str(&format!("({} more reached item(s) did not fit the budget)\n", self.left_out));
        }
        text
    }

    /// Why each item was chosen: its score and activation path (for people; not sent).
    pub fn reasons(&self) -> String {
        let mut text = String::from("Why each item was chosen (score: path from a seed):\n");
        for item in &self.items {
            text.push_str(&format!("  {} {}: {}\n", item.score, item.id, item.why.join(" → ")));
        }
        text
    }

    /// The lines of each file the rendered block shows, by file.
    pub fn lines(&self) -> BTreeMap<String, Vec<(u32, u32)>> {
        let mut lines: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
        for item in self.items.iter().filter(|i| !i.shown.is_empty()) {
            lines.entry(item.path.clone()).or_default().extend(item.shown.iter().copied());
        }
        lines
    }
}

/// The loaded symbols by id and by file, built once for seeding and selecting.
pub struct SymbolIndex<'a> {
    by_id: HashMap<&'a str, (&'a str, &'a ProjectedSymbol)>,
    by_path: BTreeMap<&'a str, &'a [ProjectedSymbol]>,
}

impl<'a> SymbolIndex<'a> {
    pub fn new(loaded: &'a Loaded) -> SymbolIndex<'a> {
        let mut by_id = HashMap::new();
        let mut by_path = BTreeMap::new();
        for (path, (_, projection)) in &loaded.projections {
            by_path.insert(path.as_str(), projection.symbols.as_slice());
            for symbol in &projection.symbols {
                by_id.insert(symbol.id.as_str(), (path.as_str(), symbol));
            }
        }
        SymbolIndex { by_id, by_path }
    }

    fn symbol(&self, id: &str) -> Option<(&'a str, &'a ProjectedSymbol)> {
        self.by_id.get(id).copied()
    }

    /// The passing tests a runner's ids name, as `(path, name)` for
    /// `test_outcome`: `path::name` where the path is a file of the index
    /// (pytest, vitest, jest), else the one test whose qualified name ends
    /// the id (go test's `pkg.TestX/sub`, libtest's `tests::adds`); an id
    /// that names no test, or several, names none.
    pub fn runner_tests<'i>(&self, ids: impl Iterator<Item = &'i str>) -> Vec<(&'a str, &'a str)> {
        let mut by_name: HashMap<&'a str, Vec<(&'a str, &'a str)>> = HashMap::new();
        for (id, (path, s)) in &self.by_id {
            if s.kind == nerd_logic::vocab::SymbolKind::Test {
                let name = id.split_once('#').map_or(*id, |(_, n)| n);
                by_name.entry(name).or_default().push((path, name));
            }
        }
        let mut out = Vec::new();
        for id in ids {
            let in_file =
                id.split_once("::").and_then(|(path, name)| Some((self.by_path.get_key_value(path)?.0, name)));
            if let Some((&path, name)) = in_file {
                if let Some(test) = self.test(path, name, 0) {
                    out.push((path, test.split_once('#').map_or(test, |(_, n)| n)));
                }
                continue;
            }
            let dotted = id.replace("::", ".");
            // Each suffix after a dot, longest first; a Go sub-test's `/…` is its test's.
            let suffixes = std::iter::once(0).chain(dotted.match_indices('.').map(|(at, _)| at + 1));
            let found = suffixes
                .map(|at| dotted[at..].split('/').next().unwrap_or_default())
                .find_map(|name| by_name.get(name).filter(|tests| tests.len() == 1));
            if let Some(&[test]) = found.map(Vec::as_slice) {
                out.push(test);
            }
        }
        out
    }

    /// The innermost symbol of `path` whose lines hold `line`.
    fn enclosing(&self, path: &str, line: u32) -> Option<&'a str> {
        self.by_path
            .get(path)?
            .iter()
            .filter(|s| s.line <= line && line <= s.end_line)
            .max_by_key(|s| (s.depth, s.line))
            .map(|s| s.id.as_str())
    }

    /// The test a runner named: its function by name in `path` (a runner's
    /// `a::b::test_x`, `TestA.test_x`, `test_x[param]` or `TestX/sub`), else
    /// the symbol holding the reported line.
    fn test(&self, path: &str, name: &str, line: u32) -> Option<&'a str> {
        // The symbol's own id or name (a TypeScript test is named by its title, spaces and all).
        if let Some((_, s)) = self.symbol(&format!("{path}#{name}")) {
            return Some(s.id.as_str());
        }
        let symbols = self.by_path.get(path)?;
        // A jest or vitest test is named `describe > … > title`; its symbol by the title.
        let title = name.rsplit(crate::check::jest::NESTING).next().unwrap_or(name);
        if let Some(found) = symbols.iter().find(|s| s.name == name || s.name == title) {
            return Some(found.id.as_str());
        }
        let base = name.split('[').next().unwrap_or(name);
        let segments: Vec<&str> = base.split(['/', ':', '.', ' ']).filter(|p| !p.is_empty()).collect();
        for segment in segments.iter().rev() {
            if let Some(found) = symbols.iter().find(|s| s.name == *segment) {
                return Some(found.id.as_str());
            }
        }
        (line > 0).then(|| self.enclosing(path, line)).flatten()
    }
}

/// The token cost of items' code: lines already sent are not counted twice.
struct CodeSpans<'a, 'r> {
    s: &'a nerd_logic::Symbols,
    index: &'a SymbolIndex<'a>,
    read: &'r mut dyn FnMut(&str) -> Option<String>,
    files: HashMap<String, Option<Vec<String>>>,
    /// Lines already sent, by file.
    sent: HashMap<String, BTreeSet<u32>>,
    /// Each kept item's new lines, numbered as a prompt shows them, and their line ranges.
    texts: HashMap<Sym, (String, Vec<(u32, u32)>)>,
    seeds: &'a BTreeSet<Sym>,
    budget: usize,
}

impl CodeSpans<'_, '_> {
    /// Reads `path` once; `false` when it cannot be read.
    fn load(&mut self, path: &str) -> bool {
        if !self.files.contains_key(path) {
            let text = (self.read)(path);
            self.files.insert(path.to_string(), text.map(|t| t.lines().map(str::to_string).collect()));
        }
        self.files.get(path).is_some_and(Option::is_some)
    }

    /// The lines of `symbol` in `path` not sent yet, with their numbers.
    fn unsent<'s>(&'s self, path: &str, symbol: &ProjectedSymbol) -> impl Iterator<Item = (u32, &'s str)> + 's {
        let lines = self.files.get(path).and_then(Option::as_ref);
        let sent = self.sent.get(path);
        (symbol.line..=symbol.end_line)
            .filter(move |n| !sent.is_some_and(|s| s.contains(n)))
            .filter_map(move |n| Some((n, lines?.get(n.saturating_sub(1) as usize)?.as_str())))
    }
}

impl Spans for CodeSpans<'_, '_> {
    fn cost(&mut self, item: Sym) -> Option<usize> {
        let (path, symbol) = self.index.symbol(self.s.resolve(item))?;
        if !self.load(path) {
            return None;
        }
        // The header line, and the item's `context_atom` line among the atoms.
        let header = tokens(&format!("=== {path}:{}-{} ===", symbol.line, symbol.end_line))
            + 8
            + tokens(&format!("context_atom({:?}, 1000)", symbol.id))
            + 1;
        Some(header + self.unsent(path, symbol).map(|(_, l)| tokens(l) + 2).sum::<usize>())
    }

    /// One item other than a seed may not take more than a quarter of the budget.
    fn may_take(&self, item: Sym, tokens: usize) -> bool {
        self.seeds.contains(&item) || tokens <= self.budget / 4
    }

    fn keep(&mut self, item: Sym) {
        if let Some((path, symbol)) = self.index.symbol(self.s.resolve(item)) {
            let (mut text, mut shown) = (String::new(), Vec::<(u32, u32)>::new());
            for (n, line) in self.unsent(path, symbol) {
                text.push_str(&format!("{n:>5} | {line}\n"));
                match shown.last_mut() {
                    Some(run) if run.1 + 1 == n => run.1 = n,
                    _ => shown.push((n, n)),
                }
            }
            self.texts.insert(item, (text, shown));
            self.sent.entry(path.to_string()).or_default().extend(symbol.line..=symbol.end_line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SymbolIndex;
    use crate::kernel::Loaded;
    use crate::world::lang::Lang;
    use crate::world::project::project_file;

    fn loaded(files: &[(Lang, &str, &str)]) -> Loaded {
        let projections = files
            .iter()
            .map(|&(lang, path, source)| {
                (path.to_string(), (lang, project_file(lang, path, source.as_bytes()).unwrap()))
            })
            .collect();
        Loaded { files: vec![], projections, resolution: Default::default(), git: Default::default() }
    }

    /// The lines a context shows are the lines its items' text shows, by file: an item that
    /// showed nothing (its lines sent before, or past the end of the file) names no file.
    #[test]
    fn a_context_shows_the_lines_its_items_printed() {
        let item = |path: &str, shown: Vec<(u32, u32)>| super::Item {
            id: format!("{path}#f"),
            kind: "symbol",
            score: 1,
            path: path.into(),
            start_line: 370,
            end_line: 390,
            tokens: 1,
            why: vec![],
            text: String::new(),
            shown,
        };
        let context = super::Context {
            budget: 8000,
            tokens: 0,
            seeds: vec![],
            atoms: vec![],
            atoms_left_out: 0,
            items: vec![
                item("a.py", vec![(10, 20)]),
                item("a.py", vec![(3, 4), (22, 25)]),
                item("tests/test_a.py", vec![]),
            ],
            left_out: 0,
        };
        let lines = context.lines();
        assert_eq!(lines.keys().collect::<Vec<_>>(), ["a.py"]);
        assert_eq!(lines["a.py"], [(10, 20), (3, 4), (22, 25)]);
    }

    /// Each runner's id of a passing test names its test symbol: pytest's by
    /// its file, go test's and libtest's by the one test whose name ends it;
    /// a name two packages share, or none, names nothing.
    #[test]
    fn runner_ids_of_passing_tests_name_their_test_symbols() {
        let go =
            "package pflag\nimport \"testing\"\nfunc TestParse(t *testing.T) {}\nfunc TestOther(t *testing.T) {}\n";
        let loaded = loaded(&[
            (Lang::Go, "flag_test.go", go),
            (Lang::Go, "sub/a_test.go", "package sub\nimport \"testing\"\nfunc TestOther(t *testing.T) {}\n"),
            (Lang::Rust, "src/lib.rs", "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {}\n}\n"),
            (Lang::Python, "tests/test_a.py", "class TestApi:\n    def test_get(self):\n        pass\n"),
        ]);
        let index = SymbolIndex::new(&loaded);
        let ids = [
            "github.com/spf13/pflag.TestParse/with_dots.1",
            "tests::adds",
            "tests/test_a.py::TestApi::test_get",
            "github.com/spf13/pflag.TestOther",
            "github.com/spf13/pflag.TestMissing",
        ];
        assert_eq!(
            index.runner_tests(ids.into_iter()),
            [("flag_test.go", "TestParse"), ("src/lib.rs", "tests.adds"), ("tests/test_a.py", "TestApi.test_get")]
        );
    }
}
