//! Writing tests for a target: the model proposes new tests; a patch that
//! changes code under test is refused before anything is written; written
//! tests are kept only if each passes on today's code, and then only if at
//! least one seeded mutant of the target (`agent::mutant`) makes them fail.
//! Tests no mutant can fail are taken back and the model is told why.
//! Every write, run and restore goes through the router.
//! Knows nothing about why the kernel chose the step.

use std::collections::BTreeSet;

use nerd_logic::vocab::SymbolKind;

use super::{has_python, PatchScope};
use crate::agent::event::{Event, Status};
use crate::agent::mutant;
use crate::agent::patch::Edit;
use crate::agent::verify::{self, Kind, OneTest, Verdict, Verification};
use crate::agent::{Agent, AgentError, Flow, LoopState, Turn};
use crate::kernel::Loaded;
use crate::perceive::focus::Candidate;
use crate::policy::Action;
use crate::router::Router;
use crate::world::lang::Lang;
use crate::world::project::{project_file, FileProjection};

/// Operator mutants drawn per target, besides the one that makes it fail outright.
const OPERATOR_MUTANTS: usize = 3;
/// New tests one patch may add and have run.
const MAX_NEW_TESTS: usize = 12;

/// What a kept test-writing patch added.
#[derive(Clone, Debug, Default)]
pub(crate) struct Written {
    /// The new tests' symbol ids.
    pub tests: Vec<String>,
    /// Files the patch created.
    pub created: BTreeSet<String>,
    pub edits: Vec<Edit>,
}

/// The function a test-writing request is about: (id, path, language, first line, last line).
struct Target {
    id: String,
    name: String,
    path: String,
    lang: Lang,
    lines: (u32, u32),
}

fn target(loaded: &Loaded, focus: &[Candidate]) -> Option<Target> {
    crate::perceive::focus::best(focus).filter(|c| !c.symbol.is_empty()).find_map(|c| {
        let (lang, projection) = loaded.projections.get(&c.path)?;
        let s = projection.symbols.iter().find(|s| s.id == c.symbol)?;
        matches!(s.kind, SymbolKind::Function | SymbolKind::Method).then(|| Target {
            id: s.id.clone(),
            name: s.name.clone(),
            path: c.path.clone(),
            lang: *lang,
            lines: (s.line, s.end_line),
        })
    })
}

/// Where a new test file for `path` goes by the language's convention;
/// `None` for Rust, whose unit tests live in the file itself.
fn conventional_test_file(lang: Lang, path: &str, loaded: &Loaded) -> Option<String> {
    let (dir, file) = path.rsplit_once('/').map_or(("", path), |(d, f)| (d, f));
    let stem = file.split('.').next().unwrap_or(file);
    let beside = |name: String| if dir.is_empty() { name } else { format!("{dir}/{name}") };
    Some(match lang {
        Lang::Rust => return None,
        Lang::Go => beside(format!("{stem}_test.go")),
        Lang::Python if loaded.files.iter().any(|f| f.path.starts_with("tests/")) => format!("tests/test_{stem}.py"),
        Lang::Python => beside(format!("test_{stem}.py")),
        Lang::TypeScript | Lang::Tsx => beside(format!("{stem}.test.ts")),
    })
}

/// The test symbols of `paths` in the loaded world.
fn tests_in(loaded: &Loaded, paths: &[String]) -> BTreeSet<String> {
    paths
        .iter()
        .filter_map(|p| loaded.projections.get(p))
        .flat_map(|(_, projection)| projection.symbols.iter())
        .filter(|s| s.kind == SymbolKind::Test)
        .map(|s| s.id.clone())
        .collect()
}

