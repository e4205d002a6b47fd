//! Grounding a perceived intent on the workspace: focus candidates for its
//! target, the intent facts the kernel reads, and the question to ask when
//! the kernel derives `clarification_needed`. Shared by `nerd perceive` and
//! the agent loop. Knows nothing about acting.

use nerd_logic::vocab::{Category, Verb};
use nerd_logic::{Confidence, Facts};

use crate::kernel::Loaded;
use crate::perceive::focus::{self, Candidate, Known};
use crate::perceive::Intent;

/// Whether the verb's target names code to ground (a commit does not; a
/// status question only when it names something: "run that test again").
pub fn needs_focus(intent: &Intent) -> bool {
    let broad_explanation = intent.verb == Verb::Explain && intent.context == nerd_logic::vocab::ContextHint::Broad;
    let situational = matches!(
        intent.verb,
        Verb::Commit | Verb::Scaffold | Verb::Forbid | Verb::Require | Verb::Prefer | Verb::Remember | Verb::Forget
    );
    !(intent.target.is_empty() || situational || broad_explanation)
}

/// Candidates for the intent's target among the loaded symbols and files.
pub fn candidates(intent: &Intent, loaded: &Loaded) -> Vec<Candidate> {
    if !needs_focus(intent) {
        return Vec::new();
    }
    let found = resolve(&intent.target, loaded);
    // "UnmarshalText in null.go": where the request places the target, the candidates there,
    // if it has any (a file it does not have leaves the grounding as it was).
    let placed = intent.constraints.iter().find_map(|c| c.strip_prefix(crate::perceive::offline::LOCATED_IN));
    match placed {
        Some(file) => {
            let inside = |c: &Candidate| c.path == file || c.path.ends_with(&format!("/{file}"));
            if found.iter().any(inside) {
                found.into_iter().filter(inside).collect()
            } else {
                found
            }
        }
        None => found,
    }
}

/// Candidates for a reference among the loaded symbols and files, best first.
pub fn resolve(reference: &str, loaded: &Loaded) -> Vec<Candidate> {
    let known: Vec<Known> = loaded
        .projections
        .iter()
        .flat_map(|(path, (_, p))| p.symbols.iter().map(move |s| Known { id: &s.id, name: &s.name, path }))
        .collect();
    let files: Vec<&str> = loaded.files.iter().map(|f| f.path.as_str()).collect();
    focus::resolve(reference, &known, &files)
}

/// The confidence at which a grounding is taken without asking.
pub const CONFIDENT: f64 = 0.85;

/// The one symbol or file a reference names with confidence (at least
/// `CONFIDENT`, and no other as confident), as its id or path.
pub fn confidently(reference: &str, loaded: &Loaded) -> Option<String> {
    let found = resolve(reference, loaded);
    let mut sure = found.iter().filter(|c| c.confidence >= CONFIDENT);
    match (sure.next(), sure.next()) {
        (Some(one), None) => Some(label(one).to_string()),
        _ => None,
    }
}

/// The new name a rename asks for, from its constraints.
pub fn new_name(intent: &Intent) -> Option<&str> {
    intent.constraints.iter().find_map(|c| c.strip_prefix("new name: ")).map(str::trim).filter(|n| !n.is_empty())
}

