//! The delegation table of the durable state: the tokens given to spawned
//! children, their subtree, revocation and what each child reported.
//! Knows nothing about signatures or scopes: tokens are stored as given.

use rusqlite::{params, OptionalExtension};

use super::{StateDb, StoreError};

/// One delegation as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelegationRow {
    pub id: String,
    pub parent: Option<String>,
    pub specialist: Option<String>,
    pub task: String,
    pub token: String,
    pub issued_ns: i64,
    pub expires_ns: i64,
    pub revoked_ns: Option<i64>,
    pub pid: Option<i64>,
    pub status: String,
    pub result: Option<String>,
}

const COLUMNS: &str =
    "SELECT id, parent, specialist, task, token, issued_ns, expires_ns, revoked_ns, pid, status, result FROM delegation";

fn row(r: &rusqlite::Row) -> rusqlite::Result<DelegationRow> {
    Ok(DelegationRow {
        id: r.get(0)?,
        parent: r.get(1)?,
        specialist: r.get(2)?,
        task: r.get(3)?,
        token: r.get(4)?,
        issued_ns: r.get(5)?,
        expires_ns: r.get(6)?,
        revoked_ns: r.get(7)?,
        pid: r.get(8)?,
        status: r.get(9)?,
        result: r.get(10)?,
    })
}

impl StateDb {
    /// Records a token given to a child.
    pub fn delegation_insert(&self, d: &DelegationRow) -> Result<(), StoreError> {
        self.atomically(|db| {
            db.conn.execute(
                "INSERT INTO delegation(id, parent, specialist, task, token, issued_ns, expires_ns, status) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'issued')",
                params![d.id, d.parent, d.specialist, d.task, d.token, d.issued_ns, d.expires_ns],
            )?;
            Ok(())
        })
    }

    pub fn delegation(&self, id: &str) -> Result<Option<DelegationRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!("{COLUMNS} WHERE id = ?1"))?;
        Ok(stmt.query_row([id], row).optional()?)
    }

    /// Every delegation, newest first.
    pub fn delegations(&self) -> Result<Vec<DelegationRow>, StoreError> {
        let mut stmt = self.conn.prepare(&format!("{COLUMNS} ORDER BY issued_ns DESC, id"))?;
        let rows = stmt.query_map([], row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The child says it runs, as process `pid`.
    pub fn delegation_started(&self, id: &str, pid: u32) -> Result<(), StoreError> {
        self.atomically(|db| {
            db.conn.execute(
                "UPDATE delegation SET pid = ?2, status = CASE WHEN revoked_ns IS NULL THEN 'running' ELSE status END \
                 WHERE id = ?1",
                params![id, i64::from(pid)],
            )?;
            Ok(())
        })
    }

    /// The child's report, and how it ended.
    pub fn delegation_finished(&self, id: &str, status: &str, result: &str) -> Result<(), StoreError> {
        self.atomically(|db| {
            db.conn.execute(
                "UPDATE delegation SET status = CASE WHEN revoked_ns IS NULL THEN ?2 ELSE 'revoked' END, \
                 result = ?3, pid = NULL WHERE id = ?1",
                params![id, status, result],
            )?;
            Ok(())
        })
    }

    /// Revokes `id` and its whole subtree at `at_ns`; returns the rows revoked now (pids as they were).
    pub fn delegation_revoke(&self, id: &str, at_ns: i64) -> Result<Vec<DelegationRow>, StoreError> {
        self.atomically(|db| {
            let mut stmt = db.conn.prepare(
                "WITH RECURSIVE subtree(id) AS (SELECT id FROM delegation WHERE id = ?1 \
                 UNION SELECT d.id FROM delegation d JOIN subtree s ON d.parent = s.id) \
                 SELECT id FROM subtree",
            )?;
            let ids: Vec<String> = stmt.query_map([id], |r| r.get(0))?.collect::<Result<_, _>>()?;
            let mut revoked = Vec::new();
            for i in &ids {
                if let Some(r) = db.delegation(i)? {
                    if r.revoked_ns.is_none() {
                        revoked.push(r);
                    }
                }
                db.conn.execute(
                    "UPDATE delegation SET revoked_ns = coalesce(revoked_ns, ?2), \
                     status = CASE WHEN status IN ('issued', 'running') THEN 'revoked' ELSE status END WHERE id = ?1",
                    params![i, at_ns],
                )?;
            }
            Ok(revoked)
        })
    }

    /// `id` and its ancestors, leaf first; stops at a missing parent.
    pub fn delegation_chain(&self, id: &str) -> Result<Vec<DelegationRow>, StoreError> {
        let mut chain = Vec::new();
        let mut next = Some(id.to_string());
        while let Some(i) = next {
            let Some(r) = self.delegation(&i)? else { break };
            if chain.iter().any(|c: &DelegationRow| c.id == r.id) {
                break;
            }
            next = r.parent.clone();
            chain.push(r);
        }
        Ok(chain)
    }
}
