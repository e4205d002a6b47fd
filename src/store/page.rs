//! The page table of the durable state: the last browser snapshot, kept as
//! the JSON the browser module wrote, so its facts outlive the browser.
//! Knows nothing about what a snapshot holds.

use rusqlite::{params, OptionalExtension};

use super::{StateDb, StoreError};

/// The stored snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRow {
    pub url: String,
    pub title: String,
    pub session: String,
    pub taken_ns: i64,
    pub snapshot: String,
}

impl StateDb {
    /// Replaces the last snapshot.
    pub fn save_page(&self, page: &PageRow) -> Result<(), StoreError> {
        self.atomically(|db| {
            db.conn.execute(
                "INSERT OR REPLACE INTO page_snapshot (id, url, title, session, taken_ns, snapshot) \
                 VALUES (1, ?1, ?2, ?3, ?4, ?5)",
                params![page.url, page.title, page.session, page.taken_ns, page.snapshot],
            )?;
            Ok(())
        })
    }

    /// The last snapshot, if a page was ever shown.
    pub fn last_page(&self) -> Result<Option<PageRow>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT url, title, session, taken_ns, snapshot FROM page_snapshot WHERE id = 1", [], |r| {
                Ok(PageRow {
                    url: r.get(0)?,
                    title: r.get(1)?,
                    session: r.get(2)?,
                    taken_ns: r.get(3)?,
                    snapshot: r.get(4)?,
                })
            })
            .optional()?)
    }
}
