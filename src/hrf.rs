//! The Harmony Response Format: validates HRF envelopes (roles, channels,
//! contentType, termination tokens, HarmonyScript steps) with the HRF error
//! codes, and takes the assistant's `final` content out of a valid envelope,
//! so models that speak in channels drive nerd through the same boundary.
//! Knows nothing about executing scripts.

use serde::Serialize;
use serde_json::Value;

/// A structured HRF error: `code`, `message`, `details`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HarmonyError {
    pub code: &'static str,
    pub message: String,
    pub details: Vec<String>,
}

pub const ENVELOPE_FAILED: &str = "HRF_SCHEMA_ENVELOPE_FAILED";
pub const SCRIPT_FAILED: &str = "HRF_SCHEMA_SCRIPT_FAILED";
pub const SEMANTIC_FAILED: &str = "HRF_SEMANTIC_VALIDATION_FAILED";

/// A valid envelope's notes that do not make it invalid.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub warnings: Vec<String>,
}

const CHANNELS: &[&str] = &["analysis", "commentary", "final"];
const TERMINATIONS: &[&str] = &["end", "return", "call"];

#[derive(Default)]
struct Problems {
    envelope: Vec<String>,
    script: Vec<String>,
    semantic: Vec<String>,
    warnings: Vec<String>,
}

fn non_empty_str(v: &Value) -> bool {
    v.as_str().is_some_and(|s| !s.trim().is_empty())
}

/// Validates one envelope.
pub fn validate(envelope: &Value) -> Result<Report, HarmonyError> {
    let mut p = Problems::default();
    let Some(root) = envelope.as_object() else {
        return Err(HarmonyError {
            code: ENVELOPE_FAILED,
            message: "the envelope is not a JSON object".into(),
            details: vec![],
        });
    };
    if !root.get("HRFVersion").is_some_and(non_empty_str) {
        p.envelope.push("HRFVersion: must be a non-empty string".into());
    }
    match root.get("messages").and_then(Value::as_array) {
        None => p.envelope.push("messages: must be an array".into()),
        Some(list) if list.is_empty() => p.envelope.push("messages: must hold at least one message".into()),
        Some(list) => {
            let mut terminations = 0;
            for (i, m) in list.iter().enumerate() {
                terminations += message(&format!("messages[{i}]"), m, &mut p);
            }
            if terminations > 1 {
                p.warnings.push(format!("{terminations} termination tokens: only the first is acted on"));
            }
        }
    }
    for (code, list, what) in [
        (ENVELOPE_FAILED, &p.envelope, "the envelope does not follow the HRF schema"),
        (SCRIPT_FAILED, &p.script, "a HarmonyScript does not follow the HRF schema"),
        (SEMANTIC_FAILED, &p.semantic, "the envelope breaks HRF rules"),
    ] {
        if !list.is_empty() {
            return Err(HarmonyError { code, message: what.into(), details: list.clone() });
        }
    }
    Ok(Report { warnings: p.warnings })
}

/// Checks one message; returns how many termination tokens it carries.
fn message(at: &str, m: &Value, p: &mut Problems) -> usize {
    let Some(obj) = m.as_object() else {
        p.envelope.push(format!("{at}: must be an object"));
        return 0;
    };
    let role = obj.get("role").and_then(Value::as_str).unwrap_or("");
    let valid_role = matches!(role, "system" | "user" | "assistant")
        || role.strip_prefix("functions.").is_some_and(|f| !f.is_empty());
    if !valid_role {
        p.semantic.push(format!("{at}.role: `{role}` is not system, user, assistant or functions.<name>"));
    }
    let channel = obj.get("channel").and_then(Value::as_str);
    match (role, channel) {
        ("assistant", None) => p.semantic.push(format!("{at}.channel: assistant messages need a channel")),
        (_, Some(c)) if !CHANNELS.contains(&c) => {
            p.semantic.push(format!("{at}.channel: `{c}` is not analysis, commentary or final"))
        }
        _ => {}
    }
    let mut terminations = 0;
    match obj.get("termination") {
        None | Some(Value::Null) => {}
        Some(Value::String(t)) if TERMINATIONS.contains(&t.as_str()) => {
            terminations = 1;
            if role != "assistant" {
                p.semantic.push(format!("{at}.termination: only assistant messages may terminate"));
            }
        }
        Some(other) => p.semantic.push(format!("{at}.termination: {other} is not end, return or call")),
    }
    let content = obj.get("content").unwrap_or(&Value::Null);
    match obj.get("contentType") {
        None | Some(Value::Null) => {
            if !content.is_string() {
                p.semantic.push(format!("{at}.content: plain text must be a JSON string"));
            }
        }
        Some(Value::String(t)) if t == "json" => {}
        Some(Value::String(t)) if t == "harmony-script" => script(&format!("{at}.content"), content, p),
        Some(other) => p.semantic.push(format!("{at}.contentType: {other} is not json, harmony-script or null")),
    }
    terminations
}

