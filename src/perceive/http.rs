//! Model transducers over HTTP: any OpenAI-compatible server (OpenAI, Ollama,
//! llama.cpp server, vLLM) through chat completions with a JSON-schema
//! response format, and Anthropic's messages API with a forced tool whose
//! input schema is the intent schema. Both only produce text for the
//! boundary to parse; a repair attempt carries the parse error back.
//! Knows nothing about what the intent means.

use std::time::Duration;

use serde_json::{json, Value};

use super::boundary;
use super::Transducer;

/// Which wire format a server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

/// Instructions every model gets; the schema does the rest.
pub const SYSTEM: &str = "You read a software developer's request to a coding agent and describe it. \
You never decide or act: output only the intent as JSON matching the schema. \
category: query (asks for information), mutation (asks to change code or the repository), \
instruction (a standing rule for the project). The verb must belong to its category. \
target: the symbol, file or thing the request is about, as written. constraints: limits the user set. \
context: broad for architecture or overview questions, else narrow. missing: parameters the request leaves open.";

/// Instructions for writing patches; the patch schema does the rest.
pub const PATCH_SYSTEM: &str = "You are the patch writer of a coding agent. You get a task, the failures \
the agent observed and the files you may change, with line numbers. Find the root cause and answer only \
with the JSON object the schema describes: a short explanation and line-range edits (1-based, inclusive; \
end_line = start_line - 1 inserts before start_line). Change only the files shown. Never touch tests \
to make them pass unless the task says the test is wrong.";

/// What a transducer is asked to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Read a request into intent JSON.
    Intent,
    /// Write a patch proposal for the repair and implement strategies.
    Patch,
}

impl Task {
    fn system(self) -> &'static str {
        match self {
            Task::Intent => SYSTEM,
            Task::Patch => PATCH_SYSTEM,
        }
    }

    fn schema(self) -> Value {
        match self {
            Task::Intent => boundary::schema(),
            Task::Patch => crate::agent::patch::schema(),
        }
    }

    fn tool(self) -> (&'static str, &'static str) {
        match self {
            Task::Intent => ("record_intent", "Record the request's intent."),
            Task::Patch => ("propose_patch", "Propose a patch."),
        }
    }
}

/// An HTTP model transducer.
pub struct Http {
    pub wire: Wire,
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub task: Task,
    /// Sent as `seed` to OpenAI-compatible servers, for reproducible runs where the server honours it.
    pub seed: Option<u64>,
    agent: ureq::Agent,
}

/// How to reach a provider, from the usual environment variables.
pub fn from_env(provider: &str) -> Result<Http, String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let (wire, base_url, api_key, model) = match provider {
        "openai" => {
            let base = var("OPENAI_BASE_URL")
                .or_else(|| var("OLLAMA_HOST").map(|h| format!("{}/v1", h.trim_end_matches('/'))))
                .unwrap_or_else(|| "https://api.openai.com/v1".to_string());
            let key = var("OPENAI_API_KEY");
            if key.is_none() && base.contains("api.openai.com") {
                return Err("set OPENAI_API_KEY (or OPENAI_BASE_URL / OLLAMA_HOST for a local server)".into());
            }
            (Wire::OpenAi, base, key, var("NERD_OPENAI_MODEL").unwrap_or_else(|| "gpt-4o-mini".into()))
        }
        "anthropic" => {
            let base = var("ANTHROPIC_BASE_URL").unwrap_or_else(|| "https://api.anthropic.com".to_string());
            let key = var("ANTHROPIC_API_KEY");
            if key.is_none() && base.contains("api.anthropic.com") {
                return Err("set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for another server)".into());
            }
            (
                Wire::Anthropic,
                base,
                key,
                var("NERD_ANTHROPIC_MODEL").unwrap_or_else(|| "claude-3-5-haiku-latest".into()),
            )
        }
        other => return Err(format!("unknown provider `{other}` (offline, openai, anthropic)")),
    };
    Ok(Http::new(wire, &base_url, api_key, &model))
}

