//! Refactors other than a rename (simplify, extract, inline, move, change a
//! signature), written by the model as a patch: the files it may change are
//! the target's and its resolved callers'; a patch is kept only when the
//! build and every test that passed before the change still pass, and rolled
//! back otherwise. Knows nothing about why the kernel chose the step.

use std::collections::BTreeSet;

use super::{Applied, PatchScope};
use crate::agent::event::{Event, Status};
use crate::agent::verify::{self, Kind, Verdict};
use crate::agent::{Agent, AgentError, Flow, Turn};
use crate::kernel::Loaded;
use crate::perceive::focus::Candidate;
use crate::world::lang::Lang;

/// Callers' files a refactor may also change, at most: a signature change reaches them.
const MAX_CALLER_FILES: usize = 12;

impl Agent<'_> {
    /// The target's file, the files of its resolved callers (a changed
    /// signature or a moved definition reaches them) and whatever else the
    /// request named. `None`: the request names no symbol or file here.
    pub(super) fn rewrite_scope(&self, request: &str, loaded: &Loaded, focus: &[Candidate]) -> Option<PatchScope> {
        let chosen: Vec<&Candidate> = crate::perceive::focus::best(focus).collect();
        let mut paths: BTreeSet<String> =
            chosen.iter().map(|c| c.path.clone()).filter(|p| loaded.projections.contains_key(p)).collect();
        let target = chosen.iter().find(|c| !c.symbol.is_empty()).map(|c| c.symbol.clone());
        if let Some(id) = &target {
            let callers: BTreeSet<&String> = loaded
                .resolution
                .files
                .iter()
                .filter(|(_, r)| r.calls.iter().any(|(_, callee, _, p)| callee == id && p.is_certain()))
                .map(|(path, _)| path)
                .collect();
            paths.extend(callers.into_iter().take(MAX_CALLER_FILES).cloned());
        }
        if paths.is_empty() {
            return None;
        }
        // An existing source file the request names (where a definition moves to) may change too,
        // empty ones included (a module an earlier attempt created and could only empty).
        let named = crate::agent::ground::named_paths(&self.root, request).into_iter().filter(|n| {
            n.class == nerd_logic::vocab::PathClass::Inside
                && !n.binary
                && Lang::of_path(&n.path).is_some_and(|lang| !lang.is_test_path(&n.path))
        });
        paths.extend(named.map(|n| n.path));
        let subject = target.as_deref().unwrap_or_else(|| chosen[0].path.as_str());
        // A move or an extraction may create the source files the request names for it.
        let new_files: BTreeSet<String> =
            crate::agent::ground::new_source_paths(&self.root, request).into_iter().collect();
        let task = format!(
            "{request}\n\nThis is a refactor of {subject}: keep its behaviour. The build must stay clean and every \
             test that passes now must still pass; change callers only where the refactor needs it (a changed \
             signature, a moved definition). Do not change tests.{}",
            super::creation_note(&new_files)
        );
        Some(PatchScope { paths, new_files, task })
    }

    /// Writes the pending refactor, then builds and runs the tests: kept when
    /// nothing fails that did not fail before it, rolled back otherwise.
    pub(super) fn apply_rewrite(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (loaded, router, st) = (&mut *t.world, &mut t.router, &mut t.state);
        let Some(edits) = st.pending.take() else { return Ok(Flow::Continue) };
        st.retries += 1;
        let attempt = st.retries;
        let already = st.baseline.as_ref().map(|b| b.failing.clone()).unwrap_or_default();
        let applied = match self.apply_checked(router, loaded, &edits, &[Kind::Build, Kind::Tests], &already)? {
            Ok(applied) => applied,
            Err(flow) => return Ok(flow),
        };
        let files: Vec<String> = edits.iter().map(|e| e.path.clone()).collect();
        match applied {
            Applied::RolledBack { new, left } => {
                let shown: Vec<&str> = new.iter().take(5).map(String::as_str).collect();
                let reason = format!(
                    "the refactor breaks what worked before it ({}{}); it was rolled back",
                    shown.join("; "),
                    if new.len() > shown.len() { format!("; {} more", new.len() - shown.len()) } else { String::new() }
                );
                st.tried.extend(left);
                self.emit(Event::Patch { attempt, files, accepted: false, reason: reason.clone() });
                st.tried.push(format!("attempt {attempt}: {}: {reason}", st.explanation));
                st.feedback = Some(reason);
            }
            Applied::Kept { verification } => {
                Self::record_changes(st, &edits);
                st.tried.push(format!("attempt {attempt}: {}", st.explanation));
                st.test_state = verify::state_of(&verification, &[]);
                st.kept = true;
                self.reload(loaded)?;
            }
        }
        Ok(Flow::Continue)
    }

    /// The end of a kept refactor: what changed and how far it was checked.
    pub(super) fn rewrite_report(&mut self, t: &Turn<'_>, verified: bool) -> Flow {
        let st = &t.state;
        let files: Vec<&str> = st.changes.iter().map(|c| c.path.as_str()).collect();
        let checked = self.verified.as_ref().map_or("nothing was checked".to_string(), |v| v.sentence());
        let before = match &st.baseline {
            Some(b) if b.status == Verdict::VerifiedFail => {
                format!(" {} check(s) that failed before the change still fail.", b.failing.len())
            }
            _ => String::new(),
        };
        let text = format!(
            "{} Changed {} after {} attempt(s).\nChecked: {checked}; nothing that passed before fails.{before}",
            st.explanation.trim(),
            files.join(", "),
            st.retries
        );
        if verified {
            Flow::Stop(Status::Succeeded, text.trim().to_string())
        } else {
            Flow::Stop(Status::Unverified, format!("Not verified as behaviour-preserving: {}", text.trim()))
        }
    }
}
