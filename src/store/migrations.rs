//! The numbered schema migrations from `memory/migrations/`, applied in order
//! inside one transaction each. Knows nothing about what the tables mean.

use rusqlite::Connection;

use super::StoreError;

/// Every migration, in order; position + 1 is its `user_version`.
const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_world", include_str!("../../memory/migrations/0001_world.sql")),
    ("0002_check", include_str!("../../memory/migrations/0002_check.sql")),
    ("0003_audit", include_str!("../../memory/migrations/0003_audit.sql")),
    ("0004_agent", include_str!("../../memory/migrations/0004_agent.sql")),
    ("0005_method_calls", include_str!("../../memory/migrations/0005_method_calls.sql")),
    ("0006_type_hints", include_str!("../../memory/migrations/0006_type_hints.sql")),
    ("0007_external_calls", include_str!("../../memory/migrations/0007_external_calls.sql")),
    ("0008_precise", include_str!("../../memory/migrations/0008_precise.sql")),
    ("0009_coverage", include_str!("../../memory/migrations/0009_coverage.sql")),
];

/// Brings the database schema up to date.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    // Every migration runs in an immediate transaction that re-reads the
    // version first: two processes opening a fresh database at once (a batch
    // of tasks) migrate it once, the second seeing the first's work.
    for (i, (name, sql)) in MIGRATIONS.iter().enumerate() {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let known = MIGRATIONS.len() as i64;
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
