//! Model clients over HTTP: any OpenAI-compatible server (OpenAI, Ollama,
//! llama.cpp server, vLLM) through chat completions with a JSON-schema
//! response format, and Anthropic's messages API with a forced tool whose
//! input schema is the task's schema. Both only produce text for the caller's
//! boundary to parse; a repair attempt carries the rejection back.
//! Knows nothing about what the answer means.

use std::time::Duration;

use serde_json::{json, Value};

use super::{Task, Transducer};

/// Which wire format a server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

/// An HTTP model client; `for_task` says what it is asked to write.
#[derive(Clone)]
pub struct Http {
    pub wire: Wire,
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub task: Option<Task>,
    /// Sent as `seed` to OpenAI-compatible servers, for reproducible runs where the server honours it.
    pub seed: Option<u64>,
    agent: ureq::Agent,
    /// What the last answer cost, as the server reported it.
    last_usage: Option<super::Usage>,
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
            task: None,
            seed: None,
            agent,
            last_usage: None,
        }
    }

    /// The same connection, asked for one kind of output.
    pub fn for_task(mut self, task: Task) -> Http {
        self.task = Some(task);
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

/// The token counts a response's `usage` object reports under these names.
fn usage(v: &Value, prompt: &str, completion: &str) -> Option<super::Usage> {
    let count = |k: &str| v[k].as_u64().and_then(|n| u32::try_from(n).ok());
    Some(super::Usage { prompt: count(prompt)?, completion: count(completion)? })
}

impl Transducer for Http {
    fn usage(&self) -> Option<super::Usage> {
        self.last_usage
    }

    fn name(&self) -> &str {
        match self.wire {
            Wire::OpenAi => "openai",
            Wire::Anthropic => "anthropic",
        }
    }

    fn transduce(&mut self, text: &str, feedback: Option<&str>) -> Result<String, String> {
        let task = self.task.as_ref().ok_or("the model client was given no task")?;
        match self.wire {
            Wire::OpenAi => {
                let mut messages = vec![json!({"role": "system", "content": task.system})];
                messages.extend(Http::messages(text, feedback));
                let mut body = json!({
                    "model": self.model,
                    "temperature": 0,
                    "messages": messages,
                    "response_format": {"type": "json_schema", "json_schema": {"name": task.name, "strict": true, "schema": task.schema}},
                });
                if let Some(seed) = self.seed {
                    body["seed"] = json!(seed);
                }
                let headers: Vec<(&str, String)> =
                    self.api_key.iter().map(|k| ("authorization", format!("Bearer {k}"))).collect();
                let v = self.post(&format!("{}/chat/completions", self.base_url), &body, &headers)?;
                self.last_usage = usage(&v["usage"], "prompt_tokens", "completion_tokens");
                v["choices"][0]["message"]["content"]
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| "the response has no choices[0].message.content".to_string())
            }
            Wire::Anthropic => {
                let body = json!({
                    "model": self.model,
                    "max_tokens": task.max_tokens,
                    "system": task.system,
                    "messages": Http::messages(text, feedback),
                    "tools": [{"name": task.name, "description": task.description, "input_schema": task.schema}],
                    "tool_choice": {"type": "tool", "name": task.name},
                });
                let mut headers = vec![("anthropic-version", "2023-06-01".to_string())];
                headers.extend(self.api_key.iter().map(|k| ("x-api-key", k.clone())));
                let v = self.post(&format!("{}/v1/messages", self.base_url), &body, &headers)?;
                self.last_usage = usage(&v["usage"], "input_tokens", "output_tokens");
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
