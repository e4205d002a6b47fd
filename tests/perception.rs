//! The offline transducer against the labelled set in
//! `tests/fixtures/perception/intents.tsv`, through the same boundary a model's
//! output crosses. Category and verb must both be right to count.

mod common;

use nerd::perceive::{perceive, Offline, Perceived};

/// (split, category, verb, utterance) rows.
fn rows() -> Vec<(String, String, String, String)> {
    include_str!("fixtures/perception/intents.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.splitn(4, '\t').collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string(), f[3].to_string())
        })
        .collect()
}

/// Accuracy of one split, and the misses.
fn score(split: &str) -> (f64, usize, Vec<String>) {
    let rows: Vec<_> = rows().into_iter().filter(|r| r.0 == split).collect();
    let mut misses = Vec::new();
    for (_, category, verb, text) in &rows {
        match perceive(&mut Offline, text) {
            Perceived::Intent { intent, .. }
                if intent.category.as_str() == category && intent.verb.as_str() == verb => {}
            Perceived::Intent { intent, .. } => {
                misses.push(format!("{text:?}: want {category}/{verb}, got {}/{}", intent.category, intent.verb))
            }
            Perceived::Unparsed { errors } => misses.push(format!("{text:?}: unparsed {errors:?}")),
        }
    }
    let n = rows.len();
    ((n - misses.len()) as f64 / n as f64, n, misses)
}

#[test]
fn offline_accuracy_on_the_tuning_split() {
    let (acc, n, misses) = score("tune");
    assert!(n >= 50, "{n}");
    assert!(acc >= 0.9, "{:.1}% of {n}; misses:\n{}", acc * 100.0, misses.join("\n"));
}

#[test]
fn offline_accuracy_on_the_held_out_split() {
    let (acc, n, misses) = score("holdout");
    assert!(n >= 20, "{n}");
    assert!(acc >= 0.9, "{:.1}% of {n}; misses:\n{}", acc * 100.0, misses.join("\n"));
}

/// (split, category, verb, utterance) rows of a set collected from public sources
/// (`split`, `category`, `verb`, `how`, `source`, `utterance` columns).
fn public(file: &str) -> Vec<(String, String, String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/perception").join(file);
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.splitn(6, '\t').collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string(), f[5].to_string())
        })
        .collect()
}

/// How the transducer reads `rows`: category right, verb right, both right, questions read as
/// mutations, and the misses.
struct Scored {
    n: usize,
    category: usize,
    verb: usize,
    both: usize,
    questions_as_mutations: Vec<String>,
    misses: Vec<String>,
}

fn scored(rows: &[(String, String, String, String)]) -> Scored {
    let mut s = Scored { n: rows.len(), category: 0, verb: 0, both: 0, questions_as_mutations: vec![], misses: vec![] };
    for (_, category, verb, text) in rows {
        let (got_category, got_verb) = match perceive(&mut Offline, text) {
            Perceived::Intent { intent, .. } => (intent.category.as_str(), intent.verb.as_str()),
            Perceived::Unparsed { .. } => ("unparsed", "unparsed"),
        };
        s.category += usize::from(got_category == category);
        s.verb += usize::from(got_verb == verb);
        if got_category == category && got_verb == verb {
            s.both += 1;
        } else {
            s.misses.push(format!("{text:?}: want {category}/{verb}, got {got_category}/{got_verb}"));
        }
        if category == "query" && got_category == "mutation" {
            s.questions_as_mutations.push(text.clone());
        }
    }
    s
}

impl Scored {
    fn line(&self) -> String {
        let pct = |k: usize| 100.0 * k as f64 / self.n.max(1) as f64;
        format!(
            "{} rows: category {:.1}%, verb {:.1}%, both {:.1}%, questions read as mutations {}",
            self.n,
            pct(self.category),
            pct(self.verb),
            pct(self.both),
            self.questions_as_mutations.len()
        )
    }
}

#[test]
fn offline_reads_the_public_tuning_rows_and_never_takes_a_question_for_a_mutation() {
    // Each later set was held out when collected and is tuning data since its first score
    // (tests/fixtures/perception/README.md lists those scores).
    for file in ["public.tsv", "public2.tsv", "public3.tsv", "public4.tsv"] {
        let rows = public(file);
        assert!(rows.len() >= 250, "{file}: {}", rows.len());
        let s = scored(&rows);
        assert!(s.questions_as_mutations.is_empty(), "{file}: {}\n{:#?}", s.line(), s.questions_as_mutations);
        assert!(s.both * 100 >= s.n * 88, "{file}: {}; misses:\n{}", s.line(), s.misses.join("\n"));
    }
}

