//! The in-process all-MiniLM-L6-v2 against an independent reference: token
//! ids from Hugging Face `tokenizers` (the model's own `tokenizer.json`) and
//! vectors from a float64 numpy forward pass over the same safetensors, made
//! once outside this repository and written here. (The int8 ONNX export of
//! the model agrees with nerd's vectors to a cosine of 0.9994 or better.)

use std::path::PathBuf;

use nerd::embed::{similarity, Embedder, DIMENSIONS};

fn embedder() -> Embedder {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/models/all-MiniLM-L6-v2");
    Embedder::load(&dir).unwrap_or_else(|e| {
        panic!("{e}; run scripts/install-embedder target/models/all-MiniLM-L6-v2 (scripts/test does)")
    })
}

/// (text, reference ids, reference first six dimensions)
const CASES: &[(&str, &[u32], [f32; 6])] = &[
    (
        "the retry logic backs off exponentially in billing/retry.py",
        &[
            101, 1996, 2128, 11129, 7961, 10457, 2125, 27258, 2135, 1999, 25640, 1013, 2128, 11129, 1012, 1052, 2100,
            102,
        ],
        [-0.048318, 0.031172, 0.040054, 0.029253, -0.043942, -0.100395],
    ),
    (
        "how do we wait between failed charges",
        &[101, 2129, 2079, 2057, 3524, 2090, 3478, 5571, 102],
        [-0.024818, 0.035377, -0.018629, -0.007777, 0.052485, 0.035185],
    ),
    (
        "Héllo wörld! Ça va? naïve café — “quotes” 東京タワー ok",
        &[
            101, 7592, 2088, 999, 6187, 12436, 1029, 15743, 7668, 1517, 1523, 16614, 1524, 1879, 1755, 1709, 30262,
            30265, 7929, 102,
        ],
        [-0.007923, 0.059851, 0.075358, -0.02924, -0.037494, 0.046487],
    ),
    (
        "fn parse_version(input: &str) -> Result<Version, Error> { Version::parse(input) }",
        &[
            101, 1042, 2078, 11968, 3366, 1035, 2544, 1006, 7953, 1024, 1004, 2358, 2099, 1007, 1011, 1028, 2765, 1026,
            2544, 1010, 7561, 1028, 1063, 2544, 1024, 1024, 11968, 3366, 1006, 7953, 1007, 1065, 102,
        ],
        [0.017052, 0.051739, 0.017851, -0.023085, 0.04684, 0.004817],
    ),
    (
        "Supercalifragilisticexpialidocious antidisestablishmentarianism xyzzyqwert",
        &[
            101, 3565, 9289, 10128, 29181, 24411, 4588, 10288, 19312, 21273, 10085, 6313, 3424, 10521, 4355, 7875,
            13602, 3672, 12199, 2964, 1060, 2100, 28753, 4160, 13777, 2102, 102,
        ],
        [0.014247, -0.030912, -0.007587, -0.015135, -0.090988, -0.011083],
    ),
];

#[test]
fn tokens_and_vectors_match_the_reference_implementation() {
    let model = embedder();
    for (text, ids, head) in CASES {
        assert_eq!(model.tokens(text), *ids, "token ids of {text:?}");
        let v = model.embed(text);
        assert_eq!(v.len(), DIMENSIONS);
        assert!((similarity(&v, &v) - 1.0).abs() < 1e-5, "not unit length");
        for (i, (got, want)) in v.iter().zip(head).enumerate() {
            assert!((got - want).abs() < 2e-6, "{text:?} dimension {i}: {got} against the reference {want}");
        }
    }
    // The reference's cosines: a paraphrase is nearer than code about something else.
    let [retry, wait, code] = [CASES[0].0, CASES[1].0, CASES[3].0].map(|t| model.embed(t));
    assert!((similarity(&retry, &wait) - 0.329_116).abs() < 1e-5);
    assert!((similarity(&retry, &code) + 0.007_377).abs() < 1e-5);
}

#[test]
fn long_texts_are_cut_at_the_models_window_and_empty_text_still_embeds() {
    let model = embedder();
    let long = "word ".repeat(2000);
    let ids = model.tokens(&long);
    assert_eq!(ids.len(), nerd::embed::MAX_TOKENS);
    assert_eq!((ids[0], ids[ids.len() - 1]), (101, 102), "framed by [CLS] and [SEP]");
    let empty = model.embed("");
    assert!((similarity(&empty, &empty) - 1.0).abs() < 1e-5);
    assert_eq!(model.embed_all(&["a", "b", "a"])[0], model.embed("a"), "batching does not change a vector");
}

#[test]
fn a_missing_or_foreign_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = Embedder::load(dir.path()).err().unwrap().to_string();
    assert!(err.contains("scripts/install-embedder"), "{err}");
    std::fs::write(dir.path().join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\n").unwrap();
    std::fs::write(dir.path().join("model.safetensors"), b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":1}").unwrap();
    let err = Embedder::load(dir.path()).err().unwrap().to_string();
    assert!(err.contains("is not the all-MiniLM-L6-v2") && err.contains("reinstalls"), "{err}");
}
