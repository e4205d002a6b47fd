//! `nerd` with no command: an interactive session in the current workspace.
//! Line editing and history (kept in `.nerd/history`), the kernel's decisions
//! streamed as they happen, approval prompts with the exact argv or diff,
//! `/why ATOM`, `/query PRED`, `/undo`, `/session`, `/help`, `/quit`. Ctrl-C
//! at the prompt clears the line; during a request it stops the loop at the
//! next step; Ctrl-D leaves.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;

use super::session::{self, AgentArgs, Text};
use crate::agent::{Agent, Session};
use crate::error::{exit, NerdError};

const HELP: &str = "Ask in words: \"what calls parse\", \"what breaks if I change Config\", \"are the tests passing\",
\"fix the failing test\", \"rename parse_line to parse_row\", \"explain the architecture\".
  /why ATOM     explain a derived atom, e.g. /why next_action(\"run_tests\")
  /query PRED   list a predicate's atoms (no argument: the catalog)
  /undo         restore the files the last request changed (--force: files edited since too)
  /memory       what nerd remembers: /memory [list|search QUERY|add TEXT|forget ID|stats]
  /context REQ  what a model would be given for REQ, and why each item was chosen
  /session      this session's id (resume with nerd --resume ID)
  /quit         leave (or Ctrl-D)";

pub fn run(root: &Path, args: &AgentArgs, resume: Option<Option<String>>) -> Result<i32, NerdError> {
    let setup = session::setup(root, args, false)?;
    let store = crate::store::StateDb::open(root)?;
    let session = match resume {
        Some(id) => Session::resume(&store, id.as_deref())?,
        None => Session::new(args.seed),
    };
    drop(store);
    let interrupted = setup.options.interrupted.clone();
    let mut approver = session::approver(args);
    let mut sink = Text { out: std::io::stdout(), verbose: false, answers: true };
    let mut agent =
        Agent::new(root, setup.perceiver, setup.patcher, approver.as_mut(), &mut sink, setup.options, session)?
            .with_explainer(setup.explainer);
    let mut editor = DefaultEditor::new().map_err(|e| NerdError::Terminal(format!("no line editor: {e}")))?;
    // The editor took SIGINT for itself; at the prompt it reads Ctrl-C as a key anyway, so
    // the agent's handler goes back in place for the time requests run.
    session::install_sigint_handler();
    let history = root.join(".nerd/history");
    let _ = editor.load_history(&history);
    {
        let mut out = std::io::stdout().lock();
        writeln!(
            out,
            "nerd {} in {} (session {}, model: {} from {}). /help for commands, Ctrl-D to leave.",
            env!("CARGO_PKG_VERSION"),
            root.display(),
            agent.session.id,
            setup.choice.provider,
            setup.choice.source
        )?;
        if agent.session.state.requests > 0 {
            writeln!(out, "Resumed after {} request(s).", agent.session.state.requests)?;
        }
        if let Some(p) = &agent.session.state.pending {
            let options: Vec<String> = p
                .options
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{}) {}", i + 1, crate::agent::ground::label(c)))
                .collect();
            writeln!(out, "Waiting on your choice for \"{}\": {}", p.request, options.join("  "))?;
        }
    }
    loop {
        let line = match editor.readline("nerd> ") {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(NerdError::Terminal(format!("cannot read input: {e}"))),
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(line);
        let (command, rest) = line.split_once(' ').map_or((line, ""), |(c, r)| (c, r.trim()));
        let result = match command {
            "/quit" | "/exit" => break,
            "/help" => {
                println!("{HELP}");
                Ok(exit::SUCCESS)
            }
            "/session" => {
                println!("session {}", agent.session.id);
                Ok(exit::SUCCESS)
            }
            "/why" if rest.is_empty() => Err(NerdError::Usage("usage: /why ATOM".into())),
            "/why" => super::why::run(agent.root(), rest, false, true),
            "/query" => super::query::run(agent.root(), (!rest.is_empty()).then_some(rest), false, true),
            "/undo" if rest.is_empty() => super::act::undo(agent.root(), false),
            "/undo" if rest == "--force" => super::act::undo(agent.root(), true),
            "/undo" => Err(NerdError::Usage("usage: /undo [--force]".into())),
            "/memory" => super::memory::slash(agent.root(), rest),
            "/context" if rest.is_empty() => Err(NerdError::Usage("usage: /context REQUEST".into())),
            "/context" => super::context::run(
                agent.root(),
                super::context::ContextArgs { request: rest, budget: None, facts: &[], json: false },
            ),
            c if c.starts_with('/') => Err(NerdError::Usage(format!("unknown command {c}; /help lists them"))),
            _ => {
                interrupted.store(false, Ordering::SeqCst);
                agent.handle(line).map(|_| exit::SUCCESS).map_err(NerdError::from)
            }
        };
        if let Err(e) = result {
            eprintln!("error: {e}");
            if let Some(hint) = e.hint() {
                eprintln!("hint: {hint}");
            }
        }
    }
    let _ = editor.save_history(&history);
    Ok(exit::SUCCESS)
}
