//! Specialist profiles: what a specialist knows about (topic, sources,
//! keywords) and which tools it may use, persisted as `.nerd/agents/NAME.toml`
//! and read from Claude Code's subagent files (`.claude/agents/*.md`, YAML
//! front matter `name`, `description`, `tools`) as well. A tool name nerd does
//! not know grants nothing. Defining a profile runs nothing.
//! Knows nothing about research, examination or spawning.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use nerd_logic::vocab::ActionKind;
use serde::{Deserialize, Serialize};

/// Why a profile cannot be defined or read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("`{0}` is not a specialist name: use 1 to 64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit")]
    Name(String),
    #[error("unknown tool `{0}`: nerd's tools are {known}", known = Tool::NAMES.join(", "))]
    Tool(String),
    #[error("a specialist needs a topic (--topic \"...\")")]
    NoTopic,
    #[error("no specialist named `{0}`: `nerd agents` lists them, `nerd define-agent` defines one")]
    Unknown(String),
    #[error("cannot read {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// A tool a specialist may use: each is one kind of router action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    ReadFile,
    Search,
    Exec,
    WriteFile,
    Browse,
    NetRequest,
}

impl Tool {
    pub const NAMES: &'static [&'static str] = &["read_file", "search", "exec", "write_file", "browse", "net_request"];
    const ALL: [Tool; 6] = [Tool::ReadFile, Tool::Search, Tool::Exec, Tool::WriteFile, Tool::Browse, Tool::NetRequest];
    /// What a specialist may do when its profile names no tool: read and search.
    pub const DEFAULT: &'static [Tool] = &[Tool::ReadFile, Tool::Search];

    pub fn parse(name: &str) -> Result<Tool, ProfileError> {
        let name = name.trim().to_ascii_lowercase().replace('-', "_");
        Tool::ALL.into_iter().find(|t| t.as_str() == name).ok_or(ProfileError::Tool(name))
    }

    pub fn as_str(self) -> &'static str {
        Tool::NAMES[self as usize]
    }

    /// The router actions the tool stands for.
    pub fn kinds(self) -> &'static [ActionKind] {
        match self {
            Tool::ReadFile => &[ActionKind::ReadFile],
            Tool::Search => &[ActionKind::Search],
            Tool::Exec => &[ActionKind::Exec],
            Tool::WriteFile => &[ActionKind::WriteFile],
            Tool::Browse => &[ActionKind::Browse],
            Tool::NetRequest => &[ActionKind::NetRequest],
        }
    }

    /// Claude Code's tool names, as nerd reads them; `None` for one nerd has no counterpart of.
    fn from_claude(name: &str) -> Option<Tool> {
        Some(match name.trim() {
            "Read" | "NotebookRead" => Tool::ReadFile,
            "Grep" | "Glob" | "LS" => Tool::Search,
            "Bash" => Tool::Exec,
            "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => Tool::WriteFile,
            "WebFetch" => Tool::NetRequest,
            _ => return None,
        })
    }
}

/// Where a specialist's knowledge comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A file or folder (relative to the workspace, or absolute).
    Path(PathBuf),
    /// A dependency as its package manager unpacked it: `dep:NAME`.
    Dependency(String),
    /// A web page, read through the browser under the network policy.
    Url(String),
}

impl Source {
    pub fn parse(text: &str) -> Source {
        let text = text.trim();
        if text.starts_with("http://") || text.starts_with("https://") {
            Source::Url(text.to_string())
        } else if let Some(name) = text.strip_prefix("dep:") {
            Source::Dependency(name.trim().to_string())
        } else {
            Source::Path(PathBuf::from(text))
        }
    }

    pub fn to_text(&self) -> String {
        match self {
            Source::Path(p) => p.display().to_string(),
            Source::Dependency(name) => format!("dep:{name}"),
            Source::Url(url) => url.clone(),
        }
    }
}

/// Where a profile was read from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "path")]
pub enum Origin {
    Nerd(PathBuf),
    Claude(PathBuf),
}

/// A specialist as defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub name: String,
    pub topic: String,
    pub sources: Vec<Source>,
    pub tools: Vec<Tool>,
    pub keywords: Vec<String>,
    /// Tool names from a Claude Code profile that nerd does not grant.
    pub ignored_tools: Vec<String>,
    pub origin: Origin,
}

/// The profile file's shape.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    name: String,
    topic: String,
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    keywords: Vec<String>,
}

/// Checks a specialist's name.
pub fn check_name(name: &str) -> Result<(), ProfileError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
        && !name.contains("..");
    if ok {
        Ok(())
    } else {
        Err(ProfileError::Name(name.to_string()))
    }
}