fn script(at: &str, content: &Value, p: &mut Problems) {
    let Some(obj) = content.as_object() else {
        p.script.push(format!("{at}: a HarmonyScript must be an object"));
        return;
    };
    if let Some(vars) = obj.get("vars") {
        if !vars.is_object() {
            p.script.push(format!("{at}.vars: must be an object"));
        }
    }
    match obj.get("steps").and_then(Value::as_array) {
        Some(steps) => steps_of(&format!("{at}.steps"), steps, p),
        None => p.script.push(format!("{at}.steps: required, an array")),
    }
}

fn steps_of(at: &str, steps: &[Value], p: &mut Problems) {
    for (i, s) in steps.iter().enumerate() {
        step(&format!("{at}[{i}]"), s, p);
    }
}

fn step(at: &str, s: &Value, p: &mut Problems) {
    let Some(obj) = s.as_object() else {
        p.script.push(format!("{at}: a step must be an object"));
        return;
    };
    let field = |k: &str| obj.get(k).unwrap_or(&Value::Null);
    match obj.get("type").and_then(Value::as_str) {
        Some("extract-input") => match field("output").as_object() {
            Some(out) if !out.is_empty() => {
                if out.iter().any(|(k, v)| k.trim().is_empty() || !non_empty_str(v)) {
                    p.script.push(format!("{at}.output: keys and expressions must be non-empty strings"));
                }
            }
            _ => p.script.push(format!("{at}.output: a non-empty map is required")),
        },
        Some("tool-call") => {
            let recipient = field("recipient").as_str().unwrap_or("");
            let parts: Vec<&str> = recipient.split('.').collect();
            if parts.len() != 2 || parts.iter().any(|x| x.is_empty()) {
                p.semantic.push(format!("{at}.recipient: `{recipient}` must be plugin.function"));
            }
            if field("channel").as_str() != Some("commentary") {
                p.semantic.push(format!("{at}.channel: tool calls use the commentary channel"));
            }
            if field("args").is_null() {
                p.script.push(format!("{at}.args: required"));
            }
            if !non_empty_str(field("save_as")) {
                p.script.push(format!("{at}.save_as: required"));
            }
        }
        Some("if") => {
            if !non_empty_str(field("condition")) {
                p.script.push(format!("{at}.condition: required"));
            }
            for branch in ["then", "else"] {
                match field(branch).as_array() {
                    Some(steps) => steps_of(&format!("{at}.{branch}"), steps, p),
                    None => p.script.push(format!("{at}.{branch}: must be a list")),
                }
            }
        }
        Some("assistant-message") => {
            if !matches!(field("channel").as_str(), Some("analysis" | "final")) {
                p.semantic.push(format!("{at}.channel: assistant-message steps use analysis or final"));
            }
            let meaningful = |v: &Value| v.as_str().is_some_and(|s| !s.trim().is_empty() && s.trim() != ".");
            if meaningful(field("content")) && meaningful(field("content_template")) {
                p.semantic.push(format!("{at}: only one of content and content_template may carry text"));
            }
        }
        Some("halt") => {}
        Some(other) => p.script.push(format!("{at}.type: unknown step type `{other}`")),
        None => p.script.push(format!("{at}.type: required")),
    }
}

