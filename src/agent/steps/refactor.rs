//! The rename step: plan it over the symbol and call graph (`agent::rename`),
//! read and write only through the router, judge it by what it makes worse,
//! and restore every file otherwise.
//! Knows nothing about why the kernel chose the step.

use std::collections::{BTreeMap, BTreeSet};

use nerd_logic::vocab::Provenance;

use super::Applied;
use crate::agent::event::{Event, Status};
use crate::agent::verify::{Kind, Verdict, Verification};
use crate::agent::{ground, rename, Agent, AgentError, Flow, Turn};
use crate::policy::Action;
use crate::router::ApprovedBy;
use crate::router::{Outcome, Output};
use crate::world::lang::Lang;

/// Languages whose files can refer to each other's names.
fn family(lang: Lang) -> u8 {
    match lang {
        Lang::Rust => 0,
        Lang::Go => 1,
        Lang::Python => 2,
        Lang::TypeScript | Lang::Tsx => 3,
    }
}

impl Agent<'_> {
    pub(super) fn apply_rename(&mut self, t: &mut Turn<'_>) -> Result<Flow, AgentError> {
        let (intent, focus) = (t.intent, t.focus);
        let (loaded, router, st) = (&mut *t.world, &mut t.router, &mut t.state);
        let Some(new) = ground::new_name(intent).map(str::to_string) else {
            return Ok(Flow::Stop(Status::NeedsClarification, "What should the new name be?".into()));
        };
        let target = focus.iter().find(|c| !c.symbol.is_empty()).map(|c| c.symbol.clone());
        let found = target.as_deref().and_then(|id| {
            let path = id.split('#').next()?;
            let (lang, p) = loaded.projections.get(path)?;
            Some((path.to_string(), *lang, p.symbols.iter().find(|s| s.id == id)?.clone()))
        });
        let Some((def_path, lang, symbol)) = found else {
            let q = format!("Which symbol named \"{}\" should be renamed?", intent.target);
            self.emit(Event::Question { text: q.clone(), options: vec![] });
            return Ok(Flow::Stop(Status::NeedsClarification, q));
        };
        let old = symbol.name.clone();
        if let Err(e) = rename::check_name(lang, &old, &new) {
            return Ok(Flow::Stop(Status::Refused, format!("Not renamed: {e}.")));
        }
        let same_family = |l: &Lang| family(*l) == family(lang);
        let named = |name: &str| {
            loaded
                .projections
                .values()
                .filter(|(l, _)| same_family(l))
                .flat_map(|(_, p)| p.symbols.iter())
                .filter(|s| s.name == name)
                .count()
        };
        if named(&new) > 0 {
            return Ok(Flow::Stop(Status::Refused, format!("Not renamed: `{new}` is already defined here.")));
        }
        // Every token of the name may be renamed only when nothing else could
        // answer it: one project symbol and no call of it nerd could not resolve.
        // Calls of the name that resolved outside the project keep their tokens.
        let unresolved_named = loaded.resolution.files.values().any(|r| r.unresolved.iter().any(|(_, n, _)| *n == old));
        let scope = if named(&old) == 1 && !unresolved_named {
            rename::Scope::EveryToken
        } else {
            rename::Scope::ResolvedSites
        };
        let mut calls: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        let mut guessed: Vec<(String, u32)> = Vec::new();
        for (path, r) in &loaded.resolution.files {
            // An implicit call (a value's `drop`) writes no token to rename.
            let sites = r.calls.iter().filter(|(_, callee, _, p)| *callee == symbol.id && *p != Provenance::Implicit);
            for (_, _, line, provenance) in sites {
                if provenance.is_certain() {
                    calls.entry(path.clone()).or_default().push(*line);
                } else {
                    guessed.push((path.clone(), *line));
                }
            }
        }
        // A call of the name nerd could not resolve may be this symbol as well (a value of a type
        // nobody annotated): it is a site matched by name only too.
        for (path, r) in &loaded.resolution.files {
            if loaded.projections.get(path).is_some_and(|(l, _)| same_family(l)) {
                guessed.extend(
                    r.unresolved.iter().filter(|(_, n, _)| *n == old).map(|(_, _, line)| (path.clone(), *line)),
                );
            }
        }
        guessed.sort();
        guessed.dedup();
        // A site matched by name only is never edited silently: a person is
        // asked, listing them; otherwise they are left and reported.
        let mut left_out = Vec::new();
        // The lines of the sites left out: no token there is renamed, whatever the scope.
        let mut kept: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        if !guessed.is_empty() {
            let listed: Vec<String> = guessed.iter().map(|(p, l)| format!("{p}:{l}")).collect();
            let subject = format!(
                "rename {} call site(s) of `{old}` matched by name only (their receiver's type is not known)",
                guessed.len()
            );
            let include =
                self.approver.by() == ApprovedBy::Human && self.approver.approve(&subject, &listed.join("\n"));
            if include {
                for (path, line) in guessed {
                    calls.entry(path).or_default().push(line);
                }
            } else {
                for (path, line) in guessed {
                    kept.entry(path).or_default().push(line);
                }
                left_out = listed;
            }
        }
        let mut paths: BTreeSet<String> = calls.keys().cloned().collect();
        paths.insert(def_path.clone());
        // Every file that mentions the name: its code when the name is defined once; its prose either way.
        let pattern = format!(r"\b{}\b", regex::escape(&old));
        let search = Action::Search { pattern: pattern.clone(), path: None };
        let mut mentioned: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        if let Some(Outcome::Executed { output: Output::Search { matches } }) = self.act(router, &search, "")? {
            for (path, line, _) in matches {
                mentioned.entry(path).or_default().push(line);
            }
        }
        if scope == rename::Scope::EveryToken {
            paths.extend(mentioned.keys().cloned());
        }
        let mut inputs = Vec::new();
        for path in paths {
            let Some((file_lang, _)) = loaded.projections.get(&path) else { continue };
            if !same_family(file_lang) {
                continue;
            }
            let file_lang = *file_lang;
            let Some(content) = self.read(router, &path)? else {
                return Ok(Flow::Stop(Status::Failed, format!("Not renamed: {path} could not be read.")));
            };
            inputs.push(rename::FileInput {
                definition: (path == def_path).then_some((symbol.line, symbol.end_line)),
                call_lines: calls.get(&path).cloned().unwrap_or_default(),
                foreign_lines: loaded
                    .resolution
                    .files
                    .get(&path)
                    .into_iter()
                    .flat_map(|r| r.external.iter().filter(|(_, n, _)| *n == old).map(|(_, _, l)| *l))
                    .chain(kept.get(&path).into_iter().flatten().copied())
                    .collect(),
                path,
                lang: file_lang,
                content,
            });
        }
        let mut plan = match rename::plan(&old, &new, scope, &inputs) {
            Ok(plan) if !plan.files.is_empty() => plan,
            Ok(_) => return Ok(Flow::Stop(Status::Failed, format!("Not renamed: no occurrence of `{old}` found."))),
            Err(e) => return Ok(Flow::Stop(Status::Refused, format!("Not renamed: {e}."))),
        };
        // Code files among the mentions, with whether their comments may follow (same language family).
        let parsed: BTreeMap<String, (Lang, bool)> = mentioned
            .keys()
            .filter_map(|p| loaded.projections.get(p).map(|(l, _)| (p.clone(), (*l, same_family(l)))))
            .collect();
        let prose = self.prose(router, &inputs, &parsed, &mentioned, &mut plan, (&old, &new))?;
        // What already fails is not the rename's doing: judge it by what it makes worse.
        let word = regex::Regex::new(&pattern).ok();
        let mut before = self.verify(router, loaded, &[Kind::Build, Kind::Tests])?;
        let renamed = |e: &String| word.as_ref().map_or(e.clone(), |w| w.replace_all(e, new.as_str()).into_owned());
        before.failing = before.failing.iter().map(renamed).collect();
        before.passed = before.passed.iter().map(renamed).collect();
        let after =
            match self.apply_checked(router, loaded, &plan.files, &[Kind::Build, Kind::Tests], &before.failing)? {
                Err(flow) => return Ok(flow),
                Ok(Applied::Kept { verification }) => verification,
                Ok(Applied::RolledBack { new: introduced, .. }) => {
                    let why = if !left_out.is_empty() {
                        format!(
                            " Left out, because they match `{old}` by name only (nerd could not tell the type \
                             they are called on): {}; a person can include them (`--approval ask`).",
                            left_out.iter().take(10).cloned().collect::<Vec<_>>().join(", ")
                                + if left_out.len() > 10 { " …" } else { "" }
                        )
                    } else if scope == rename::Scope::ResolvedSites {
                        format!(
                        " `{old}` is defined {} times here, so only the call sites resolution attributes to {} were \
                     renamed; calls through values of unknown type were not.",
                        named(&old),
                        symbol.id
                    )
                    } else {
                        String::new()
                    };
                    return Ok(Flow::Stop(
                        Status::Failed,
                        format!(
                            "Renaming `{old}` to `{new}` broke the build or tests ({}); every file was restored.{why}",
                            introduced[0]
                        ),
                    ));
                }
            };
        Self::record_changes(st, &plan.files);
        self.reload(loaded)?;
        let (status, verdict) = rename_verdict(&before, &after);
        let mut left = prose.sentence(&old, self.options.include_docs);
        left += &if left_out.is_empty() {
            String::new()
        } else {
            format!(
                " Not renamed, because they match `{old}` by name only: {}.",
                left_out.iter().take(10).cloned().collect::<Vec<_>>().join(", ")
                    + if left_out.len() > 10 { " …" } else { "" }
            )
        };
        Ok(Flow::Stop(
            status,
            format!(
                "Renamed `{old}` to `{new}` at {} site(s){} in {} file(s); {verdict}.{left}",
                plan.sites,
                if plan.doc_sites > 0 {
                    format!(" and {} mention(s) in doc comments, doctests and docstrings", plan.doc_sites)
                } else {
                    String::new()
                },
                plan.files.len()
            ),
        ))
    }
}