/// Why a test-writing patch changes code that is not a test, if it does:
/// outside test files, every definition that holds no test must keep its text.
pub(super) fn changes_code(edits: &[Edit]) -> Option<String> {
    let project = |lang: Lang, path: &str, text: &str| -> Option<FileProjection> {
        project_file(lang, path, text.as_bytes()).ok()
    };
    for Edit { path, old, new } in edits {
        let Some(lang) = Lang::of_path(path) else {
            return Some(format!(
                "{path} is not a test: a test-writing patch may add or change tests only (no configuration or \
                 dependency changes)"
            ));
        };
        if lang.is_test_path(path) || old.is_empty() {
            continue;
        }
        let (Some(before), Some(after)) = (project(lang, path, old), project(lang, path, new)) else { continue };
        let holds_test = |s: &crate::world::project::ProjectedSymbol| {
            before.symbols.iter().any(|t| t.kind == SymbolKind::Test && t.line >= s.line && t.end_line <= s.end_line)
        };
        for s in before.symbols.iter().filter(|s| s.kind != SymbolKind::Test && !holds_test(s)) {
            let kept = after.symbols.iter().any(|n| n.id == s.id && n.body_hash == s.body_hash);
            if !kept {
                return Some(format!(
                    "the patch changes {} ({path}:{}), which is not a test: tests are written against the code \
                     as it is",
                    s.id, s.line
                ));
            }
        }
    }
    None
}

