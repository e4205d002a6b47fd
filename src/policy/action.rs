//! The closed set of actions the agent can ask for, parsed strictly from JSON
//! (`{"kind": "exec", "argv": [...]}`): unknown kinds, unknown fields, empty
//! argv, NUL bytes and oversize payloads are refused with a reason.
//! Knows nothing about whether an action is allowed.

use serde::{Deserialize, Serialize};

use nerd_logic::vocab::ActionKind;

/// Bytes an action's JSON may have.
pub const MAX_ACTION_BYTES: usize = 1 << 20;

/// One thing the agent wants to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Run a program: an argv array, never a shell string.
    Exec {
        argv: Vec<String>,
    },
    ReadFile {
        path: String,
    },
    /// Write a file; `content` is what would be written.
    WriteFile {
        path: String,
        #[serde(default)]
        content: Option<String>,
    },
    DeleteFile {
        path: String,
    },
    /// An HTTP request; `body` is what would be sent.
    NetRequest {
        url: String,
        #[serde(default)]
        body: Option<String>,
    },
    /// A structural or text search in the workspace.
    Search {
        pattern: String,
        #[serde(default)]
        path: Option<String>,
    },
    /// Load a page in the session's headless browser (`navigate` names it too).
    #[serde(alias = "navigate")]
    Browse {
        url: String,
    },
    /// Click a node of the page the browser shows (an id of its last snapshot: `n42`).
    Click {
        node: String,
    },
    /// Type `text` into a node of the page the browser shows.
    Type {
        node: String,
        text: String,
    },
    /// Start a specialist's shard kernel as a child process, for `task`,
    /// confined to `paths` (workspace globs; none: what its tools allow anywhere).
    Spawn {
        profile: String,
        #[serde(default)]
        task: String,
        #[serde(default)]
        paths: Vec<String>,
    },
    /// Start an ephemeral generalist: nerd itself as a child process with an
    /// empty working memory, for `task`, allowed only the action kinds in
    /// `tools` inside `paths` (workspace globs), each still judged by its own router.
    Delegate {
        task: String,
        paths: Vec<String>,
        tools: Vec<String>,
    },
    /// A memory operation.
    Memory {
        op: String,
    },
}

/// Why a payload is not an action.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ActionError {
    #[error("not an action: {0}")]
    Json(String),
    #[error("exec needs a non-empty argv array")]
    EmptyArgv,
    #[error("argv element {0} is empty")]
    EmptyArg(usize),
    #[error("the action holds a NUL byte")]
    Nul,
    #[error("the action is larger than {MAX_ACTION_BYTES} bytes")]
    TooLarge,
    #[error("{0} needs a non-empty `{1}`")]
    Empty(&'static str, &'static str),
    #[error("unknown tool `{0}`: a child's tools are action kinds (read_file, search, exec...)")]
    Tool(String),
}

impl Action {
    /// What the action is about, in brief: the command line, the path, the URL...
    pub fn target(&self) -> String {
        match self {
            Action::Exec { argv } => argv.join(" "),
            Action::ReadFile { path } | Action::WriteFile { path, .. } | Action::DeleteFile { path } => path.clone(),
            Action::NetRequest { url, .. } | Action::Browse { url } => url.clone(),
            Action::Search { pattern, path } => format!("/{pattern}/ in {}", path.as_deref().unwrap_or(".")),
            Action::Spawn { profile, task, .. } if task.is_empty() => profile.clone(),
            Action::Spawn { profile, task, .. } => format!("{profile}: {task}"),
            Action::Delegate { task, .. } => format!("generalist: {task}"),
            Action::Click { node } => node.clone(),
            Action::Type { node, text } => format!("{node} ← {} characters", text.chars().count()),
            Action::Memory { op } => op.clone(),
        }
    }

    /// Parses and validates one action from JSON text.
    pub fn parse(text: &str) -> Result<Action, ActionError> {
        if text.len() > MAX_ACTION_BYTES {
            return Err(ActionError::TooLarge);
        }
        let action: Action = serde_json::from_str(text).map_err(|e| ActionError::Json(e.to_string()))?;
        action.validate()?;
        Ok(action)
    }