/// The name's mentions outside code that a rename leaves or renames.
#[derive(Default)]
struct Prose {
    /// `path:line` of mentions left as they are.
    listed: Vec<String>,
    /// Mentions renamed in docs and comments (`--include-docs`).
    renamed: usize,
}

impl Prose {
    fn sentence(&self, old: &str, include_docs: bool) -> String {
        let mut out = String::new();
        if self.renamed > 0 {
            out.push_str(&format!(" Also renamed {} mention(s) in docs and comments.", self.renamed));
        }
        if !self.listed.is_empty() {
            let shown: Vec<&str> = self.listed.iter().take(12).map(String::as_str).collect();
            out.push_str(&format!(
                " `{old}` is still mentioned outside code at {}{}{}.",
                shown.join(", "),
                if self.listed.len() > 12 { format!(" and {} more", self.listed.len() - 12) } else { String::new() },
                if include_docs {
                    " (strings and other files, left as they are)"
                } else {
                    " (`--include-docs` renames those in docs and comments)"
                }
            ));
        }
        out
    }
}

/// Files whose prose nerd may rename with `--include-docs`: documents, not data.
const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "rst", "txt", "adoc"];

impl Agent<'_> {
    /// Lists the mentions of `old` the plan leaves outside code, or, with
    /// `--include-docs`, adds their renaming to the plan (documents whole,
    /// comments and docs of the code files the rename reads).
    fn prose(
        &mut self,
        router: &mut crate::router::Router,
        inputs: &[rename::FileInput],
        parsed: &BTreeMap<String, (Lang, bool)>,
        mentioned: &BTreeMap<String, Vec<u32>>,
        plan: &mut rename::Plan,
        (old, new): (&str, &str),
    ) -> Result<Prose, AgentError> {
        let include = self.options.include_docs;
        let mut prose = Prose::default();
        for (path, lines) in mentioned {
            let code = inputs.iter().find(|i| &i.path == path);
            let document = code.is_none()
                && std::path::Path::new(path)
                    .extension()
                    .is_some_and(|e| DOC_EXTENSIONS.contains(&e.to_string_lossy().to_lowercase().as_str()));
            let read = match (code, parsed.get(path)) {
                (Some(input), _) => {
                    let planned = plan.files.iter().find(|e| &e.path == path).map(|e| e.new.clone());
                    Some((Some(input.lang), planned.unwrap_or_else(|| input.content.clone()), true))
                }
                // Code the rename did not read (other definitions of the name, another language): parsed to tell prose from code.
                (None, Some((lang, family))) => self.read(router, path)?.map(|content| (Some(*lang), content, *family)),
                (None, None) if document && include => self.read(router, path)?.map(|content| (None, content, true)),
                // Other files (another language, data, documents without --include-docs): the search's lines.
                (None, None) => None,
            };
            let Some((lang, content, renamable)) = read else {
                prose.listed.extend(lines.iter().map(|l| format!("{path}:{l}")));
                continue;
            };
            let found = rename::textual(old, new, lang, &content, include && renamable);
            prose.listed.extend(found.lines.iter().map(|l| format!("{path}:{l}")));
            if let Some(updated) = found.updated {
                prose.renamed += found.renamed;
                match plan.files.iter_mut().find(|e| &e.path == path) {
                    Some(edit) => edit.new = updated,
                    None => {
                        plan.files.push(crate::agent::patch::Edit { path: path.clone(), old: content, new: updated })
                    }
                }
            }
        }
        Ok(prose)
    }
}

/// What a rename's checks established, compared with the same checks before
/// it by identity: success only over a verified pass.
fn rename_verdict(before: &Verification, after: &Verification) -> (Status, String) {
    if after.status == Verdict::VerifiedPass {
        return (Status::Succeeded, after.sentence());
    }
    let since = after.since(before);
    let mut parts = vec![after.sentence()];
    if !since.still_failing.is_empty() {
        let shown: Vec<&str> = since.still_failing.iter().take(5).map(String::as_str).collect();
        parts.push(format!(
            "{} failure(s) from before the rename still fail ({}{}), and nothing fails that did not before",
            since.still_failing.len(),
            shown.join(", "),
            if since.still_failing.len() > 5 { ", …" } else { "" }
        ));
    }
    if !since.fixed.is_empty() {
        parts.push(format!("{} now pass", since.fixed.len()));
    }
    (Status::Unverified, parts.join("; "))
}
