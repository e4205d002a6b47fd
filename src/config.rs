//! `.nerd/config.toml`: the project's configuration, parsed strictly into
//! checked types. Unknown keys, bad values and bad patterns are errors with
//! the file and the reason, never silently ignored. Configuration can only
//! restrict: it adds checks, blocking severities and rules.
//! Knows nothing about how the settings are used.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use nerd_logic::vocab::Severity;
use serde::Deserialize;

use crate::world::lang::Lang;

pub mod restriction;

/// Why the configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// The checks `nerd check` knows how to run.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Tool {
    CargoCheck,
    Clippy,
    CargoTest,
    GoBuild,
    GoVet,
    GoTest,
    Tsc,
    NodeTest,
    Vitest,
    Jest,
    Ruff,
    Pytest,
}

impl Tool {
    pub const ALL: [Tool; 12] = [
        Tool::CargoCheck,
        Tool::Clippy,
        Tool::CargoTest,
        Tool::GoBuild,
        Tool::GoVet,
        Tool::GoTest,
        Tool::Tsc,
        Tool::NodeTest,
        Tool::Vitest,
        Tool::Jest,
        Tool::Ruff,
        Tool::Pytest,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tool::CargoCheck => "cargo-check",
            Tool::Clippy => "clippy",
            Tool::CargoTest => "cargo-test",
            Tool::GoBuild => "go-build",
            Tool::GoVet => "go-vet",
            Tool::GoTest => "go-test",
            Tool::Tsc => "tsc",
            Tool::NodeTest => "node-test",
            Tool::Vitest => "vitest",
            Tool::Jest => "jest",
            Tool::Ruff => "ruff",
            Tool::Pytest => "pytest",
        }
    }

    /// Whether the tool runs tests (only when `tests = true` or listed explicitly).
    pub fn is_test_runner(self) -> bool {
        matches!(self, Tool::CargoTest | Tool::GoTest | Tool::NodeTest | Tool::Vitest | Tool::Jest | Tool::Pytest)
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    check: RawCheck,
    #[serde(default)]
    policy: RawPolicy,
    #[serde(default)]
    model: ModelConfig,
    #[serde(default)]
    index: IndexConfig,
    #[serde(default)]
    context: ContextConfig,
    #[serde(default)]
    shards: ShardsConfig,
}

/// `[shards]`: specialists and spawned children.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ShardsConfig {
    /// The share of viva voce questions (percent) a specialist must pass to be
    /// spawned; a project may only raise it above the default 80.
    #[serde(default = "default_viva_threshold")]
    pub viva_threshold: u32,
    /// Children that run at once (default: the machine's cores).
    #[serde(default)]
    pub max_parallel: Option<usize>,
    /// Files with code a workspace needs before the kernel delegates a survey to
    /// children (default 1000: below it one process surveys faster, as measured).
    #[serde(default = "default_delegate_min_files")]
    pub delegate_min_files: u32,
}

impl Default for ShardsConfig {
    fn default() -> ShardsConfig {
        ShardsConfig {
            viva_threshold: default_viva_threshold(),
            max_parallel: None,
            delegate_min_files: default_delegate_min_files(),
        }
    }
}

fn default_delegate_min_files() -> u32 {
    nerd_logic::delegation::DEFAULT_MIN_FILES
}

fn default_viva_threshold() -> u32 {
    nerd_logic::shards::DEFAULT_VIVA_THRESHOLD
}

impl ShardsConfig {
    /// How many children run at once.
    pub fn parallel(&self) -> usize {
        self.max_parallel.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
    }
}

