//! Memory across processes through the real binary: what one `nerd` process
//! remembers, the next recalls by a paraphrase (real all-MiniLM-L6-v2
//! vectors in sqlite-vec, fused with FTS5 words); forgetting removes a memory
//! from both indexes; without the model, recall works by words and says so,
//! and memories stored then get their vectors once the model is back.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::world::World;
use serde_json::Value;

fn model() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/models/all-MiniLM-L6-v2");
    assert!(
        dir.join("model.safetensors").is_file(),
        "run scripts/install-embedder {} (scripts/test does)",
        dir.display()
    );
    dir
}

/// Runs `nerd` in the world's workspace with the embedding model at `model`.
fn nerd(w: &World, model: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(args)
        .current_dir(&w.ws)
        .env("HOME", &w.home)
        .env("XDG_STATE_HOME", &w.state)
        .env("NERD_EMBEDDING_MODEL", model)
        .output()
        .unwrap()
}

fn json(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{} {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn add(w: &World, model: &Path, text: &str) -> i64 {
    json(&nerd(w, model, &["memory", "add", text, "--json"]))["id"].as_i64().unwrap()
}

fn search(w: &World, model: &Path, query: &str) -> Value {
    json(&nerd(w, model, &["memory", "search", query, "-k", "3", "--json"]))
}

fn ids(found: &Value) -> Vec<i64> {
    found["items"].as_array().unwrap().iter().map(|h| h["id"].as_i64().unwrap()).collect()
}

const RETRY: &str = "the retry logic backs off exponentially in billing/retry.py";
const OTHERS: &[&str] = &[
    "use tabs in Go files",
    "CI runs on GitHub Actions with a matrix of Python 3.9 to 3.12",
    "the flaky test is tests/test_network.py::test_timeout",
    "database migrations live in db/migrate and run with alembic",
    "the frontend is built with vite and served from dist/",
];

#[test]
fn a_memory_from_one_process_is_recalled_by_a_paraphrase_in_the_next_and_forgetting_removes_it_everywhere() {
    let (w, model) = (World::new(), model());
    let retry = add(&w, &model, RETRY);
    for text in OTHERS {
        add(&w, &model, text);
    }
    // No word in common with the memory: only meaning can find it.
    let found = search(&w, &model, "how do we wait between failed charges");
    assert_eq!(found["recall"], "meaning+words");
    assert_eq!(ids(&found).first(), Some(&retry), "{found:#}");
    let best = &found["items"][0];
    assert_eq!((best["text"].as_str(), best["kind"].as_str()), (Some(RETRY), Some("note")));
    assert!(best["score"].as_f64().unwrap() > 0.0 && best["meaning"].as_f64().is_some(), "{best}");
    // Words still count: an exact term ranks its memory first.
    assert_eq!(ids(&search(&w, &model, "alembic")).first(), Some(&(retry + 4)));

    let forgot = json(&nerd(&w, &model, &["memory", "forget", &retry.to_string(), "--json"]));
    assert_eq!(forgot["forgot"]["id"].as_i64(), Some(retry));
    assert!(!ids(&search(&w, &model, "how do we wait between failed charges")).contains(&retry));
    assert!(!ids(&search(&w, &model, "retry logic backs off exponentially")).contains(&retry));
    // Gone from the table and from both indexes, not only from the answers.
    let state = w.ws.join(".nerd/state.db");
    let conn = rusqlite::Connection::open(&state).unwrap();
    let words: i64 = conn
        .query_row("SELECT count(*) FROM memory_words WHERE memory_words MATCH 'exponentially'", [], |r| r.get(0))
        .unwrap();
    let vectors: i64 =
        conn.query_row("SELECT count(*) FROM memory_vectors_rowids WHERE id = ?1", [retry], |r| r.get(0)).unwrap();
    assert_eq!((words, vectors), (0, 0));
    let again = nerd(&w, &model, &["memory", "forget", &retry.to_string()]);
    assert_eq!(again.status.code(), Some(2), "forgetting twice is a usage error");
    assert!(String::from_utf8_lossy(&again.stderr).contains("nerd memory list"));
}

#[test]
fn without_the_model_recall_is_by_words_and_says_so_and_vectors_follow_when_it_returns() {
    let (w, model) = (World::new(), model());
    let absent = w.home.join("no-model");
    let out = nerd(&w, &absent, &["memory", "add", RETRY]);
    assert_eq!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(said.matches("recalling by words only").count(), 1, "said once: {said}");
    assert!(said.contains("scripts/install-embedder"), "{said}");
    for text in OTHERS {
        add(&w, &absent, text);
    }
    let by_words = search(&w, &absent, "exponentially backing off");
    assert_eq!(by_words["recall"], "words");
    assert!(by_words["words_only"].as_str().unwrap().contains("no embedding model"));
    assert_eq!(ids(&by_words), vec![1], "{by_words:#}");
    assert!(by_words["items"][0].get("meaning").is_none());
    assert!(ids(&search(&w, &absent, "how do we wait between failed charges")).is_empty(), "no word in common");

    let stats = json(&nerd(&w, &model, &["memory", "stats", "--json"]));
    assert_eq!((stats["memories"].as_i64(), stats["vectors"].as_i64()), (Some(6), Some(0)));
    // The model is back: the memories stored without it are embedded on the next recall.
    assert_eq!(ids(&search(&w, &model, "how do we wait between failed charges")).first(), Some(&1));
    let stats = json(&nerd(&w, &model, &["memory", "stats", "--json"]));
    assert_eq!(stats["vectors"].as_i64(), Some(6));
}

#[test]
fn bad_memory_commands_are_usage_errors_and_list_filters_by_kind() {
    let (w, model) = (World::new(), model());
    let absent = w.home.join("no-model");
    for (args, needle) in [
        (&["memory", "add", "   "][..], "needs some text"),
        (&["memory", "add", "x", "--kind", "change"][..], "written by the agent"),
        (&["memory", "list", "--kind", "mood"][..], "not a kind of memory"),
    ] {
        let out = nerd(&w, &absent, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    add(&w, &model, "keep answers short");
    let pref = json(&nerd(&w, &model, &["memory", "add", "use tabs in Go", "--kind", "preference", "--json"]));
    let listed = json(&nerd(&w, &model, &["memory", "list", "--kind", "preference", "--json"]));
    assert_eq!(ids(&listed), vec![pref["id"].as_i64().unwrap()]);
    assert_eq!(listed["items"][0]["kind"], "preference");
}

#[test]
fn a_later_process_grounds_the_function_we_looked_at_before_on_what_an_earlier_request_touched() {
    let w = World::new();
    let absent = w.home.join("no-model");
    std::fs::write(
        w.ws.join("src/lib.rs"),
        "pub fn canary() -> u32 {\n    7\n}\n\npub fn backoff(attempt: u32) -> u32 {\n    2u32.pow(attempt)\n}\n",
    )
    .unwrap();
    // Nothing was done before: the reference grounds on nothing.
    let first = nerd(&w, &absent, &["run", "--json", "explain the function we looked at before"]);
    let events = String::from_utf8_lossy(&first.stdout).to_string();
    assert!(!events.contains("\"focus\""), "{events}");
    assert!(events.contains("Nothing in this workspace matches"), "{events}");

    let out = nerd(&w, &absent, &["run", "--json", "explain backoff"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let listed = json(&nerd(&w, &absent, &["memory", "list", "--kind", "request", "--json"]));
    let newest = &listed["items"][0];
    assert_eq!(newest["subject"], "src/lib.rs#backoff", "{listed:#}");
    assert!(newest["text"].as_str().unwrap().contains("explain backoff"), "{newest}");

    // A new process: the reference is grounded on the memory, confidently, and answered.
    let later = nerd(&w, &absent, &["run", "--json", "explain the function we looked at before"]);
    let events: Vec<Value> =
        String::from_utf8_lossy(&later.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let focus = events.iter().find(|e| e["event"] == "focus").expect("a focus event");
    assert_eq!(focus["candidates"][0]["symbol"], "src/lib.rs#backoff", "{focus}");
    assert_eq!(focus["candidates"][0]["confidence"], 0.9);
    assert_eq!(focus["candidates"].as_array().unwrap().len(), 1, "{focus}");
    let done = events.iter().find(|e| e["event"] == "done").unwrap();
    assert_eq!(done["status"], "answered", "{done}");

    // Its memory does not repeat the target in its text, and recall by the target's name finds it.
    let listed = json(&nerd(&w, &absent, &["memory", "list", "--kind", "request", "--json"]));
    let newest = &listed["items"][0];
    assert_eq!(newest["text"], "explain the function we looked at before: answered", "{newest}");
    assert_eq!(newest["subject"], "src/lib.rs#backoff", "{newest}");
    let found = search(&w, &absent, "backoff");
    assert!(ids(&found).contains(&newest["id"].as_i64().unwrap()), "{found:#}");
    let found = search(&w, &absent, "canary");
    assert!(!ids(&found).contains(&newest["id"].as_i64().unwrap()), "{found:#}");
}

#[test]
fn remember_and_forget_requests_go_through_perception_to_the_same_memory() {
    let (w, model) = (World::new(), model());
    let run = |request: &str| {
        let out = nerd(&w, &model, &["run", request]);
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string())
    };
    let (code, said) = run("remember that the retry logic backs off exponentially in billing/retry.py");
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("Remembered (note"), "{said}");
    let (_, said) = run("Remember: I prefer early returns");
    assert!(said.contains("Remembered (preference"), "{said}");
    // Found by a paraphrase from another process, through the same memory.
    let found = search(&w, &model, "how do we wait between failed charges");
    assert!(found["items"][0]["text"].as_str().unwrap().contains("backs off exponentially"), "{found:#}");

    let (code, said) = run("forget the note about the exponential retry backoff");
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("Forgot memory"), "{said}");
    let left = json(&nerd(&w, &model, &["memory", "list", "--json"]));
    let texts: Vec<&str> = left["items"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert!(texts.iter().all(|t| !t.contains("exponentially")), "nothing keeps the forgotten text: {texts:?}");
    assert_eq!(texts, vec!["I prefer early returns"], "memory operations leave no request memory of their own");
    let (_, said) = run("forget the deployment password");
    assert!(said.contains("Which memory") || said.contains("Nothing I remember"), "{said}");
    assert_eq!(
        json(&nerd(&w, &model, &["memory", "stats", "--json"]))["memories"],
        1,
        "a vague forget forgets nothing"
    );
}

/// `PRAGMA integrity_check` of the durable state, opened read-only.
fn integrity(db: &Path) -> String {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0)).unwrap_or_else(|e| e.to_string())
}

#[test]
fn sigkill_during_memory_writes_damages_nothing_and_loses_no_committed_memory() {
    let (w, model) = (World::new(), model());
    let mut seed = 29u64;
    let mut next = |below: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % below
    };
    let (trials, mut damaged, mut committed, mut killed) = (30, Vec::new(), Vec::new(), 0);
    for trial in 0..trials {
        let text = format!("memory {trial}: the cache for tenant {trial} is flushed every {} minutes", trial + 1);
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_nerd"))
            .args(["memory", "add", &text, "--json"])
            .current_dir(&w.ws)
            .env("HOME", &w.home)
            .env("XDG_STATE_HOME", &w.state)
            .env("NERD_EMBEDDING_MODEL", &model)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // A second writer at the same time, left to finish.
        let other_text = format!("finished writer {trial}");
        let other = std::thread::spawn({
            let (ws, home, state, model) = (w.ws.clone(), w.home.clone(), w.state.clone(), model.clone());
            move || {
                std::process::Command::new(env!("CARGO_BIN_EXE_nerd"))
                    .args(["memory", "add", &other_text, "--json"])
                    .current_dir(ws)
                    .env("HOME", home)
                    .env("XDG_STATE_HOME", state)
                    .env("NERD_EMBEDDING_MODEL", model)
                    .output()
                    .unwrap()
            }
        });
        std::thread::sleep(Duration::from_millis(200 + next(2600)));
        let pid = child.id() as i32;
        // SAFETY: kill(2) on a child this test spawned and has not reaped yet.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        let out = child.wait_with_output().unwrap();
        // What the killed process reported as stored must be there afterwards.
        if let Ok(v) = serde_json::from_slice::<Value>(&out.stdout) {
            committed.push((v["id"].as_i64().unwrap(), text));
        } else {
            killed += 1;
        }
        let other = other.join().unwrap();
        committed.push((json(&other)["id"].as_i64().unwrap(), format!("finished writer {trial}")));
        let verdict = integrity(&w.ws.join(".nerd/state.db"));
        if verdict != "ok" {
            damaged.push(format!("trial {trial}: {verdict}"));
        }
    }
    let listed = json(&nerd(&w, &model, &["memory", "list", "--limit", "1000", "--json"]));
    let stored: std::collections::BTreeMap<i64, String> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_i64().unwrap(), m["text"].as_str().unwrap().to_string()))
        .collect();
    let lost: Vec<&(i64, String)> = committed.iter().filter(|(id, text)| stored.get(id) != Some(text)).collect();
    // Killed after the commit but before saying so: stored whole all the same.
    let unreported = stored.values().filter(|t| t.starts_with("memory ")).count()
        - committed.iter().filter(|(_, t)| t.starts_with("memory ")).count();
    let stats = json(&nerd(&w, &model, &["memory", "stats", "--json"]));
    eprintln!(
        "kill -9 during memory writes: {trials} trials, {killed} killed before they reported ({unreported} of those had \
         committed), {} committed and reported, {} damaged, {} lost",
        committed.len(),
        damaged.len(),
        lost.len()
    );
    assert!(damaged.is_empty(), "{damaged:#?}");
    assert!(lost.is_empty(), "{lost:#?}");
    // A memory and its vectors are written together: none is left half-stored.
    assert_eq!(stats["vectors"], stats["memories"], "{stats}");
}

