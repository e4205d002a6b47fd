//! Ephemeral generalists end to end through the real binary: "explain the
//! architecture" of a workspace with several top-level areas makes the
//! kernel delegate one read-only survey per area, shared out among at most
//! `[shards] max_parallel` children that run side by side; their progress is
//! shown as they go, each is a judged and audited spawn whose token covers
//! only its areas, and what they report comes back as facts the answer is
//! read from (the areas' dependency cycle included). The same survey without
//! children says the same; children the person refuses leave the survey to
//! the parent.

mod common;

use std::path::Path;

use serde_json::Value;

/// A Python workspace of four areas: `api` and `db` call each other, `util` is called, `tests` tests.
fn workspace(max_parallel: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = [
        ("api/__init__.py", ""),
        (
            "api/routes.py",
            "from db.store import save, load\nfrom util.fmt import shout\n\n\ndef create(x):\n    \"\"\"Creates a record.\"\"\"\n    return save(shout(x))\n\n\ndef fetch(k):\n    if k and k > 0:\n        return load(k)\n    return None\n",
        ),
        ("db/__init__.py", ""),
        (
            "db/store.py",
            "from api.routes import fetch\n\nROWS = {}\n\n\ndef save(x):\n    ROWS[len(ROWS) + 1] = x\n    return x\n\n\ndef load(k):\n    return ROWS.get(k)\n\n\ndef reload(k):\n    return fetch(k)\n",
        ),
        ("util/__init__.py", ""),
        ("util/fmt.py", "def shout(s):\n    \"\"\"Shouts it.\"\"\"\n    return s.upper() if s else s\n"),
        (
            "tests/test_api.py",
            "from api.routes import create, fetch\n\n\ndef test_create():\n    assert create(\"a\") == \"A\"\n\n\ndef test_fetch():\n    assert fetch(0) is None\n",
        ),
        // A workspace this small is surveyed faster by one process: the threshold is lowered to see children.
        (".nerd/config.toml", &format!("[shards]\nmax_parallel = {max_parallel}\ndelegate_min_files = 1\n")),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    common::git(root, &["init", "-q", "-b", "main"]);
    common::git(root, &["add", "-A"]);
    common::git(root, &["commit", "-q", "-m", "four areas"]);
    dir
}

fn run_json(root: &Path, args: &[&str]) -> (i32, Vec<Value>) {
    let out = common::nerd(root, &[&["run", "--json"], args].concat());
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect();
    (out.status.code().unwrap_or(-1), events)
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["event"] == kind).collect()
}

fn answer(events: &[Value]) -> String {
    of_kind(events, "answer").last().map(|e| e["text"].as_str().unwrap_or_default().to_string()).unwrap_or_default()
}

/// The answer's area lines without who surveyed each.
fn area_lines(answer: &str) -> Vec<String> {
    answer
        .lines()
        .filter(|l| l.contains("/  ") || l.starts_with("  "))
        .map(|l| l.split(" [").next().unwrap_or(l).to_string())
        .collect()
}

