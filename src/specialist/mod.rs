//! Specialists: profiles (`profile`), research into a knowledge shard
//! (`research`, `extract`), answers from it (`ask`), the viva voce that makes
//! one ready (`viva`), and the delegation tokens (`delegation`) and process
//! launch (`launch`) of spawned children. The kernel decides readiness and
//! whether a spawn may happen; this module only gathers the facts it needs.
//! Knows nothing about the agent loop or the router.

pub mod ask;
pub mod delegation;
pub mod extract;
pub mod launch;
pub mod profile;
pub mod research;
pub mod viva;

use std::path::Path;

use nerd_logic::Facts;
use serde::Serialize;

use profile::Profile;

/// What a specialist's shard holds now.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ShardState {
    pub atoms: u32,
    pub embedded: u32,
    /// The last viva voce, when it examined the knowledge held now: (asked, passed).
    pub viva: Option<(u32, u32)>,
    /// A viva voce taken on knowledge since replaced does not count.
    pub viva_outdated: bool,
    /// Why the shard could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Reads the shard of specialist `name` (read-only); an absent shard holds nothing.
pub fn shard_state(root: &Path, name: &str) -> ShardState {
    let path = profile::shard_path(root, name);
    if !path.exists() {
        return ShardState::default();
    }
    let read = || -> Result<ShardState, crate::store::StoreError> {
        let db = crate::store::KnowledgeDb::open_read_only(&path)?;
        let research = db.last_research()?;
        let viva = db.last_viva()?;
        let current = |v: &crate::store::VivaRow| research.as_ref().is_some_and(|r| r.knowledge == v.knowledge);
        Ok(ShardState {
            atoms: db.count()?,
            embedded: db.embedded()?,
            viva: viva.as_ref().filter(|v| current(v)).map(|v| (v.asked, v.passed)),
            viva_outdated: viva.as_ref().is_some_and(|v| !current(v)),
            error: None,
        })
    };
    read().unwrap_or_else(|e| ShardState { error: Some(e.to_string()), ..ShardState::default() })
}

/// `specialist(Name, Atoms)` and `viva_result(Name, Asked, Passed)` for the
/// workspace's specialists (only `only`, when given), and the project's
/// `viva_threshold`.
pub fn readiness_facts(root: &Path, f: &mut Facts, only: Option<&str>) {
    let (profiles, _) = Profile::all(root);
    let states: Vec<(String, ShardState)> = profiles
        .into_iter()
        .filter(|p| only.is_none_or(|n| n == p.name))
        .map(|p| {
            let state = shard_state(root, &p.name);
            (p.name, state)
        })
        .collect();
    readiness_facts_of(root, f, &states);
}

/// The same facts from shard states already read.
pub fn readiness_facts_of(root: &Path, f: &mut Facts, states: &[(String, ShardState)]) {
    if let Ok(config) = crate::config::Config::load(root) {
        f.viva_threshold = config.shards.viva_threshold;
    }
    for (name, state) in states {
        let n = f.sym(name);
        f.specialist.push((n, state.atoms));
        if let Some((asked, passed)) = state.viva {
            f.viva_result.push((n, asked, passed));
        }
    }
}