/// `[index]`: how the precise tier (the languages' own indexers) is run.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexConfig {
    /// `manual` (only `nerd index --precise`) or `after-cold`: also start it
    /// in the background when `nerd index` projected the workspace from scratch.
    #[serde(default)]
    pub precise: PreciseMode,
    /// How long one indexer may run.
    #[serde(default = "default_precise_timeout")]
    pub precise_timeout_secs: u64,
    /// How long `nerd index --coverage` may run the tests of one language.
    #[serde(default = "default_coverage_timeout")]
    pub coverage_timeout_secs: u64,
    /// The interpreter that runs the Python tests under coverage (default:
    /// the workspace's `.venv`/`venv`, else `python3` on PATH).
    #[serde(default)]
    pub coverage_python: Option<String>,
    /// Extra arguments for pytest under coverage (after `-q -p no:cacheprovider`).
    #[serde(default)]
    pub coverage_pytest_args: Vec<String>,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            precise: PreciseMode::Manual,
            precise_timeout_secs: default_precise_timeout(),
            coverage_timeout_secs: default_coverage_timeout(),
            coverage_python: None,
            coverage_pytest_args: Vec::new(),
        }
    }
}

fn default_coverage_timeout() -> u64 {
    1800
}

fn default_precise_timeout() -> u64 {
    600
}

/// When the precise tier runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PreciseMode {
    #[default]
    Manual,
    AfterCold,
}

/// Which kind of language model reads requests and writes patches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// The deterministic offline transducer: no model at all.
    Offline,
    /// Any OpenAI-compatible server (OpenAI, llama.cpp server, vLLM...).
    #[value(name = "openai")]
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic's messages API.
    Anthropic,
    /// Ollama's OpenAI-compatible endpoint.
    Ollama,
    /// A GGUF model in-process (the `local` build feature).
    Local,
}

impl Provider {
    pub const ALL: &'static [Provider] =
        &[Provider::Offline, Provider::OpenAi, Provider::Anthropic, Provider::Ollama, Provider::Local];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Offline => "offline",
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Ollama => "ollama",
            Provider::Local => "local",
        }
    }
}

impl std::str::FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Provider::ALL.iter().copied().find(|p| p.as_str() == s).ok_or_else(|| {
            let known: Vec<&str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
            format!("unknown model provider `{s}`; use one of {}", known.join(", "))
        })
    }
}

impl<'de> Deserialize<'de> for Provider {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::words::deserialize(d)
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `[model]`: which language model nerd uses, in the user's or the project's config.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// offline, openai, anthropic, ollama or (with the `local` feature) local.
    pub provider: Option<Provider>,
    /// The model name the server knows (or the GGUF file for `local`).
    pub model: Option<String>,
    /// The server's base URL (OpenAI-compatible or Anthropic).
    pub base_url: Option<String>,
    /// The environment variable holding the API key, instead of the provider's usual one.
    pub api_key_env: Option<String>,
    /// Who reads requests: `model` or `offline`. By default the model, except a
    /// local one: small local coders write patches well enough and read requests
    /// badly (Qwen2.5-Coder-0.5B read "fix the failing tests" as a query).
    pub perceive: Option<Perceiver>,
    /// Readings of each request when a model perceives (self-consistency; 1
    /// turns it off). Default 3 for model servers; 1 for a local model,
    /// whose seeded sampling reads the same way every time.
    pub readings: Option<usize>,
}

/// Who reads requests into intents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Perceiver {
    Model,
    Offline,
}

impl ModelConfig {
    /// `self` with the fields `over` sets replaced.
    pub fn overlay(&self, over: &ModelConfig) -> ModelConfig {
        ModelConfig {
            provider: over.provider.or(self.provider),
            model: over.model.clone().or_else(|| self.model.clone()),
            base_url: over.base_url.clone().or_else(|| self.base_url.clone()),
            api_key_env: over.api_key_env.clone().or_else(|| self.api_key_env.clone()),
            perceive: over.perceive.or(self.perceive),
            readings: over.readings.or(self.readings),
        }
    }
}

/// `~/.config/nerd/config.toml` (or `$XDG_CONFIG_HOME/nerd/config.toml`): the
/// user's own settings. Unlike a project's, they may loosen: only the user
/// can let sandboxed programs reach a host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserConfig {
    pub model: ModelConfig,
    /// `[policy] allow_hosts`: hosts sandboxed programs reach through nerd's proxy.
    pub allow_hosts: crate::hosts::HostAllowance,
}

