//! The local transducer with a real small model (SmolLM2-135M-Instruct, from
//! `scripts/install-model`) sampling under the intent grammar: the output must
//! be well-formed and cross the boundary; its content is not judged (a 135M
//! model reads requests poorly). Built and run with `--features local`.
#![cfg(feature = "local")]

use std::path::Path;

use nerd::model::local::Local;
use nerd::perceive::{intent_task, perceive, Perceived};

#[test]
fn a_real_small_model_under_the_grammar_yields_well_formed_intents() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/models/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(model.is_file(), "run scripts/install-model first (scripts/test does)");
    let mut local = Local::load(&model, 1, 7).unwrap().with_task(intent_task());
    for text in
        ["fix the failing test in parser_test.go", "where is parse_config defined?", "never use unwrap in library code"]
    {
        let started = std::time::Instant::now();
        match perceive(&mut local, text) {
            Perceived::Intent { intent, attempts } => {
                assert_eq!(
                    intent.verb.category(),
                    intent.category,
                    "{text}: the grammar keeps verbs in their category"
                );
                println!(
                    "{text:?} -> {}/{} in {attempts} attempt(s), {:?}",
                    intent.category,
                    intent.verb,
                    started.elapsed()
                );
            }
            Perceived::Unparsed { errors } => panic!("{text}: {errors:?}"),
        }
    }
    // The same seed gives the same reading.
    let mut again = Local::load(&model, 1, 7).unwrap().with_task(intent_task());
    let a = perceive(&mut local, "rename login to sign_in");
    let b = perceive(&mut again, "rename login to sign_in");
    assert_eq!(a, b);
}

/// The offline coder end to end: `nerd run --provider local` on a tiny broken
/// Python package, the small Qwen2.5-Coder (`scripts/install-model --coder
/// 0.5b`) writing patches under the patch grammar narrowed to the files it may
/// change. What the patch says is not judged here (recorded transcripts judge
/// patch content); that every answer parses, names only allowed files and goes
/// through validation, the build check and the test run is.
#[test]
fn the_small_local_coder_writes_grammar_bound_patches_through_the_whole_loop() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/models/qwen2.5-coder-0.5b-instruct.gguf");
    assert!(model.is_file(), "run scripts/install-model --coder 0.5b first (scripts/test does)");
    let repo = tempfile::tempdir().unwrap();
    let dir = repo.path();
    std::fs::create_dir_all(dir.join("calc")).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("calc/__init__.py"), "").unwrap();
    std::fs::write(dir.join("calc/ops.py"), "def add(a, b):\n    return a - b\n").unwrap();
    std::fs::write(
        dir.join("tests/test_ops.py"),
        "from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    )
    .unwrap();
    std::fs::write(dir.join(".gitignore"), "__pycache__/\n").unwrap();
    for args in [&["init", "-q", "-b", "main"][..], &["add", "-A"], &["commit", "-q", "-m", "init"]] {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap();
        assert!(ok.success());
    }
    let home = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nerd"))
        .args(["run", "--json", "--provider", "local", "--retry-budget", "2", "fix the failing tests"])
        .current_dir(dir)
        .env("HOME", home.path())
        .env("NERD_LOCAL_MODEL", &model)
        .env("NERD_LOCAL_THREADS", "2")
        .env("NERD_SEED", "7")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let events: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let patches: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "patch").collect();
    let end = events.last().unwrap();
    println!("{} patch(es) in {:?}, ended {}:\n{stdout}", patches.len(), started.elapsed(), end["status"]);
    assert!(!patches.is_empty(), "the local coder was asked for a patch: {stdout}");
    let calls: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "model").collect();
    assert_eq!(calls.len(), patches.len(), "one model call per patch proposal");
    assert!(
        calls.iter().all(|c| c["tokens"]["prompt"].as_u64() > Some(100)),
        "the prompt's tokens are counted: {calls:?}"
    );
    for p in &patches {
        let reason = p["reason"].as_str().unwrap_or("");
        assert!(!reason.contains("not a patch proposal"), "the grammar keeps every answer well-formed: {reason}");
        assert!(!reason.contains("outside the focus"), "the grammar names only allowed files: {reason}");
        assert!(!reason.contains("are not within its"), "the grammar addresses only lines shown: {reason}");
    }
    assert!(["succeeded", "escalated"].contains(&end["status"].as_str().unwrap()), "{end}");
}

