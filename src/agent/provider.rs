//! Which language model the agent talks to, layered: the command line, then
//! the project's `.nerd/config.toml`, then the user's
//! `~/.config/nerd/config.toml` (`$XDG_CONFIG_HOME` honoured), then the usual
//! environment variables (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
//! `OPENAI_BASE_URL`, `OLLAMA_HOST`); with none of them, the offline
//! transducer. A model only ever transduces: intent JSON from requests and
//! patch proposals from facts, both parsed at the boundary.
//! Knows nothing about what the agent does with them.

use std::path::{Path, PathBuf};

use crate::config::ModelConfig;
use crate::perceive::http::{Http, Task, Wire};
use crate::perceive::{Offline, Transducer};

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
    pub provider: String,
    pub config: ModelConfig,
    /// "command line", ".nerd/config.toml", "~/.config/nerd/config.toml", "environment" or "default".
    pub source: String,
}

fn user_config_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(xdg) = env("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(xdg).join("nerd/config.toml"));
    }
    env("HOME").map(|home| PathBuf::from(home).join(".config/nerd/config.toml"))
}

fn read_user(path: &Path) -> Result<ModelConfig, ProviderError> {
    match std::fs::read_to_string(path) {
        Ok(text) => ModelConfig::parse_user(&text)
            .map_err(|message| ProviderError::Config { path: path.to_path_buf(), message }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ModelConfig::default()),
        Err(e) => Err(ProviderError::Config { path: path.to_path_buf(), message: e.to_string() }),
    }
}

