//! Research: a specialist's sources read into its knowledge shard. A source
//! is a file or folder, or a dependency as its package manager already
//! unpacked it on this machine (`dep:NAME`: the cargo registry at the version
//! Cargo.lock pins, `node_modules`, a virtualenv's or the system's Python
//! packages, the Go module cache); documents and public documented
//! definitions become atoms (`extract`), embedded when the model is present,
//! and replace the shard's knowledge in one transaction. Files that hold
//! secrets are never opened, whatever name reaches them. A URL is read as
//! documents through a page reader the caller gives (the router's browser,
//! under the network policy): the page and the pages it links to below its
//! folder, at most `MAX_PAGES`. Knows nothing about examination, spawning,
//! or how a page is fetched.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use nerd_logic::vocab::PathClass;

use super::extract::{self, Atom};
use super::profile::{Profile, Source};
use crate::store::{KnowledgeDb, NewKnowledge, ResearchRow, StoreError};
use crate::world::lang::Lang;

/// Bytes of one file research reads at most.
const MAX_FILE_BYTES: usize = 1 << 20;
/// Files one research run reads at most.
const MAX_FILES: usize = 20_000;
/// Pages one URL source reads at most: the page and those it links to below its folder.
pub const MAX_PAGES: usize = 40;

/// Reads one page for research; `Err` says why it could not be read (refused, failed to load).
pub type ReadPage<'a> = &'a mut dyn FnMut(&str) -> Result<crate::browser::document::Document, String>;

#[derive(Debug, thiserror::Error)]
pub enum ResearchError {
    #[error("specialist {0} has no sources: define it again with --source PATH|dep:NAME")]
    NoSources(String),
    #[error("source {0} does not exist")]
    Missing(String),
    #[error("source {0} holds secrets; research never reads them")]
    Secret(String),
    #[error(
        "dependency {name} is not unpacked on this machine (looked in: {looked}); build or install the project's dependencies first"
    )]
    Dependency { name: String, looked: String },
    #[error("reading {0} needs the browser: run `nerd research` to read it through the router")]
    Url(String),
    #[error("{url} could not be read: {why}")]
    Page { url: String, why: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What one research run did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Report {
    pub specialist: String,
    pub sources: u32,
    pub files: u32,
    /// Pages read through the browser.
    pub pages: u32,
    /// Files skipped: unreadable, not text, or refused.
    pub skipped: u32,
    pub atoms: u32,
    pub by_kind: Vec<(String, u32)>,
    pub embedded: u32,
    /// Why atoms were not embedded, when they were not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub words_only: Option<String>,
    pub seconds: f64,
    /// The digest of the knowledge left in the shard.
    pub knowledge: String,
}

/// Progress: files read so far, files to read, atoms kept so far.
pub type Progress<'a> = &'a dyn Fn(usize, usize, usize);

/// One file to read, with the label atoms cite it by.
struct Input {
    path: PathBuf,
    label: String,
}

/// The digest of a shard's knowledge: of its atoms' digests, in order.
pub fn knowledge_digest<'a>(digests: impl Iterator<Item = &'a str>) -> String {
    let mut all: Vec<&str> = digests.collect();
    all.sort_unstable();
    crate::digest::sha256_hex(all.join("\n").as_bytes())
}

