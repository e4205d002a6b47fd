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
