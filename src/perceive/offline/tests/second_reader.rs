//! The trained second reader: it decides as the training script's model does, and
//! overrules the rules only by a clear margin, never towards a change.

use super::*;

/// A second reading with this label and margin, as the trained model would give it.
fn second(label: &'static str, margin: f64) -> Option<Reading> {
    Some(Reading { label, margin })
}

/// The training script wrote what its model decides on a sample of the training rows; masking
/// names here and computing the features in `reader.rs` must give the same label and margin.
#[test]
fn the_second_reader_decides_as_the_trained_model_does() {
    let check = include_str!("../../../../tests/fixtures/perception/reader_check.tsv");
    let mut rows = 0;
    for line in check.lines().filter(|l| !l.starts_with('#')) {
        let mut cols = line.splitn(3, '\t');
        let (label, margin, text) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
        let margin: f64 = margin.parse().unwrap();
        let reading = second_reading(text).unwrap();
        assert_eq!(reading.label, label, "{text:?}");
        assert!((reading.margin - margin).abs() < 1e-3, "{text:?}: margin {} against {margin}", reading.margin);
        rows += 1;
    }
    assert!(rows > 300, "{rows} rows checked");
}

#[test]
fn a_proposed_change_is_never_overruled_into_a_question() {
    let sure = |text: &str, label: &'static str| -> (String, String) {
        let v: serde_json::Value = serde_json::from_str(&transduce_with(text, second(label, 5.0))).unwrap();
        (v["category"].as_str().unwrap().to_string(), v["verb"].as_str().unwrap().to_string())
    };
    let text = "Looks good. Can we also rename fetch_all to load_all?";
    assert_eq!(sure(text, "query/explain"), ("mutation".into(), "rename".into()), "not into a question");
    assert_eq!(sure(text, "mutation/refactor"), ("mutation".into(), "refactor".into()), "the change may differ");
    // Without the proposal, a question stays open to the second reader.
    assert_eq!(sure("Is there a rename helper here?", "query/search"), ("query".into(), "search".into()));
}

#[test]
fn the_second_reader_speaks_where_the_rules_find_no_cue() {
    // A fact stated as a rule file's line: no verb the rules know, a memory to the classifier,
    // kept as written.
    let v = read("Uses VS Code with vim keybindings");
    assert_eq!(reading(&v), ("instruction", "remember", DISPUTED));
    assert_eq!(v["target"], "Uses VS Code with vim keybindings");
    // "Enhance … coverage": the rules' generic change, the classifier's test writing.
    let v = read("Enhance testing coverage for the parser module");
    assert_eq!(reading(&v), ("mutation", "test", DISPUTED));
}

#[test]
fn where_the_readers_agree_the_rules_stand_as_sure_as_before() {
    for (text, category, verb) in [
        ("fix the failing tests", "mutation", "fix"),
        ("rename parse to parse_input", "mutation", "rename"),
        ("who calls login", "query", "search"),
        ("explain the architecture", "query", "explain"),
    ] {
        let r = second_reading(text).expect("the embedded model");
        assert_eq!((r.category(), r.verb()), (category, verb), "{text}: the classifier");
        assert_eq!(reading(&read(text)), (category, verb, 0.95), "{text}");
    }
}

#[test]
fn the_second_reader_overrules_by_a_clear_margin_and_never_towards_a_change() {
    let over = SECOND_READER_MARGIN + 0.01;
    let under = SECOND_READER_MARGIN - 0.01;
    // Within a category, and from a change to a question or a rule: by a clear margin only.
    assert!(overruling(&second("mutation/test", over), "mutation", "implement").is_some());
    assert!(overruling(&second("mutation/test", under), "mutation", "implement").is_none());
    assert!(overruling(&second("query/status", over), "mutation", "implement").is_some());
    assert!(overruling(&second("instruction/remember", over), "mutation", "implement").is_some());
    assert!(overruling(&second("query/explain", over), "instruction", "require").is_some());
    // Never a question or a rule made a change, however sure the classifier is.
    assert!(overruling(&second("mutation/delete", 5.0), "query", "impact").is_none());
    assert!(overruling(&second("mutation/implement", 5.0), "instruction", "require").is_none());
    // Agreement, or no model, is no overruling.
    assert!(overruling(&second("query/search", 5.0), "query", "search").is_none());
    assert!(overruling(&None, "query", "search").is_none());
}
