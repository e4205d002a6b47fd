//! Read-only health checks of nerd's databases for `nerd doctor`: SQLite's own
//! integrity check and, table by table, how many rows can still be read.
//! Never writes to the database it inspects. Knows nothing about what the
//! rows mean.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

/// What an inspection found.
#[derive(Debug)]
pub struct Health {
    /// `None` when the integrity check says "ok"; else its first findings, or why the file could not be opened.
    pub problem: Option<String>,
    /// Each table asked about, with its readable row count or the error reading it.
    pub tables: Vec<(&'static str, Result<i64, String>)>,
}

/// Inspects the database at `path` without writing to it.
pub fn inspect(path: &Path, tables: &[&'static str]) -> Health {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match Connection::open_with_flags(path, flags) {
        Ok(conn) => conn,
        Err(e) => return Health { problem: Some(e.to_string()), tables: Vec::new() },
    };
    let problem = match integrity(&conn) {
        Ok(lines) if lines.len() == 1 && lines[0] == "ok" => None,
        Ok(lines) => Some(lines.join("; ")),
        Err(e) => Some(e.to_string()),
    };
    let tables = tables.iter().map(|t| (*t, readable_rows(&conn, t).map_err(|e| e.to_string()))).collect();
    Health { problem, tables }
}

fn integrity(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("PRAGMA integrity_check(5)")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    rows.collect()
}

/// Rows read one by one until the first unreadable one: what a recovery would get back at least.
fn readable_rows(conn: &Connection, table: &str) -> rusqlite::Result<i64> {
    let mut stmt = conn.prepare(&format!("SELECT * FROM {table}"))?;
    let mut rows = stmt.query([])?;
    let mut n = 0;
    while rows.next()?.is_some() {
        n += 1;
    }
    Ok(n)
}
