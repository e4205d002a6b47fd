//! The learned-rule tables of the durable state: rules with their origin and
//! decision, and the patches a person declined with the restrictions each
//! would have broken. Restrictions are stored as the JSON their owner writes.
//! Knows nothing about what a restriction means.

use rusqlite::{params, OptionalExtension, Row};

use super::{StateDb, StoreError};

/// One stored rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRow {
    pub id: i64,
    pub restriction: String,
    pub text: String,
    pub origin: String,
    pub memory: Option<i64>,
    pub evidence: i64,
    pub session: String,
    pub status: String,
    pub created_ns: i64,
    pub decided_ns: Option<i64>,
    pub decided_by: Option<String>,
}

/// A rule to store.
pub struct NewRule<'a> {
    pub restriction: &'a str,
    pub text: &'a str,
    pub origin: &'a str,
    pub memory: Option<i64>,
    pub evidence: i64,
    pub session: &'a str,
    pub status: &'a str,
    pub at_ns: i64,
}

/// Where a rule came from, in words: what the user said, or what the
/// declined patches did (`text` is then a verb phrase); `origin` is `said`
/// or `declined_patches`.
pub fn origin_in_words(origin: &str, text: &str, evidence: i64) -> String {
    if origin == "declined_patches" {
        format!("you declined {evidence} patches that {text}")
    } else {
        format!("you said: \"{text}\"")
    }
}

const COLUMNS: &str = "SELECT id, restriction, text, origin, memory, evidence, session, status, created_ns, \
                       decided_ns, decided_by FROM learned_rule";

fn row(r: &Row) -> rusqlite::Result<RuleRow> {
    Ok(RuleRow {
        id: r.get(0)?,
        restriction: r.get(1)?,
        text: r.get(2)?,
        origin: r.get(3)?,
        memory: r.get(4)?,
        evidence: r.get(5)?,
        session: r.get(6)?,
        status: r.get(7)?,
        created_ns: r.get(8)?,
        decided_ns: r.get(9)?,
        decided_by: r.get(10)?,
    })
}

impl StateDb {
    /// Stores a rule; returns its id.
    pub fn rule_insert(&self, new: &NewRule) -> Result<i64, StoreError> {
        self.atomically(|db| {
            db.conn.execute(
                "INSERT INTO learned_rule(restriction, text, origin, memory, evidence, session, status, created_ns) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    new.restriction,
                    new.text,
                    new.origin,
                    new.memory,
                    new.evidence,
                    new.session,
                    new.status,
                    new.at_ns
                ],
            )?;
            Ok(db.conn.last_insert_rowid())
        })
    }

    /// Rule `id`.
    pub fn rule(&self, id: i64) -> Result<Option<RuleRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!("{COLUMNS} WHERE id = ?1"))?;
        Ok(stmt.query_row([id], row).optional()?)
    }

    /// Rules with this status (all when `None`), oldest first.
    pub fn rules(&self, status: Option<&str>) -> Result<Vec<RuleRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!("{COLUMNS} WHERE ?1 IS NULL OR status = ?1 ORDER BY id"))?;
        let rows = stmt.query_map([status], row)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Rules with this restriction, oldest first.
    pub fn rules_with(&self, restriction: &str) -> Result<Vec<RuleRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!("{COLUMNS} WHERE restriction = ?1 ORDER BY id"))?;
        let rows = stmt.query_map([restriction], row)?.collect::<Result<_, _>>()?;
        Ok(rows)
    }

    /// Records a decision on rule `id`; false when there is no such rule.
    pub fn rule_decide(&self, id: i64, status: &str, by: &str, at_ns: i64) -> Result<bool, StoreError> {
        self.atomically(|db| {
            let n = db.conn.execute(
                "UPDATE learned_rule SET status = ?2, decided_by = ?3, decided_ns = ?4 WHERE id = ?1",
                params![id, status, by, at_ns],
            )?;
            Ok(n > 0)
        })
    }

    /// Records a declined patch and the restrictions it breaks; returns, for
    /// each of them, how many declined patches now break it.
    pub fn declined_insert(
        &self,
        session: &str,
        paths: &str,
        restrictions: &[String],
        at_ns: i64,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        self.atomically(|db| {
            db.conn.execute(
                "INSERT INTO declined_patch(session, paths, created_ns) VALUES (?1, ?2, ?3)",
                params![session, paths, at_ns],
            )?;
            let patch = db.conn.last_insert_rowid();
            let mut counts = Vec::new();
            for r in restrictions {
                db.conn.execute(
                    "INSERT OR IGNORE INTO declined_patch_breaks(patch, restriction) VALUES (?1, ?2)",
                    params![patch, r],
                )?;
                let n: i64 = db.conn.query_row(
                    "SELECT count(*) FROM declined_patch_breaks WHERE restriction = ?1",
                    [r],
                    |row| row.get(0),
                )?;
                counts.push((r.clone(), n));
            }
            Ok(counts)
        })
    }
}