impl Agent<'_> {
    /// The test files a patch may change or create for the target: those whose
    /// tests already call it, the conventional one beside it (created when
    /// missing), and for Rust the target's own file, for a `#[cfg(test)]` module.
    pub(super) fn test_scope(&self, request: &str, loaded: &Loaded, focus: &[Candidate]) -> Option<PatchScope> {
        let target = target(loaded, focus)?;
        let mut paths: BTreeSet<String> = loaded
            .resolution
            .files
            .iter()
            .filter(|(path, r)| {
                Lang::of_path(path).is_some_and(|l| l.is_test_path(path))
                    && r.calls.iter().any(|(_, callee, _, p)| *callee == target.id && p.is_certain())
            })
            .map(|(path, _)| path.clone())
            .collect();
        let mut new_files = BTreeSet::new();
        match conventional_test_file(target.lang, &target.path, loaded) {
            None => {
                paths.insert(target.path.clone());
            }
            Some(file) if loaded.projections.contains_key(&file) => {
                paths.insert(file);
            }
            Some(file) if loaded.files.iter().any(|f| f.path == file) => {}
            Some(file) => {
                new_files.insert(file);
            }
        }
        let (first, last) = target.lines;
        let create = super::creation_note(&new_files);
        let task = format!(
            "{request}\n\nWrite new tests for {} ({}:{first}-{last}). Each must pass on the code as it is now and \
             fail if {} were broken: assert on its results, edge cases included. Do not change code that is not a \
             test; test names must be collected by the project's runner.{create}",
            target.id, target.path, target.name
        );
        Some(PatchScope { paths, new_files, task })
    }

    /// Runs `tests` one at a time with their language's runner, until one
    /// fails when `until_failure`: each test's id and what its run established.
    fn run_each(
        &mut self,
        router: &mut Router,
        loaded: &Loaded,
        tests: &[String],
        until_failure: bool,
    ) -> Result<Vec<(String, Verification, verify::ToolRun)>, AgentError> {
        let runners = verify::tools_for(&self.root, &self.config.check, Kind::Tests, has_python(loaded));
        let mut out = Vec::new();
        for id in tests {
            let declared = id
                .split_once('#')
                .and_then(|(path, _)| loaded.projections.get(path))
                .and_then(|(_, p)| p.symbols.iter().find(|s| &s.id == id));
            let Some(one) = declared.map_or_else(|| OneTest::of_symbol(id), OneTest::of_declared) else { continue };
            let Some(tool) = runners.iter().copied().find(|t| verify::runs_language_of(*t, &one.path)) else {
                let hint = "no test runner for its language".to_string();
                out.push((id.clone(), Verification::nothing(&hint), verify::missing(runners[0], hint)));
                continue;
            };
            let run = self.run_tool(router, tool, Some(&one))?;
            if run.missing.is_none() && run.refused.is_none() {
                self.checked(&run);
            }
            let v = Verification::of(std::slice::from_ref(&run));
            let failed = v.status == Verdict::VerifiedFail;
            out.push((id.clone(), v, run));
            if failed && until_failure {
                break;
            }
        }
        Ok(out)
    }

    /// Takes a written test patch back: each file as it was, created files deleted.
    fn take_back(
        &mut self,
        router: &mut Router,
        st: &mut LoopState,
        (edits, created): (&[Edit], &BTreeSet<String>),
    ) -> Result<(), AgentError> {
        let left = self.take_back_files(router, edits, created)?;
        st.tried.extend(left);
        let paths: BTreeSet<&String> = edits.iter().map(|e| &e.path).collect();
        st.changes.retain(|c| !paths.contains(&c.path));
        st.originals.retain(|p, _| !paths.contains(p));
        Ok(())
    }

    /// Writes the pending tests and runs each new one on today's code: kept
    /// when every one passes, taken back (and the model told why) otherwise.
    pub(super) fn apply_tests(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (loaded, router, st) = (&mut *t.world, &mut t.router, &mut t.state);
        let Some(edits) = st.pending.take() else { return Ok(Flow::Continue) };
        st.retries += 1;
        let attempt = st.retries;
        let paths: Vec<String> = edits.iter().map(|e| e.path.clone()).collect();
        let before = tests_in(loaded, &paths);
        let created = super::created_by(loaded, &edits);
        if let Err(flow) = self.write_all(router, &edits)? {
            return Ok(flow);
        }
        Self::record_changes(st, &edits);
        self.reload(loaded)?;
        let new: Vec<String> = tests_in(loaded, &paths).difference(&before).take(MAX_NEW_TESTS).cloned().collect();
        let rejected = if new.is_empty() {
            Some(
                "the patch adds no test the project's runner would collect (a test function or method by the \
                  runner's naming convention)"
                    .to_string(),
            )
        } else {
            let runs = self.run_each(router, loaded, &new, false)?;
            let tool_runs: Vec<verify::ToolRun> = runs.iter().map(|(_, _, run)| run.clone()).collect();
            self.verified = Some(Verification::of(&tool_runs));
            let failing: Vec<String> = runs
                .iter()
                .filter(|(_, v, _)| v.status == Verdict::VerifiedFail)
                .map(|(id, _, run)| format!("{id}: {}", run.tail.lines().rev().take(6).collect::<Vec<_>>().join(" | ")))
                .collect();
            let unrun: Vec<&str> =
                runs.iter().filter(|(_, v, _)| v.tests_run == 0).map(|(id, _, _)| id.as_str()).collect();
            if !failing.is_empty() {
                Some(format!(
                    "the new test(s) fail on today's code, and tests must pass on the code as it is: {}",
                    failing.join("; ")
                ))
            } else if !unrun.is_empty() {
                let why = runs.iter().find(|(_, v, _)| v.tests_run == 0).map(|(_, v, _)| v.reason.clone());
                Some(format!("the runner ran none of {} ({})", unrun.join(", "), why.unwrap_or_default()))
            } else {
                None
            }
        };
        let files = paths.clone();
        match rejected {
            Some(reason) => {
                self.take_back(router, st, (&edits, &created))?;
                self.reload(loaded)?;
                self.emit(Event::Patch { attempt, files, accepted: false, reason: reason.clone() });
                st.tried.push(format!("attempt {attempt}: {}: {reason}", st.explanation));
                st.feedback = Some(reason);
            }
            None => {
                st.written = Written { tests: new, created, edits };
                st.kept = true;
            }
        }
        Ok(Flow::Continue)
    }

    /// Runs the new tests against seeded mutants of the target, one at a time,
    /// restoring the target after each: how many made a test fail.
    pub(super) fn check_mutants(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (loaded, router, st) = (&mut *t.world, &mut t.router, &mut t.state);
        let Some(target) = target(loaded, t.focus) else {
            return Ok(Flow::Stop(Status::Failed, "The target of the tests is no longer in the index.".into()));
        };
        let Some(original) = self.read(router, &target.path)? else {
            return Ok(Flow::Stop(Status::Failed, format!("{} could not be read to mutate it.", target.path)));
        };
        let mutants =
            mutant::mutants(target.lang, &original, target.lines, mutant::seed_of(&target.id), OPERATOR_MUTANTS);
        let tests = st.written.tests.clone();
        let (mut killed, mut tried, mut lines) = (0u32, 0u32, Vec::new());
        for m in &mutants {
            let write = Action::WriteFile { path: target.path.clone(), content: Some(m.text.clone()) };
            if self.act(router, &write, &format!("mutant: {} at {}:{}", m.change, target.path, m.line))?.is_none() {
                lines.push(format!("{} at {}:{}: not written (refused)", m.change, target.path, m.line));
                continue;
            }
            let runs = self.run_each(router, loaded, &tests, true);
            // The target is restored whatever the run did.
            let restore = Action::WriteFile { path: target.path.clone(), content: Some(original.clone()) };
            self.act(router, &restore, "restore")?;
            let runs = runs?;
            let killer = runs.iter().find(|(_, v, _)| v.tests_failed > 0).map(|(id, _, _)| id.clone());
            let ran = runs.iter().all(|(_, v, _)| v.tests_run > 0);
            let place = format!("{} at {}:{}", m.change, target.path, m.line);
            match killer {
                Some(id) => {
                    killed += 1;
                    tried += 1;
                    lines.push(format!("{place}: fails {id}"));
                }
                None if ran => {
                    tried += 1;
                    lines.push(format!("{place}: survived (every new test still passes)"));
                }
                // A mutant that does not build or collect says nothing about the tests.
                None => lines.push(format!("{place}: not counted (the tests could not run against it)")),
            }
        }
        self.emit(Event::Mutants { target: target.id.clone(), killed, tried, results: lines.clone() });
        st.mutants = Some((killed, tried));
        st.mutant_lines = lines;
        Ok(Flow::Continue)
    }

    /// Takes back tests that no mutant made fail; the model is told why. The
    /// attempt was counted when its tests were written.
    pub(super) fn withdraw_tests(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (loaded, router, st) = (&mut *t.world, &mut t.router, &mut t.state);
        let written = std::mem::take(&mut st.written);
        self.take_back(router, st, (&written.edits, &written.created))?;
        self.reload(loaded)?;
        let reason = format!(
            "no seeded mutant of the target made the new tests fail, so they would pass whatever it does; assert on \
             its results ({})",
            st.mutant_lines.join("; ")
        );
        let files = written.edits.iter().map(|e| e.path.clone()).collect();
        self.emit(Event::Patch { attempt: st.retries, files, accepted: false, reason: reason.clone() });
        st.tried.push(format!("attempt {}: {}: {reason}", st.retries, st.explanation));
        st.feedback = Some(reason);
        st.kept = false;
        st.mutants = None;
        st.mutant_lines.clear();
        Ok(Flow::Continue)
    }

    /// The end of a test-writing request whose tests passed and failed a mutant.
    pub(super) fn tests_report(&mut self, t: &Turn<'_>) -> Flow {
        let st = &t.state;
        let (killed, tried) = st.mutants.unwrap_or_default();
        let files: Vec<&str> = st.written.edits.iter().map(|e| e.path.as_str()).collect();
        let text = format!(
            "Wrote {} test(s) in {}: each passes on the code as it is, and {killed} of {tried} seeded mutant(s) of \
             the target make them fail.\n  {}\n{}",
            st.written.tests.len(),
            files.join(", "),
            st.mutant_lines.join("\n  "),
            st.explanation.trim()
        );
        Flow::Stop(Status::Succeeded, text.trim().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(path: &str, old: &str, new: &str) -> Edit {
        Edit { path: path.into(), old: old.into(), new: new.into() }
    }

    #[test]
    fn a_test_patch_may_add_tests_beside_the_code_but_never_change_the_code() {
        let code = "pub fn double(x: i32) -> i32 {\n    x * 2\n}\n";
        let with_tests = format!(
            "{code}\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn doubles() {{\n        assert_eq!(double(2), 4);\n    }}\n}}\n"
        );
        assert_eq!(changes_code(&[edit("src/lib.rs", code, &with_tests)]), None);
        let more = with_tests
            .replace("assert_eq!(double(2), 4);", "assert_eq!(double(2), 4);\n        assert_eq!(double(0), 0);");
        assert_eq!(changes_code(&[edit("src/lib.rs", &with_tests, &more)]), None, "a test module may grow");
        let changed = with_tests.replace("x * 2", "x + x");
        let why = changes_code(&[edit("src/lib.rs", &with_tests, &changed)]).expect("the code changed");
        assert!(why.contains("src/lib.rs#double"), "{why}");
        // Test files and new files are tests; a manifest never is.
        assert_eq!(changes_code(&[edit("tests/test_x.py", "x = 1\n", "x = 2\n")]), None);
        assert_eq!(changes_code(&[edit("pkg/test_new.py", "", "def test_a():\n    pass\n")]), None);
        assert!(changes_code(&[edit("Cargo.toml", "[package]\n", "[package]\n[dev-dependencies]\n")]).is_some());
    }
}
