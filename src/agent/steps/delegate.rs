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

/// Atoms one child may report at most; the rest are dropped.
const MAX_REPORTED: usize = 1000;
/// The tools an area's surveyor gets: reading and searching, nothing that changes anything.
const SURVEY_TOOLS: &[&str] = &["read_file", "search"];

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

/// The task a child is given for a delegated sub-task, in words its perception reads.
fn task_text(task: Task, scope: &str) -> String {
    match task {
        Task::Survey if scope == "." => "explain the architecture of the files at the workspace root".to_string(),
        Task::Survey => format!("explain the architecture of {scope}/"),
    }
}

/// Keeps the reported atoms that are survey findings about `area` and parse
/// as the kernel's facts; counts the rest.
fn keep_reported(reported: &[String], area: &str) -> (Vec<Atom>, usize) {
    let mut kept = Vec::new();
    let mut scratch = Facts::default();
    for text in reported.iter().take(MAX_REPORTED) {
        let Ok(atom) = parse_atom(text) else { continue };
        let about_area = atom.args.first() == Some(&Term::Str(area.to_string()));
        if survey::REPORTED.contains(&atom.predicate.as_str()) && about_area && scratch.assert_atom(&atom).is_ok() {
            kept.push(atom);
        }
    }
    let dropped = reported.len() - kept.len();
    (kept, dropped)
}

impl Agent<'_> {
    /// Spawns one generalist per pending delegated task and waits for all of them.
    pub(super) fn delegate(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let tasks = std::mem::take(&mut t.state.to_delegate);
        let actions: Vec<Action> = tasks
            .iter()
            .map(|(_, task, scope)| Action::Delegate {
                task: task_text(*task, scope),
                paths: vec![survey::scope_of(scope)],
                tools: SURVEY_TOOLS.iter().map(|s| s.to_string()).collect(),
            })
            .collect();
        for action in &actions {
            self.announce(&mut t.router, action, "a read-only child surveys one area")?;
        }
        let parallel = self.config.shards.parallel();
        let sink = &mut self.sink;
        let outcomes = t.router.execute_children(&actions, parallel, &mut |p| {
            sink.emit(&Event::Child { token: p.token, task: p.task, state: p.state, status: p.status, at_ms: p.at_ms })
        })?;
        for (action, outcome) in actions.iter().zip(&outcomes) {
            self.emit_result(action, outcome);
        }
        for ((id, _, scope), outcome) in tasks.into_iter().zip(outcomes) {
            let done = match outcome {
                Outcome::Refused { reasons } => Delegated {
                    status: ChildStatus::Refused,
                    by: format!("refused: {}", reasons.join("; ")),
                    atoms: vec![],
                    dropped: 0,
                },
                Outcome::Failed { error } => {
                    Delegated { status: ChildStatus::Failed, by: error, atoms: vec![], dropped: 0 }
                }
                Outcome::Executed { output: Output::Spawned { token, report, timed_out, wall_ms, .. } } => {
                    let by = format!("child {token}, {:.1} s", wall_ms as f64 / 1000.0);
                    match report.filter(|r| r.succeeded() && !timed_out) {
                        Some(report) => {
                            let (atoms, dropped) = keep_reported(&report.facts, &scope);
                            Delegated { status: ChildStatus::Done, by, atoms, dropped }
                        }
                        None => Delegated { status: ChildStatus::Failed, by, atoms: vec![], dropped: 0 },
                    }
                }
                Outcome::Executed { .. } => {
                    Delegated { status: ChildStatus::Failed, by: "no report".into(), atoms: vec![], dropped: 0 }
                }
            };
            t.state.children.insert(id, done);
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
            Some(chain) => survey::covered_areas(t.world, &|p| chain.allows_path(p)),
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
        let fixpoint = evaluate(self.facts(t));
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
    fn a_child_reports_only_survey_facts_about_its_own_area() {
        let reported: Vec<String> = [
            r#"area_summary("src", 3, 20, 5, 2)"#,
            r#"area_uses("src", "lib", 4)"#,
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
        let (kept, dropped) = keep_reported(&reported, "src");
        let kept: Vec<String> = kept.iter().map(|a| a.to_string()).collect();
        assert_eq!(kept, vec![r#"area_summary("src", 3, 20, 5, 2)"#, r#"area_uses("src", "lib", 4)"#]);
        assert_eq!(dropped, 6);
    }

    #[test]
    fn the_childs_task_reads_as_a_broad_explanation() {
        for scope in ["src", "."] {
            let text = task_text(Task::Survey, scope);
            let intent = match crate::perceive::perceive(&mut crate::perceive::Offline, &text) {
                crate::perceive::Perceived::Intent { intent, .. } => intent,
                other => panic!("{text}: {other:?}"),
            };
            assert_eq!(intent.verb, nerd_logic::vocab::Verb::Explain, "{text}");
            assert_eq!(intent.context, nerd_logic::vocab::ContextHint::Broad, "{text}");
        }
    }
}
