//! Kernel benchmark on a real indexed workspace: how long the programs take,
//! and how the Datalog engine compares with a plain breadth-first search for
//! the same graph questions (`impacted`, the `depends_on` closure).
//!
//!   cargo bench --bench kernel -- DIR      (DIR must have been indexed: `nerd index DIR`)
//!
//! One symbol in a hundred is marked modified so `impacted` has work to do.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nerd::kernel::{self, LoadFor};
use nerd::store::Store;
use nerd_logic::{evaluate, impact, Facts, Sym};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut samples = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        last = Some(f());
        samples.push(start.elapsed());
    }
    (median(samples), last.expect("at least one run"))
}

/// `impacted` by BFS over reversed call edges, plus files of impacted symbols.
fn bfs_impacted(facts: &Facts) -> HashSet<Sym> {
    let mut callers: HashMap<Sym, Vec<Sym>> = HashMap::new();
    // The rules follow certain edges only; so does the baseline.
    for &(a, b, _, _, _) in facts.calls.iter().filter(|c| c.4.is_certain()) {
        callers.entry(b.sym()).or_default().push(a.sym());
    }
    let mut seen: HashSet<Sym> = facts.modified.iter().copied().collect();
    let mut queue: VecDeque<Sym> = seen.iter().copied().collect();
    while let Some(x) = queue.pop_front() {
        for &c in callers.get(&x).into_iter().flatten() {
            if seen.insert(c) {
                queue.push_back(c);
            }
        }
    }
    let files: Vec<Sym> = facts.defines.iter().filter(|(_, s)| seen.contains(&s.sym())).map(|(p, _)| p.sym()).collect();
    seen.extend(files);
    seen
}

/// The size of the `depends_on` closure by one BFS per node.
fn bfs_closure_size(facts: &Facts) -> usize {
    let mut callees: HashMap<Sym, Vec<Sym>> = HashMap::new();
    for &(a, b, _, _, _) in facts.calls.iter().filter(|c| c.4.is_certain()) {
        callees.entry(a.sym()).or_default().push(b.sym());
    }
    let mut total = 0;
    for &start in callees.keys() {
        let mut seen: HashSet<Sym> = HashSet::new();
        let mut queue: VecDeque<Sym> = callees[&start].iter().copied().collect();
        while let Some(x) = queue.pop_front() {
            if seen.insert(x) {
                queue.extend(callees.get(&x).into_iter().flatten().copied());
            }
        }
        total += seen.len();
    }
    total
}

fn main() {
    let Some(dir) = std::env::args().skip(1).find(|a| !a.starts_with("--")).map(PathBuf::from) else {
        eprintln!("usage: cargo bench --bench kernel -- DIR   (index DIR first with `nerd index DIR`)");
        std::process::exit(2);
    };
    let store = Store::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let (load, loaded) = time(1, || kernel::load(&dir, &store, LoadFor::Evaluation).unwrap_or_else(|e| panic!("{e}")));
    let (build, mut facts) = time(5, || loaded.facts());
    let ids: Vec<Sym> = facts.symbol.iter().map(|s| s.id.sym()).collect();
    facts.modified.extend(ids.iter().step_by(100).copied());
    println!(
        "{}: {} symbols, {} call edges, {} modified; load {:.1} ms, build facts {:.1} ms",
        dir.display(),
        facts.symbol.len(),
        facts.calls.len(),
        facts.modified.len(),
        load.as_secs_f64() * 1e3,
        build.as_secs_f64() * 1e3
    );

    let (all, fixpoint) = time(7, || evaluate(facts.clone()));
    let (program, _) = time(7, || impact::run(&facts));
    let (bfs, reached) = time(7, || bfs_impacted(&facts));
    let impacted: HashSet<String> =
        fixpoint.relations().impacted().iter().map(|&(x,)| facts.symbols.resolve(x).to_string()).collect();
    let by_bfs: HashSet<String> = reached.iter().map(|s| facts.symbols.resolve(*s).to_string()).collect();
    assert_eq!(impacted, by_bfs, "the impact program and BFS disagree");
    println!(
        "evaluate (all programs) {:.1} ms; impact program {:.1} ms; BFS impacted {:.2} ms; {} impacted (same set)",
        all.as_secs_f64() * 1e3,
        program.as_secs_f64() * 1e3,
        bfs.as_secs_f64() * 1e3,
        impacted.len()
    );

    let (closure, program) = time(1, || impact::run_closure(&facts));
    let (bfs_closure, size) = time(1, || bfs_closure_size(&facts));
    assert_eq!(program.depends_on.len(), size, "closure sizes disagree");
    println!(
        "depends_on closure: {} pairs; ascent {:.0} ms, BFS per node {:.0} ms",
        size,
        closure.as_secs_f64() * 1e3,
        bfs_closure.as_secs_f64() * 1e3
    );
}
