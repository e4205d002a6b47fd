//! nerd's two SQLite databases under `.nerd/`: the index (`index.db`, this
//! file's `Store`: per-file projections, resolution output, the gate's cache,
//! loaded back as kernel facts), a cache that is rebuilt when damaged; and the
//! durable state (`state.db`, `StateDb` in `state.rs`), which is never deleted.
//! Every write is one transaction, so a failure never leaves half a change.
//! Knows nothing about tree-sitter or the programs that read the facts.

mod coverage;
mod delegation;
pub mod health;
mod knowledge;
mod legacy;
mod memory;
mod migrations;
mod page;
mod precise;
mod rules;
mod state;
mod symbol_vectors;

pub use delegation::DelegationRow;
pub use knowledge::{KnowledgeDb, KnowledgeRow, NewKnowledge, ResearchRow, VivaRow};
pub use memory::{LinkRow, MemoryCounts, MemoryRow, NewMemory};
pub use migrations::STATE_SCHEMA;
pub use page::PageRow;
pub use rules::{origin_in_words, NewRule, RuleRow};
pub use state::{After, AuditRow, FileCheckpoint, Left, StateDb};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};

use crate::world::imports::Import;
use crate::world::lang::Lang;
use crate::world::project::{CallForm, FileProjection, HintKind, ProjectedSymbol, RawCall, TypeHint};
use crate::world::resolve::Resolution;

/// A storage failure, with the database path where it helps.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create {path}: {source}")]
    CreateDir { path: PathBuf, source: std::io::Error },
    #[error("cannot open the database {path}: {source}")]
    Open { path: PathBuf, source: rusqlite::Error },
    #[error(
        "nerd's durable state {path} cannot be read ({source}); nerd never deletes or rewrites it, \
         and stops here rather than act without its audit trail"
    )]
    StateDamaged { path: PathBuf, source: rusqlite::Error },
    #[error("cannot remove {path}: {source}")]
    Remove { path: PathBuf, source: std::io::Error },
    #[error("cannot move {from} to {to}: {source}")]
    Move { from: PathBuf, to: PathBuf, source: std::io::Error },
    #[error("migration {name} failed: {source}")]
    Migration { name: &'static str, source: rusqlite::Error },
    #[error("the database has schema version {found}, newer than this nerd knows ({known}); upgrade nerd")]
    TooNew { found: i64, known: i64 },
    #[error("the database holds an invalid value: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
}

impl StoreError {
    /// This error as `StateDamaged` of `path` when SQLite says the file is
    /// damaged or not a database; any other error as it is.
    fn at_state(self, path: &Path) -> StoreError {
        match self {
            StoreError::Open { source, .. } | StoreError::Sql(source) | StoreError::Migration { source, .. }
                if is_damage(&source) =>
            {
                StoreError::StateDamaged { path: path.to_path_buf(), source }
            }
            other => other,
        }
    }
}

/// Which resolution rows a write replaces.
pub enum ResolutionWrite<'a> {
    /// Nothing changed in the edges.
    None,
    /// Replace every edge.
    Full(&'a Resolution),
    /// Replace the edges of these calling files, and all test links.
    Files(&'a Resolution, &'a [String]),
}

/// What the index knows of a file without reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRecord {
    pub path: String,
    pub sha256: String,
    pub lang: String,
    pub mtime_ns: i64,
    pub size: i64,
    pub is_test: bool,
}

/// One change to the stored world.
pub enum FileChange {
    /// A new or changed file and, for projected languages, its projection.
    Upsert { record: FileRecord, projection: Option<Box<FileProjection>> },
    /// Same content, new modification time.
    Touch { path: String, mtime_ns: i64 },
    /// The file is gone.
    Remove { path: String },
}

/// Tables whose rows belong to one file, by `path`.
const PER_FILE_TABLES: &[&str] = &["file", "symbol", "raw_call", "import_binding", "type_hint", "parse_error", "chunk"];