impl UserConfig {
    /// Where the user's configuration lives, from `XDG_CONFIG_HOME` or `HOME`.
    pub fn path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
        if let Some(xdg) = env("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
            return Some(PathBuf::from(xdg).join("nerd/config.toml"));
        }
        env("HOME").map(|home| PathBuf::from(home).join(".config/nerd/config.toml"))
    }

    /// Parses the user's file: `[model]` and `[policy] allow_hosts`.
    pub fn parse(text: &str) -> Result<UserConfig, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct RawUserPolicy {
            #[serde(default)]
            allow_hosts: Vec<String>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct User {
            #[serde(default)]
            model: ModelConfig,
            policy: Option<RawUserPolicy>,
        }
        let user: User = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        let hosts = user.policy.map(|p| p.allow_hosts).unwrap_or_default();
        let allow_hosts = crate::hosts::HostAllowance::parse(&hosts).map_err(|e| format!("policy.allow_hosts: {e}"))?;
        Ok(UserConfig { model: user.model, allow_hosts })
    }

    /// Reads the file at `path`; a missing file is the default.
    pub fn read(path: &Path) -> Result<UserConfig, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                UserConfig::parse(&text).map_err(|message| ConfigError::Invalid { path: path.to_path_buf(), message })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(UserConfig::default()),
            Err(source) => Err(ConfigError::Read { path: path.to_path_buf(), source }),
        }
    }

    /// The user's configuration for this process's environment.
    pub fn load() -> Result<UserConfig, ConfigError> {
        match UserConfig::path(&|k| std::env::var(k).ok()) {
            Some(path) => UserConfig::read(&path),
            None => Ok(UserConfig::default()),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    autonomy: Option<String>,
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    deny_programs: Vec<String>,
    #[serde(default)]
    secret_paths: Vec<String>,
    /// Refused with a reason: a repository cannot open the network to itself.
    allow_hosts: Option<toml::Value>,
}

/// The project's additions to the constitution. They can only restrict.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyConfig {
    /// The most autonomy the project allows; a caller asking for more gets this.
    pub autonomy: Option<nerd_logic::vocab::Autonomy>,
    /// Kinds of action that always ask.
    pub ask: Vec<nerd_logic::vocab::ActionKind>,
    /// Programs never run here.
    pub deny_programs: Vec<String>,
    /// More files and folders holding secrets: never read by the agent, masked in the sandbox.
    pub secret_paths: Vec<String>,
}

impl PolicyConfig {
    /// The effective profile: the more cautious of the caller's and the project's.
    pub fn autonomy(&self, asked: nerd_logic::vocab::Autonomy) -> nerd_logic::vocab::Autonomy {
        self.autonomy.map_or(asked, |cap| asked.min(cap))
    }

    /// Adds the project's restrictions to a fact base.
    pub fn apply(&self, f: &mut nerd_logic::Facts) {
        f.autonomy = self.autonomy(f.autonomy);
        f.policy_ask.extend(self.ask.iter().copied());
        for p in &self.deny_programs {
            let s = f.sym(p);
            f.project_denied_program.push(s);
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    tools: Option<Vec<Tool>>,
    #[serde(default)]
    tests: bool,
    #[serde(default = "default_block_on")]
    block_on: Vec<String>,
    #[serde(default = "default_timeout")]
    timeout_secs: u64,
    #[serde(default)]
    rule: Vec<RawRule>,
    #[serde(default)]
    block_on_existing: bool,
    #[serde(default)]
    missing_tool: MissingTool,
}

impl Default for RawCheck {
    fn default() -> Self {
        RawCheck {
            tools: None,
            tests: false,
            block_on: default_block_on(),
            timeout_secs: default_timeout(),
            rule: vec![],
            block_on_existing: false,
            missing_tool: MissingTool::default(),
        }
    }
}

/// What the gate does when a tool the repository calls for is not installed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissingTool {
    /// Fail closed: the commit is blocked, with the install hint.
    #[default]
    Block,
    /// Say so, and let the commit through.
    Warn,
}

fn default_block_on() -> Vec<String> {
    vec!["error".into()]
}

fn default_timeout() -> u64 {
    600
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    lang: String,
    call: Option<String>,
    query: Option<String>,
    message: String,
    #[serde(default = "default_rule_severity")]
    severity: String,
    #[serde(default)]
    include_tests: bool,
    #[serde(default)]
    paths: Vec<String>,
}

fn default_rule_severity() -> String {
    "error".into()
}

/// What a rule looks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// A call to a function or method with this name.
    Call(String),
    /// A tree-sitter query; the `@match` capture (or the whole match) is reported.
    Query(String),
}

