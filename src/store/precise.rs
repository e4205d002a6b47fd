//! Storage of the precise tier: per covered file, the content hash the
//! indexer saw and what it said. Replaced whole per indexer run; read back
//! only for files whose content has not changed since.
//! Knows nothing about how the indexers ran.

use std::collections::HashMap;

use rusqlite::params;

use super::{Store, StoreError};
use crate::world::project::MACRO_RULES;
use crate::world::resolve::precise::PreciseFile;

/// Every table of the precise tier, each with a `path` column.
const PRECISE_TABLES: [&str; 5] =
    ["precise_file", "precise_call", "precise_site", "precise_test_link", "precise_unanswered"];

impl Store {
    /// Replaces everything `indexer` said before with `files`, each recorded
    /// with the content hash it was indexed at; all or nothing.
    pub fn replace_precise(&mut self, indexer: &str, files: &[(PreciseFile, String)]) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            let old: Vec<String> = tx
                .prepare("SELECT path FROM precise_file WHERE indexer = ?1")?
                .query_map([indexer], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let new: Vec<&str> = files.iter().map(|(f, _)| f.path.as_str()).collect();
            let mut remove_rows: Vec<rusqlite::Statement> = PRECISE_TABLES
                .iter()
                .map(|t| tx.prepare(&format!("DELETE FROM {t} WHERE path = ?1")))
                .collect::<Result<_, _>>()?;
            for path in old.iter().map(String::as_str).chain(new) {
                for remove in &mut remove_rows {
                    remove.execute([path])?;
                }
            }
            let mut file =
                tx.prepare("INSERT INTO precise_file(path, sha256, indexer, every_name) VALUES (?1, ?2, ?3, ?4)")?;
            let mut call = tx.prepare(
                "INSERT INTO precise_call(caller, callee, path, line, callee_path) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut site = tx.prepare("INSERT INTO precise_site(path, line, name) VALUES (?1, ?2, ?3)")?;
            let mut link = tx.prepare("INSERT INTO precise_test_link(path, test, symbol) VALUES (?1, ?2, ?3)")?;
            let mut unanswered = tx.prepare("INSERT INTO precise_unanswered(path, symbol) VALUES (?1, ?2)")?;
            for (f, sha) in files {
                file.execute(params![f.path, sha, indexer, f.every_name])?;
                for (a, b, l, p) in &f.calls {
                    call.execute(params![a, b, f.path, l, p])?;
                }
                for (l, n) in &f.sites {
                    site.execute(params![f.path, l, n])?;
                }
                for (t, s) in &f.test_links {
                    link.execute(params![f.path, t, s])?;
                }
                for s in &f.unanswered {
                    unanswered.execute(params![f.path, s])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Forgets the precise tier: symbol ids it names may no longer exist.
    pub fn clear_precise(&mut self) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for table in PRECISE_TABLES {
            tx.execute(&format!("DELETE FROM {table}"), [])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The precise tier's files that are still current: the file's content is
    /// what the indexer saw. An edge into another file stands while its callee
    /// is still a symbol (an edit elsewhere does not move this file's calls).
    pub fn current_precise(&self) -> Result<Vec<PreciseFile>, StoreError> {
        let fresh: Vec<(String, bool)> = self
            .conn
            .prepare(
                "SELECT p.path, p.every_name FROM precise_file p JOIN file f ON f.path = p.path AND f.sha256 = p.sha256",
            )?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut by_path: HashMap<String, PreciseFile> = fresh
            .into_iter()
            .map(|(path, every_name)| (path.clone(), PreciseFile { path, every_name, ..Default::default() }))
            .collect();
        let mut stmt = self.conn.prepare(
            "SELECT c.caller, c.callee, c.path, c.line, c.callee_path FROM precise_call c \
             JOIN symbol s ON s.id = c.callee",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(file) = by_path.get_mut(&r.get::<_, String>(2)?) {
                file.calls.push((r.get(0)?, r.get(1)?, r.get(3)?, r.get(4)?));
            }
        }
        let mut stmt = self.conn.prepare("SELECT path, line, name FROM precise_site")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(file) = by_path.get_mut(&r.get::<_, String>(0)?) {
                file.sites.push((r.get(1)?, r.get(2)?));
            }
        }
        let mut stmt = self.conn.prepare("SELECT path, test, symbol FROM precise_test_link")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(file) = by_path.get_mut(&r.get::<_, String>(0)?) {
                file.test_links.push((r.get(1)?, r.get(2)?));
            }
        }
        let mut stmt = self.conn.prepare("SELECT path, symbol FROM precise_unanswered")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(file) = by_path.get_mut(&r.get::<_, String>(0)?) {
                file.unanswered.push(r.get(1)?);
            }
        }
        // An indexer reads no `macro_rules!` transcriber: the macros' own calls stand.
        let sql = format!("SELECT path, id FROM symbol WHERE signature LIKE '{MACRO_RULES}%'");
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let Some(file) = by_path.get_mut(&r.get::<_, String>(0)?) {
                file.unseen.push(r.get(1)?);
            }
        }
        let mut out: Vec<PreciseFile> = by_path.into_values().collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// How many files each indexer covers, and how many of them are current.
    pub fn precise_coverage(&self) -> Result<Vec<(String, i64, i64)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT p.indexer, COUNT(*), SUM(CASE WHEN f.sha256 = p.sha256 THEN 1 ELSE 0 END) \
             FROM precise_file p LEFT JOIN file f ON f.path = p.path GROUP BY p.indexer ORDER BY p.indexer",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, Option<i64>>(2)?.unwrap_or(0))))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