/// Reads the sources of `profile` into its shard at `shard`; URL sources
/// through `read_page` (without one, a URL source is an error).
pub fn research(
    root: &Path,
    profile: &Profile,
    shard: &Path,
    model: Result<&crate::embed::Embedder, String>,
    progress: Progress,
    mut read_page: Option<ReadPage>,
) -> Result<Report, ResearchError> {
    let started = std::time::Instant::now();
    if profile.sources.is_empty() {
        return Err(ResearchError::NoSources(profile.name.clone()));
    }
    let secret_paths = crate::config::Config::load(root).map(|c| c.policy.secret_paths).unwrap_or_default();
    let refused = crate::files::Refused::files(&crate::policy::paths::secret_locations(root, &secret_paths));
    let mut inputs = Vec::new();
    let mut atoms: Vec<Atom> = Vec::new();
    let (mut files, mut skipped, mut pages) = (0u32, 0u32, 0u32);
    for source in &profile.sources {
        match source {
            Source::Url(url) => {
                let read = read_page.as_mut().ok_or_else(|| ResearchError::Url(url.clone()))?;
                let (documents, unread) = crawl(url, &mut **read)?;
                skipped += unread;
                for d in documents {
                    pages += 1;
                    progress(pages as usize, pages as usize, atoms.len());
                    let text = if d.text.starts_with("# ") { d.text } else { format!("# {}\n\n{}", d.title, d.text) };
                    atoms.extend(extract::document(&d.url, &text));
                }
            }
            other => inputs.extend(files_of(root, other)?),
        }
    }
    inputs.truncate(MAX_FILES);
    for (i, input) in inputs.iter().enumerate() {
        progress(i, inputs.len(), atoms.len());
        let text = match crate::files::read_capped(&input.path, MAX_FILE_BYTES, &refused) {
            Ok((bytes, _)) => match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => {
                    skipped += 1;
                    continue;
                }
            },
            Err(_) => {
                skipped += 1;
                continue;
            }
        };
        files += 1;
        match Lang::of_path(&input.label) {
            Some(lang) => atoms.extend(extract::source_code(lang, &input.label, &text)),
            None => atoms.extend(extract::document(&input.label, &text)),
        }
    }
    progress(inputs.len(), inputs.len(), atoms.len());
    // The same atom read twice (a README in two places) is kept once.
    let mut seen = BTreeSet::new();
    let digests: Vec<String> = atoms.iter().map(Atom::digest).collect();
    let kept: Vec<(Atom, String)> = atoms.into_iter().zip(digests).filter(|(_, d)| seen.insert(d.clone())).collect();
    let vectors: Option<Vec<Vec<f32>>> = model.as_ref().ok().map(|e| {
        let texts: Vec<String> = kept.iter().map(|(a, _)| embedding_text(a)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        e.embed_all(&refs)
    });
    let knowledge = knowledge_digest(kept.iter().map(|(_, d)| d.as_str()));
    let rows: Vec<NewKnowledge> = kept
        .iter()
        .enumerate()
        .map(|(i, (a, digest))| NewKnowledge {
            concept: &a.concept,
            kind: a.kind.as_str(),
            text: &a.text,
            source: &a.source,
            digest,
            vector: vectors.as_ref().map(|v| v[i].as_slice()),
        })
        .collect();
    let mut by_kind: std::collections::BTreeMap<String, u32> = Default::default();
    for (a, _) in &kept {
        *by_kind.entry(a.kind.as_str().to_string()).or_default() += 1;
    }
    let run = ResearchRow {
        at_ns: crate::timing::now_ns(),
        sources: profile.sources.len() as u32,
        files: files + pages,
        atoms: kept.len() as u32,
        knowledge: knowledge.clone(),
    };
    let mut db = KnowledgeDb::open(shard)?;
    db.replace(&rows, &run)?;
    Ok(Report {
        specialist: profile.name.clone(),
        sources: run.sources,
        files,
        pages,
        skipped,
        atoms: run.atoms,
        by_kind: by_kind.into_iter().collect(),
        embedded: if vectors.is_some() { run.atoms } else { 0 },
        words_only: model.err(),
        seconds: started.elapsed().as_secs_f64(),
        knowledge,
    })
}

/// What an atom's embedding is taken of: its concept and its text.
pub fn embedding_text(a: &Atom) -> String {
    format!("{}: {}", a.concept, a.text)
}

/// The pages a URL source stands for: the page, then breadth first the pages
/// it links to whose address lies below its folder, at most `MAX_PAGES`.
/// The first page must be read; a later one that cannot be is counted.
fn crawl(url: &str, read: ReadPage) -> Result<(Vec<crate::browser::document::Document>, u32), ResearchError> {
    let base = url.split(['?', '#']).next().unwrap_or(url);
    let folder = match base.split_once("://") {
        Some((_, rest)) if rest.contains('/') => format!("{}/", base.rsplit_once('/').map_or(base, |(dir, _)| dir)),
        _ => format!("{base}/"),
    };
    let mut queue = std::collections::VecDeque::from([url.to_string()]);
    let mut seen = BTreeSet::from([url.to_string()]);
    let (mut read_ok, mut unread) = (Vec::new(), 0u32);
    while let Some(next) = queue.pop_front() {
        if read_ok.len() >= MAX_PAGES {
            break;
        }
        match read(&next) {
            Ok(doc) => {
                for link in &doc.links {
                    if link.starts_with(&folder) && seen.insert(link.clone()) {
                        queue.push_back(link.clone());
                    }
                }
                read_ok.push(doc);
            }
            Err(why) if next == url => return Err(ResearchError::Page { url: next, why }),
            Err(_) => unread += 1,
        }
    }
    Ok((read_ok, unread))
}

/// The files a source stands for, each with the label its atoms cite.
fn files_of(root: &Path, source: &Source) -> Result<Vec<Input>, ResearchError> {
    match source {
        Source::Url(url) => Err(ResearchError::Url(url.clone())),
        Source::Path(path) => {
            let shown = path.display().to_string();
            let (real, class) = crate::policy::paths::classify(root, &shown);
            if class == PathClass::Secret {
                return Err(ResearchError::Secret(shown));
            }
            if !real.exists() {
                return Err(ResearchError::Missing(shown));
            }
            // Inside the workspace, atoms cite workspace paths; elsewhere, the source as named.
            let base =
                if real.starts_with(root) { root.to_path_buf() } else { real.parent().unwrap_or(&real).to_path_buf() };
            Ok(walk(&real, &base, None))
        }
        Source::Dependency(name) => {
            let (dir, looked) = dependency_dir(root, name);
            let dir = dir.ok_or_else(|| ResearchError::Dependency { name: name.clone(), looked: looked.join(", ") })?;
            let base = dir.parent().unwrap_or(&dir).to_path_buf();
            Ok(walk(&dir, &base, Some(name)))
        }
    }
}

