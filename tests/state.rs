//! Durable state apart from the cache, through the real binary: undo that
//! never overwrites a later edit, a workspace's older single database split on
//! first use, a damaged index rebuilt while the audit trail holds, and
//! processes killed with SIGKILL mid-write, many times, leaving both
//! databases valid.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::world::World;
use sha2::Digest;

fn write(path: &str, content: &str) -> String {
    serde_json::json!({"kind": "write_file", "path": path, "content": content}).to_string()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `PRAGMA integrity_check` of a database, opened read-only.
fn integrity(db: &Path) -> String {
    let check = |conn: &rusqlite::Connection| {
        conn.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0)).map_err(|e| e.to_string())
    };
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap_or_else(|e| panic!("{}: {e}", db.display()));
    match check(&conn) {
        Ok(verdict) => verdict,
        // A write-ahead log left by the kill needs recovery, which a read-only
        // connection may not run; the next open by anyone runs it. Judge the
        // database after that recovery.
        Err(e) if e.contains("readonly") => {
            drop(conn);
            let conn = rusqlite::Connection::open(db).unwrap_or_else(|e| panic!("{}: {e}", db.display()));
            check(&conn).unwrap_or_else(|e| e)
        }
        Err(e) => e,
    }
}

#[test]
fn undo_keeps_a_later_edit_unless_forced_and_forcing_saves_it_first() {
    let w = World::new();
    let lib = w.ws.join("src/lib.rs");
    let original = std::fs::read_to_string(&lib).unwrap();
    assert_eq!(w.act(&write("src/lib.rs", "pub fn canary() -> u32 { 8 }\n"), "mutation").0, 0);
    // The person edits the file nerd wrote.
    std::fs::write(&lib, "pub fn canary() -> u32 { 9 } // mine\n").unwrap();
    let out = w.nerd(&["undo"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("kept src/lib.rs: it changed after nerd wrote it"), "{text}");
    assert!(
        text.contains("-pub fn canary() -> u32 { 8 }") && text.contains("+pub fn canary() -> u32 { 9 } // mine"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "pub fn canary() -> u32 { 9 } // mine\n", "the edit was lost");
    // Asked again, it still refuses: the checkpoint was not used up.
    assert_eq!(w.nerd(&["undo"]).status.code(), Some(1));
    // Forced, the later version is saved first, then the file is restored.
    let out = w.nerd(&["undo", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), original);
    let saved = stdout(&out)
        .lines()
        .find_map(|l| l.strip_prefix("saved your later version of src/lib.rs to ").map(str::to_string))
        .unwrap_or_else(|| panic!("{}", stdout(&out)));
    assert!(saved.contains(".nerd/undo-conflicts/"), "{saved}");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "pub fn canary() -> u32 { 9 } // mine\n");
    assert_eq!(stdout(&w.nerd(&["undo"])).trim(), "nothing to undo");

    // Each undo is in the audit trail: the refusals with their conflict, the forced one with
    // what it wrote back and what it replaced, by digest. The chain still verifies.
    let undos: Vec<serde_json::Value> = stdout(&w.nerd(&["audit", "show", "--json"]))
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["record"].clone())
        .filter(|r| r["record"] == "undo")
        .collect();
    assert_eq!(undos.len(), 3, "{undos:?}");
    assert_eq!(undos[0]["conflicts"], serde_json::json!(["src/lib.rs"]));
    assert_eq!(undos[0]["files"], serde_json::json!([]));
    let forced = &undos[2];
    assert_eq!(forced["forced"], true);
    let digest = |s: &str| format!("{:x}", sha2::Sha256::digest(s.as_bytes()));
    assert_eq!(
        forced["files"],
        serde_json::json!([{
            "path": "src/lib.rs",
            "restores": digest(&original),
            "replaces": digest("pub fn canary() -> u32 { 9 } // mine\n"),
            "edited_since": true,
        }])
    );
    assert_eq!(w.nerd(&["audit", "verify"]).status.code(), Some(0));
}

