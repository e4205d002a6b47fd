//! `nerd memory`: add, search, list, forget and count what nerd remembers
//! across sessions, for people (`--json` for scripts). Knows nothing about
//! how recall scores; it prints what the memory module answers.

use std::io::Write;
use std::path::Path;

use clap::Subcommand;
use serde_json::json;

use crate::error::NerdError;
use crate::memory::rules::{parse_id, LearnedRule, Proposed, Status};
use crate::memory::{Kind, Memories, Memory};

#[derive(Subcommand, Debug)]
pub enum MemoryAction {
    /// Remember TEXT (kind note unless told otherwise).
    Add {
        text: String,
        /// note, preference or fact (requests, changes and answers are remembered by the agent).
        #[arg(long, default_value = "note")]
        kind: String,
        /// The symbol, file or test it is about, as `nerd query` names it.
        #[arg(long, value_name = "SUBJECT")]
        about: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Recall the memories that best answer QUERY, by meaning and by words, with scores.
    Search {
        query: String,
        /// How many to show.
        #[arg(short, default_value_t = 10)]
        k: usize,
        #[arg(long)]
        json: bool,
    },
    /// List memories, newest first.
    List {
        /// Only this kind: note, preference, request, change, answer, fact.
        #[arg(long)]
        kind: Option<String>,
        /// At most this many.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// Forget memory ID: it leaves the store and both recall indexes.
    Forget {
        id: i64,
        #[arg(long)]
        json: bool,
    },
    /// Count memories by kind, vectors and links, and say whether recall uses meaning.
    Stats {
        #[arg(long)]
        json: bool,
    },
    /// Graph memory's links; with ITEM, the learned links reachable from it
    /// over calls, tests, files and other links, nearest first, with the path.
    Links {
        /// A symbol id, a file, or the words at one end of a link ("flaky test").
        item: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The rules nerd learned from you, with where each came from; accept, decline or add one.
    Rules {
        #[command(subcommand)]
        action: Option<RulesAction>,
        /// Declined rules too.
        #[arg(long)]
        all: bool,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum RulesAction {
    /// Accept proposed rule ID (L3 or 3): from now on it is enforced.
    Accept {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Decline rule ID: it is not enforced, and declined patches do not propose it again.
    Decline {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Propose a rule from what you would tell nerd ("do not add dependencies", "use tabs in Go").
    Add {
        text: String,
        /// Accept it at once.
        #[arg(long)]
        accept: bool,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(root: &Path, action: MemoryAction) -> Result<i32, NerdError> {
    let memories = Memories::open(root)?;
    if let MemoryAction::Rules { action, all, json } = action {
        return rules(root, &memories, action, all, json);
    }
    let mut out = std::io::stdout().lock();
    match action {
        MemoryAction::Add { text, kind, about, json } => {
            let kind = Kind::parse(&kind)?;
            if !matches!(kind, Kind::Note | Kind::Preference | Kind::Fact) {
                return Err(NerdError::Usage(format!(
                    "`{}` memories are written by the agent; add a note, preference or fact",
                    kind.as_str()
                )));
            }
            // A note that states a link ("X is configured in Y") keeps the link too, grounded on the index.
            let (memory, link) = if kind == Kind::Note && about.is_none() {
                let loaded = match crate::perceive::link::said_link(&text) {
                    Some(_) => Some(world(root)?),
                    None => None,
                };
                crate::agent::recall::remember(&memories, &text, "user", loaded.as_ref())?
            } else {
                (memories.add(kind, &text, about.as_deref(), "user")?, None)
            };
            if json {
                let mut value = json!(memory);
                if let Some(l) = &link {
                    value["link"] = json!({"a": l.a, "relation": l.relation, "b": l.b});
                }
                writeln!(out, "{value}")?;
            } else {
                writeln!(out, "remembered {} ({})", memory.id, memory.kind.as_str())?;
                if let Some(l) = &link {
                    writeln!(out, "linked: knowledge_link({:?}, {:?}, {:?})", l.a, l.relation, l.b)?;
                }
                words_only_once(&memories);
            }
        }
        MemoryAction::Search { query, k, json } => {
            let hits = memories.search(&query, k)?;
            if json {
                let recall = if memories.words_only().is_some() { "words" } else { "meaning+words" };
                let mut value = json!({"query": query, "recall": recall, "items": hits});
                if let Some(why) = memories.words_only() {
                    value["words_only"] = json!(why);
                }
                writeln!(out, "{value}")?;
            } else {
                words_only_once(&memories);
                if hits.is_empty() {
                    writeln!(out, "nothing remembered matches")?;
                }
                for hit in &hits {
                    let meaning = hit.meaning.map_or(String::new(), |m| format!(" meaning {m:.2}"));
                    writeln!(
                        out,
                        "{:>5}  {:.3}  (words {:.2}{meaning})  {}",
                        hit.memory.id,
                        hit.score,
                        hit.words,
                        line(&hit.memory)
                    )?;
                }
            }
        }
        MemoryAction::List { kind, limit, json } => {
            let kind = kind.as_deref().map(Kind::parse).transpose()?;
            let items = memories.list(kind, limit)?;
            if json {
                writeln!(out, "{}", json!({"items": items}))?;
            } else {
                if items.is_empty() {
                    writeln!(out, "nothing remembered yet")?;
                }
                for memory in &items {
                    writeln!(out, "{:>5}  {}", memory.id, line(memory))?;
                }
            }
        }
        MemoryAction::Forget { id, json } => {
            let memory = memories.forget(id)?;
            if json {
                writeln!(out, "{}", json!({"forgot": memory}))?;
            } else {
                writeln!(out, "forgot {}: {}", memory.id, memory.text)?;
            }
        }
        MemoryAction::Rules { .. } => {}
        MemoryAction::Links { item, json } => {
            let listed = match item {
                None => {
                    memories.links()?.into_iter().map(|l| Reached { link: l, cost: None, path: Vec::new() }).collect()
                }
                Some(item) => reachable(root, &memories, &item)?,
            };
            if json {
                let items: Vec<serde_json::Value> = listed
                    .iter()
                    .map(|r| {
                        json!({
                            "id": r.link.memory, "kind": "link", "text": r.atom(), "a": r.link.a,
                            "relation": r.link.relation, "b": r.link.b, "cost": r.cost, "path": r.path,
                        })
                    })
                    .collect();
                writeln!(out, "{}", json!({"items": items}))?;
            } else {
                if listed.is_empty() {
                    writeln!(out, "no links (say \"remember that the retry delay is configured in settings.py\")")?;
                }
                for r in &listed {
                    let taught = r.link.memory.map_or(String::new(), |m| format!("  (memory {m})"));
                    writeln!(out, "{}{taught}", r.atom())?;
                    if !r.path.is_empty() {
                        writeln!(out, "    cost {}: {}", r.cost.unwrap_or_default(), r.path.join(" → "))?;
                    }
                }
            }
        }
        MemoryAction::Stats { json } => {
            let stats = memories.stats()?;
            if json {
                writeln!(out, "{}", json!(stats))?;
            } else {
                writeln!(out, "memories: {}", stats.memories)?;
                for (kind, n) in &stats.by_kind {
                    writeln!(out, "  {kind}: {n}")?;
                }
                writeln!(out, "vectors: {}  links: {}", stats.vectors, stats.links)?;
                match (&stats.model, &stats.words_only) {
                    (Some(dir), _) => writeln!(out, "recall: by meaning and words (all-MiniLM-L6-v2 from {dir})")?,
                    (None, Some(why)) => writeln!(out, "recall: by words only: {why}")?,
                    (None, None) => {}
                }
            }
        }
    }
    Ok(crate::error::exit::SUCCESS)
}

/// A link, and how it was reached from an item.
struct Reached {
    link: crate::store::LinkRow,
    /// The activation cost of its nearer end from the item.
    cost: Option<u32>,
    /// The activation path from the item to that end.
    path: Vec<String>,
}

impl Reached {
    fn atom(&self) -> String {
        format!("knowledge_link({:?}, {:?}, {:?})", self.link.a, self.link.relation, self.link.b)
    }
}

/// The workspace's world from its index, brought up to date.
fn world(root: &Path) -> Result<crate::kernel::Loaded, NerdError> {
    let mut store = crate::store::Store::open(root)?;
    crate::index::index(root, &mut store, &|_, _| {})?;
    Ok(crate::kernel::load(root, &store, crate::kernel::LoadFor::Evaluation)?)
}

/// The learned links the kernel's activation reaches from `item` (the one
/// symbol or file it names, else its words), nearest first: a multi-hop
/// query over calls, tests, files and links alike.
fn reachable(root: &Path, memories: &Memories, item: &str) -> Result<Vec<Reached>, NerdError> {
    let loaded = world(root)?;
    let start = crate::agent::ground::confidently(item, &loaded).unwrap_or_else(|| crate::perceive::link::phrase(item));
    let links = memories.links()?;
    let mut facts = loaded.facts();
    let (seed, why) = (facts.sym(&start), facts.sym("query"));
    facts.context_seed.push((seed, why));
    crate::agent::context::assert_links(&mut facts, &links);
    let fixpoint = nerd_logic::evaluate(facts);
    let (program, s) = (fixpoint.context(), &fixpoint.facts().symbols);
    let mut out = Vec::new();
    for (a, r, b) in program.links() {
        let (wa, wr, wb) = (s.resolve(a), s.resolve(r), s.resolve(b));
        let Some(link) = links.iter().find(|l| l.a == wa && l.relation == wr && l.b == wb) else { continue };
        // The nearer end, and the cheapest path to it.
        let best = [a, b].into_iter().filter_map(|end| Some((program.cost(seed, end)?, end))).min();
        let Some((cost, end)) = best else { continue };
        let mut path = vec![start.clone()];
        path.extend(program.path(seed, end).iter().map(|step| format!("{} {}", step.via.as_str(), s.resolve(step.to))));
        out.push(Reached { link: link.clone(), cost: Some(cost), path });
    }
    out.sort_by(|x, y| x.cost.cmp(&y.cost).then_with(|| x.atom().cmp(&y.atom())));
    Ok(out)
}

/// `nerd memory rules`: list, accept, decline, add.
fn rules(
    root: &Path,
    memories: &Memories,
    action: Option<RulesAction>,
    all: bool,
    json: bool,
) -> Result<i32, NerdError> {
    let mut out = std::io::stdout().lock();
    let id =
        |text: &str| parse_id(text).ok_or_else(|| NerdError::Usage(format!("`{text}` is not a rule id (L3, or 3)")));
    let decided = match action {
        None => {
            let listed: Vec<LearnedRule> =
                memories.rules(None)?.into_iter().filter(|r| all || r.status != Status::Declined).collect();
            if json {
                writeln!(out, "{}", json!({"items": listed}))?;
            } else {
                if listed.is_empty() {
                    writeln!(
                        out,
                        "no learned rules yet (say \"do not add dependencies\", or nerd memory rules add TEXT)"
                    )?;
                }
                for r in &listed {
                    writeln!(out, "{:>4}  {:<9} {}", r.id, r.status.as_str(), r.rule)?;
                    let decided =
                        r.decided_by.as_deref().map_or(String::new(), |b| format!("; {} by {b}", r.status.as_str()));
                    writeln!(out, "        from: {}{decided}", r.source())?;
                }
            }
            return Ok(crate::error::exit::SUCCESS);
        }
        Some(RulesAction::Accept { id: text, json }) => (memories.decide_rule(id(&text)?, true, "human")?, json),
        Some(RulesAction::Decline { id: text, json }) => (memories.decide_rule(id(&text)?, false, "human")?, json),
        Some(RulesAction::Add { text, accept, json }) => {
            let intent = match crate::perceive::perceive(&mut crate::perceive::Offline, &text) {
                crate::perceive::Perceived::Intent { intent, .. } => intent,
                crate::perceive::Perceived::Unparsed { errors } => {
                    return Err(NerdError::Usage(format!("cannot read \"{text}\": {}", errors.join("; "))))
                }
            };
            let lang = crate::agent::instruct::main_language(root);
            let rule = match crate::agent::learn::propose(memories, &text, &intent, lang, "user")? {
                Ok(Proposed::New(rule) | Proposed::Known(rule)) => rule,
                Err(why) => return Err(NerdError::Usage(format!("not a rule: {why}"))),
            };
            let rule = if accept { memories.decide_rule(rule.number, true, "human")? } else { rule };
            (rule, json)
        }
    };
    let (rule, json) = decided;
    if json {
        writeln!(out, "{}", json!(rule))?;
    } else {
        match rule.status {
            Status::Accepted => writeln!(out, "{} accepted: {}", rule.id, rule.rule)?,
            Status::Declined => writeln!(out, "{} declined: {}", rule.id, rule.rule)?,
            Status::Proposed => writeln!(
                out,
                "{} proposed: {}\naccept it with: nerd memory rules accept {}",
                rule.id, rule.rule, rule.id
            )?,
        }
    }
    Ok(crate::error::exit::SUCCESS)
}

/// `/memory` in the interactive session: `list` (the default), `search QUERY`,
/// `add TEXT`, `forget ID`, `stats`, `links [ITEM]`, `rules`.
pub fn slash(root: &Path, rest: &str) -> Result<i32, NerdError> {
    let (word, arg) = rest.split_once(' ').map_or((rest, ""), |(w, a)| (w, a.trim()));
    let usage =
        || NerdError::Usage("usage: /memory [list|search QUERY|add TEXT|forget ID|stats|links [ITEM]|rules]".into());
    let action = match word {
        "" | "list" => MemoryAction::List { kind: None, limit: 20, json: false },
        "search" if !arg.is_empty() => MemoryAction::Search { query: arg.to_string(), k: 10, json: false },
        "add" if !arg.is_empty() => {
            MemoryAction::Add { text: arg.to_string(), kind: "note".into(), about: None, json: false }
        }
        "forget" => MemoryAction::Forget { id: arg.parse().map_err(|_| usage())?, json: false },
        "stats" => MemoryAction::Stats { json: false },
        "links" => MemoryAction::Links { item: (!arg.is_empty()).then(|| arg.to_string()), json: false },
        "rules" if arg.is_empty() => MemoryAction::Rules { action: None, all: false, json: false },
        "rules" => {
            let (verb, id) = arg.split_once(' ').map_or((arg, ""), |(v, i)| (v, i.trim()));
            let action = match verb {
                "accept" => RulesAction::Accept { id: id.to_string(), json: false },
                "decline" => RulesAction::Decline { id: id.to_string(), json: false },
                _ => return Err(usage()),
            };
            MemoryAction::Rules { action: Some(action), all: false, json: false }
        }
        _ => return Err(usage()),
    };
    run(root, action)
}

/// One memory on one line: kind, subject, text.
fn line(memory: &Memory) -> String {
    let about = memory.subject.as_deref().map_or(String::new(), |s| format!(" [{s}]"));
    format!("{:<10}{about} {}", memory.kind.as_str(), memory.text)
}

/// Says on stderr, once per process, that recall works by words alone.
fn words_only_once(memories: &Memories) {
    static SAID: std::sync::Once = std::sync::Once::new();
    if let Some(why) = memories.words_only() {
        SAID.call_once(|| eprintln!("nerd: recalling by words only: {why}"));
    }
}