/// public5.tsv … public31.tsv were the fresh sets of the last twenty-seven rounds (first scores: 82.5% /
/// 59.9% / 11 questions read as mutations, the rules alone; 87.0% / 77.5% / 9, 89.0% / 75.3% / 2,
/// 91.2% / 75.1% / 2, 86.4% / 73.4% / 2, 84.0% / 58.7% / 7, 88.5% / 73.4% / 6, 80.2% / 57.6% / 6,
/// 78.2% / 60.9% / 8, 84.4% / 63.9% / 6, 87.1% / 68.0% / 9, 80.6% / 60.2% / 10, 85.7% / 62.7% / 6 and 86.0% /
/// 70.7% / 6, 91.1% / 74.8% / 6, 83.8% / 66.5% / 11, 86.1% / 72.2% / 8, 81.7% / 64.4% / 10, 86.1% /
/// 67.4% / 10, 88.7% / 71.2% / 8, 91.6% / 76.1% / 5, 86.0% / 76.2% / 12, 84.9% / 75.4% / 4, 86.9% /
/// 67.9% / 6, 88.3% / 68.7% / 3, 88.2% / 74.7% / 7 and 86.4% / 66.7% / 6, rules and second reader); since
/// then they train the
/// second reader (`scripts/train-perception`), and their misses were read for rules that
/// generalise (a question is never a standing rule, wanting to know is asking, "locate",
/// confirming nothing broke, git state, facts about the project, whether a removal is needed, "can
/// we …" proposes a change, the state of a build or of the work asked about, a request that opens
/// by making something, documents by their names, symptoms said with "never", "what is …" with a
/// specific cue, problems stated without a verb of change, asking for news, rules for every time a
/// condition holds, suggested changes). Each floor is a little below what the set reads now.
#[test]
fn offline_reads_the_last_rounds_sets_it_learned_from() {
    for (file, category, both) in [
        ("public5.tsv", 93, 88),
        ("public6.tsv", 93, 88),
        ("public7.tsv", 93, 88),
        ("public8.tsv", 93, 88),
        ("public9.tsv", 93, 88),
        ("public10.tsv", 93, 84),
        ("public11.tsv", 93, 88),
        ("public12.tsv", 91, 85),
        ("public13.tsv", 91, 84),
        ("public14.tsv", 93, 88),
        ("public15.tsv", 93, 88),
        ("public16.tsv", 90, 85),
        ("public17.tsv", 90, 85),
        ("public18.tsv", 93, 88),
        ("public19.tsv", 93, 88),
        ("public20.tsv", 91, 88),
        ("public21.tsv", 93, 88),
        ("public22.tsv", 92, 87),
        ("public23.tsv", 93, 86),
        ("public24.tsv", 93, 88),
        ("public25.tsv", 93, 88),
        ("public26.tsv", 91, 85),
        ("public27.tsv", 92, 88),
        ("public28.tsv", 92, 88),
        ("public29.tsv", 92, 86),
        ("public30.tsv", 93, 87),
        ("public31.tsv", 92, 86),
    ] {
        let s = scored(&public(file));
        assert!(s.category * 100 >= s.n * category, "{file}: {}", s.line());
        assert!(s.both * 100 >= s.n * both, "{file}: {}", s.line());
        assert!(s.questions_as_mutations.len() <= 4, "{file}: {}", s.line());
    }
}

/// public32.tsv was collected by someone who never read the transducer and frozen before it was
/// first scored: these floors are that first score (category 263 of 312, both 219, 13 questions
/// read as mutations; the rules alone read 263, 201 and 16, the second reader alone 264, 210 and
/// 15), so a change that reads fresh requests worse fails here. It trains the second reader since
/// that score was recorded; the next fresh set takes its place here.
#[test]
fn offline_on_the_fresh_public_set_is_scored_never_tuned() {
    let rows = public("public32.tsv");
    assert!(rows.len() >= 312 && rows.iter().all(|r| r.0 == "holdout"), "{}", rows.len());
    let s = scored(&rows);
    assert!(s.category >= 263, "{}", s.line());
    assert!(s.both >= 219, "{}", s.line());
    assert!(s.questions_as_mutations.len() <= 13, "{}", s.line());
}

