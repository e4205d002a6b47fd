//! Which language model nerd talks to, resolved once for every command
//! (`nerd run`, the session, `nerd perceive`), layered: the command line,
//! then the project's `.nerd/config.toml`, then the user's
//! `~/.config/nerd/config.toml` (`$XDG_CONFIG_HOME` honoured), then the usual
//! environment variables (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
//! `OPENAI_BASE_URL`, `OLLAMA_HOST`); with none of them, the offline
//! transducer. The result is a `Connection`; what it is asked to write (an
//! intent, a patch) is the caller's task.
//! Knows nothing about what the model's answers mean.

use std::path::{Path, PathBuf};

use crate::config::ModelConfig;
pub use crate::config::Provider;

use super::http::{Http, Wire};

/// A provider configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("{0}")]
    Unusable(String),
}

/// The resolved choice, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub provider: Provider,
    pub config: ModelConfig,
    /// "command line", ".nerd/config.toml", "~/.config/nerd/config.toml", "environment" or "default".
    pub source: &'static str,
}

/// How to reach the chosen model.
#[derive(Clone)]
pub enum Connection {
    /// No model: the offline rules read requests, nothing writes patches.
    Offline,
    Http(Box<Http>),
    /// A GGUF file loaded in-process when a task needs it.
    #[cfg(feature = "local")]
    Local(LocalSpec),
}

/// Where a local model is and how to run it.
#[cfg(feature = "local")]
#[derive(Clone, Debug)]
pub struct LocalSpec {
    pub path: PathBuf,
    pub threads: i32,
    pub seed: u32,
}

#[cfg(feature = "local")]
impl LocalSpec {
    /// Loads the model for one task.
    pub fn load(&self, task: super::Task) -> Result<super::local::Local, ProviderError> {
        let local = super::local::Local::load(&self.path, self.threads, self.seed).map_err(ProviderError::Unusable)?;
        Ok(local.with_task(task))
    }
}

fn read_user(path: &Path) -> Result<ModelConfig, ProviderError> {
    crate::config::UserConfig::read(path).map(|u| u.model).map_err(|e| match e {
        crate::config::ConfigError::Invalid { path, message } => ProviderError::Config { path, message },
        crate::config::ConfigError::Read { path, source } => {
            ProviderError::Config { path, message: source.to_string() }
        }
    })
}