#[test]
fn a_broad_survey_is_delegated_to_read_only_children_run_side_by_side() {
    let dir = workspace(3);
    let root = dir.path();
    let (code, events) = run_json(root, &["explain the architecture"]);
    assert_eq!(code, 0, "{events:#?}");
    let decided: Vec<&str> = of_kind(&events, "decided").iter().filter_map(|e| e["next_action"].as_str()).collect();
    assert_eq!(decided, ["delegate", "survey"]);

    // Four areas shared out among three children (max_parallel = 3), run at once.
    let children = of_kind(&events, "child");
    assert_eq!(children.len(), 6, "each child starts and ends: {children:#?}");
    let (mut running, mut most) = (0i32, 0i32);
    for c in &children {
        running += if c["state"] == "running" { 1 } else { -1 };
        most = most.max(running);
    }
    assert!((2..=3).contains(&most), "side by side, never more than max_parallel: {children:#?}");
    assert!(children.iter().filter(|c| c["state"] == "ended").all(|c| c["status"] == "answered"), "{children:#?}");

    let text = answer(&events);
    for area in ["api/", "db/", "tests/", "util/"] {
        let line = text.lines().find(|l| l.starts_with(area)).unwrap_or_else(|| panic!("{area}: {text}"));
        assert!(line.contains("[child "), "{line}");
    }
    assert!(text.contains("api/ <-> db/"), "the areas' cycle: {text}");
    assert!(text.contains("calls into: db/ (2), util/ (1)"), "{text}");
    assert!(text.contains("util/  2 files, 1 symbols, 1 public, 1 documented (100%)"), "{text}");
    assert!(text.contains("most branches: api/routes.py#fetch (2)"), "{text}");

    // Each child is a judged, audited spawn whose token reads and searches its own areas only,
    // and every area went to exactly one child.
    let records = common::audit_records(&common::nerd(root, &["audit", "show", "--json"]));
    let spawns: Vec<&Value> =
        records.iter().filter(|r| r["record"] == "result" && r["action"]["kind"] == "delegate").collect();
    assert_eq!(spawns.len(), 3, "{records:#?}");
    let mut covered = Vec::new();
    for s in &spawns {
        let detail = &s["outcome"];
        let scope = &detail["scope"];
        assert_eq!(scope["kinds"], serde_json::json!(["read_file", "search"]), "{detail:#}");
        assert_eq!(scope["paths"], s["action"]["paths"]);
        let areas: Vec<String> = scope["paths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().trim_end_matches("/**").to_string())
            .collect();
        let facts = detail["child"]["facts"].as_array().unwrap();
        assert!(!facts.is_empty(), "{detail:#}");
        for f in facts {
            let f = f.as_str().unwrap();
            assert!(areas.iter().any(|a| f.contains(&format!("(\"{a}\""))), "{f} is not about {areas:?}");
        }
        covered.extend(areas);
    }
    covered.sort();
    assert_eq!(covered, ["api", "db", "tests", "util"]);
    let decisions = records.iter().filter(|r| r["record"] == "decision" && r["action"]["kind"] == "delegate");
    assert!(decisions.clone().count() == 3 && decisions.clone().all(|d| d["decision"] == "allow"));
    assert!(common::nerd(root, &["audit", "verify"]).status.success(), "children and parent share one intact trail");

    // Children leave nothing in the workspace's memory.
    let memories = String::from_utf8_lossy(&common::nerd(root, &["memory", "list", "--json"]).stdout).to_string();
    assert!(!memories.contains("architecture of"), "{memories}");

    // The same survey without children says the same: one core, or the default threshold.
    for config in ["[shards]\nmax_parallel = 1\ndelegate_min_files = 1\n", "[shards]\nmax_parallel = 3\n"] {
        std::fs::write(root.join(".nerd/config.toml"), config).unwrap();
        let (code, alone) = run_json(root, &["explain the architecture"]);
        assert_eq!(code, 0);
        assert!(of_kind(&alone, "child").is_empty(), "{config}");
        assert_eq!(area_lines(&answer(&alone)), area_lines(&text), "{config}");
    }
}

#[test]
fn children_the_person_refuses_leave_the_survey_to_the_parent() {
    let dir = workspace(2);
    let root = dir.path();
    let (code, events) = run_json(root, &["--autonomy", "cautious", "--approval", "never", "explain the architecture"]);
    assert_eq!(code, 0, "{events:#?}");
    assert!(of_kind(&events, "child").is_empty(), "no child ran");
    let text = answer(&events);
    assert!(text.contains("Children that did not finish their survey"), "{text}");
    assert!(text.contains("api/ <-> db/"), "the parent surveyed every area itself: {text}");
    assert!(text.lines().filter(|l| l.contains("[surveyed here]")).count() == 4, "{text}");
}