/// A local model explains under the reply grammar: what it writes crosses the
/// same boundary as any model's reply and cites only the file it was shown.
/// What the prose says is not judged here.
#[test]
fn the_small_local_coder_writes_explanations_that_cross_the_reply_boundary() {
    use nerd::model::Transducer;
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/models/qwen2.5-coder-0.5b-instruct.gguf");
    assert!(model.is_file(), "run scripts/install-model --coder 0.5b first (scripts/test does)");
    let mut local = Local::load(&model, 2, 7).unwrap().with_task(nerd::agent::explain::task());
    local.narrow(&[nerd::model::Shown::new("calc/ops.py", vec![(1, 9)])]);
    let prompt = "Request: explain mul\n\ncalc/ops.py:\n1: def add(a, b):\n2:     return a + b\n3:\n4:\n5: def mul(a, b):\n6:     total = 0\n7:     for _ in range(b):\n8:         total = add(total, a)\n9:     return total\n";
    let started = std::time::Instant::now();
    let raw = local.transduce(prompt, None).unwrap();
    let reply = nerd::articulate::parse_reply(&raw).unwrap_or_else(|e| panic!("{e}: {raw}"));
    println!("{:?}: {raw}", started.elapsed());
    assert!(!reply.surface_response.trim().is_empty(), "{raw}");
    assert!(reply.citations.iter().all(|c| c.path == "calc/ops.py" && (1..=9).contains(&c.line)), "{raw}");
}

/// How a local model reads the freshest held-out public set, through the same boundary
/// and grammar as `nerd perceive --provider local`; a measurement, not a check
/// (`NERD_PERCEIVE_MODEL=target/models/….gguf NERD_PERCEIVE_ROWS=100 cargo test --release
/// --features nerd/local --test local_model model_reads -- --ignored --nocapture`).
#[test]
#[ignore]
fn model_reads_the_fresh_public_set() {
    let model = std::env::var("NERD_PERCEIVE_MODEL").map(std::path::PathBuf::from).unwrap_or_else(|_| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    });
    let limit: usize = std::env::var("NERD_PERCEIVE_ROWS").ok().and_then(|n| n.parse().ok()).unwrap_or(usize::MAX);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/perception/public5.tsv");
    let rows: Vec<Vec<String>> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.splitn(6, '\t').map(str::to_string).collect())
        .collect();
    // Rows are grouped by category: a sample takes every k-th row, so it keeps the mix.
    let step = rows.len().div_ceil(limit.max(1)).max(1);
    let rows: Vec<Vec<String>> = rows.into_iter().step_by(step).collect();
    let mut local = Local::load(&model, 2, 7).unwrap().with_task(intent_task());
    let (mut category, mut both, mut questions, mut as_mutations) = (0, 0, 0, 0);
    let mut offline_both = 0;
    let started = std::time::Instant::now();
    for row in &rows {
        let (want_category, want_verb, text) = (&row[1], &row[2], &row[5]);
        let (got_category, got_verb) = match perceive(&mut local, text) {
            Perceived::Intent { intent, .. } => (intent.category.to_string(), intent.verb.to_string()),
            Perceived::Unparsed { .. } => ("unparsed".into(), "unparsed".into()),
        };
        if let Perceived::Intent { intent, .. } = perceive(&mut nerd::perceive::Offline, text) {
            offline_both += usize::from(intent.category.as_str() == want_category && intent.verb.as_str() == want_verb);
        }
        category += usize::from(&got_category == want_category);
        both += usize::from(&got_category == want_category && &got_verb == want_verb);
        questions += usize::from(want_category == "query");
        as_mutations += usize::from(want_category == "query" && got_category == "mutation");
        if &got_category != want_category || &got_verb != want_verb {
            println!("  miss {text:?}: want {want_category}/{want_verb}, got {got_category}/{got_verb}");
        }
    }
    let n = rows.len();
    println!(
        "{}: {n} rows in {:?}: category {category} ({:.1}%), both {both} ({:.1}%), {as_mutations} of {questions} questions read as mutations; the offline transducer on the same rows (whose second reader trained on them): both {offline_both}",
        model.display(),
        started.elapsed(),
        100.0 * category as f64 / n as f64,
        100.0 * both as f64 / n as f64
    );
}
