//! `nerd context`: what a model call would be given for a request, and why
//! each item was chosen (its activation path from the request's seeds).
//! Knows nothing about scoring; it prints what the agent's context module
//! selects, reading the workspace's files directly.

use std::io::Write;
use std::path::Path;

use nerd_logic::{evaluate, parse_atom};
use serde_json::json;

use crate::agent::{context, ground};
use crate::error::{exit, NerdError};
use crate::kernel::{self, LoadFor};
use crate::perceive::{perceive, Perceived};
use crate::store::Store;

pub struct ContextArgs<'a> {
    pub request: &'a str,
    pub budget: Option<usize>,
    pub facts: &'a [String],
    pub json: bool,
}

pub fn run(root: &Path, args: ContextArgs<'_>) -> Result<i32, NerdError> {
    if args.request.trim().is_empty() {
        return Err(NerdError::Usage("give the request as text, e.g. nerd context \"fix the failing tests\"".into()));
    }
    let config = crate::config::Config::load(root)?;
    let budget = args.budget.unwrap_or(config.context.budget_tokens);
    if budget < 256 {
        return Err(NerdError::Usage("--budget must be at least 256 tokens".into()));
    }
    // The offline transducer reads the request: `nerd context` shows what logic selects, not what a model says.
    let mut transducer = crate::perceive::transducer(crate::model::provider::Connection::Offline)?;
    let intent = match perceive(transducer.as_mut(), args.request) {
        Perceived::Intent { intent, .. } => intent,
        Perceived::Unparsed { errors } => {
            return Err(NerdError::Usage(format!("could not read the request: {}", errors.join("; "))))
        }
    };
    let mut store = Store::open(root)?;
    crate::index::index(root, &mut store, &|_, _| {})?;
    let loaded = kernel::load(root, &store, LoadFor::Evaluation)?;
    let memories = crate::memory::Memories::open(root)?;
    let candidates = crate::agent::recall::focus(&memories, &intent, &loaded)?;
    let mut facts = loaded.facts();
    ground::assert_intent(&mut facts, &intent, &candidates, true);
    for text in args.facts {
        let atom = parse_atom(text).map_err(|source| NerdError::AtomSyntax { text: text.clone(), source })?;
        facts.assert_atom(&atom).map_err(|e| NerdError::Usage(format!("--fact {text}: {e}")))?;
    }
    let memory = crate::agent::recall::recollect(&memories, &mut store, (root, &loaded), args.request)?;
    let index = context::SymbolIndex::new(&loaded);
    context::seed(&mut facts, &index, &candidates, &memory);
    let fixpoint = evaluate(facts);
    // Indexed source files only, symlinks refused on the way, at most 2 MiB each.
    let refused = crate::files::Refused::files(&[]);
    let mut read = |path: &str| {
        let (bytes, _) = crate::files::read_capped(&root.join(path), 2 << 20, &refused).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    let selected = context::select_context(&fixpoint, &index, &memory.memories, budget, &mut read);
    // The rules the user set go with every change the model is asked for.
    let rules = memories.rules_in_force()?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", json!({"request": args.request, "rules": rules, "context": selected}))?;
        return Ok(exit::SUCCESS);
    }
    write!(out, "{}", crate::agent::learn::context_block(&rules))?;
    if selected.items.is_empty() {
        writeln!(
            out,
            "nothing to start from: the request names no symbol or file nerd could ground, and no failing test or \
             error is known (give one with --fact 'test_outcome(\"NAME\", \"PATH\", LINE, \"fail\")')"
        )?;
    } else {
        write!(out, "{}\n{}", selected.render(), selected.reasons())?;
    }
    Ok(exit::SUCCESS)
}