#[test]
fn undo_restores_what_is_untouched_and_keeps_a_file_recreated_after_a_delete() {
    let w = World::new();
    // Two single-action changes, newest first in undo order: a delete, then a write.
    assert_eq!(w.act(&write("src/new.rs", "pub fn fresh() {}\n"), "mutation").0, 0);
    assert_eq!(std::fs::read_to_string(w.ws.join("src/new.rs")).unwrap(), "pub fn fresh() {}\n");
    let delete = serde_json::json!({"kind": "delete_file", "path": "src/new.rs"}).to_string();
    let out = w.nerd(&["act", "--approve", "--json", "--intent", "mutation", "--action", &delete]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(!w.ws.join("src/new.rs").exists());
    // Someone recreated the file nerd deleted: undoing the delete would overwrite it.
    std::fs::write(w.ws.join("src/new.rs"), "pub fn theirs() {}\n").unwrap();
    let out = w.nerd(&["undo"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("kept src/new.rs"), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(w.ws.join("src/new.rs")).unwrap(), "pub fn theirs() {}\n");
    // Once theirs is gone again there is nothing to lose: the delete is undone.
    std::fs::remove_file(w.ws.join("src/new.rs")).unwrap();
    let out = w.nerd(&["undo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(w.ws.join("src/new.rs")).unwrap(), "pub fn fresh() {}\n");
    // The write is undone when the file still holds what nerd wrote.
    let out = w.nerd(&["undo"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(!w.ws.join("src/new.rs").exists());
}

/// Builds the single database of nerd before the split from the durable rows of
/// `state` and the old migrations, as a workspace of an earlier version holds it.
fn legacy_database(state: &Path, legacy: &Path) {
    let conn = rusqlite::Connection::open(legacy).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("memory/migrations");
    for n in 1..=9 {
        let file = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(&format!("{n:04}_")))
            .unwrap();
        conn.execute_batch(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    }
    conn.pragma_update(None, "user_version", 9).unwrap();
    conn.execute("ATTACH DATABASE ?1 AS s", [state.display().to_string()]).unwrap();
    conn.execute_batch(
        "INSERT INTO audit_record SELECT seq, at_ns, body, prev, hash FROM s.audit_record;
         INSERT INTO file_checkpoint(id, audit, path, existed, content, undone, turn)
             SELECT id, audit, path, existed, content, undone, turn FROM s.file_checkpoint;
         INSERT INTO session SELECT * FROM s.session;
         INSERT INTO commit_override SELECT * FROM s.commit_override;
         INSERT INTO meta(key, value) VALUES ('legacy-marker', 'kept');",
    )
    .unwrap();
}

#[test]
fn an_older_single_database_is_split_once_keeping_the_trail_and_the_index() {
    let w = World::new();
    assert_eq!(w.act(&write("src/lib.rs", "pub fn canary() -> u32 { 8 }\n"), "mutation").0, 0);
    let nerd_dir = w.ws.join(".nerd");
    let records = stdout(&w.nerd(&["audit", "show", "--json"])).lines().count();
    assert!(records >= 3);
    // An earlier nerd kept everything in .nerd/nerd.db.
    let legacy = nerd_dir.join("nerd.db");
    legacy_database(&nerd_dir.join("state.db"), &legacy);
    for f in ["state.db", "state.db-wal", "state.db-shm", "index.db", "index.db-wal", "index.db-shm"] {
        let _ = std::fs::remove_file(nerd_dir.join(f));
    }
    let listed: Vec<String> =
        std::fs::read_dir(&nerd_dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    let out = w.nerd(&["audit", "verify"]);
    assert!(out.status.success(), "{} {} {listed:?}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout(&out).trim(), format!("audit intact: {records} records"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("moved the audit trail"),
        "{} {listed:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!legacy.exists(), "the old file became the index");
    let index = rusqlite::Connection::open(nerd_dir.join("index.db")).unwrap();
    let marker: String =
        index.query_row("SELECT value FROM meta WHERE key = 'legacy-marker'", [], |r| r.get(0)).unwrap();
    assert_eq!(marker, "kept", "the index kept its rows");
    let durable: i64 = index
        .query_row("SELECT count(*) FROM sqlite_master WHERE name IN ('audit_record', 'session')", [], |r| r.get(0))
        .unwrap_or(0);
    drop(index);
    assert!(w.nerd(&["index"]).status.success());
    let index = rusqlite::Connection::open(nerd_dir.join("index.db")).unwrap();
    let after: i64 = index
        .query_row("SELECT count(*) FROM sqlite_master WHERE name IN ('audit_record', 'session')", [], |r| r.get(0))
        .unwrap();
    assert_eq!(after, 0, "the index no longer holds durable tables (had {durable} before its migration)");
    // The checkpoint came along: undo restores the write.
    let out = w.nerd(&["undo", "--force"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert_eq!(std::fs::read_to_string(w.ws.join("src/lib.rs")).unwrap(), "pub fn canary() -> u32 {\n    7\n}\n");
    // A second start finds nothing left to split.
    let out = w.nerd(&["audit", "verify"]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("moved"));
}

/// A cold index builds its tables' indexes after the rows, not row by row: they are all there
/// afterwards, and the next index, which removes a changed file's rows through them, leaves none stale.
#[test]
fn a_cold_index_keeps_its_indexes_and_a_warm_one_replaces_a_files_rows() {
    let w = World::new();
    std::fs::create_dir_all(w.ws.join("src")).unwrap();
    std::fs::write(w.ws.join("src/lib.rs"), "pub fn alpha() -> u32 { beta() }\npub fn beta() -> u32 { 1 }\n").unwrap();
    let db = w.ws.join(".nerd/index.db");
    let indexes = |db: &std::path::Path| -> Vec<String> {
        let c = rusqlite::Connection::open(db).unwrap();
        let mut s =
            c.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").unwrap();
        let names = s.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect();
        names
    };
    assert!(w.nerd(&["index"]).status.success());
    let after_cold = indexes(&db);
    for wanted in ["symbol_by_path", "raw_call_by_path", "call_edge_by_path", "type_hint_by_path", "chunk_by_path"] {
        assert!(after_cold.iter().any(|n| n == wanted), "{wanted} missing after a cold index: {after_cold:?}");
    }
    std::fs::write(w.ws.join("src/lib.rs"), "pub fn gamma() -> u32 { 2 }\n").unwrap();
    assert!(w.nerd(&["index"]).status.success());
    assert_eq!(indexes(&db), after_cold);
    let c = rusqlite::Connection::open(&db).unwrap();
    let symbols: Vec<String> = {
        let mut s = c.prepare("SELECT id FROM symbol WHERE path = 'src/lib.rs' ORDER BY id").unwrap();
        let ids = s.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect();
        ids
    };
    assert_eq!(symbols, ["src/lib.rs#gamma"]);
    let edges: i64 = c.query_row("SELECT count(*) FROM call_edge WHERE path = 'src/lib.rs'", [], |r| r.get(0)).unwrap();
    assert_eq!(edges, 0, "the old file's call edge is gone");
}

#[test]
fn a_corrupt_index_is_rebuilt_and_the_audit_trail_still_verifies() {
    let w = World::new();
    assert_eq!(w.act(&write("src/lib.rs", "pub fn canary() -> u32 { 8 }\n"), "mutation").0, 0);
    assert!(w.nerd(&["index"]).status.success());
    let index = w.ws.join(".nerd/index.db");
    // Damage the file's header and first pages.
    let mut bytes = std::fs::read(&index).unwrap();
    for b in bytes.iter_mut().take(4096) {
        *b ^= 0x5a;
    }
    std::fs::write(&index, bytes).unwrap();
    let out = w.nerd(&["index"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("rebuilding it"));
    assert_eq!(integrity(&index), "ok");
    let out = w.nerd(&["audit", "verify"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let out = w.nerd(&["doctor"]);
    assert!(stdout(&out).contains("state:") && stdout(&out).contains("audit intact"), "{}", stdout(&out));
}

/// A small deterministic generator for kill delays.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

#[test]
fn sigkill_mid_index_or_mid_write_never_damages_either_database() {
    let w = World::new();
    // Enough files that an index takes a while to write.
    for d in 0..20 {
        let dir = w.ws.join(format!("pkg{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..15 {
            let body: String = (0..30)
                .map(|i| format!("def f{i}(x):\n    return g{i}(x) + {d}\n\ndef g{i}(y):\n    return y * {f}\n\n"))
                .collect();
            std::fs::write(dir.join(format!("m{f}.py")), body).unwrap();
        }
    }
    let spawn = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_nerd"))
            .args(args)
            .current_dir(&w.ws)
            .env("HOME", &w.home)
            .env("XDG_STATE_HOME", &w.state)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut rng = Lcg(13);
    let trials = 40;
    let mut damaged = Vec::new();
    for trial in 0..trials {
        // Touch files so every index has work to write.
        let touched = w.ws.join(format!("pkg{}/m{}.py", trial % 20, trial % 15));
        std::fs::write(&touched, format!("def changed_{trial}():\n    return {trial}\n")).unwrap();
        let content = format!("pub fn canary() -> u32 {{ {trial} }}\n");
        let mut index = spawn(&["index"]);
        let mut act = spawn(&["act", "--json", "--intent", "mutation", "--action", &write("src/lib.rs", &content)]);
        std::thread::sleep(Duration::from_millis(5 + rng.next(250)));
        for child in [&mut index, &mut act] {
            let _ = child.kill();
            let _ = child.wait();
        }
        for db in ["index.db", "state.db"] {
            let path = w.ws.join(".nerd").join(db);
            if path.exists() {
                let verdict = integrity(&path);
                if verdict != "ok" {
                    damaged.push(format!("trial {trial}: {db}: {verdict}"));
                }
            }
        }
        let out = w.nerd(&["audit", "verify"]);
        if !out.status.success() {
            damaged.push(format!("trial {trial}: audit: {}", stdout(&out)));
        }
    }
    eprintln!("kill -9 trials: {trials}, damaged: {}", damaged.len());
    assert!(damaged.is_empty(), "{damaged:#?}");
    // Both still work afterwards.
    assert!(w.nerd(&["index"]).status.success());
    assert_eq!(w.act(&write("src/lib.rs", "pub fn canary() -> u32 { 1 }\n"), "mutation").0, 0);
}