/// The folder of nerd's own profiles and knowledge shards.
pub fn agents_dir(root: &Path) -> PathBuf {
    root.join(".nerd").join("agents")
}

/// The knowledge shard of specialist `name`.
pub fn shard_path(root: &Path, name: &str) -> PathBuf {
    agents_dir(root).join(format!("{name}.db"))
}

impl Profile {
    /// A new profile; tools default to reading and searching.
    pub fn new(
        root: &Path,
        name: &str,
        topic: &str,
        sources: &[String],
        tools: &[String],
        keywords: &[String],
    ) -> Result<Profile, ProfileError> {
        check_name(name)?;
        if topic.trim().is_empty() {
            return Err(ProfileError::NoTopic);
        }
        let mut granted = BTreeSet::new();
        for t in tools.iter().flat_map(|t| t.split(',')).filter(|t| !t.trim().is_empty()) {
            granted.insert(Tool::parse(t)?);
        }
        let tools = if granted.is_empty() { Tool::DEFAULT.to_vec() } else { granted.into_iter().collect() };
        Ok(Profile {
            name: name.to_string(),
            topic: topic.trim().to_string(),
            sources: sources.iter().filter(|s| !s.trim().is_empty()).map(|s| Source::parse(s)).collect(),
            tools,
            keywords: keywords
                .iter()
                .flat_map(|k| k.split(','))
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .collect(),
            ignored_tools: vec![],
            origin: Origin::Nerd(agents_dir(root).join(format!("{name}.toml"))),
        })
    }

    /// Writes the profile to `.nerd/agents/NAME.toml`, whole or not at all.
    pub fn save(&self, root: &Path) -> Result<PathBuf, ProfileError> {
        let path = agents_dir(root).join(format!("{}.toml", self.name));
        let file = ProfileFile {
            name: self.name.clone(),
            topic: self.topic.clone(),
            sources: self.sources.iter().map(Source::to_text).collect(),
            tools: self.tools.iter().map(|t| t.as_str().to_string()).collect(),
            keywords: self.keywords.clone(),
        };
        let write = |source| ProfileError::Write { path: path.clone(), source };
        let text = toml::to_string(&file).map_err(|e| write(std::io::Error::other(e.to_string())))?;
        crate::store::nerd_dir(root).map_err(|e| write(std::io::Error::other(e.to_string())))?;
        let dir = agents_dir(root);
        std::fs::create_dir_all(&dir).map_err(write)?;
        let name = path.file_name().ok_or_else(|| write(std::io::Error::other("no file name")))?;
        // Whole or not at all: a temp file in the same folder, renamed over the profile.
        crate::files::write_atomic(&dir.canonicalize().map_err(write)?.join(name), text.as_bytes()).map_err(write)?;
        Ok(path)
    }

    /// The action kinds the profile's tools stand for.
    pub fn kinds(&self) -> BTreeSet<ActionKind> {
        self.tools.iter().flat_map(|t| t.kinds().iter().copied()).collect()
    }

    fn from_file(path: &Path) -> Result<Profile, ProfileError> {
        let read = |message: String| ProfileError::Read { path: path.to_path_buf(), message };
        let text = std::fs::read_to_string(path).map_err(|e| read(e.to_string()))?;
        let file: ProfileFile = toml::from_str(&text).map_err(|e| read(e.to_string()))?;
        check_name(&file.name).map_err(|e| read(e.to_string()))?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if stem != file.name {
            return Err(read(format!("the file is named {stem} but names the specialist {}", file.name)));
        }
        let mut tools = BTreeSet::new();
        for t in &file.tools {
            tools.insert(Tool::parse(t).map_err(|e| read(e.to_string()))?);
        }
        Ok(Profile {
            name: file.name,
            topic: file.topic,
            sources: file.sources.iter().map(|s| Source::parse(s)).collect(),
            tools: tools.into_iter().collect(),
            keywords: file.keywords,
            ignored_tools: vec![],
            origin: Origin::Nerd(path.to_path_buf()),
        })
    }

    /// A Claude Code subagent file: front matter `name`, `description`, `tools`.
    fn from_claude(path: &Path) -> Result<Profile, ProfileError> {
        let read = |message: String| ProfileError::Read { path: path.to_path_buf(), message };
        let text = std::fs::read_to_string(path).map_err(|e| read(e.to_string()))?;
        let front = front_matter(&text).ok_or_else(|| read("no YAML front matter between --- lines".into()))?;
        let field = |key: &str| front.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let name = field("name").and_then(|v| v.into_iter().next()).ok_or_else(|| read("no `name`".into()))?;
        check_name(&name).map_err(|e| read(e.to_string()))?;
        let topic = field("description").map(|v| v.join(" ")).unwrap_or_default();
        // No `tools` in a Claude profile means every tool; nerd grants only its read-only default.
        let (mut tools, mut ignored) = (BTreeSet::new(), vec![]);
        match field("tools") {
            Some(names) => {
                for n in names.iter().flat_map(|n| n.split(',')).map(str::trim).filter(|n| !n.is_empty()) {
                    match Tool::from_claude(n) {
                        Some(t) => {
                            tools.insert(t);
                        }
                        None => ignored.push(n.to_string()),
                    }
                }
            }
            None => tools.extend(Tool::DEFAULT.iter().copied()),
        }
        Ok(Profile {
            name,
            topic,
            sources: vec![],
            tools: tools.into_iter().collect(),
            keywords: vec![],
            ignored_tools: ignored,
            origin: Origin::Claude(path.to_path_buf()),
        })
    }