/// Prints both splits' figures (`cargo test --test perception -- --nocapture report`).
#[test]
fn report() {
    for split in ["tune", "holdout"] {
        let (acc, n, misses) = score(split);
        println!("{split}: {:.1}% of {n}", acc * 100.0);
        for m in misses {
            println!("  miss {m}");
        }
    }
    for file in [
        "public.tsv",
        "public2.tsv",
        "public3.tsv",
        "public4.tsv",
        "public5.tsv",
        "public6.tsv",
        "public7.tsv",
        "public8.tsv",
        "public9.tsv",
        "public10.tsv",
        "public11.tsv",
        "public12.tsv",
        "public13.tsv",
        "public14.tsv",
        "public15.tsv",
        "public16.tsv",
        "public17.tsv",
        "public18.tsv",
        "public19.tsv",
        "public20.tsv",
        "public21.tsv",
        "public22.tsv",
        "public23.tsv",
        "public24.tsv",
        "public25.tsv",
        "public26.tsv",
        "public27.tsv",
        "public28.tsv",
        "public29.tsv",
        "public30.tsv",
        "public31.tsv",
        "public32.tsv",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/perception").join(file);
        if path.exists() {
            let s = scored(&public(file));
            println!("{file}: {}", s.line());
            for m in s.misses {
                println!("  miss {m}");
            }
        }
    }
    let texts: Vec<String> = rows().into_iter().map(|r| r.3).collect();
    let started = std::time::Instant::now();
    for _ in 0..20 {
        for t in &texts {
            let _ = perceive(&mut Offline, t);
        }
    }
    let per = started.elapsed().as_secs_f64() * 1e6 / (20 * texts.len()) as f64;
    println!("latency: {per:.1} µs per utterance (transducer + boundary, this build's profile)");
}

#[test]
fn nerd_hrf_validate_reports_hrf_codes() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hrf");
    let dir = tempfile::tempdir().unwrap();
    let out = common::nerd(dir.path(), &["hrf", "validate", fixtures.join("valid.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let out =
        common::nerd(dir.path(), &["hrf", "validate", fixtures.join("tool_call_on_final.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "HRF_SEMANTIC_VALIDATION_FAILED");
    let details = v["error"]["details"].to_string();
    assert!(
        details.contains("plugin.function") && details.contains("commentary") && details.contains("only assistant"),
        "{details}"
    );
    let out = common::nerd(dir.path(), &["hrf", "validate", "/definitely/missing.json"]);
    assert_eq!(out.status.code(), Some(2));
}

fn perceive_json(dir: &std::path::Path, text: &str) -> serde_json::Value {
    let out = common::nerd(dir, &["perceive", "--json", text]);
    assert!(out.status.success(), "{text}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn perceive_grounds_references_and_asks_when_unsure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/auth.rs"), "pub fn login() {}\npub fn logout() {}\n").unwrap();
    std::fs::write(dir.path().join("src/config.rs"), "pub fn parse_config() {}\n").unwrap();
    common::git(dir.path(), &["init", "-q", "-b", "main"]);

    let v = perceive_json(dir.path(), "Search for uses of parse_config");
    assert_eq!((v["category"].as_str(), v["verb"].as_str()), (Some("query"), Some("search")));
    assert_eq!(v["focus"][0]["symbol"], "src/config.rs#parse_config");
    assert!(v["clarification"].is_null(), "{v}");
    assert_eq!(v["next_action"], "answer_query");

    let v = perceive_json(dir.path(), "refactor the auth thing");
    let q = v["clarification"].as_str().unwrap_or_default();
    assert!(q.contains("src/auth.rs#login") && q.contains("src/auth.rs#logout"), "{v}");
    assert_eq!(v["strategy"], "clarify");
    assert_eq!(v["next_action"], "ask_clarification", "only an interrogative action while unsure");

    let v = perceive_json(dir.path(), "rename login");
    assert!(v["clarification"].as_str().unwrap_or_default().contains("new name"), "{v}");

    let v = perceive_json(dir.path(), "rename login to sign_in");
    assert!(v["clarification"].is_null(), "{v}");
    assert_eq!(v["constraints"][0], "new name: sign_in");
    assert_eq!(v["next_action"], "apply_refactor");

    let out = common::nerd(dir.path(), &["perceive", "  "]);
    assert_eq!(out.status.code(), Some(2));
    let out = common::nerd(dir.path(), &["perceive", "--provider", "openai", "x"]);
    assert_eq!(out.status.code(), Some(2), "only the offline transducer exists in this build");
}