/// Layers the configuration for a workspace whose project config is `project`.
pub fn choose(
    cli: Option<Provider>,
    project: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Choice, ProviderError> {
    let user = match crate::config::UserConfig::path(env) {
        Some(p) => read_user(&p)?,
        None => ModelConfig::default(),
    };
    let layered = user.overlay(project);
    let (provider, source) = if let Some(p) = cli {
        (p, "command line")
    } else if let Some(p) = project.provider {
        (p, ".nerd/config.toml")
    } else if let Some(p) = user.provider {
        (p, "~/.config/nerd/config.toml")
    } else if env("ANTHROPIC_API_KEY").is_some() {
        (Provider::Anthropic, "environment")
    } else if env("OPENAI_API_KEY").is_some() || env("OPENAI_BASE_URL").is_some() {
        (Provider::OpenAi, "environment")
    } else if env("OLLAMA_HOST").is_some() {
        (Provider::Ollama, "environment")
    } else {
        (Provider::Offline, "default")
    };
    Ok(Choice { provider, config: layered, source })
}

/// The connection a choice describes; `seed` goes to servers that honour it and to local models.
pub fn connect(
    choice: &Choice,
    seed: Option<u64>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Connection, ProviderError> {
    let c = &choice.config;
    let key_from = |default_var: &str| c.api_key_env.as_deref().map_or_else(|| env(default_var), env);
    let (wire, base, key, model) = match choice.provider {
        Provider::Offline => return Ok(Connection::Offline),
        Provider::Local => return local(choice, seed, env),
        Provider::OpenAi => {
            let ollama = env("OLLAMA_HOST").map(|h| format!("{}/v1", h.trim_end_matches('/')));
            let base = c
                .base_url
                .clone()
                .or_else(|| env("OPENAI_BASE_URL"))
                .or(ollama)
                .unwrap_or_else(|| "https://api.openai.com/v1".into());
            let key = key_from("OPENAI_API_KEY");
            if key.is_none() && base.contains("api.openai.com") {
                return Err(ProviderError::Unusable(
                    "the openai provider needs OPENAI_API_KEY (or base_url / OPENAI_BASE_URL for a local server)"
                        .into(),
                ));
            }
            let model = c.model.clone().or_else(|| env("NERD_OPENAI_MODEL")).unwrap_or_else(|| "gpt-4o-mini".into());
            (Wire::OpenAi, base, key, model)
        }
        Provider::Ollama => {
            let host =
                c.base_url.clone().or_else(|| env("OLLAMA_HOST")).unwrap_or_else(|| "http://127.0.0.1:11434".into());
            let host = if host.starts_with("http") { host } else { format!("http://{host}") };
            let base = if host.trim_end_matches('/').ends_with("/v1") { host } else { format!("{host}/v1") };
            (Wire::OpenAi, base, None, c.model.clone().unwrap_or_else(|| "qwen2.5-coder:7b".into()))
        }
        Provider::Anthropic => {
            let base = c
                .base_url
                .clone()
                .or_else(|| env("ANTHROPIC_BASE_URL"))
                .unwrap_or_else(|| "https://api.anthropic.com".into());
            let key = key_from("ANTHROPIC_API_KEY");
            if key.is_none() && base.contains("api.anthropic.com") {
                return Err(ProviderError::Unusable(
                    "the anthropic provider needs ANTHROPIC_API_KEY (or base_url / ANTHROPIC_BASE_URL for another server)"
                        .into(),
                ));
            }
            let model = c
                .model
                .clone()
                .or_else(|| env("NERD_ANTHROPIC_MODEL"))
                .unwrap_or_else(|| "claude-3-5-haiku-latest".into());
            (Wire::Anthropic, base, key, model)
        }
    };
    Ok(Connection::Http(Box::new(Http::new(wire, &base, key, &model).with_seed(seed))))
}

#[cfg(feature = "local")]
fn local(
    choice: &Choice,
    seed: Option<u64>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Connection, ProviderError> {
    let path = choice.config.model.clone().or_else(|| env("NERD_LOCAL_MODEL")).ok_or_else(|| {
        ProviderError::Unusable(
            "the local provider needs `model` (a GGUF file) or NERD_LOCAL_MODEL; scripts/install-model installs one"
                .into(),
        )
    })?;
    let threads = env("NERD_LOCAL_THREADS").and_then(|t| t.parse().ok()).unwrap_or(1);
    let seed = seed.or_else(|| env("NERD_SEED").and_then(|s| s.parse().ok())).unwrap_or(0);
    Ok(Connection::Local(LocalSpec { path: PathBuf::from(path), threads, seed: seed as u32 }))
}

#[cfg(not(feature = "local"))]
fn local(_: &Choice, _: Option<u64>, _: &dyn Fn(&str) -> Option<String>) -> Result<Connection, ProviderError> {
    Err(ProviderError::Unusable(
        "this nerd was built without the `local` feature (cargo build --features local)".into(),
    ))
}

/// The process environment, as `choose` and `connect` read it.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn layers_resolve_command_line_then_project_then_user_then_environment() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap().to_string();
        std::fs::create_dir_all(dir.path().join(".config/nerd")).unwrap();
        std::fs::write(dir.path().join(".config/nerd/config.toml"), "[model]\nprovider = \"ollama\"\nmodel = \"m1\"\n")
            .unwrap();
        let env = move |k: &str| match k {
            "HOME" => Some(home.clone()),
            "OPENAI_API_KEY" => Some("sk-x".into()),
            _ => None,
        };
        let none = ModelConfig::default();
        let user = choose(None, &none, &env).unwrap();
        assert_eq!((user.provider, user.config.model.as_deref()), (Provider::Ollama, Some("m1")));
        let project = ModelConfig { provider: Some(Provider::OpenAi), ..Default::default() };
        let p = choose(None, &project, &env).unwrap();
        assert_eq!(
            (p.provider, p.source, p.config.model.as_deref()),
            (Provider::OpenAi, ".nerd/config.toml", Some("m1"))
        );
        assert_eq!(choose(Some(Provider::Offline), &project, &env).unwrap().provider, Provider::Offline);
        let bare = choose(None, &none, &env_of(&[("OPENAI_API_KEY", "sk")])).unwrap();
        assert_eq!((bare.provider, bare.source), (Provider::OpenAi, "environment"));
        assert_eq!(choose(None, &none, &env_of(&[])).unwrap().provider, Provider::Offline);
    }

    #[test]
    fn broken_or_unknown_configuration_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("nerd")).unwrap();
        std::fs::write(dir.path().join("nerd/config.toml"), "[model]\nprovidr = \"x\"\n").unwrap();
        let xdg = dir.path().to_str().unwrap().to_string();
        let env = move |k: &str| (k == "XDG_CONFIG_HOME").then(|| xdg.clone());
        assert!(matches!(choose(None, &ModelConfig::default(), &env), Err(ProviderError::Config { .. })));
        std::fs::write(dir.path().join("nerd/config.toml"), "[model]\nprovider = \"gpt5\"\n").unwrap();
        assert!(matches!(choose(None, &ModelConfig::default(), &env), Err(ProviderError::Config { .. })));
        let openai = choose(Some(Provider::OpenAi), &ModelConfig::default(), &env_of(&[])).unwrap();
        assert!(matches!(connect(&openai, None, &env_of(&[])), Err(ProviderError::Unusable(_))));
        let offline = choose(None, &ModelConfig::default(), &env_of(&[])).unwrap();
        assert!(matches!(connect(&offline, None, &env_of(&[])), Ok(Connection::Offline)));
    }
}
