//! The delegate and survey steps. Delegate: each `delegate_task` the kernel
//! derived becomes a spawn of an ephemeral generalist (read and search only,
//! inside its area), judged by the router, run side by side under
//! `[shards] max_parallel`, its progress shown as it goes; what each child
//! reports comes back as facts through a boundary that keeps only the survey
//! predicates about the child's own area. Survey: areas no child surveyed are
//! surveyed here, and the answer is read off the kernel's fixpoint. A child
//! (acting under a token) surveys only the areas its token covers and hands
//! its findings up.
//! Knows nothing about how children are started or how the kernel decided.

use std::collections::BTreeMap;

use nerd_logic::vocab::{ChildStatus, Task};
use nerd_logic::{evaluate, parse_atom, Atom, Facts, Term};

use super::super::event::{Event, Status};
use super::super::{survey, Agent, AgentError, Flow, Turn};
use crate::policy::Action;
use crate::router::{Outcome, Output};

/// Atoms a child may report per area it surveyed; the rest are dropped.
const MAX_PER_AREA: usize = 1000;
/// The tools an area's surveyor gets: reading and searching, nothing that changes anything.
const SURVEY_TOOLS: &[&str] = &["read_file", "search"];

/// A delegated task the kernel derived: its id, its kind, and the area it covers.
pub(crate) type TaskRow = (String, Task, String);

/// What became of one delegated task.
#[derive(Clone, Debug)]
pub(crate) struct Delegated {
    pub status: ChildStatus,
    /// The child's token and time, for the answer.
    pub by: String,
    /// The reported atoms the boundary kept.
    pub atoms: Vec<Atom>,
    /// Reported atoms the boundary refused.
    pub dropped: usize,
}

/// `delegate_result` for each delegated task, and every survey finding kept
/// so far (the children's, kept at the boundary, and those made here).
pub(crate) fn assert_delegated(f: &mut Facts, children: &BTreeMap<String, Delegated>, surveyed: &[Atom]) {
    for (id, done) in children {
        let id = f.sym(id);
        f.delegate_result.push((id, done.status));
    }
    for atom in children.values().flat_map(|d| &d.atoms).chain(surveyed) {
        // Each parses as a base fact: checked at the boundary, or made by the survey.
        let _ = f.assert_atom(atom);
    }
}

/// The task a child is given for its delegated sub-tasks, in words its perception reads.
fn task_text(task: Task, scopes: &[String]) -> String {
    let named: Vec<String> = scopes
        .iter()
        .map(|s| if s == "." { "the files at the workspace root".to_string() } else { format!("{s}/") })
        .collect();
    let list = match named.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    match task {
        Task::Survey => format!("explain the architecture of {list}"),
    }
}

/// The delegated sub-tasks shared out among at most `children` children of
/// about equal work (by files, largest first to the least loaded child), so
/// a workspace of seventy small areas starts as many children as it has
/// cores, not seventy. Each batch holds tasks of one kind.
fn batches(tasks: Vec<TaskRow>, files: &dyn Fn(&str) -> usize, children: usize) -> Vec<Vec<TaskRow>> {
    let mut tasks = tasks;
    tasks.sort_by(|a, b| files(&b.2).cmp(&files(&a.2)).then_with(|| a.0.cmp(&b.0)));
    let mut out: Vec<(usize, Vec<TaskRow>)> = Vec::new();
    for task in tasks {
        let open = out.len() < children.max(1);
        match out.iter_mut().filter(|(_, b)| b[0].1 == task.1).min_by_key(|(load, _)| *load) {
            Some(least) if !open => {
                least.0 += files(&task.2);
                least.1.push(task);
            }
            _ => out.push((files(&task.2), vec![task])),
        }
    }
    out.into_iter()
        .map(|(_, mut b)| {
            b.sort_by(|x, y| x.0.cmp(&y.0));
            b
        })
        .collect()
}

/// Keeps the reported atoms that are survey findings about one of `areas`
/// (the child's own) and parse as the kernel's facts, by area; counts the rest.
fn keep_reported(reported: &[String], areas: &[String]) -> (BTreeMap<String, Vec<Atom>>, usize) {
    let mut kept: BTreeMap<String, Vec<Atom>> = BTreeMap::new();
    let mut scratch = Facts::default();
    let mut count = 0;
    for text in reported.iter().take(MAX_PER_AREA.saturating_mul(areas.len())) {
        let Ok(atom) = parse_atom(text) else { continue };
        let Some(Term::Str(area)) = atom.args.first() else { continue };
        let own = areas.contains(area);
        if own && survey::REPORTED.contains(&atom.predicate.as_str()) && scratch.assert_atom(&atom).is_ok() {
            kept.entry(area.clone()).or_default().push(atom);
            count += 1;
        }
    }
    (kept, reported.len() - count)
}

