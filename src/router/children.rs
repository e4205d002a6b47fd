//! Children at once: a batch of spawns judged and recorded one by one, as
//! every action is, then the permitted ones run side by side, at most
//! `parallel` at a time, each a separate process under its own token; their
//! progress is reported as each starts and ends, and each result is recorded
//! as its spawn's. Only the waiting is parallel: judging, issuing tokens and
//! recording stay on the router's one thread, in the batch's order.
//! Knows nothing about why the children were asked for.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use serde::Serialize;

use super::{Outcome, Router, RouterError};
use crate::policy::{Action, Verdict};
use crate::specialist::delegation::Token;
use crate::specialist::launch::{self, Ended};

/// Where a child is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChildState {
    /// Its process started.
    Running,
    /// It ended: `status` says how.
    Ended,
}

/// One child's progress, as it happens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChildProgress {
    /// The child's place in the batch.
    pub index: usize,
    pub token: String,
    pub task: String,
    pub state: ChildState,
    /// How it ended: the child's own status word (`answered`, `refused`...), `timed_out` or `no_report`.
    pub status: Option<String>,
    /// Milliseconds since the batch started.
    pub at_ms: u64,
}

/// A permitted spawn waiting to run.
struct Job {
    index: usize,
    seq: i64,
    token: Token,
}

impl Router {
    /// Judges every action of `actions` and runs the permitted spawns at most
    /// `parallel` at a time (any other action runs on its own, in order),
    /// calling `progress` as each child starts and ends. Returns the outcomes
    /// in the order of `actions`.
    pub fn execute_children(
        &mut self,
        actions: &[Action],
        parallel: usize,
        progress: &mut dyn FnMut(ChildProgress),
    ) -> Result<Vec<Outcome>, RouterError> {
        let mut outcomes: Vec<Option<Outcome>> = actions.iter().map(|_| None).collect();
        let mut jobs = Vec::new();
        for (index, action) in actions.iter().enumerate() {
            if !matches!(action, Action::Spawn { .. } | Action::Delegate { .. }) || action.validate().is_err() {
                outcomes[index] = Some(self.execute(action)?);
                continue;
            }
            let (seq, decision) = self.decide(action)?;
            if decision.decision != Verdict::Allow {
                let outcome = Outcome::Refused { reasons: decision.reasons };
                self.record_result(Some(seq), action, &outcome, "")?;
                outcomes[index] = Some(outcome);
                continue;
            }
            match self.child_token(action) {
                Ok(token) => jobs.push(Job { index, seq, token }),
                Err(error) => {
                    let outcome = Outcome::Failed { error };
                    self.record_result(Some(seq), action, &outcome, "")?;
                    outcomes[index] = Some(outcome);
                }
            }
        }
        let ended = self.wait_all(&jobs, parallel.max(1), progress);
        for (job, ended) in jobs.iter().zip(ended) {
            let action = &actions[job.index];
            let outcome = match ended.and_then(|e| self.child_output(&job.token, e)) {
                Ok(output) => Outcome::Executed { output },
                Err(error) => Outcome::Failed { error },
            };
            self.record_result(Some(job.seq), action, &outcome, "")?;
            outcomes[job.index] = Some(outcome);
        }
        Ok(outcomes.into_iter().map(|o| o.unwrap_or(Outcome::Failed { error: "never judged".into() })).collect())
    }

    /// Runs every job's child, `parallel` at a time, and waits for all of them.
    fn wait_all(
        &self,
        jobs: &[Job],
        parallel: usize,
        progress: &mut dyn FnMut(ChildProgress),
    ) -> Vec<Result<Ended, String>> {
        let started = Instant::now();
        let (root, timeout, cancel) = (&self.root, self.timeout, &self.cancel);
        let next = AtomicUsize::new(0);
        let mut results: Vec<Option<Result<Ended, String>>> = jobs.iter().map(|_| None).collect();
        let (tx, rx) = mpsc::channel::<(usize, Option<Result<Ended, String>>)>();
        std::thread::scope(|scope| {
            for _ in 0..parallel.min(jobs.len()) {
                let (tx, next) = (tx.clone(), &next);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    // A send fails only when the router stopped listening; the child still runs to its end.
                    let _ = tx.send((i, None));
                    let ended = launch::run(root, &job.token, timeout, cancel.clone());
                    let _ = tx.send((i, Some(ended)));
                });
            }
            drop(tx);
            for (i, ended) in rx {
                let job = &jobs[i];
                let status = ended.as_ref().map(|ended| match ended {
                    Ok(e) if e.timed_out => "timed_out".to_string(),
                    Ok(e) => e.report.as_ref().map_or("no_report".to_string(), |r| r.status.clone()),
                    Err(error) => format!("failed: {error}"),
                });
                progress(ChildProgress {
                    index: job.index,
                    token: job.token.claims.id.clone(),
                    task: job.token.claims.task.clone(),
                    state: if ended.is_some() { ChildState::Ended } else { ChildState::Running },
                    status,
                    at_ms: started.elapsed().as_millis() as u64,
                });
                if ended.is_some() {
                    results[i] = ended;
                }
            }
        });
        results.into_iter().map(|r| r.unwrap_or_else(|| Err("the child's runner stopped".into()))).collect()
    }
}