/// Asserts the intent, its focus and its ambiguities as perception facts.
/// `indexed`: the workspace has an index to ground on.
pub fn assert_intent(f: &mut Facts, intent: &Intent, candidates: &[Candidate], indexed: bool) {
    let (id, target, constraint) = (f.sym("request"), f.sym(&intent.target), f.sym(&intent.constraints.join("; ")));
    f.user_intent.push((id, intent.category, intent.verb, target, constraint));
    f.context_hint.push((id, intent.context));
    for c in candidates {
        let (path, symbol) = (f.path(&c.path), f.symbol_id(&c.symbol));
        f.focus_resolution.push((target, path, symbol, Confidence::from_f64(c.confidence)));
    }
    for m in &intent.missing {
        let row = (f.sym(&m.param), f.sym(&m.clue), f.sym(&m.hypothesis));
        f.ambiguity_flag.push(row);
    }
    // A mutation on a named target with no grounding at all is unclear too.
    let needs_grounding = intent.category == Category::Mutation
        && !matches!(intent.verb, Verb::Scaffold | Verb::Commit | Verb::Implement)
        && needs_focus(intent)
        && candidates.is_empty()
        && indexed;
    if needs_grounding {
        let (p, clue, none) = (f.sym("target"), f.sym(&intent.target), f.sym(""));
        f.ambiguity_flag.push((p, clue, none));
    }
}

/// The question to ask when the kernel needs a clarification.
pub fn question(intent: &Intent, candidates: &[Candidate]) -> String {
    if let Some(m) = intent.missing.first() {
        let what = if m.param == "new_name" {
            "What should the new name be?".to_string()
        } else {
            format!("What should I {}?", intent.verb)
        };
        return format!("{what} (missing: {})", m.param);
    }
    if candidates.is_empty() {
        return format!(
            "I found nothing matching \"{}\" in this workspace. Which file or symbol do you mean?",
            intent.target
        );
    }
    let options: Vec<String> =
        candidates.iter().enumerate().map(|(i, c)| format!("{}) {} ({:.2})", i + 1, label(c), c.confidence)).collect();
    format!("Which do you mean by \"{}\"? {}", intent.target, options.join("  "))
}

/// A candidate as the user sees it.
pub fn label(c: &Candidate) -> &str {
    if c.symbol.is_empty() {
        &c.path
    } else {
        &c.symbol
    }
}

/// The option a reply to a clarification picks: its number, or its exact label.
pub fn pick(options: &[Candidate], reply: &str) -> Option<Candidate> {
    let reply = reply.trim().trim_end_matches(['.', ')']);
    let chosen = match reply.parse::<usize>() {
        Ok(n) if n >= 1 => options.get(n - 1),
        _ => options.iter().find(|c| label(c) == reply || c.symbol.rsplit('#').next() == Some(reply)),
    };
    chosen.map(|c| Candidate { confidence: 1.0, ..c.clone() })
}

/// A path a request names: where it lies, and whether its bytes are text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedPath {
    /// Workspace-relative inside the workspace; absolute outside it.
    pub path: String,
    pub class: nerd_logic::vocab::PathClass,
    pub binary: bool,
}

/// Extensions of files whose bytes are not text; "edit the PNG file" names them by kind.
const BINARY_KINDS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "ico", "webp", "bmp", "pdf", "zip", "gz", "tgz", "tar", "xz", "7z", "woff", "woff2",
    "ttf", "otf", "mp3", "mp4", "wav", "ogg", "exe", "dll", "so", "dylib", "bin", "class", "jar", "pyc", "wasm",
    "sqlite", "db",
];
/// Files of a kind a request names that are looked at, at most.
const MAX_OF_KIND: usize = 5;