/// A project rule: a structural pattern that must not appear in added code.
#[derive(Clone, Debug)]
pub struct Rule {
    pub id: String,
    pub lang: Lang,
    pub pattern: Pattern,
    pub message: String,
    pub severity: Severity,
    /// Whether test files and test functions are checked too.
    pub include_tests: bool,
    /// Restricts the rule to matching paths (all paths when empty).
    pub paths: Option<GlobSet>,
}

/// Settings of `nerd check`.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// Explicit tool list; detected from the repository when `None`.
    pub tools: Option<Vec<Tool>>,
    /// Also run the detected languages' test runners.
    pub tests: bool,
    pub block_on: Vec<Severity>,
    pub timeout_secs: u64,
    pub rules: Vec<Rule>,
    /// Also block on findings that HEAD already has (default: only what the commit introduces).
    pub block_on_existing: bool,
    pub missing_tool: MissingTool,
}

/// `[context]`: what a model call may be given.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ContextConfig {
    /// The token budget of the context block each model call gets (default 8000).
    #[serde(default = "default_budget_tokens")]
    pub budget_tokens: usize,
}

impl Default for ContextConfig {
    fn default() -> ContextConfig {
        ContextConfig { budget_tokens: default_budget_tokens() }
    }
}

fn default_budget_tokens() -> usize {
    8000
}

/// The whole project configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub check: CheckConfig,
    pub policy: PolicyConfig,
    pub model: ModelConfig,
    pub index: IndexConfig,
    pub context: ContextConfig,
    pub shards: ShardsConfig,
    /// The file's bytes, hashed into cache keys.
    pub source: String,
}

impl Config {
    /// Reads `<root>/.nerd/config.toml`; defaults when the file does not exist.
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let path = root.join(".nerd/config.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        Config::parse(&text).map_err(|message| ConfigError::Invalid { path, message })
    }

