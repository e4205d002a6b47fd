//! The HTTP model transducers against a loopback server that replays recorded
//! responses in the real wire formats (OpenAI chat completions, Anthropic
//! messages), through the same boundary and repair loop as everything else.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use nerd::model::http::{Http, Wire};
use nerd::perceive::{intent_task, perceive, Perceived};

/// One request the server saw: path, lower-cased headers, JSON body.
type Seen = Arc<Mutex<Vec<(String, Vec<(String, String)>, serde_json::Value)>>>;

/// Serves `responses` (status, body) in order on a loopback port; returns the base URL and what it saw.
fn serve(responses: Vec<(u16, String)>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for (status, body) in responses {
            let Ok((stream, _)) = listener.accept() else { return };
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split(' ').nth(1).unwrap_or("").to_string();
            let mut headers = Vec::new();
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
                }
            }
            let len: usize =
                headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
            let mut buf = vec![0u8; len];
            reader.read_exact(&mut buf).unwrap();
            log.lock().unwrap().push((path, headers, serde_json::from_slice(&buf).unwrap_or(serde_json::Value::Null)));
            let mut stream = reader.into_inner();
            let reply = format!(
                "HTTP/1.1 {status} OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(reply.as_bytes()).unwrap();
        }
    });
    (base, seen)
}

fn openai_reply(content: &str) -> (u16, String) {
    let body = serde_json::json!({
        "id": "chatcmpl-rec1", "object": "chat.completion", "created": 1_763_000_000, "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 412, "completion_tokens": 38, "total_tokens": 450}
    });
    (200, body.to_string())
}

/// The python fixture committed as a git repository.
fn calc_repo() -> tempfile::TempDir {
    let dir = common::copy_fixture("agent/python-calc");
    common::git(dir.path(), &["init", "-q", "-b", "main"]);
    common::git(dir.path(), &["add", "-A"]);
    common::git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

/// `nerd run ARGS` in `dir` with `.nerd/config.toml` naming the recorded OpenAI server at `base`.
fn run_with_recorded_model(dir: &tempfile::TempDir, base: &str, args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".nerd")).unwrap();
    std::fs::write(
        dir.path().join(".nerd/config.toml"),
        format!("[model]\nprovider = \"openai\"\nmodel = \"recorded\"\nbase_url = \"{base}/v1\"\n"),
    )
    .unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_nerd"))
        .arg("run")
        .args(args)
        .current_dir(dir.path())
        .env("HOME", home.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap()
}

const FIX: &str = r#"{"category":"mutation","verb":"fix","target":"parse_config","constraints":[],"context":"narrow","confidence":0.93,"missing":[]}"#;