/// The documents and source files under `dir` (or `dir` itself), labelled relative to `base`.
fn walk(dir: &Path, base: &Path, dependency: Option<&str>) -> Vec<Input> {
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .git_ignore(dependency.is_none())
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !matches!(name.as_ref(), ".nerd" | ".git" | "target" | "node_modules" | "__pycache__" | "tests" | "test")
                || e.depth() == 0
        })
        .build();
    for entry in walker.filter_map(Result::ok) {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path().to_path_buf();
        let rel = path.strip_prefix(base).unwrap_or(&path).display().to_string();
        let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_uppercase()).unwrap_or_default();
        // Licences teach nothing about the topic.
        let licence = ["LICENSE", "LICENCE", "COPYING", "NOTICE"].iter().any(|l| name.starts_with(l));
        let readable = !licence && (extract::is_document(&rel) || Lang::of_path(&rel).is_some());
        if readable && !crate::policy::paths::secret_by_name(&rel) {
            out.push(Input { path, label: rel });
        }
    }
    out.sort_by(|a, b| a.label.cmp(&b.label));
    out
}

/// Where the package manager unpacked dependency `name`, and every place looked.
fn dependency_dir(root: &Path, name: &str) -> (Option<PathBuf>, Vec<String>) {
    let mut looked = Vec::new();
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    // Cargo: the registry's unpacked sources, at the version Cargo.lock pins (else the newest).
    let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".cargo"));
    let registry = cargo_home.join("registry").join("src");
    looked.push(registry.display().to_string());
    let pinned = cargo_lock_version(root, name);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&registry)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|index| std::fs::read_dir(index.path()).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| {
            let dir = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            match &pinned {
                Some(v) => dir == format!("{name}-{v}"),
                None => {
                    dir.strip_prefix(&format!("{name}-")).is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
                }
            }
        })
        .collect();
    found.sort();
    if let Some(dir) = found.pop() {
        return (Some(dir), looked);
    }
    // npm.
    let node = root.join("node_modules").join(name);
    looked.push(node.display().to_string());
    if node.is_dir() {
        return (Some(node), looked);
    }
    // Python: the workspace's virtualenvs, then the system's packages.
    let module = name.replace('-', "_");
    let mut python_dirs: Vec<PathBuf> = Vec::new();
    for venv in [".venv", "venv", "env"] {
        let lib = root.join(venv).join("lib");
        python_dirs
            .extend(std::fs::read_dir(&lib).into_iter().flatten().flatten().map(|e| e.path().join("site-packages")));
    }
    python_dirs.push(PathBuf::from("/usr/lib/python3/dist-packages"));
    for lib in ["/usr/local/lib", "/usr/lib"] {
        python_dirs.extend(
            std::fs::read_dir(lib)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
                .flat_map(|e| [e.path().join("site-packages"), e.path().join("dist-packages")]),
        );
    }
    for dir in python_dirs {
        let package = dir.join(&module);
        looked.push(package.display().to_string());
        if package.is_dir() {
            return (Some(package), looked);
        }
    }
    // Go: the module cache, at the version go.mod requires.
    let gomod =
        std::env::var_os("GOMODCACHE").map(PathBuf::from).unwrap_or_else(|| home.join("go").join("pkg").join("mod"));
    if let Some(version) = go_mod_version(root, name) {
        let escaped: String = name
            .chars()
            .flat_map(|c| if c.is_ascii_uppercase() { vec!['!', c.to_ascii_lowercase()] } else { vec![c] })
            .collect();
        let dir = gomod.join(format!("{escaped}@{version}"));
        looked.push(dir.display().to_string());
        if dir.is_dir() {
            return (Some(dir), looked);
        }
    }
    (None, looked)
}

/// The version of `name` that the workspace's Cargo.lock pins, if it pins one.
fn cargo_lock_version(root: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(root.join("Cargo.lock")).ok()?;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(version.to_string());
        }
    }
    None
}

/// The version of module `name` that the workspace's go.mod requires, if it does.
fn go_mod_version(root: &Path, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(root.join("go.mod")).ok()?;
    text.lines().find_map(|l| {
        let mut words = l.trim().trim_start_matches("require").split_whitespace();
        (words.next()? == name).then(|| words.next().map(str::to_string)).flatten()
    })
}