    /// Parses configuration text.
    pub fn parse(text: &str) -> Result<Config, String> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        let c = raw.check;
        let block_on = c
            .block_on
            .iter()
            .map(|s| s.parse::<Severity>().map_err(|e| format!("check.block_on: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        if c.timeout_secs == 0 {
            return Err("check.timeout_secs must be at least 1".into());
        }
        let mut rules = Vec::with_capacity(c.rule.len());
        for r in c.rule {
            rules.push(rule(r)?);
        }
        let mut ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("two rules share the id `{}`", w[0]));
        }
        let p = raw.policy;
        let autonomy = p
            .autonomy
            .map(|a| a.parse::<nerd_logic::vocab::Autonomy>().map_err(|e| format!("policy.autonomy: {e}")))
            .transpose()?;
        let ask = p
            .ask
            .iter()
            .map(|k| k.parse::<nerd_logic::vocab::ActionKind>().map_err(|e| format!("policy.ask: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        if raw.context.budget_tokens < 256 {
            return Err("context.budget_tokens must be at least 256".into());
        }
        if raw.shards.viva_threshold < nerd_logic::shards::DEFAULT_VIVA_THRESHOLD || raw.shards.viva_threshold > 100 {
            return Err(format!(
                "shards.viva_threshold must be between {} and 100: a project may raise the pass mark, never lower it",
                nerd_logic::shards::DEFAULT_VIVA_THRESHOLD
            ));
        }
        if raw.shards.max_parallel == Some(0) {
            return Err("shards.max_parallel must be at least 1".into());
        }
        if raw.index.precise_timeout_secs == 0 {
            return Err("index.precise_timeout_secs must be at least 1".into());
        }
        if raw.index.coverage_timeout_secs == 0 {
            return Err("index.coverage_timeout_secs must be at least 1".into());
        }
        if raw.index.coverage_python.as_deref().is_some_and(str::is_empty) {
            return Err("index.coverage_python must name an interpreter".into());
        }
        if let Some(bad) = p.deny_programs.iter().find(|x| x.is_empty() || x.contains('/')) {
            return Err(format!("policy.deny_programs: `{bad}` must be a program name"));
        }
        if p.allow_hosts.is_some() {
            return Err("policy.allow_hosts: a project cannot let programs reach hosts (a repository must not \
                        open the network to itself); put it in ~/.config/nerd/config.toml"
                .into());
        }
        Ok(Config {
            check: CheckConfig {
                tools: c.tools,
                tests: c.tests,
                block_on,
                timeout_secs: c.timeout_secs,
                rules,
                block_on_existing: c.block_on_existing,
                missing_tool: c.missing_tool,
            },
            policy: PolicyConfig { autonomy, ask, deny_programs: p.deny_programs, secret_paths: p.secret_paths },
            model: raw.model,
            index: raw.index,
            context: raw.context,
            shards: raw.shards,
            source: text.to_string(),
        })
    }
}

fn rule(r: RawRule) -> Result<Rule, String> {
    let at = |m: String| format!("rule `{}`: {m}", r.id);
    if r.id.is_empty() || !r.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(format!("rule id `{}` must be letters, digits, `-` or `_`", r.id));
    }
    let lang = Lang::from_name(&r.lang)
        .ok_or_else(|| at(format!("unknown lang `{}` (rust, go, python, typescript, tsx)", r.lang)))?;
    let pattern = match (r.call, r.query) {
        (Some(call), None) if !call.is_empty() => Pattern::Call(call),
        (None, Some(query)) => {
            tree_sitter::Query::new(&lang.grammar(), &query).map_err(|e| at(format!("query does not compile: {e}")))?;
            Pattern::Query(query)
        }
        _ => return Err(at("give exactly one of `call` or `query`".into())),
    };
    let severity = r.severity.parse::<Severity>().map_err(|e| at(e.to_string()))?;
    let paths = if r.paths.is_empty() {
        None
    } else {
        let mut set = GlobSetBuilder::new();
        for p in &r.paths {
            set.add(Glob::new(p).map_err(|e| at(format!("bad path glob `{p}`: {e}")))?);
        }
        Some(set.build().map_err(|e| at(e.to_string()))?)
    };
    Ok(Rule { id: r.id, lang, pattern, message: r.message, severity, include_tests: r.include_tests, paths })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_config_parses() {
        let c = Config::parse(
            r#"
            [check]
            tools = ["cargo-check", "ruff"]
            tests = true
            block_on = ["error", "warning"]

            [[check.rule]]
            id = "no-unwrap"
            lang = "rust"
            call = "unwrap"
            message = "no .unwrap() outside tests"

            [[check.rule]]
            id = "no-print"
            lang = "python"
            query = "(call function: (identifier) @f (#eq? @f \"print\")) @match"
            message = "no print( in library code"
            severity = "warning"
            paths = ["src/**"]
            "#,
        )
        .unwrap();
        assert_eq!(c.check.tools, Some(vec![Tool::CargoCheck, Tool::Ruff]));
        assert_eq!(c.check.block_on, vec![Severity::Error, Severity::Warning]);
        assert_eq!(c.check.rules.len(), 2);
        assert!(c.check.rules[1].paths.as_ref().unwrap().is_match("src/a.py"));
        assert!(!c.check.rules[1].paths.as_ref().unwrap().is_match("tests/a.py"));
    }

