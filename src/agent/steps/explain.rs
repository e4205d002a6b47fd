//! Explanations written by a model: it gets the request, what the kernel
//! established from the index (the facts answer or the survey) and the code
//! the kernel's activation selects; its reply crosses the articulation
//! boundary (`parse_reply`, repaired at most twice), every place it cites is
//! checked against the files read through the router (`agent::explain`), and
//! the knowledge links its control packet carries are kept in memory. Without
//! a model the facts answer stands and says what a model would add.
//! Knows nothing about why the kernel chose the step.

use crate::agent::event::{Event, Status};
use crate::agent::explain;
use crate::agent::patch::MemoryOp;
use crate::agent::{Agent, AgentError, Flow, Turn};
use crate::articulate::{parse_reply, Reply};
use crate::model::Shown;

/// Attempts at a well-formed reply: the first and two repairs.
const ATTEMPTS: usize = 3;

/// What the facts answer says when no model is configured.
const WITHOUT_MODEL: &str = "(From the index alone. With a model configured ([model] in .nerd/config.toml), \
nerd adds an explanation in prose of what this code does and why, written from the code its kernel selects, \
with every file:line it cites checked against the files.)";

impl Agent<'_> {
    /// The facts answer `facts`, explained by the model when there is one.
    pub(super) fn explained(&mut self, t: &mut Turn<'_>, facts: String) -> Result<Flow, AgentError> {
        if self.explainer.is_none() {
            return Ok(Flow::Stop(Status::Answered, format!("{facts}\n\n{WITHOUT_MODEL}")));
        }
        let (request, focus) = (t.request, t.focus);
        let (loaded, router) = (&*t.world, &mut t.router);
        let (selected, mut files) = self.kernel_context(router, (request, loaded, focus), &[])?;
        let prompt = format!(
            "Request: {request}\n\nWhat nerd's kernel established from the index:\n{facts}\n\n{}",
            selected.render()
        );
        // A grammar-bound model may cite only the files it was shown.
        if let Some(model) = self.explainer.as_mut() {
            // Each file with the lines of it shown; none shown (nothing selected), any read file at any line.
            let mut shown: Vec<Shown> = selected.lines().into_iter().map(|(p, lines)| Shown::new(p, lines)).collect();
            if shown.is_empty() {
                shown = files.keys().map(Shown::any_line).collect();
            }
            model.narrow(&shown);
        }
        let mut feedback: Option<String> = None;
        let mut reply: Option<Reply> = None;
        for _ in 0..ATTEMPTS {
            let raw = match self.explainer.as_mut() {
                Some(model) => {
                    let raw = model.transduce(&prompt, feedback.as_deref());
                    let tokens = model.usage();
                    self.emit(Event::Model { task: "explain".into(), tokens });
                    raw
                }
                None => break,
            };
            match raw
                .map_err(|e| format!("the model did not answer: {e}"))
                .and_then(|r| parse_reply(&r).map_err(|e| format!("the reply was refused at the boundary: {e}")))
            {
                Ok(parsed) => {
                    reply = Some(parsed);
                    break;
                }
                Err(why) => feedback = Some(why),
            }
        }
        let Some(reply) = reply else {
            let why = feedback.unwrap_or_default();
            return Ok(Flow::Stop(Status::Answered, format!("{facts}\n\n(No explanation from the model: {why}.)")));
        };
        // Every cited file is read through the router once.
        let mut read_error = None;
        let mut read = |path: &str| -> Option<String> {
            if let Some(text) = files.get(path) {
                return Some(text.clone());
            }
            match self.read(router, path) {
                Ok(content) => {
                    if let Some(c) = &content {
                        files.insert(path.to_string(), c.clone());
                    }
                    content
                }
                Err(e) => {
                    read_error.get_or_insert(e);
                    None
                }
            }
        };
        let checked = explain::check(&reply, &mut read);
        if let Some(e) = read_error {
            return Err(e);
        }
        self.keep_links(&reply, loaded)?;
        Ok(Flow::Stop(Status::Answered, format!("{}\n\nFrom the index:\n{facts}", checked.render())))
    }

    /// Keeps the `knowledge_link` facts of a reply's control packet in graph
    /// memory; the boundary admitted only perception facts, and the others
    /// matter to no later turn of an answered request.
    fn keep_links(&mut self, reply: &Reply, loaded: &crate::kernel::Loaded) -> Result<(), AgentError> {
        let links: Vec<MemoryOp> = reply
            .updates
            .iter()
            .filter(|a| a.predicate == "knowledge_link")
            .filter_map(|a| match a.args.as_slice() {
                [nerd_logic::Term::Str(x), nerd_logic::Term::Str(r), nerd_logic::Term::Str(y)] => {
                    Some(MemoryOp::Link { a: x.clone(), relation: r.clone(), b: y.clone() })
                }
                _ => None,
            })
            .collect();
        if links.is_empty() || self.options.delegation.is_some() {
            return Ok(());
        }
        let source = format!("model:{}", self.session.id);
        let done = crate::agent::recall::model_operations(self.memories()?, &links, &source, Some(loaded))?;
        for line in done {
            self.emit(Event::Memory { text: line });
        }
        Ok(())
    }
}