#[test]
fn a_said_link_is_grounded_walked_over_calls_names_its_test_later_and_leaves_with_its_memory() {
    let w = World::new();
    let absent = w.home.join("no-model");
    std::fs::write(
        w.ws.join("src/lib.rs"),
        "pub fn charge() -> u32 {\n    retry()\n}\n\nfn retry() -> u32 {\n    3\n}\n\npub fn load_settings() -> u32 {\n    1\n}\n\n#[test]\nfn test_timeout() {\n    assert_eq!(charge(), 3);\n}\n",
    )
    .unwrap();
    let out = nerd(&w, &absent, &["run", "remember that retry is configured by load_settings"]);
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("Remembered (fact"), "{said}");
    assert!(
        said.contains(r#"knowledge_link("src/lib.rs#retry", "configured_by", "src/lib.rs#load_settings")"#),
        "both ends grounded on the workspace: {said}"
    );
    let flaky = json(&nerd(&w, &absent, &["memory", "add", "the flaky test is test_timeout", "--json"]));
    assert_eq!(flaky["kind"], "fact", "{flaky}");
    assert_eq!(flaky["link"]["a"], "src/lib.rs#test_timeout", "{flaky}");
    assert_eq!(flaky["link"]["b"], "flaky test", "{flaky}");
    // Words that state no link stay a note, with no link.
    let note = json(&nerd(&w, &absent, &["memory", "add", "we release on Fridays", "--json"]));
    assert_eq!(note["kind"], "note");
    assert!(note.get("link").is_none(), "{note}");

    // A multi-hop query: from charge, a call reaches retry, whose link is learned.
    let reached = json(&nerd(&w, &absent, &["memory", "links", "charge", "--json"]));
    let items = reached["items"].as_array().unwrap();
    let configured = items.iter().find(|i| i["relation"] == "configured_by").expect("the retry link is reached");
    assert_eq!(configured["cost"], 1, "{reached:#}");
    assert_eq!(configured["path"], serde_json::json!(["src/lib.rs#charge", "calls src/lib.rs#retry"]));
    // From an unrelated function nothing learned is reached... except through its file.
    let far = json(&nerd(&w, &absent, &["memory", "links", "load_settings", "--json"]));
    let nearest = &far["items"][0];
    assert_eq!(nearest["relation"], "configured_by", "load_settings is the link's own end: {far:#}");
    assert_eq!(nearest["cost"], 0);

    // "The flaky test" is grounded on what graph memory names, confidently.
    let later = nerd(&w, &absent, &["run", "--json", "explain the flaky test"]);
    let events: Vec<Value> =
        String::from_utf8_lossy(&later.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let focus = events.iter().find(|e| e["event"] == "focus").expect("a focus event");
    assert_eq!(focus["candidates"][0]["symbol"], "src/lib.rs#test_timeout", "{focus}");
    assert_eq!(focus["candidates"][0]["confidence"], 0.9);
    // The kernel shows the link to the model when its end is activated.
    let context = json(&nerd(&w, &absent, &["context", "fix the flaky test", "--json"]));
    let atoms: Vec<&str> =
        context["context"]["atoms"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(atoms.contains(&r#"context_link("src/lib.rs#test_timeout", "is", "flaky test")"#), "{atoms:#?}");
    assert!(atoms.contains(&r#"context_seed("src/lib.rs#test_timeout", "target")"#), "{atoms:#?}");

    // Forgetting the memory that taught a link removes the link.
    let id = flaky["id"].as_i64().unwrap().to_string();
    json(&nerd(&w, &absent, &["memory", "forget", &id, "--json"]));
    let left = json(&nerd(&w, &absent, &["memory", "links", "--json"]));
    let relations: Vec<&str> =
        left["items"].as_array().unwrap().iter().map(|i| i["relation"].as_str().unwrap()).collect();
    assert_eq!(relations, vec!["configured_by"], "{left:#}");
}