/// Whether the first bytes of `path` are not text (a NUL, or bytes that are not UTF-8).
fn is_binary(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(8192);
    let read = std::fs::File::open(path).and_then(|f| f.take(8192).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    // A multi-byte character cut at the end of the sample is still text.
    head.contains(&0) || std::str::from_utf8(&head).is_err_and(|e| e.error_len().is_some())
}

/// The words of `request` without the quotes, brackets and punctuation around them:
/// what may be a path it names.
fn words_as_paths(request: &str) -> impl Iterator<Item = &str> {
    request
        .split_whitespace()
        .map(|word| word.trim_matches(|c: char| "`'\"()[]{},;:!?".contains(c)).trim_end_matches('.'))
        .filter(|token| !token.is_empty())
}

/// The paths `request` names that the kernel must know about before a change:
/// explicit paths outside the workspace, files of the workspace it names,
/// and, named by kind ("the PNG file"), the workspace's files of that kind.
/// A word that only looks like a file name (`Session.get`) names nothing
/// unless such a file exists.
pub fn named_paths(root: &std::path::Path, request: &str) -> Vec<NamedPath> {
    use nerd_logic::vocab::PathClass;
    let mut out: Vec<NamedPath> = Vec::new();
    let mut add = |named: NamedPath| {
        if !out.iter().any(|n| n.path == named.path) {
            out.push(named);
        }
    };
    for token in words_as_paths(request) {
        if token.contains("://") {
            continue;
        }
        let explicit = token.starts_with('/') || token.starts_with("~/") || token.starts_with("../");
        let looks_like_file = token.contains('/')
            || token.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty() && (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric())
            });
        if !explicit && !looks_like_file {
            continue;
        }
        let expanded = match token.strip_prefix("~/") {
            Some(rest) => format!("{}/{rest}", std::env::var("HOME").unwrap_or_default()),
            None => token.to_string(),
        };
        let (real, class) = crate::policy::paths::classify(root, &expanded);
        // Outside the workspace is outside, whatever else it is (a secret, a shell's start-up file).
        let class = if class != PathClass::Device && !real.starts_with(root) { PathClass::Outside } else { class };
        match class {
            PathClass::Outside | PathClass::Device if explicit => {
                add(NamedPath { path: real.to_string_lossy().into_owned(), class, binary: false })
            }
            PathClass::Inside if real.is_file() => {
                let relative = real.strip_prefix(root).map(|r| r.to_string_lossy().into_owned());
                if let Ok(path) = relative {
                    add(NamedPath { path, class, binary: is_binary(&real) });
                }
            }
            _ => {}
        }
    }
    let kinds: Vec<String> = request
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .filter(|w| BINARY_KINDS.contains(&w.as_str()))
        .collect();
    if !kinds.is_empty() {
        let walker = ignore::WalkBuilder::new(root).hidden(true).max_depth(Some(6)).build();
        let of_kind = walker.flatten().filter(|e| e.file_type().is_some_and(|t| t.is_file())).filter(|e| {
            e.path().extension().is_some_and(|x| kinds.contains(&x.to_string_lossy().to_ascii_lowercase()))
        });
        for entry in of_kind.take(MAX_OF_KIND) {
            if let Ok(relative) = entry.path().strip_prefix(root) {
                let path = relative.to_string_lossy().into_owned();
                add(NamedPath { path, class: PathClass::Inside, binary: is_binary(entry.path()) });
            }
        }
    }
    out
}

/// Source files `request` names that do not exist yet, inside the workspace and
/// outside its tests: where a move or an extraction may put code ("move mul
/// into calc/products.py"). Secret, protected and test paths are never offered.
pub fn new_source_paths(root: &std::path::Path, request: &str) -> Vec<String> {
    use nerd_logic::vocab::PathClass;
    let mut out: Vec<String> = Vec::new();
    for token in words_as_paths(request) {
        let relative = !token.starts_with('/') && !token.starts_with('~') && !token.contains("..");
        let Some(lang) = crate::world::lang::Lang::of_path(token).filter(|_| relative) else { continue };
        if lang.is_test_path(token) || root.join(token).exists() {
            continue;
        }
        let (real, class) = crate::policy::paths::classify(root, token);
        if class == PathClass::Inside && real.starts_with(root) && !out.iter().any(|p| p == token) {
            out.push(token.to_string());
        }
    }
    out
}

/// Asserts what the kernel needs to know of the paths a request names.
pub fn assert_named_paths(f: &mut Facts, named: &[NamedPath]) {
    let id = f.sym("request");
    for n in named {
        let path = f.path(&n.path);
        f.target_path.push((id, path));
        f.path_class.push((path, n.class));
        if n.binary {
            f.binary_file.push(path);
        }
    }
}
