//! Storage of observed coverage: `(test, symbol)` pairs per tool, replaced
//! whole per run, read back only where both ends are still symbols.
//! Knows nothing about how the tests ran.

use rusqlite::params;

use super::{Store, StoreError};

impl Store {
    /// Replaces everything `tool` observed before with `covers` (`(test, symbol)`
    /// pairs over `tests` tests that ran); all or nothing.
    pub fn replace_coverage(
        &mut self,
        tool: &str,
        tests: usize,
        covers: &[(String, String)],
    ) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM covers WHERE tool = ?1", [tool])?;
        {
            let mut insert = tx.prepare("INSERT OR IGNORE INTO covers(tool, test, symbol) VALUES (?1, ?2, ?3)")?;
            for (test, symbol) in covers {
                insert.execute(params![tool, test, symbol])?;
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO coverage_run(tool, finished_ns, tests) VALUES (?1, ?2, ?3)",
            params![tool, crate::timing::now_ns(), tests as i64],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Every observed `(test, symbol)` pair whose test and symbol are both
    /// symbols of the index now, sorted and without duplicates. A pair
    /// outlives edits of either file: what a run executed stays the best
    /// evidence until the next run, and the heuristic and precise tiers add
    /// what the edit introduced.
    pub fn observed_coverage(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT c.test, c.symbol FROM covers c \
             JOIN symbol t ON t.id = c.test JOIN symbol s ON s.id = c.symbol \
             ORDER BY c.test, c.symbol",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// `(tool, tests, finished_ns)` of every coverage run stored.
    pub fn coverage_runs(&self) -> Result<Vec<(String, usize, i64)>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT tool, tests, finished_ns FROM coverage_run ORDER BY tool")?;
        let rows =
            stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as usize, r.get::<_, i64>(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