/// Layers the configuration for a workspace whose project config is `project`.
pub fn choose(
    cli: Option<&str>,
    project: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Choice, ProviderError> {
    let user = match user_config_path(env) {
        Some(p) => read_user(&p)?,
        None => ModelConfig::default(),
    };
    let layered = user.overlay(project);
    let (provider, source) = if let Some(p) = cli {
        (p.to_string(), "command line")
    } else if let Some(p) = &project.provider {
        (p.clone(), ".nerd/config.toml")
    } else if let Some(p) = &user.provider {
        (p.clone(), "~/.config/nerd/config.toml")
    } else if env("ANTHROPIC_API_KEY").is_some() {
        ("anthropic".to_string(), "environment")
    } else if env("OPENAI_API_KEY").is_some() || env("OPENAI_BASE_URL").is_some() {
        ("openai".to_string(), "environment")
    } else if env("OLLAMA_HOST").is_some() {
        ("ollama".to_string(), "environment")
    } else {
        ("offline".to_string(), "default")
    };
    let known = ["offline", "openai", "anthropic", "ollama", "local"];
    if !known.contains(&provider.as_str()) {
        return Err(ProviderError::Unusable(format!(
            "unknown model provider `{provider}` (from {source}); use one of {}",
            known.join(", ")
        )));
    }
    Ok(Choice { provider, config: layered, source: source.to_string() })
}

/// The HTTP connection a choice describes, if it is an HTTP provider.
fn http(choice: &Choice, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Http>, ProviderError> {
    let c = &choice.config;
    let key_from = |default_var: &str| c.api_key_env.as_deref().map_or_else(|| env(default_var), env);
    let (wire, base, key, model) = match choice.provider.as_str() {
        "openai" => {
            let base =
                c.base_url.clone().or_else(|| env("OPENAI_BASE_URL")).unwrap_or("https://api.openai.com/v1".into());
            let key = key_from("OPENAI_API_KEY");
            if key.is_none() && base.contains("api.openai.com") {
                return Err(ProviderError::Unusable(
                    "the openai provider needs OPENAI_API_KEY (or base_url / OPENAI_BASE_URL for a local server)"
                        .into(),
                ));
            }
            (Wire::OpenAi, base, key, c.model.clone().unwrap_or("gpt-4o-mini".into()))
        }
        "ollama" => {
            let host = c.base_url.clone().or_else(|| env("OLLAMA_HOST")).unwrap_or("http://127.0.0.1:11434".into());
            let host = if host.starts_with("http") { host } else { format!("http://{host}") };
            let base = if host.trim_end_matches('/').ends_with("/v1") { host } else { format!("{host}/v1") };
            (Wire::OpenAi, base, None, c.model.clone().unwrap_or("qwen2.5-coder:7b".into()))
        }
        "anthropic" => {
            let base = c.base_url.clone().unwrap_or("https://api.anthropic.com".into());
            let key = key_from("ANTHROPIC_API_KEY");
            if key.is_none() && base.contains("api.anthropic.com") {
                return Err(ProviderError::Unusable("the anthropic provider needs ANTHROPIC_API_KEY".into()));
            }
            (Wire::Anthropic, base, key, c.model.clone().unwrap_or("claude-3-5-haiku-latest".into()))
        }
        _ => return Ok(None),
    };
    Ok(Some(Http::new(wire, &base, key, &model)))
}

/// The transducer that reads requests.
pub fn perceiver(
    choice: &Choice,
    seed: Option<u64>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Box<dyn Transducer>, ProviderError> {
    if let Some(h) = http(choice, env)? {
        return Ok(Box::new(h.with_seed(seed)));
    }
    match choice.provider.as_str() {
        #[cfg(feature = "local")]
        "local" => {
            let path = choice.config.model.clone().or_else(|| env("NERD_LOCAL_MODEL")).ok_or_else(|| {
                ProviderError::Unusable(
                    "the local provider needs `model` (a GGUF file) or NERD_LOCAL_MODEL; scripts/install-model installs one"
                        .into(),
                )
            })?;
            let threads = env("NERD_LOCAL_THREADS").and_then(|t| t.parse().ok()).unwrap_or(1);
            let local = crate::perceive::local::Local::load(Path::new(&path), threads, seed.unwrap_or(0) as u32)
                .map_err(ProviderError::Unusable)?;
            Ok(Box::new(local))
        }
        #[cfg(not(feature = "local"))]
        "local" => Err(ProviderError::Unusable(
            "this nerd was built without the `local` feature (cargo build --features local)".into(),
        )),
        _ => Ok(Box::new(Offline)),
    }
}

/// The transducer that writes patches, when the choice has one: offline rules
/// and the small local model only read requests.
pub fn patcher(
    choice: &Choice,
    seed: Option<u64>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Box<dyn Transducer>>, ProviderError> {
    Ok(http(choice, env)?.map(|h| Box::new(h.for_task(Task::Patch).with_seed(seed)) as Box<dyn Transducer>))
}

/// The process environment, as `choose` and the constructors read it.
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
        assert_eq!((user.provider.as_str(), user.config.model.as_deref()), ("ollama", Some("m1")));
        let project = ModelConfig { provider: Some("openai".into()), ..Default::default() };
        let p = choose(None, &project, &env).unwrap();
        assert_eq!(
            (p.provider.as_str(), p.source.as_str(), p.config.model.as_deref()),
            ("openai", ".nerd/config.toml", Some("m1"))
        );
        assert_eq!(choose(Some("offline"), &project, &env).unwrap().provider, "offline");
        let bare = choose(None, &none, &env_of(&[("OPENAI_API_KEY", "sk")])).unwrap();
        assert_eq!((bare.provider.as_str(), bare.source.as_str()), ("openai", "environment"));
        assert_eq!(choose(None, &none, &env_of(&[])).unwrap().provider, "offline");
    }

    #[test]
    fn broken_or_unknown_configuration_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("nerd")).unwrap();
        std::fs::write(dir.path().join("nerd/config.toml"), "[model]\nprovidr = \"x\"\n").unwrap();
        let xdg = dir.path().to_str().unwrap().to_string();
        let env = move |k: &str| (k == "XDG_CONFIG_HOME").then(|| xdg.clone());
        assert!(matches!(choose(None, &ModelConfig::default(), &env), Err(ProviderError::Config { .. })));
        let bogus = ModelConfig { provider: Some("gpt5".into()), ..Default::default() };
        assert!(matches!(choose(None, &bogus, &env_of(&[])), Err(ProviderError::Unusable(_))));
        let openai = choose(Some("openai"), &ModelConfig::default(), &env_of(&[])).unwrap();
        assert!(matches!(perceiver(&openai, None, &env_of(&[])), Err(ProviderError::Unusable(_))));
        let offline = choose(None, &ModelConfig::default(), &env_of(&[])).unwrap();
        assert!(patcher(&offline, None, &env_of(&[])).unwrap().is_none());
    }
}