impl Http {
    pub fn new(wire: Wire, base_url: &str, api_key: Option<String>, model: &str) -> Http {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(120)))
            .http_status_as_error(false)
            .build()
            .into();
        Http {
            wire,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            model: model.to_string(),
            task: Task::Intent,
            seed: None,
            agent,
        }
    }

    /// The same connection, asked for another kind of output.
    pub fn for_task(mut self, task: Task) -> Http {
        self.task = task;
        self
    }

    pub fn with_seed(mut self, seed: Option<u64>) -> Http {
        self.seed = seed;
        self
    }

    fn messages(text: &str, feedback: Option<&str>) -> Vec<Value> {
        let mut m = vec![json!({"role": "user", "content": text})];
        if let Some(why) = feedback {
            m.push(json!({"role": "user", "content": format!(
                "Your previous answer was rejected: {why}. Answer again with only the JSON object the schema describes."
            )}));
        }
        m
    }

    fn post(&self, url: &str, body: &Value, headers: &[(&str, String)]) -> Result<Value, String> {
        let mut req = self.agent.post(url).header("content-type", "application/json");
        for (k, v) in headers {
            req = req.header(*k, v.as_str());
        }
        let mut resp = req.send(body.to_string()).map_err(|e| format!("cannot reach {url}: {e}"))?;
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string().map_err(|e| format!("unreadable response from {url}: {e}"))?;
        if !(200..300).contains(&status) {
            let snippet: String = text.chars().take(300).collect();
            return Err(format!("{url} answered {status}: {snippet}"));
        }
        serde_json::from_str(&text).map_err(|e| format!("{url} did not answer JSON: {e}"))
    }
}

impl Transducer for Http {
    fn name(&self) -> &str {
        match self.wire {
            Wire::OpenAi => "openai",
            Wire::Anthropic => "anthropic",
        }
    }

    fn transduce(&mut self, text: &str, feedback: Option<&str>) -> Result<String, String> {
        match self.wire {
            Wire::OpenAi => {
                let mut messages = vec![json!({"role": "system", "content": self.task.system()})];
                messages.extend(Http::messages(text, feedback));
                let (name, _) = self.task.tool();
                let mut body = json!({
                    "model": self.model,
                    "temperature": 0,
                    "messages": messages,
                    "response_format": {"type": "json_schema", "json_schema": {"name": name, "strict": true, "schema": self.task.schema()}},
                });
                if let Some(seed) = self.seed {
                    body["seed"] = json!(seed);
                }
                let headers: Vec<(&str, String)> =
                    self.api_key.iter().map(|k| ("authorization", format!("Bearer {k}"))).collect();
                let v = self.post(&format!("{}/chat/completions", self.base_url), &body, &headers)?;
                v["choices"][0]["message"]["content"]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "the response has no choices[0].message.content".to_string())
            }
            Wire::Anthropic => {
                let (name, description) = self.task.tool();
                let max_tokens = if self.task == Task::Patch { 4096 } else { 512 };
                let body = json!({
                    "model": self.model,
                    "max_tokens": max_tokens,
                    "system": self.task.system(),
                    "messages": Http::messages(text, feedback),
                    "tools": [{"name": name, "description": description, "input_schema": self.task.schema()}],
                    "tool_choice": {"type": "tool", "name": name},
                });
                let mut headers = vec![("anthropic-version", "2023-06-01".to_string())];
                headers.extend(self.api_key.iter().map(|k| ("x-api-key", k.clone())));
                let v = self.post(&format!("{}/v1/messages", self.base_url), &body, &headers)?;
                let blocks = v["content"].as_array().cloned().unwrap_or_default();
                if let Some(input) = blocks.iter().find(|b| b["type"] == "tool_use").map(|b| &b["input"]) {
                    return Ok(input.to_string());
                }
                let text: String = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
                if text.is_empty() {
                    Err("the response has neither a tool_use block nor text".into())
                } else {
                    Ok(text)
                }
            }
        }
    }
}
