//! The numbered schema migrations from `memory/`, applied in order inside one
//! transaction each: one list for the index, one for the durable state.
//! Knows nothing about what the tables mean.

use rusqlite::Connection;

use super::StoreError;

/// A database's migrations, in order; position + 1 is its `user_version`.
pub type Migrations = &'static [(&'static str, &'static str)];

/// The index (`.nerd/index.db`): projections, resolution, the gate's cache.
pub const INDEX: Migrations = &[
    ("0001_world", include_str!("../../memory/migrations/0001_world.sql")),
    ("0002_check", include_str!("../../memory/migrations/0002_check.sql")),
    ("0003_audit", include_str!("../../memory/migrations/0003_audit.sql")),
    ("0004_agent", include_str!("../../memory/migrations/0004_agent.sql")),
    ("0005_method_calls", include_str!("../../memory/migrations/0005_method_calls.sql")),
    ("0006_type_hints", include_str!("../../memory/migrations/0006_type_hints.sql")),
    ("0007_external_calls", include_str!("../../memory/migrations/0007_external_calls.sql")),
    ("0008_precise", include_str!("../../memory/migrations/0008_precise.sql")),
    ("0009_coverage", include_str!("../../memory/migrations/0009_coverage.sql")),
    ("0010_split_state", include_str!("../../memory/migrations/0010_split_state.sql")),
    ("0011_symbol_vectors", include_str!("../../memory/migrations/0011_symbol_vectors.sql")),
    ("0012_call_form", include_str!("../../memory/migrations/0012_call_form.sql")),
    ("0013_precise_every_name", include_str!("../../memory/migrations/0013_precise_every_name.sql")),
];

/// The index migration before which the durable tables still lived in the index.
pub const INDEX_BEFORE_SPLIT: usize = 9;

/// The durable state (`.nerd/state.db`).
pub const STATE: Migrations = &[
    ("0001_state", include_str!("../../memory/state/0001_state.sql")),
    ("0002_memory", include_str!("../../memory/state/0002_memory.sql")),
    ("0003_rules", include_str!("../../memory/state/0003_rules.sql")),
    ("0004_history_as_facts", include_str!("../../memory/state/0004_history_as_facts.sql")),
    ("0005_memory_words_subject", include_str!("../../memory/state/0005_memory_words_subject.sql")),
    ("0006_delegation", include_str!("../../memory/state/0006_delegation.sql")),
    ("0007_page", include_str!("../../memory/state/0007_page.sql")),
];

/// A specialist's knowledge shard (`.nerd/agents/NAME.db`).
pub const KNOWLEDGE: Migrations = &[("0001_knowledge", include_str!("../../memory/knowledge/0001_knowledge.sql"))];

/// The durable state's schema version: the number of its migrations.
pub const STATE_SCHEMA: usize = STATE.len();

/// Brings the database schema up to date.
pub fn migrate(conn: &mut Connection, list: Migrations) -> Result<(), StoreError> {
    migrate_to(conn, list, list.len())
}

/// Applies the first `upto` migrations of `list` that are not applied yet.
pub fn migrate_to(conn: &mut Connection, list: Migrations, upto: usize) -> Result<(), StoreError> {
    // Every migration runs in an immediate transaction that re-reads the
    // version first: two processes opening a fresh database at once (a batch
    // of tasks) migrate it once, the second seeing the first's work.
    for (i, (name, sql)) in list.iter().enumerate().take(upto) {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let known = list.len() as i64;
        if current > known {
            return Err(StoreError::TooNew { found: current, known });
        }
        if current > i as i64 {
            continue;
        }
        tx.execute_batch(sql).map_err(|e| StoreError::Migration { name, source: e })?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}
