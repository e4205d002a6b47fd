//! What an agent is set up with before its first request: the options, the
//! transducer that reads requests and the one that writes patches, resolved
//! once from the command line, the configuration layers and the environment.
//! A problem here is a configuration problem (`nerd run` exits 1).
//! Knows nothing about terminals or how requests are handled.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use nerd_logic::vocab::Autonomy;

use super::Options;
use crate::config::{ConfigError, Perceiver, Provider};
use crate::model::provider::{self, Choice, ProviderError};
use crate::model::{Transcript, Transducer};

/// Tokens of kernel-selected context a local model's patch prompt carries at most.
pub const LOCAL_CONTEXT_BUDGET: usize = 1500;

/// A configuration problem.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Invalid(String),
}

/// What the caller asked for.
#[derive(Clone, Debug)]
pub struct Settings {
    pub provider: Option<Provider>,
    pub autonomy: Autonomy,
    pub retry_budget: u32,
    pub seed: Option<u64>,
    /// Recorded model outputs to replay as the patch writer.
    pub transcript: Option<PathBuf>,
    pub dry_run: bool,
    /// Renames reach docs and comments too.
    pub include_docs: bool,
    /// Set by Ctrl-C.
    pub interrupted: Arc<AtomicBool>,
}

/// Everything an agent needs besides its sinks.
pub struct Setup {
    pub options: Options,
    pub perceiver: Box<dyn Transducer>,
    pub patcher: Option<Box<dyn Transducer>>,
    /// Writes explanations; with a transcript, it replays the same outputs.
    pub explainer: Option<Box<dyn Transducer>>,
    pub choice: Choice,
}

/// Reads a recorded transcript of model outputs.
pub fn transcript(path: &Path) -> Result<Transcript, SetupError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        outputs: Vec<String>,
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| SetupError::Invalid(format!("cannot read transcript {}: {e}", path.display())))?;
    let file: File = serde_json::from_str(&text).map_err(|e| {
        SetupError::Invalid(format!("transcript {}: {e} (expected {{\"outputs\": [...]}})", path.display()))
    })?;
    Ok(Transcript { outputs: file.outputs.into(), feedback: Vec::new() })
}

/// Resolves provider, options and transducers for the workspace at `root`.
pub fn setup(root: &Path, settings: &Settings) -> Result<Setup, SetupError> {
    let config = crate::config::Config::load(root)?;
    let choice = provider::choose(settings.provider, &config.model, &provider::process_env)?;
    let connection = provider::connect(&choice, settings.seed, &provider::process_env)?;
    let (patcher, explainer) = match &settings.transcript {
        Some(path) => (
            Some(Box::new(transcript(path)?) as Box<dyn Transducer>),
            Some(Box::new(transcript(path)?) as Box<dyn Transducer>),
        ),
        None => (super::patcher(&connection)?, super::explainer(&connection)?),
    };
    let offline_reader = match choice.config.perceive {
        Some(who) => who == Perceiver::Offline,
        None => choice.provider == Provider::Local,
    };
    let perceiver: Box<dyn Transducer> =
        if offline_reader { Box::new(crate::perceive::Offline) } else { crate::perceive::transducer(connection)? };
    if settings.retry_budget == 0 {
        return Err(SetupError::Invalid("--retry-budget must be at least 1".into()));
    }
    let options = Options {
        autonomy: settings.autonomy,
        dry_run: settings.dry_run,
        include_docs: settings.include_docs,
        retry_budget: settings.retry_budget,
        interrupted: settings.interrupted.clone(),
        // A local model reads its prompt on this machine's cores: a smaller context keeps a patch within seconds.
        readings: choice.config.readings.unwrap_or(if choice.provider == Provider::Local { 1 } else { 3 }).clamp(1, 9),
        context_budget: if choice.provider == Provider::Local {
            config.context.budget_tokens.min(LOCAL_CONTEXT_BUDGET)
        } else {
            config.context.budget_tokens
        },
        ..Options::default()
    };
    Ok(Setup { options, perceiver, patcher, explainer, choice })
}