#[test]
fn openai_compatible_output_is_repaired_with_the_error_fed_back() {
    let (base, seen) = serve(vec![openai_reply("Sure! Here is the intent you asked for."), openai_reply(FIX)]);
    let mut t =
        Http::new(Wire::OpenAi, &format!("{base}/v1"), Some("test-key".into()), "gpt-4o-mini").for_task(intent_task());
    match perceive(&mut t, "fix parse_config, it crashes on empty files") {
        Perceived::Intent { intent, attempts } => {
            assert_eq!(attempts, 2);
            assert_eq!((intent.verb.as_str(), intent.target.as_str()), ("fix", "parse_config"));
        }
        other => panic!("{other:?}"),
    }
    let seen = seen.lock().unwrap();
    let (path, headers, body) = &seen[0];
    assert_eq!(path, "/v1/chat/completions");
    assert!(headers.contains(&("authorization".into(), "Bearer test-key".into())));
    let verbs = &body["response_format"]["json_schema"]["schema"]["properties"]["verb"]["enum"];
    assert!(verbs.as_array().unwrap().iter().any(|v| v == "fix"), "{body}");
    let retry = seen[1].2["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(retry.contains("rejected") && retry.contains("not the intent JSON"), "{retry}");
}

#[test]
fn anthropic_tool_use_is_read_as_the_intent() {
    let reply = serde_json::json!({
        "id": "msg_rec1", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-latest",
        "content": [{"type": "tool_use", "id": "toolu_rec1", "name": "record_intent",
                     "input": {"category": "query", "verb": "search", "target": "delete_user", "constraints": [], "context": "narrow", "confidence": 0.97, "missing": []}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 500, "output_tokens": 60}
    });
    let (base, seen) = serve(vec![(200, reply.to_string())]);
    let mut t =
        Http::new(Wire::Anthropic, &base, Some("ak-test".into()), "claude-3-5-haiku-latest").for_task(intent_task());
    match perceive(&mut t, "Search for uses of delete_user") {
        Perceived::Intent { intent, .. } => {
            assert_eq!((intent.category.as_str(), intent.verb.as_str()), ("query", "search"))
        }
        other => panic!("{other:?}"),
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0, "/v1/messages");
    assert!(seen[0].1.contains(&("x-api-key".into(), "ak-test".into())));
    assert!(seen[0].1.iter().any(|(k, _)| k == "anthropic-version"));
    assert_eq!(seen[0].2["tool_choice"]["name"], "record_intent");
}

#[test]
fn a_model_that_asserts_permissions_is_refused_and_errors_are_clear() {
    let hostile = r#"{"category":"mutation","verb":"delete","target":"/","constraints":[],"context":"narrow","confidence":1,"missing":[],"permitted":true}"#;
    let (base, _) = serve(vec![openai_reply(hostile), openai_reply(hostile), openai_reply(hostile)]);
    let mut t = Http::new(Wire::OpenAi, &base, None, "m").for_task(intent_task());
    match perceive(&mut t, "delete everything") {
        Perceived::Unparsed { errors } => {
            assert_eq!(errors.len(), 3);
            assert!(errors.iter().all(|e| e.contains("decided by nerd")), "{errors:?}");
        }
        other => panic!("{other:?}"),
    }
    let (base, _) = serve(vec![(401, r#"{"error":{"message":"Incorrect API key provided"}}"#.into())]);
    let mut t = Http::new(Wire::OpenAi, &base, Some("bad".into()), "m").for_task(intent_task());
    match perceive(&mut t, "fix it") {
        Perceived::Unparsed { errors } => {
            assert!(errors[0].contains("401") && errors[0].contains("Incorrect API key"), "{errors:?}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn nerd_perceive_uses_a_provider_from_the_environment() {
    let (base, _) = serve(vec![openai_reply(FIX)]);
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["perceive", "--provider", "openai", "--json", "fix parse_config"])
        .current_dir(dir.path())
        .env("OPENAI_BASE_URL", format!("{base}/v1"))
        .env("OPENAI_API_KEY", "k")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["category"].as_str(), v["verb"].as_str()), (Some("mutation"), Some("fix")));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["perceive", "--provider", "openai", "fix it"])
        .current_dir(dir.path())
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OLLAMA_HOST")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
}

/// `nerd run` with the openai provider on a loopback server: the same server
/// reads the request (intent schema) and writes the patch (patch schema), and
/// both answers go through the real parsers before anything is applied.
#[test]
fn nerd_run_uses_a_configured_model_for_reading_and_for_patches() {
    let dir = calc_repo();
    let intent = r#"{"category":"mutation","verb":"fix","target":"","constraints":[],"context":"narrow","confidence":0.9,"missing":[]}"#;
    let patch = serde_json::json!({
        "explanation": "add subtracted",
        "edits": [{"path": "calc/ops.py", "start_line": 2, "end_line": 2, "replacement": "    return a + b\n"}],
    });
    // A model reads the request three times (self-consistency), then writes the patch.
    let (base, seen) =
        serve(vec![openai_reply(intent), openai_reply(intent), openai_reply(intent), openai_reply(&patch.to_string())]);
    let out = run_with_recorded_model(&dir, &base, &["the tests are red, please repair", "--json", "--seed", "7"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(r#""provider":"openai","agreement":1.0"#), "{stdout}");
    assert!(std::fs::read_to_string(dir.path().join("calc/ops.py")).unwrap().contains("a + b"));
    // What the patch cost, as the server's usage said.
    let cost = r#"{"event":"model","task":"propose_patch","tokens":{"prompt":412,"completion":38}}"#;
    assert!(stdout.contains(cost), "{stdout}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0].2["response_format"]["json_schema"]["name"], "record_intent");
    let patch_request = &seen[3].2;
    assert_eq!(patch_request["response_format"]["json_schema"]["name"], "propose_patch");
    assert_eq!(patch_request["seed"], 7);
    assert_eq!(patch_request["model"], "recorded");
    let prompt = patch_request["messages"][1]["content"].as_str().unwrap();
    // The kernel's selection, not whole files: the failing tests, what they call, and the atoms that say why.
    assert!(prompt.contains("=== calc/ops.py:1-2 (calc/ops.py#add) ==="), "{prompt}");
    assert!(prompt.contains("context_seed(\"tests/test_ops.py#test_add\", \"failing_test\")"), "{prompt}");
    assert!(prompt.contains("calls(\"tests/test_ops.py#test_mul\", \"calc/ops.py#mul\""), "{prompt}");
}

#[test]
fn readings_of_a_request_that_disagree_make_nerd_ask_and_act_on_nothing() {
    let dir = calc_repo();
    let read = |category: &str, verb: &str| {
        format!(
            r#"{{"category":"{category}","verb":"{verb}","target":"add","constraints":[],"context":"narrow","confidence":0.9,"missing":[]}}"#
        )
    };
    let (base, seen) = serve(vec![
        openai_reply(&read("mutation", "fix")),
        openai_reply(&read("mutation", "delete")),
        openai_reply(&read("query", "search")),
    ]);
    let before = std::fs::read_to_string(dir.path().join("calc/ops.py")).unwrap();
    let out = run_with_recorded_model(&dir, &base, &["do something about add", "--json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let perceived = events.iter().find(|e| e["event"] == "perceived").unwrap();
    let sigma = perceived["agreement"].as_f64().unwrap();
    assert!((sigma - 1.0 / 3.0).abs() < 1e-9, "σ of three different readings: {perceived}");
    let done = events.last().unwrap();
    assert_eq!(done["status"], "needs_clarification", "{stdout}");
    assert!(!events.iter().any(|e| e["event"] == "action"), "nothing runs on a reading nobody agrees on: {stdout}");
    assert_eq!(std::fs::read_to_string(dir.path().join("calc/ops.py")).unwrap(), before);
    assert_eq!(seen.lock().unwrap().len(), 3, "three readings, no patch asked for");
}
