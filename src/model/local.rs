//! The local model client: a GGUF model run in-process by llama.cpp
//! (`llama-cpp-2`), sampling under the task's GBNF grammar, so every token is
//! masked to what the task's schema allows. One thread by default (more
//! collapsed under load on small machines); the seed makes runs
//! reproducible. Built only with the `local` cargo feature.
//! Knows nothing about what the answer means.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;

use super::{Task, Transducer};

/// Tokens a reply may have at most, whatever its task allows; the grammar
/// bounds every field, so this is a safety net.
pub const MAX_TOKENS: usize = 1024;
/// The longest context a local model is run with (prompt and reply).
const CONTEXT_TOKENS: usize = 8192;

pub struct Local {
    backend: &'static LlamaBackend,
    model: Arc<LlamaModel>,
    pub threads: i32,
    pub seed: u32,
    task: Option<Task>,
    /// What the last answer cost: the prompt's tokens and the tokens sampled.
    last_usage: Option<super::Usage>,
}

/// llama.cpp's backend is one per process: initialised once, shared by every model.
fn backend() -> Result<&'static LlamaBackend, String> {
    static BACKEND: std::sync::OnceLock<Result<LlamaBackend, String>> = std::sync::OnceLock::new();
    BACKEND
        .get_or_init(|| {
            let mut b = LlamaBackend::init().map_err(err)?;
            b.void_logs();
            Ok(b)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The model at `path`, loaded once while anything holds it: the patch writer and
/// the explainer of one request share its weights instead of loading them twice.
fn shared_model(backend: &'static LlamaBackend, path: &Path) -> Result<Arc<LlamaModel>, String> {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, Weak<LlamaModel>>>> = OnceLock::new();
    let mut loaded =
        LOADED.get_or_init(Default::default).lock().map_err(|_| "the model cache was poisoned".to_string())?;
    if let Some(model) = loaded.get(path).and_then(Weak::upgrade) {
        return Ok(model);
    }
    let model = Arc::new(LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).map_err(err)?);
    loaded.insert(path.to_path_buf(), Arc::downgrade(&model));
    Ok(model)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl Local {
    /// Loads a GGUF model.
    pub fn load(path: &Path, threads: i32, seed: u32) -> Result<Local, String> {
        if !path.is_file() {
            return Err(format!("no model at {} (scripts/install-model installs the test model)", path.display()));
        }
        let backend = backend()?;
        let model = shared_model(backend, path)?;
        Ok(Local { backend, model, threads: threads.max(1), seed, task: None, last_usage: None })
    }

    /// The same model, asked for one kind of output.
    pub fn with_task(mut self, task: Task) -> Local {
        self.task = Some(task);
        self
    }

    fn prompt(&self, system: &str, text: &str, feedback: Option<&str>) -> Result<String, String> {
        let mut chat = vec![
            LlamaChatMessage::new("system".into(), system.into()).map_err(err)?,
            LlamaChatMessage::new("user".into(), text.into()).map_err(err)?,
        ];
        if let Some(why) = feedback {
            let again = format!("Your previous answer was rejected: {why}. Answer again with only the JSON.");
            chat.push(LlamaChatMessage::new("user".into(), again).map_err(err)?);
        }
        let template = self.model.chat_template(None).map_err(err)?;
        self.model.apply_chat_template(&template, &chat, true).map_err(err)
    }
}

impl Transducer for Local {
    fn name(&self) -> &str {
        "local"
    }

    fn usage(&self) -> Option<super::Usage> {
        self.last_usage
    }

    fn narrow(&mut self, shown: &[super::Shown]) {
        if let Some(task) = &mut self.task {
            if let Some(narrowed) = task.narrowed {
                task.grammar = Some(narrowed(shown));
            }
        }
    }

    fn transduce(&mut self, text: &str, feedback: Option<&str>) -> Result<String, String> {
        let task = self.task.as_ref().ok_or("the local model was given no task")?;
        let gbnf = task.grammar.as_deref().ok_or("a local model needs a grammar for this task, and it has none")?;
        let max_tokens = (task.max_tokens as usize).min(MAX_TOKENS);
        let prompt = self.prompt(task.system, text, feedback)?;
        let vocab = self.model.vocab();
        let tokens = vocab.tokenize(prompt.as_bytes(), false, true);
        if tokens.is_empty() || tokens.len() + max_tokens > CONTEXT_TOKENS {
            return Err(format!("the prompt has {} tokens; at most {}", tokens.len(), CONTEXT_TOKENS - max_tokens));
        }
        // The context holds the prompt and the longest reply, no more: memory and time grow with it.
        let n_ctx = (tokens.len() + max_tokens).next_multiple_of(256).min(CONTEXT_TOKENS);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx as u32))
            .with_n_batch(n_ctx as u32)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        let mut ctx = self.model.new_context(self.backend, params).map_err(err)?;
        let mut batch = LlamaBatch::new(n_ctx, 1);
        let last = tokens.len() - 1;
        for (i, t) in tokens.iter().enumerate() {
            batch.add(*t, i as i32, &[0], i == last).map_err(err)?;
        }
        ctx.decode(&mut batch).map_err(err)?;
        let grammar = LlamaSampler::grammar(&self.model, gbnf, "root").map_err(err)?;
        let mut sampler = LlamaSampler::chain_simple([grammar, LlamaSampler::dist(self.seed)]);
        let mut out: Vec<u8> = Vec::new();
        let start = tokens.len() as i32;
        let mut sampled = 0u32;
        for position in start..start + max_tokens as i32 {
            let token = sampler.sample(&ctx, batch.n_tokens() - 1);
            if vocab.is_eog(token) {
                break;
            }
            sampled += 1;
            out.extend(vocab.token_to_piece(token, false, None));
            batch.clear();
            batch.add(token, position, &[0], true).map_err(err)?;
            ctx.decode(&mut batch).map_err(err)?;
        }
        self.last_usage = Some(super::Usage { prompt: tokens.len() as u32, completion: sampled });
        String::from_utf8(out).map_err(|e| format!("the model wrote invalid UTF-8: {e}"))
    }
}