    #[test]
    fn mistakes_are_errors_with_a_reason() {
        let cases = [
            ("[check]\ntool = [\"ruff\"]", "unknown field"),
            ("[check]\ntools = [\"eslint\"]", "unknown variant"),
            ("[check]\nblock_on = [\"fatal\"]", "unknown severity"),
            ("[[check.rule]]\nid = \"x\"\nlang = \"cobol\"\ncall = \"f\"\nmessage = \"m\"", "unknown lang"),
            ("[[check.rule]]\nid = \"x\"\nlang = \"rust\"\nmessage = \"m\"", "exactly one"),
            ("[[check.rule]]\nid = \"x\"\nlang = \"rust\"\nquery = \"(nope\"\nmessage = \"m\"", "does not compile"),
            ("[[check.rule]]\nid = \"a b\"\nlang = \"rust\"\ncall = \"f\"\nmessage = \"m\"", "must be letters"),
            ("[check]\ntimeout_secs = 0", "at least 1"),
            ("this is = not toml", "expected"),
        ];
        for (text, want) in cases {
            let err = Config::parse(text).expect_err(text);
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn project_policy_only_restricts() {
        use nerd_logic::vocab::{ActionKind, Autonomy};
        let c =
            Config::parse("[policy]\nautonomy = \"cautious\"\nask = [\"net_request\"]\ndeny_programs = [\"npm\"]\n")
                .unwrap();
        assert_eq!(c.policy.autonomy(Autonomy::Autonomous), Autonomy::Cautious);
        assert_eq!(c.policy.ask, vec![ActionKind::NetRequest]);
        let relaxed = Config::parse("[policy]\nautonomy = \"autonomous\"\n").unwrap();
        assert_eq!(relaxed.policy.autonomy(Autonomy::Cautious), Autonomy::Cautious, "a project cannot loosen");
        for bad in [
            "[policy]\nautonomy = \"yolo\"",
            "[policy]\nask = [\"teleport\"]",
            "[policy]\ndeny_programs = [\"/bin/rm\"]",
            "[policy]\nallow = [\"curl\"]",
        ] {
            assert!(Config::parse(bad).is_err(), "{bad}");
        }
        let opened =
            Config::parse("[policy]\nallow_hosts = [\"pypi.org\"]\n").expect_err("a project opens the network");
        assert!(opened.contains("~/.config/nerd/config.toml"), "{opened}");
    }

    #[test]
    fn only_the_user_allows_hosts_and_bad_entries_say_why() {
        let user = UserConfig::parse(
            "[model]\nprovider = \"offline\"\n[policy]\nallow_hosts = [\"pypi.org\", \"*.pythonhosted.org\"]\n",
        )
        .unwrap();
        assert_eq!(user.allow_hosts.to_string(), "pypi.org, *.pythonhosted.org");
        assert_eq!(user.model.provider, Some(Provider::Offline));
        assert!(UserConfig::parse("").unwrap().allow_hosts.is_empty());
        let err = UserConfig::parse("[policy]\nallow_hosts = [\"https://pypi.org/simple\"]\n").unwrap_err();
        assert!(err.starts_with("policy.allow_hosts: `https://pypi.org/simple`"), "{err}");
        assert!(
            UserConfig::parse("[policy]\nautonomy = \"yolo\"\n").is_err(),
            "the user's [policy] holds allow_hosts only"
        );
    }

    #[test]
    fn an_empty_file_is_the_default() {
        let c = Config::parse("").unwrap();
        assert_eq!(c.check.tools, None);
        assert_eq!(c.check.block_on, vec![Severity::Error]);
        assert!(!c.check.tests);
    }
}