impl Agent<'_> {
    /// Shares the pending delegated tasks out among at most `max_parallel`
    /// read-only generalists, spawns them side by side and waits for all of them.
    pub(super) fn delegate(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let tasks = std::mem::take(&mut t.state.to_delegate);
        let parallel = self.config.shards.parallel();
        let mut files: BTreeMap<&str, usize> = BTreeMap::new();
        for path in t.world.projections.keys() {
            *files.entry(survey::area_of(path)).or_default() += 1;
        }
        let batches = batches(tasks, &|area| files.get(area).copied().unwrap_or(0), parallel);
        let actions: Vec<Action> = batches
            .iter()
            .map(|batch| {
                let scopes: Vec<String> = batch.iter().map(|(_, _, scope)| scope.clone()).collect();
                Action::Delegate {
                    task: task_text(batch[0].1, &scopes),
                    paths: scopes.iter().map(|s| survey::scope_of(s)).collect(),
                    tools: SURVEY_TOOLS.iter().map(|s| s.to_string()).collect(),
                }
            })
            .collect();
        for action in &actions {
            self.announce(&mut t.router, action, "a read-only child surveys its areas")?;
        }
        let sink = &mut self.sink;
        let outcomes = t.router.execute_children(&actions, parallel, &mut |p| {
            sink.emit(&Event::Child { token: p.token, task: p.task, state: p.state, status: p.status, at_ms: p.at_ms })
        })?;
        for (action, outcome) in actions.iter().zip(&outcomes) {
            self.emit_result(action, outcome);
        }
        for (batch, outcome) in batches.into_iter().zip(outcomes) {
            let (status, by, reported) = match outcome {
                Outcome::Refused { reasons } => {
                    (ChildStatus::Refused, format!("refused: {}", reasons.join("; ")), vec![])
                }
                Outcome::Failed { error } => (ChildStatus::Failed, error, vec![]),
                Outcome::Executed { output: Output::Spawned { token, report, timed_out, wall_ms, .. } } => {
                    let by = format!("child {token}, {:.1} s", wall_ms as f64 / 1000.0);
                    match report.filter(|r| r.succeeded() && !timed_out) {
                        Some(report) => (ChildStatus::Done, by, report.facts),
                        None => (ChildStatus::Failed, by, vec![]),
                    }
                }
                Outcome::Executed { .. } => (ChildStatus::Failed, "no report".into(), vec![]),
            };
            // Each area keeps what the child said about it; what it said about any other area is dropped.
            let areas: Vec<String> = batch.iter().map(|(_, _, scope)| scope.clone()).collect();
            let (mut kept, dropped) = keep_reported(&reported, &areas);
            for (i, (id, _, scope)) in batch.into_iter().enumerate() {
                let atoms = kept.remove(&scope).unwrap_or_default();
                let dropped = if i == 0 { dropped } else { 0 };
                t.state.children.insert(id, Delegated { status, by: by.clone(), atoms, dropped });
            }
        }
        Ok(Flow::Continue)
    }

    /// The survey: areas no child surveyed are surveyed here (under a token:
    /// only the areas it covers, handed up as findings), then answered from the fixpoint.
    pub(super) fn survey(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let surveyed: Vec<String> = t
            .state
            .children
            .iter()
            .filter(|(_, d)| d.atoms.iter().any(|a| a.predicate == "area_summary"))
            .map(|(id, _)| id.clone())
            .collect();
        let areas: Vec<String> = match &self.options.delegation {
            Some(chain) => survey::covered_areas(t.world, &chain.path_matcher()),
            None => survey::covered_areas(t.world, &|_| true),
        };
        for area in areas.iter().filter(|a| !surveyed.contains(a)) {
            let found = survey::survey(&self.root, t.world, area);
            t.state.surveyed.extend(found.atoms());
        }
        if self.options.delegation.is_some() {
            let atoms = t.state.surveyed.iter().map(|a| a.to_string()).collect();
            self.emit(Event::Findings { atoms });
        } else {
            // Callers from anywhere: only the whole world knows an area's most-called symbols.
            t.state.surveyed.extend(survey::hub_atoms(t.world));
        }
        let mut by: BTreeMap<String, String> = t
            .state
            .children
            .iter()
            .filter(|(_, d)| d.status == ChildStatus::Done)
            .map(|(a, d)| (a.clone(), d.by.clone()))
            .collect();
        let dropped: usize = t.state.children.values().map(|d| d.dropped).sum();
        if !t.state.children.is_empty() {
            for area in &areas {
                by.entry(area.clone()).or_insert_with(|| "surveyed here".to_string());
            }
        }
        // The answer needs the areas' facts and what the kernel derives from them, not the whole world again.
        let mut f = nerd_logic::defaults::policy();
        assert_delegated(&mut f, &t.state.children, &t.state.surveyed);
        let fixpoint = evaluate(f);
        let mut text = super::super::answer::overview(t.world);
        text.push('\n');
        text.push_str(&survey::answer(&fixpoint, &by));
        if dropped > 0 {
            text.push_str(&format!(
                "\n{dropped} reported fact(s) were not about a child's own area's survey and were dropped."
            ));
        }
        Ok(Flow::Stop(Status::Answered, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_reports_only_survey_facts_about_its_own_areas() {
        let reported: Vec<String> = [
            r#"area_summary("src", 3, 20, 5, 2)"#,
            r#"area_uses("src", "lib", 4)"#,
            r#"area_summary("docs", 1, 2, 0, 0)"#,
            r#"area_summary("tests", 1, 1, 1, 1)"#,
            r#"permitted("a1")"#,
            r#"user_intent("i", "mutation", "delete", "x", "")"#,
            r#"area_hub("src", "src/a.py#f", 3)"#,
            r#"area_complex("src", "src/a.py#f", -3)"#,
            "not an atom",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (kept, dropped) = keep_reported(&reported, &["src".to_string(), "docs".to_string()]);
        let shown: Vec<(String, Vec<String>)> =
            kept.into_iter().map(|(a, atoms)| (a, atoms.iter().map(|x| x.to_string()).collect())).collect();
        assert_eq!(
            shown,
            vec![
                ("docs".to_string(), vec![r#"area_summary("docs", 1, 2, 0, 0)"#.to_string()]),
                (
                    "src".to_string(),
                    vec![
                        r#"area_summary("src", 3, 20, 5, 2)"#.to_string(),
                        r#"area_uses("src", "lib", 4)"#.to_string()
                    ]
                ),
            ]
        );
        assert_eq!(dropped, 6);
    }

    #[test]
    fn tasks_are_shared_out_among_at_most_as_many_children_as_may_run_by_their_files() {
        let task = |a: &str| (a.to_string(), Task::Survey, a.to_string());
        let sizes = |a: &str| match a {
            "big" => 100,
            "mid" => 60,
            "small" => 30,
            _ => 10,
        };
        let tasks = vec![task("big"), task("mid"), task("small"), task("tiny"), task("x")];
        let names = |bs: Vec<Vec<TaskRow>>| -> Vec<Vec<String>> {
            bs.into_iter().map(|b| b.into_iter().map(|t| t.0).collect()).collect()
        };
        assert_eq!(names(batches(tasks.clone(), &sizes, 2)), vec![vec!["big", "x"], vec!["mid", "small", "tiny"]]);
        assert_eq!(names(batches(tasks.clone(), &sizes, 8)).len(), 5);
        assert_eq!(names(batches(tasks, &sizes, 1)), vec![vec!["big", "mid", "small", "tiny", "x"]]);
    }

    #[test]
    fn the_childs_task_reads_as_a_broad_explanation() {
        for scopes in [vec!["src"], vec!["."], vec!["api", "db", "."]] {
            let scopes: Vec<String> = scopes.into_iter().map(str::to_string).collect();
            let text = task_text(Task::Survey, &scopes);
            let intent = match crate::perceive::perceive(&mut crate::perceive::Offline, &text) {
                crate::perceive::Perceived::Intent { intent, .. } => intent,
                other => panic!("{text}: {other:?}"),
            };
            assert_eq!(intent.verb, nerd_logic::vocab::Verb::Explain, "{text}");
            assert_eq!(intent.context, nerd_logic::vocab::ContextHint::Broad, "{text}");
        }
    }
}
