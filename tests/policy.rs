//! The public policy interfaces other tools depend on: `nerd policy check`
//! (JSON in, decision and reasons out, stable exit codes) and `nerd hook
//! claude-pretooluse` (a Claude Code PreToolUse payload on stdin).

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

fn policy(dir: &std::path::Path, action: &str, extra: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["policy", "check", "--json", "--action", action])
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn policy_check_answers_with_a_decision_and_reasons() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    let cases = [
        (r#"{"kind":"exec","argv":["cargo","test"]}"#, "allow", 0, &[][..]),
        (r#"{"kind":"exec","argv":["git","reset","--hard"]}"#, "deny", 1, &[][..]),
        (r#"{"kind":"read_file","path":"src/lib.rs"}"#, "allow", 0, &["--intent", "query"][..]),
        (r#"{"kind":"write_file","path":"src/lib.rs"}"#, "deny", 1, &["--intent", "query"][..]),
        (r#"{"kind":"delete_file","path":"src/old.rs"}"#, "ask", 1, &[][..]),
        (r#"{"kind":"net_request","url":"https://pypi.org/simple/"}"#, "ask", 1, &[][..]),
        (r#"{"kind":"net_request","url":"http://169.254.169.254/"}"#, "deny", 1, &[][..]),
        (r#"{"kind":"write_file","path":"src/lib.rs"}"#, "ask", 1, &["--autonomy", "cautious"][..]),
    ];
    for (action, want, code, extra) in cases {
        let (got_code, out, err) = policy(dir.path(), action, extra);
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{action}: {out} {err}"));
        assert_eq!(v["decision"], want, "{action} {extra:?}: {v}");
        assert_eq!(got_code, code, "{action}");
        assert!(!v["reasons"].as_array().unwrap().is_empty());
    }
    for bad in [
        r#"{"kind":"exec","argv":[]}"#,
        r#"{"kind":"teleport"}"#,
        "{not json",
        r#"{"kind":"exec","argv":["ls"],"shell":true}"#,
    ] {
        let (code, _, err) = policy(dir.path(), bad, &[]);
        assert_eq!(code, 2, "{bad}");
        assert!(err.starts_with("error: "), "{bad}: {err}");
    }
}

fn claude(dir: &std::path::Path, payload: &str) -> (i32, serde_json::Value, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["hook", "claude-pretooluse"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), v, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_claude_hook_guards_another_agent() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap().display().to_string();
    let payload = |tool: &str, input: serde_json::Value| {
        serde_json::json!({"tool_name": tool, "tool_input": input, "cwd": cwd}).to_string()
    };
    let decision =
        |v: &serde_json::Value| v["hookSpecificOutput"]["permissionDecision"].as_str().unwrap_or("?").to_string();

    let (code, v, err) = claude(dir.path(), &payload("Bash", serde_json::json!({"command": "git status && rm -rf /"})));
    assert_eq!((code, decision(&v).as_str()), (2, "deny"), "{v}");
    assert!(err.contains("outside the workspace"), "{err}");

    let (code, v, _) =
        claude(dir.path(), &payload("Bash", serde_json::json!({"command": "git status --short | head -n 5"})));
    assert_eq!((code, decision(&v).as_str()), (0, "allow"), "{v}");

    let (code, v, _) = claude(dir.path(), &payload("Read", serde_json::json!({"file_path": format!("{cwd}/.env")})));
    assert_eq!((code, decision(&v).as_str()), (2, "deny"), "{v}");

    let (code, v, _) =
        claude(dir.path(), &payload("Bash", serde_json::json!({"command": "cat $(echo ~/.ssh/id_rsa)"})));
    assert_eq!((code, decision(&v).as_str()), (0, "ask"), "substitutions are asked about: {v}");

    let (code, v, _) = claude(
        dir.path(),
        &payload("Write", serde_json::json!({"file_path": "/etc/cron.d/x", "content": "* * * * * root id"})),
    );
    assert_eq!((code, decision(&v).as_str()), (2, "deny"), "{v}");

    let (code, v, _) =
        claude(dir.path(), &payload("WebFetch", serde_json::json!({"url": "http://169.254.169.254/latest/"})));
    assert_eq!((code, decision(&v).as_str()), (2, "deny"), "{v}");

    let (code, v, _) = claude(dir.path(), &payload("TodoWrite", serde_json::json!({"todos": []})));
    assert_eq!((code, decision(&v).as_str()), (0, "allow"), "{v}");

    let (code, _, err) = claude(dir.path(), "not a payload");
    assert_eq!(code, 2);
    assert!(err.contains("not a PreToolUse payload"), "{err}");
}

#[test]
fn project_policy_can_only_restrict() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".nerd")).unwrap();
    std::fs::write(
        dir.path().join(".nerd/config.toml"),
        "[policy]\nautonomy = \"autonomous\"\nask = [\"write_file\"]\ndeny_programs = [\"cargo\"]\n",
    )
    .unwrap();
    let decide = |action: &str, extra: &[&str]| {
        let (code, out, err) = policy(dir.path(), action, extra);
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{out} {err}"));
        (code, v["decision"].as_str().unwrap_or("?").to_string(), v["reasons"][0].as_str().unwrap_or("").to_string())
    };
    let (_, d, why) = decide(r#"{"kind":"exec","argv":["cargo","test"]}"#, &[]);
    assert_eq!(d, "deny");
    assert!(why.contains("project's policy denies `cargo`"), "{why}");
    let (_, d, why) = decide(r#"{"kind":"write_file","path":"src/lib.rs"}"#, &["--autonomy", "autonomous"]);
    assert_eq!(d, "ask", "{why}");
    // The project asked for autonomous, the caller for cautious: cautious wins.
    let (_, d, _) = decide(r#"{"kind":"exec","argv":["git","status"]}"#, &["--autonomy", "cautious"]);
    assert_eq!(d, "allow");
    std::fs::write(dir.path().join(".nerd/config.toml"), "[policy]\nallow_programs = [\"curl\"]\n").unwrap();
    let (code, _, err) = policy(dir.path(), r#"{"kind":"exec","argv":["git","status"]}"#, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown field"), "{err}");
}

#[test]
fn the_hook_runs_sandboxed_commands_through_nerd_and_doctor_reports_the_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("tool.py"), "import sys\nprint('ran confined')\nsys.exit(3)\n").unwrap();
    let payload = |command: &str| {
        serde_json::json!({"tool_name": "Bash", "tool_input": {"command": command, "timeout": 5}, "cwd": ws.display().to_string()})
            .to_string()
    };
    // A program the constitution allows only in the sandbox is rewritten to run through it.
    let (code, v, _) = claude(&ws, &payload("cd src && python3 ../tool.py"));
    let output = &v["hookSpecificOutput"];
    assert_eq!((code, output["permissionDecision"].as_str()), (0, Some("allow")), "{v}");
    let command = output["updatedInput"]["command"].as_str().unwrap_or_else(|| panic!("no rewrite: {v}"));
    assert!(command.contains("sandbox-exec") && command.contains("'env' '-C' 'src' 'python3'"), "{command}");
    assert_eq!(output["updatedInput"]["timeout"], 5, "the rest of the tool input is kept");
    // The rewritten line, run by a shell as Claude Code would: the program's output and exit code come through.
    let ran = Command::new("sh").args(["-c", command]).current_dir(&ws).output().unwrap();
    assert_eq!(ran.status.code(), Some(3), "{}", String::from_utf8_lossy(&ran.stderr));
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "ran confined\n");
    // In a line of several programs, each sandboxed one is rewritten in place; pipes and redirections stay bash's.
    let (_, v, _) = claude(&ws, &payload("python3 tool.py; python3 tool.py 2>&1 | tail -n 1 > last.txt"));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "allow", "{v}");
    let command = v["hookSpecificOutput"]["updatedInput"]["command"].as_str().unwrap();
    assert_eq!(command.matches("sandbox-exec").count(), 2, "{command}");
    assert!(command.ends_with("2>&1 | tail -n 1 > last.txt"), "{command}");
    let ran = Command::new("sh").args(["-c", command]).current_dir(&ws).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "ran confined\n");
    assert_eq!(std::fs::read_to_string(ws.join("last.txt")).unwrap(), "ran confined\n");
    // Words split by a redirection cannot be rewritten together: asked about.
    let (_, v, _) = claude(&ws, &payload("python3 > out.txt tool.py"));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
    // Reads need no rewrite.
    let (_, v, _) = claude(&ws, &payload("ls src"));
    assert!(v["hookSpecificOutput"]["updatedInput"].is_null(), "{v}");

    let doctor = Command::new(env!("CARGO_BIN_EXE_nerd")).arg("doctor").current_dir(&ws).output().unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(text.contains("boundary:   namespaces") && text.contains("namespaces: bubblewrap"), "{text}");
    let fallback = Command::new(env!("CARGO_BIN_EXE_nerd"))
        .arg("doctor")
        .env("NERD_SANDBOX", "landlock")
        .current_dir(&ws)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&fallback.stdout);
    assert!(text.contains("boundary:   fallback") && text.contains("landlock:   writes confined"), "{text}");
}