/// Drops the index's secondary indexes and returns their definitions, to be made
/// again before the transaction commits (`restore_indexes`): a cold index fills
/// empty tables, and builds each index once after the rows rather than row by row.
fn defer_indexes(tx: &rusqlite::Transaction<'_>) -> Result<Vec<String>, rusqlite::Error> {
    let mut stmt = tx.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")?;
    let indexes: Vec<(String, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    for (name, _) in &indexes {
        tx.execute_batch(&format!("DROP INDEX \"{}\"", name.replace('"', "\"\"")))?;
    }
    Ok(indexes.into_iter().map(|(_, sql)| sql).collect())
}

/// Makes again the indexes `defer_indexes` dropped.
fn restore_indexes(tx: &rusqlite::Transaction<'_>, deferred: &[String]) -> Result<(), rusqlite::Error> {
    for sql in deferred {
        tx.execute_batch(sql)?;
    }
    Ok(())
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) `<root>/.nerd/index.db` and migrates it. A
    /// damaged index is a cache: it is deleted and created empty, with a
    /// one-line notice, and the next refresh rebuilds it from the files.
    pub fn open(root: &Path) -> Result<Store, StoreError> {
        let dir = nerd_dir(root)?;
        legacy::split(&dir)?;
        let path = dir.join(INDEX_FILE);
        match Store::open_file(&path) {
            Err(StoreError::Open { source, .. } | StoreError::Sql(source) | StoreError::Migration { source, .. })
                if is_damage(&source) =>
            {
                eprintln!(
                    "nerd: the index {} was damaged ({source}); rebuilding it (it is a cache: \
                     the audit trail, sessions and undo checkpoints live in {STATE_FILE})",
                    path.display()
                );
                remove_database(&path)?;
                Store::open_file(&path)
            }
            other => other,
        }
    }

    pub fn open_file(path: &Path) -> Result<Store, StoreError> {
        let open_err = |source| StoreError::Open { path: path.to_path_buf(), source };
        let mut conn = connect(path, "NORMAL").map_err(open_err)?;
        // A 32 MiB page cache keeps bulk index writes from re-reading evicted pages.
        conn.pragma_update(None, "cache_size", -32768).map_err(open_err)?;
        migrations::migrate(&mut conn, migrations::INDEX)?;
        Ok(Store { conn, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
            [key, value],
        )?;
        Ok(())
    }

    /// Every indexed file, by path.
    pub fn files(&self) -> Result<HashMap<String, FileRecord>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT path, sha256, lang, mtime_ns, size, is_test FROM file")?;
        let rows = stmt.query_map([], |r| {
            Ok(FileRecord {
                path: r.get(0)?,
                sha256: r.get(1)?,
                lang: r.get(2)?,
                mtime_ns: r.get(3)?,
                size: r.get(4)?,
                is_test: r.get(5)?,
            })
        })?;
        let mut out = HashMap::new();
        for row in rows {
            let row = row?;
            out.insert(row.path.clone(), row);
        }
        Ok(out)
    }

    /// Applies file changes and, when given, replaces the resolution output; all or nothing.
    pub fn apply(&mut self, changes: &[FileChange], resolution: ResolutionWrite<'_>) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // A cold index: no file yet, so no rows to remove either.
        let cold: bool = tx.query_row("SELECT NOT EXISTS (SELECT 1 FROM file)", [], |r| r.get(0))?;
        let deferred = if cold { defer_indexes(&tx)? } else { Vec::new() };
        {
            // A file's rows in every per-file table, removed together.
            let mut remove_rows: Vec<rusqlite::CachedStatement> = PER_FILE_TABLES
                .iter()
                .map(|t| tx.prepare_cached(&format!("DELETE FROM {t} WHERE path = ?1")))
                .collect::<Result<_, _>>()?;
            let mut remove = |path: &str| -> Result<(), rusqlite::Error> {
                for stmt in &mut remove_rows {
                    stmt.execute([path])?;
                }
                Ok(())
            };
            let mut touch = tx.prepare_cached("UPDATE file SET mtime_ns = ?2 WHERE path = ?1")?;
            let mut file = tx.prepare_cached(
                "INSERT INTO file(path, sha256, lang, mtime_ns, size, is_test) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            let mut symbol = tx.prepare_cached(
                "INSERT OR REPLACE INTO symbol(id, path, name, kind, visibility, line, end_line, signature, body_hash, depth)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            let mut call = tx.prepare_cached(
                "INSERT INTO raw_call(path, caller, name, qualifier, line, form) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            let mut import = tx.prepare_cached(
                "INSERT INTO import_binding(path, module, name, binding, line) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut hint = tx.prepare_cached(
                "INSERT INTO type_hint(path, scope, var, kind, text, field, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let mut parse_error =
                tx.prepare_cached("INSERT INTO parse_error(path, line, message) VALUES (?1, ?2, ?3)")?;
            let mut chunk =
                tx.prepare_cached("INSERT INTO chunk(path, start_line, end_line, symbol) VALUES (?1, ?2, ?3, ?4)")?;
            for change in changes {
                match change {
                    FileChange::Remove { path } => remove(path)?,
                    FileChange::Touch { path, mtime_ns } => {
                        touch.execute(params![path, mtime_ns])?;
                    }
                    FileChange::Upsert { record: r, projection } => {
                        // (Its indexes deferred, a cold index would scan its tables for rows that are not there.)
                        if !cold {
                            remove(&r.path)?;
                        }
                        file.execute(params![r.path, r.sha256, r.lang, r.mtime_ns, r.size, r.is_test])?;
                        let Some(p) = projection else { continue };
                        for s in &p.symbols {
                            symbol.execute(params![
                                s.id,
                                r.path,
                                s.name,
                                s.kind.as_str(),
                                s.visibility.as_str(),
                                s.line,
                                s.end_line,
                                s.signature,
                                s.body_hash as i64,
                                s.depth
                            ])?;
                        }
                        for c in &p.calls {
                            call.execute(params![r.path, c.caller, c.name, c.qualifier, c.line, c.form.code()])?;
                        }
                        for i in &p.imports {
                            import.execute(params![r.path, i.module, i.name, i.binding, i.line])?;
                        }
                        for h in &p.hints {
                            hint.execute(params![r.path, h.scope, h.var, h.kind.as_str(), h.text, h.field, h.line])?;
                        }
                        if let Some((line, message)) = &p.parse_error {
                            parse_error.execute(params![r.path, line, message])?;
                        }
                        for (start, end, first) in &p.chunks {
                            chunk.execute(params![r.path, start, end, first])?;
                        }
                    }
                }
            }
        }
        let (res, paths): (&Resolution, Vec<&String>) = match resolution {
            ResolutionWrite::None => {
                restore_indexes(&tx, &deferred)?;
                tx.commit()?;
                return Ok(());
            }
            ResolutionWrite::Full(res) => {
                tx.execute_batch("DELETE FROM call_edge; DELETE FROM unresolved_call; DELETE FROM external_call;")?;
                (res, res.files.keys().collect())
            }
            ResolutionWrite::Files(res, paths) => {
                let mut del_calls = tx.prepare_cached("DELETE FROM call_edge WHERE path = ?1")?;
                let mut del_unresolved = tx.prepare_cached("DELETE FROM unresolved_call WHERE path = ?1")?;
                let mut del_external = tx.prepare_cached("DELETE FROM external_call WHERE path = ?1")?;
                for p in paths {
                    del_calls.execute([p])?;
                    del_unresolved.execute([p])?;
                    del_external.execute([p])?;
                }
                (res, paths.iter().collect())
            }
        };
        {
            let mut call = tx.prepare_cached(
                "INSERT INTO call_edge(caller, callee, path, line, provenance) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut unresolved =
                tx.prepare_cached("INSERT INTO unresolved_call(caller, name, path, line) VALUES (?1, ?2, ?3, ?4)")?;
            let mut external =
                tx.prepare_cached("INSERT INTO external_call(caller, name, path, line) VALUES (?1, ?2, ?3, ?4)")?;
            for path in paths {
                let Some(file) = res.files.get(path) else { continue };
                for (a, b, l, provenance) in &file.calls {
                    call.execute(params![a, b, path, l, provenance.as_str()])?;
                }
                for (a, n, l) in &file.unresolved {
                    unresolved.execute(params![a, n, path, l])?;
                }
                for (a, n, l) in &file.external {
                    external.execute(params![a, n, path, l])?;
                }
            }
            tx.execute("DELETE FROM test_of", [])?;
            let mut test_of = tx.prepare_cached("INSERT INTO test_of(test, symbol) VALUES (?1, ?2)")?;
            for (t, s) in res.test_of() {
                test_of.execute(params![t, s])?;
            }
        }
        restore_indexes(&tx, &deferred)?;
        tx.commit()?;
        Ok(())
    }

    /// The stored projections of every projected file except those in `skip`;
    /// raw calls only when `with_calls` (resolution needs them, facts do not).
    pub fn projections(
        &self,
        skip: &dyn Fn(&str) -> bool,
        with_calls: bool,
    ) -> Result<Vec<(String, Lang, FileProjection)>, StoreError> {
        let mut by_path: HashMap<String, (Lang, FileProjection)> = HashMap::new();
        let mut stmt = self.conn.prepare("SELECT path, lang FROM file")?;
        for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
            let (path, lang) = row?;
            if let Some(lang) = Lang::from_name(&lang) {
                if !skip(&path) {
                    by_path.insert(path, (lang, FileProjection::default()));
                }
            }
        }
        let mut stmt = self.conn.prepare(
            "SELECT path, id, name, kind, visibility, line, end_line, signature, body_hash, depth FROM symbol ORDER BY rowid",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let Some((_, p)) = by_path.get_mut(&path) else {
                continue;
            };
            p.symbols.push(ProjectedSymbol {
                id: r.get(1)?,
                name: r.get(2)?,
                kind: parse_word(&r.get::<_, String>(3)?)?,
                visibility: parse_word(&r.get::<_, String>(4)?)?,
                line: r.get(5)?,
                end_line: r.get(6)?,
                signature: r.get(7)?,
                body_hash: r.get::<_, i64>(8)? as u64,
                depth: r.get(9)?,
            });
        }
        let calls_sql = if with_calls {
            "SELECT path, caller, name, qualifier, line, form FROM raw_call ORDER BY rowid"
        } else {
            "SELECT path, caller, name, qualifier, line, form FROM raw_call WHERE 0"
        };
        let mut stmt = self.conn.prepare(calls_sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let Some((_, p)) = by_path.get_mut(&path) else {
                continue;
            };
            p.calls.push(RawCall {
                caller: r.get(1)?,
                name: r.get(2)?,
                qualifier: r.get(3)?,
                line: r.get(4)?,
                form: CallForm::from_code(r.get(5)?)
                    .ok_or_else(|| StoreError::Corrupt("a raw call of an unknown form".into()))?,
            });
        }
        let mut stmt =
            self.conn.prepare("SELECT path, module, name, binding, line FROM import_binding ORDER BY rowid")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let Some((_, p)) = by_path.get_mut(&path) else {
                continue;
            };
            p.imports.push(Import { module: r.get(1)?, name: r.get(2)?, binding: r.get(3)?, line: r.get(4)? });
        }
        // Hints serve resolution only, as raw calls do.
        let hints_sql = if with_calls {
            "SELECT path, scope, var, kind, text, field, line FROM type_hint ORDER BY rowid"
        } else {
            "SELECT path, scope, var, kind, text, field, line FROM type_hint WHERE 0"
        };
        let mut stmt = self.conn.prepare(hints_sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let Some((_, p)) = by_path.get_mut(&path) else {
                continue;
            };
            let kind: String = r.get(3)?;
            let Some(kind) = HintKind::parse(&kind) else {
                return Err(StoreError::Corrupt(format!("unknown type hint kind `{kind}`")));
            };
            p.hints.push(TypeHint {
                scope: r.get(1)?,
                var: r.get(2)?,
                kind,
                text: r.get(4)?,
                field: r.get(5)?,
                line: r.get(6)?,
            });
        }
        let mut stmt = self.conn.prepare("SELECT path, line, message FROM parse_error")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let Some((_, p)) = by_path.get_mut(&path) else {
                continue;
            };
            p.parse_error = Some((r.get(1)?, r.get(2)?));
        }
        let mut stmt = self.conn.prepare("SELECT path, start_line, end_line, symbol FROM chunk ORDER BY rowid")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let Some((_, p)) = by_path.get_mut(&path) else {
                continue;
            };
            p.chunks.push((r.get(1)?, r.get(2)?, r.get(3)?));
        }
        let mut out: Vec<(String, Lang, FileProjection)> = by_path.into_iter().map(|(k, (l, p))| (k, l, p)).collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The stored resolution output, with the precise tier laid over the
    /// files it covers while they are current. Stored test links come back as one list.
    pub fn resolution(&self) -> Result<Resolution, StoreError> {
        let mut out = Resolution::default();
        let mut stmt =
            self.conn.prepare("SELECT caller, callee, path, line, provenance FROM call_edge ORDER BY rowid")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let file = out.files.entry(r.get(2)?).or_default();
            file.calls.push((r.get(0)?, r.get(1)?, r.get(3)?, parse_word(&r.get::<_, String>(4)?)?));
        }
        let mut stmt = self.conn.prepare("SELECT caller, name, path, line FROM unresolved_call ORDER BY rowid")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let file = out.files.entry(r.get(2)?).or_default();
            file.unresolved.push((r.get(0)?, r.get(1)?, r.get(3)?));
        }
        let mut stmt = self.conn.prepare("SELECT caller, name, path, line FROM external_call ORDER BY rowid")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let file = out.files.entry(r.get(2)?).or_default();
            file.external.push((r.get(0)?, r.get(1)?, r.get(3)?));
        }
        let mut stmt = self.conn.prepare("SELECT test, symbol FROM test_of")?;
        for row in stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))? {
            out.named_test_links.push(row?);
        }
        self.lay_over(&mut out)?;
        Ok(out)
    }

    /// Lays what the store holds beyond the heuristic tier over `resolution`:
    /// the precise tier over the files it covers while they are current, and
    /// the test-to-symbol links coverage observed.
    pub fn lay_over(&self, resolution: &mut Resolution) -> Result<(), StoreError> {
        crate::world::resolve::precise::overlay(resolution, &self.current_precise()?);
        resolution.observed = self.observed_coverage()?;
        Ok(())
    }

    /// The manifest the staged snapshot was last brought to.
    pub fn snapshot_manifest(&self) -> Result<crate::world::git::Manifest, StoreError> {
        let mut stmt = self.conn.prepare("SELECT path, mode, blob FROM snapshot_entry")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, crate::world::git::Entry { mode: r.get(1)?, blob: r.get(2)? }))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Records the snapshot's new manifest, replacing the old one.
    pub fn set_snapshot_manifest(&mut self, manifest: &crate::world::git::Manifest) -> Result<(), StoreError> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM snapshot_entry", [])?;
        {
            let mut insert = tx.prepare_cached("INSERT INTO snapshot_entry(path, mode, blob) VALUES (?1, ?2, ?3)")?;
            for (path, e) in manifest {
                insert.execute(params![path, e.mode, e.blob])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// A cached check result.
    pub fn cached_check(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.conn.query_row("SELECT result FROM check_cache WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    }

    /// Caches a check result, keeping the newest 64.
    pub fn cache_check(&self, key: &str, at_ns: i64, result: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT OR REPLACE INTO check_cache(key, created_ns, result) VALUES (?1, ?2, ?3)",
            params![key, at_ns, result],
        )?;
        self.conn.execute(
            "DELETE FROM check_cache WHERE key NOT IN (SELECT key FROM check_cache ORDER BY created_ns DESC LIMIT 64)",
            [],
        )?;
        Ok(())
    }

    /// Counts rows of the main tables: files, symbols, resolved calls, unresolved calls, parse errors.
    pub fn counts(&self) -> Result<[i64; 5], StoreError> {
        let mut out = [0; 5];
        for (i, table) in ["file", "symbol", "call_edge", "unresolved_call", "parse_error"].iter().enumerate() {
            out[i] = self.conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
        }
        Ok(out)
    }
}

fn parse_word<T: std::str::FromStr<Err = nerd_logic::vocab::UnknownWord>>(s: &str) -> Result<T, StoreError> {
    s.parse::<T>().map_err(|e| StoreError::Corrupt(e.to_string()))
}

impl From<rusqlite::types::FromSqlError> for StoreError {
    fn from(e: rusqlite::types::FromSqlError) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}

/// The index's file name under `.nerd/`.
pub const INDEX_FILE: &str = "index.db";
/// The durable state's file name under `.nerd/`.
pub const STATE_FILE: &str = "state.db";

/// `<root>/.nerd`, created with a `.gitignore` that keeps it out of `git status`.
pub(crate) fn nerd_dir(root: &Path) -> Result<PathBuf, StoreError> {
    let dir = root.join(".nerd");
    std::fs::create_dir_all(&dir).map_err(|source| StoreError::CreateDir { path: dir.clone(), source })?;
    // Keep nerd's local state out of the user's `git status`, as other tools' caches do.
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "# Created by nerd: this folder is local state.\n*\n")
            .map_err(|source| StoreError::CreateDir { path: ignore.clone(), source })?;
    }
    Ok(dir)
}