/// If `text` is an HRF envelope, validates it and returns the content of its
/// last assistant `final` message as text; `Ok(None)` when it is not HRF.
pub fn final_content(text: &str) -> Result<Option<String>, HarmonyError> {
    let Ok(value) = serde_json::from_str::<Value>(text.trim()) else { return Ok(None) };
    if value.get("HRFVersion").is_none() {
        return Ok(None);
    }
    validate(&value)?;
    let finals = value["messages"]
        .as_array()
        .and_then(|list| list.iter().rev().find(|m| m["role"] == "assistant" && m["channel"] == "final"))
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    match finals {
        Some(content) => Ok(Some(content)),
        None => Err(HarmonyError {
            code: SEMANTIC_FAILED,
            message: "no assistant message on the final channel".into(),
            details: vec![],
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(v: Value) -> &'static str {
        validate(&v).err().map_or("OK", |e| e.code)
    }

    #[test]
    fn envelopes_are_judged_with_hrf_codes() {
        let ok = json!({"HRFVersion": "1.0", "messages": [
            {"role": "system", "contentType": "harmony-script", "content": {"vars": {"x": 1}, "steps": [
                {"type": "extract-input", "output": {"q": "$.input"}},
                {"type": "tool-call", "recipient": "repo.search", "channel": "commentary", "args": {"q": "{{q}}"}, "save_as": "hits"},
                {"type": "if", "condition": "hits.count > 0", "then": [{"type": "assistant-message", "channel": "final", "content": "."}], "else": [{"type": "halt"}]}
            ]}},
            {"role": "user", "content": "find uses of delete_user"},
            {"role": "assistant", "channel": "final", "content": "done", "termination": "end"}
        ]});
        assert_eq!(code(ok), "OK");
        assert_eq!(code(json!({"messages": []})), ENVELOPE_FAILED);
        assert_eq!(code(json!([1, 2])), ENVELOPE_FAILED);
        assert_eq!(
            code(json!({"HRFVersion": "1", "messages": [{"role": "assistant", "content": "x"}]})),
            SEMANTIC_FAILED
        );
        assert_eq!(
            code(json!({"HRFVersion": "1", "messages": [{"role": "user", "content": "x", "termination": "end"}]})),
            SEMANTIC_FAILED
        );
        assert_eq!(
            code(json!({"HRFVersion": "1", "messages": [{"role": "user", "content": {"not": "text"}}]})),
            SEMANTIC_FAILED
        );
        assert_eq!(
            code(json!({"HRFVersion": "1", "messages": [{"role": "user", "contentType": "yaml", "content": "x"}]})),
            SEMANTIC_FAILED
        );
        assert_eq!(
            code(
                json!({"HRFVersion": "1", "messages": [{"role": "system", "contentType": "harmony-script", "content": {"steps": [{"type": "teleport"}]}}]})
            ),
            SCRIPT_FAILED
        );
        assert_eq!(
            code(
                json!({"HRFVersion": "1", "messages": [{"role": "system", "contentType": "harmony-script", "content": {"steps": [
            {"type": "tool-call", "recipient": "search", "channel": "final", "args": {}, "save_as": "x"}]}}]})
            ),
            SEMANTIC_FAILED
        );
        let warned = validate(&json!({"HRFVersion": "1", "messages": [
            {"role": "assistant", "channel": "analysis", "content": "a", "termination": "call"},
            {"role": "assistant", "channel": "final", "content": "b", "termination": "end"}]}))
        .unwrap();
        assert_eq!(warned.warnings.len(), 1);
    }

    #[test]
    fn the_final_channel_carries_the_answer() {
        let env = json!({"HRFVersion": "1.0", "messages": [
            {"role": "assistant", "channel": "analysis", "content": "thinking about the request"},
            {"role": "assistant", "channel": "final", "contentType": "json", "content": {"category": "query", "verb": "search", "confidence": 0.9}}
        ]});
        let content = final_content(&env.to_string()).unwrap().unwrap();
        assert!(content.contains("\"verb\":\"search\""));
        assert_eq!(final_content("{\"category\":\"query\"}").unwrap(), None);
        assert!(final_content(
            &json!({"HRFVersion": "1", "messages": [{"role": "assistant", "channel": "analysis", "content": "x"}]})
                .to_string()
        )
        .is_err());
    }
}
