//! Claude Code PreToolUse payloads as nerd actions, so nerd's constitution can
//! guard another agent: Bash command lines, file reads, writes and edits,
//! searches and web fetches. Tools whose effects nerd cannot see are asked
//! about, not waved through. Knows nothing about the decision itself.

use serde::Deserialize;

use super::action::Action;
use super::shell::{self, Reading};

/// The part of a PreToolUse payload nerd reads.
#[derive(Deserialize)]
pub struct Payload {
    pub tool_name: String,
    #[serde(default)]
    pub tool_input: serde_json::Value,
    #[serde(default)]
    pub cwd: Option<String>,
}

/// What a tool call amounts to.
#[derive(Debug, PartialEq, Eq)]
pub enum Call {
    /// The actions, and for a Bash line where each program's words stand in it
    /// (aligned with the actions; empty for other tools).
    Actions(Vec<Action>, Vec<Option<std::ops::Range<usize>>>),
    /// Nothing nerd judges (planning, todo lists).
    Inert,
    /// nerd cannot tell what it does.
    Unknown(String),
}

fn field<'a>(input: &'a serde_json::Value, name: &str) -> Option<&'a str> {
    input.get(name).and_then(|v| v.as_str())
}

/// Maps a tool call to actions.
pub fn call(p: &Payload) -> Call {
    let input = &p.tool_input;
    let need = |name: &str| field(input, name).map(str::to_string).ok_or(format!("{} without `{name}`", p.tool_name));
    let one = |a: Result<Action, String>| match a {
        Ok(a) => Call::Actions(vec![a], Vec::new()),
        Err(e) => Call::Unknown(e),
    };
    match p.tool_name.as_str() {
        "Bash" => match need("command").map(|c| shell::read_with_spans(&c)) {
            Ok((Reading::Actions(actions), spans)) => Call::Actions(actions, spans),
            Ok((Reading::Opaque(why), _)) => Call::Unknown(why),
            Err(e) => Call::Unknown(e),
        },
        "Read" => one(need("file_path").map(|path| Action::ReadFile { path })),
        "Write" | "Edit" | "MultiEdit" => one(need("file_path").map(|path| Action::WriteFile {
            path,
            content: field(input, "content").or(field(input, "new_string")).map(str::to_string),
        })),
        "NotebookEdit" => one(need("notebook_path").map(|path| Action::WriteFile { path, content: None })),
        "Glob" | "Grep" | "LS" => one(Ok(Action::Search {
            pattern: field(input, "pattern").unwrap_or("*").to_string(),
            path: field(input, "path").map(str::to_string),
        })),
        "WebFetch" => one(need("url").map(|url| Action::NetRequest { url, body: None })),
        "TodoWrite" | "ExitPlanMode" | "BashOutput" | "KillShell" | "Task" => Call::Inert,
        other => Call::Unknown(format!("nerd does not know what `{other}` does")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(json: &str) -> Payload {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn tool_calls_map_to_actions() {
        let c = call(&payload(r#"{"tool_name":"Bash","tool_input":{"command":"git status && rm -rf /"}}"#));
        assert!(matches!(c, Call::Actions(ref a, ref spans) if a.len() == 2 && spans.len() == 2));
        let c = call(&payload(
            r#"{"tool_name":"Edit","tool_input":{"file_path":"/w/src/a.rs","old_string":"a","new_string":"b"}}"#,
        ));
        let write = Action::WriteFile { path: "/w/src/a.rs".into(), content: Some("b".into()) };
        assert_eq!(c, Call::Actions(vec![write], Vec::new()));
        assert_eq!(call(&payload(r#"{"tool_name":"TodoWrite","tool_input":{}}"#)), Call::Inert);
        assert!(matches!(call(&payload(r#"{"tool_name":"Bash","tool_input":{}}"#)), Call::Unknown(_)));
        assert!(matches!(call(&payload(r#"{"tool_name":"mcp__x__y","tool_input":{}}"#)), Call::Unknown(_)));
    }
}