    /// Checks what the type cannot say.
    pub fn validate(&self) -> Result<(), ActionError> {
        let strings: Vec<&str> = match self {
            Action::Exec { argv } => {
                if argv.is_empty() {
                    return Err(ActionError::EmptyArgv);
                }
                if let Some(i) = argv.iter().position(|a| a.is_empty()).filter(|&i| i == 0) {
                    return Err(ActionError::EmptyArg(i));
                }
                argv.iter().map(String::as_str).collect()
            }
            Action::ReadFile { path } | Action::DeleteFile { path } => vec![path],
            Action::WriteFile { path, content } => vec![path.as_str(), content.as_deref().unwrap_or("")],
            Action::NetRequest { url, body } => vec![url.as_str(), body.as_deref().unwrap_or("")],
            Action::Search { pattern, path } => vec![pattern.as_str(), path.as_deref().unwrap_or("")],
            Action::Browse { url } => vec![url],
            Action::Click { node } => vec![node],
            Action::Type { node, text } => vec![node.as_str(), text.as_str()],
            Action::Spawn { profile, task, paths } => {
                [profile.as_str(), task.as_str()].into_iter().chain(paths.iter().map(String::as_str)).collect()
            }
            Action::Delegate { task, paths, tools } => {
                for tool in tools {
                    tool.parse::<ActionKind>().map_err(|_| ActionError::Tool(tool.clone()))?;
                }
                std::iter::once(task.as_str()).chain(paths.iter().chain(tools).map(String::as_str)).collect()
            }
            Action::Memory { op } => vec![op],
        };
        if strings.iter().any(|s| s.contains('\0')) {
            return Err(ActionError::Nul);
        }
        let required = match self {
            Action::ReadFile { path } | Action::WriteFile { path, .. } | Action::DeleteFile { path } => {
                Some(("path", path))
            }
            Action::NetRequest { url, .. } | Action::Browse { url } => Some(("url", url)),
            Action::Search { pattern, .. } => Some(("pattern", pattern)),
            Action::Spawn { profile, .. } => Some(("profile", profile)),
            Action::Delegate { task, .. } => Some(("task", task)),
            Action::Memory { op } => Some(("op", op)),
            Action::Click { node } | Action::Type { node, .. } => Some(("node", node)),
            Action::Exec { .. } => None,
        };
        if let Some((field, value)) = required {
            if value.trim().is_empty() {
                return Err(ActionError::Empty(self.kind().as_str(), field));
            }
        }
        Ok(())
    }

    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Exec { .. } => ActionKind::Exec,
            Action::ReadFile { .. } => ActionKind::ReadFile,
            Action::WriteFile { .. } => ActionKind::WriteFile,
            Action::DeleteFile { .. } => ActionKind::DeleteFile,
            Action::NetRequest { .. } => ActionKind::NetRequest,
            Action::Search { .. } => ActionKind::Search,
            Action::Browse { .. } | Action::Click { .. } | Action::Type { .. } => ActionKind::Browse,
            Action::Spawn { .. } | Action::Delegate { .. } => ActionKind::Spawn,
            Action::Memory { .. } => ActionKind::Memory,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_parse_strictly() {
        assert_eq!(
            Action::parse(r#"{"kind":"exec","argv":["cargo","test"]}"#),
            Ok(Action::Exec { argv: vec!["cargo".into(), "test".into()] })
        );
        assert_eq!(Action::parse(r#"{"kind":"read_file","path":"src/lib.rs"}"#).unwrap().kind(), ActionKind::ReadFile);
        let navigate = Action::parse(r#"{"kind":"navigate","url":"http://127.0.0.1:8000/"}"#).unwrap();
        assert_eq!(navigate, Action::Browse { url: "http://127.0.0.1:8000/".into() });
        let delegate =
            Action::parse(r#"{"kind":"delegate","task":"survey src","paths":["src/**"],"tools":["read_file"]}"#)
                .unwrap();
        assert_eq!(delegate.kind(), ActionKind::Spawn);
        let click = Action::parse(r#"{"kind":"click","node":"n12"}"#).unwrap();
        assert_eq!(click.kind(), ActionKind::Browse);
        let bad = [
            (r#"{"kind":"exec","argv":[]}"#, "non-empty argv"),
            (r#"{"kind":"exec","argv":"rm -rf /"}"#, "not an action"),
            (r#"{"kind":"teleport"}"#, "not an action"),
            (r#"{"kind":"read_file","path":"a","mode":"x"}"#, "not an action"),
            (r#"{"kind":"read_file","path":" "}"#, "non-empty `path`"),
            (r#"{"kind":"exec","argv":["ls","a\u0000b"]}"#, "NUL"),
            ("not json", "not an action"),
            (r#"{"kind":"exec","argv":[""]}"#, "is empty"),
            (r#"{"kind":"click","node":""}"#, "non-empty `node`"),
            (r#"{"kind":"type","node":"n3"}"#, "not an action"),
            (r#"{"kind":"delegate","task":"survey src","paths":["src/**"],"tools":["teleport"]}"#, "unknown tool"),
            (r#"{"kind":"delegate","task":"","paths":[],"tools":[]}"#, "non-empty `task`"),
        ];
        for (text, want) in bad {
            let err = Action::parse(text).expect_err(text).to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}