    /// Every specialist of the workspace: nerd's own profiles, then Claude
    /// Code's that nerd does not define under the same name. Unreadable files
    /// come back as errors beside the profiles, so one bad file hides nothing else.
    pub fn all(root: &Path) -> (Vec<Profile>, Vec<ProfileError>) {
        let (mut profiles, mut errors) = (Vec::new(), Vec::new());
        for (dir, ext, read) in [
            (agents_dir(root), "toml", Profile::from_file as fn(&Path) -> Result<Profile, ProfileError>),
            (root.join(".claude").join("agents"), "md", Profile::from_claude),
        ] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut paths: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == ext) && p.is_file())
                .collect();
            paths.sort();
            for path in paths {
                match read(&path) {
                    Ok(p) if profiles.iter().any(|q: &Profile| q.name == p.name) => {}
                    Ok(p) => profiles.push(p),
                    Err(e) => errors.push(e),
                }
            }
        }
        (profiles, errors)
    }

    /// The specialist named `name`.
    pub fn find(root: &Path, name: &str) -> Result<Profile, ProfileError> {
        check_name(name)?;
        let (profiles, errors) = Profile::all(root);
        if let Some(p) = profiles.into_iter().find(|p| p.name == name) {
            return Ok(p);
        }
        let own = agents_dir(root).join(format!("{name}.toml"));
        match errors.into_iter().find(|e| matches!(e, ProfileError::Read { path, .. } if *path == own)) {
            Some(e) => Err(e),
            None => Err(ProfileError::Unknown(name.to_string())),
        }
    }
}

/// The keys of a YAML front matter block, each with its value as a list: a
/// scalar, a flow list (`[a, b]`) or a block list (`- a`). Quotes are removed.
/// Enough YAML for subagent files; anything else in the block is skipped.
fn front_matter(text: &str) -> Option<Vec<(String, Vec<String>)>> {
    let mut lines = text.lines();
    if lines.next()?.trim() != "---" {
        return None;
    }
    let unquote = |v: &str| v.trim().trim_matches('"').trim_matches('\'').to_string();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in lines {
        if line.trim() == "---" {
            return Some(out);
        }
        if let Some(item) = line.trim_start().strip_prefix("- ") {
            if line.starts_with(' ') || line.starts_with('-') {
                if let Some(last) = out.last_mut() {
                    last.1.push(unquote(item));
                }
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else { continue };
        if key.starts_with(' ') || key.trim().is_empty() {
            // A continuation of a folded scalar.
            if let (Some(last), false) = (out.last_mut(), line.trim().is_empty()) {
                last.1.push(unquote(line));
            }
            continue;
        }
        let value = value.trim();
        let values = if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            list.split(',').map(unquote).filter(|v| !v.is_empty()).collect()
        } else if value.is_empty() || value == "|" || value == ">" {
            vec![]
        } else {
            vec![unquote(value)]
        };
        out.push((key.trim().to_string(), values));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        for ok in ["click-docs", "a", "serde_1.0", "x9"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "Click", "../etc", "a/b", "-x", "a..b", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn claude_front_matter_is_read() {
        let text = "---\nname: code-reviewer\ndescription: \"Reviews code\"\ntools: Read, Grep, Bash, WebSearch\nmodel: inherit\n---\nYou review code.\n";
        let front = front_matter(text).unwrap();
        assert_eq!(front[0], ("name".into(), vec!["code-reviewer".into()]));
        assert_eq!(front[1], ("description".into(), vec!["Reviews code".into()]));
        assert_eq!(front[2], ("tools".into(), vec!["Read, Grep, Bash, WebSearch".into()]));
        let block = "---\nname: x\ntools:\n  - Read\n  - Edit\n---\n";
        assert_eq!(front_matter(block).unwrap()[1], ("tools".into(), vec!["Read".into(), "Edit".into()]));
        assert!(front_matter("name: x\n").is_none());
        assert!(front_matter("---\nname: x\n").is_none());
    }
}
