//! Storage of symbol embeddings in the index, keyed by a hash of the text
//! embedded; the caller drops the texts no symbol has any longer. Knows
//! nothing about how texts are made or embedded.

use std::collections::HashMap;

use rusqlite::params;

use super::{Store, StoreError};
use crate::embed::{from_bytes, to_bytes};

impl Store {
    /// Every stored symbol embedding, by text hash.
    pub fn symbol_vectors(&self) -> Result<HashMap<i64, Vec<f32>>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT text_hash, vector FROM symbol_vector")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, from_bytes(&r.get::<_, Vec<u8>>(1)?))))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Stores `new` embeddings and drops the `stale` ones; all or nothing.
    pub fn keep_symbol_vectors(&mut self, stale: &[i64], new: &[(i64, Vec<f32>)]) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            let mut delete = tx.prepare("DELETE FROM symbol_vector WHERE text_hash = ?1")?;
            for hash in stale {
                delete.execute([hash])?;
            }
            let mut insert = tx.prepare("INSERT OR REPLACE INTO symbol_vector(text_hash, vector) VALUES (?1, ?2)")?;
            for (hash, vector) in new {
                insert.execute(params![hash, to_bytes(vector)])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
