//! The offline transducer's unit tests: the rules alone and with the second
//! reader, family by family, positive and negative. The helpers live here; the
//! cases in English, in other languages and of the second reader have a file each.

mod english;
mod languages;
mod second_reader;

use super::*;

fn read(text: &str) -> serde_json::Value {
    serde_json::from_str(&transduce(text)).expect("intent JSON")
}

/// The intent the rules alone read, without the trained second reader.
fn rules(text: &str) -> serde_json::Value {
    serde_json::from_str(&transduce_with(text, None)).expect("intent JSON")
}

/// Each case reads as its category and verb through `read`.
fn assert_reads(read: fn(&str) -> serde_json::Value, cases: &[(&str, &str, &str)]) {
    for (text, category, verb) in cases {
        let v = read(text);
        assert_eq!((reading(&v).0, reading(&v).1), (*category, *verb), "{text}: {v}");
    }
}

/// How the rules alone read each case, without the trained second reader.
fn rules_read_as(cases: &[(&str, &str, &str)]) {
    assert_reads(rules, cases);
}

fn reading(v: &serde_json::Value) -> (&str, &str, f64) {
    (v["category"].as_str().unwrap_or(""), v["verb"].as_str().unwrap_or(""), v["confidence"].as_f64().unwrap_or(0.0))
}

/// Each request reads as its category and verb.
fn reads_as(cases: &[(&str, &str, &str)]) {
    assert_reads(read, cases);
}