/// Opens a connection in WAL mode with the given `synchronous` level, waiting for other writers.
fn connect(path: &Path, synchronous: &str) -> rusqlite::Result<Connection> {
    register_vectors();
    let conn = Connection::open(path)?;
    // Wait for other nerd processes (a batch, a watcher) rather than fail: set before anything takes a lock.
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    wal_mode(&conn)?;
    conn.pragma_update(None, "synchronous", synchronous)?;
    Ok(conn)
}

/// Makes sqlite-vec (`vec0` tables, vector functions) part of every
/// connection this process opens from now on; registered once.
fn register_vectors() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_vec_init` is sqlite-vec's extension entry point,
        // compiled into this binary with the signature SQLite's auto-extension
        // table expects (`int (*)(sqlite3*, char**, const sqlite3_api_routines*)`);
        // the crate declares it without arguments, hence the transmute.
        unsafe {
            let init: unsafe extern "C" fn(
                *mut rusqlite::ffi::sqlite3,
                *mut *mut std::os::raw::c_char,
                *const rusqlite::ffi::sqlite3_api_routines,
            ) -> std::os::raw::c_int = std::mem::transmute(sqlite_vec::sqlite3_vec_init as *const ());
            rusqlite::ffi::sqlite3_auto_extension(Some(init));
        }
    });
}

/// Whether SQLite says the file is damaged or not a database at all.
pub fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase))
}

/// Deletes a database file with its WAL and shared-memory files.
pub fn remove_database(path: &Path) -> Result<(), StoreError> {
    for suffix in ["", "-wal", "-shm"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(StoreError::Remove { path: file, source: e })
            }
            _ => {}
        }
    }
    Ok(())
}

/// Puts the database in WAL mode. Switching needs the database to itself and
/// SQLite answers "locked" at once, without its busy handler, while another
/// connection is in a transaction (two nerd processes opening a fresh
/// workspace): so a database already in WAL is left alone, and the switch is
/// retried for as long as the busy timeout would have waited.
fn wal_mode(conn: &Connection) -> rusqlite::Result<()> {
    let started = std::time::Instant::now();
    loop {
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
        if mode.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && started.elapsed() < std::time::Duration::from_secs(5) =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            other => return other,
        }
    }
}
