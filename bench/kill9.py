#!/usr/bin/env python3
"""SIGKILL trials: nerd killed mid-index and mid-write, many times.

Each trial starts `nerd index` (after touching a file, so it has work to
write) and `nerd act` (a router write: audit append, checkpoint, atomic write)
at once, kills both with SIGKILL after a random delay, then checks
`PRAGMA integrity_check` of .nerd/index.db and .nerd/state.db and runs
`nerd audit verify`. Prints how many kills landed while a process was still
running, and how many databases were found damaged (the goal is 0).

    python3 bench/kill9.py --nerd target/release/nerd --trials 300 [--repo PATH]

Without --repo, a generated workspace of 600 Python files is used; with one,
a copy of it is (the original is never touched).
"""

import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time


def generated(root):
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "src", "lib.rs"), "w") as f:
        f.write("pub fn canary() -> u32 { 7 }\n")
    for d in range(30):
        pkg = os.path.join(root, f"pkg{d}")
        os.makedirs(pkg)
        for m in range(20):
            with open(os.path.join(pkg, f"m{m}.py"), "w") as f:
                for i in range(30):
                    f.write(f"def f{i}(x):\n    return g{i}(x) + {d}\n\ndef g{i}(y):\n    return y * {m}\n\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.email=b@e", "-c", "user.name=b", "commit", "-qm", "x"], cwd=root, check=True)


def integrity(path):
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        verdict = conn.execute("PRAGMA integrity_check").fetchone()[0]
        conn.close()
        return verdict
    except sqlite3.Error as e:
        return str(e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nerd", required=True)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--repo")
    ap.add_argument("--seed", type=int, default=9)
    args = ap.parse_args()
    nerd = os.path.abspath(args.nerd)
    rng = random.Random(args.seed)
    base = tempfile.mkdtemp(prefix="nerd-kill9-")
    ws = os.path.join(base, "ws")
    if args.repo:
        shutil.copytree(args.repo, ws, symlinks=True, ignore=shutil.ignore_patterns(".nerd", "target", "node_modules"))
    else:
        generated(ws)
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(base, "state"), HOME=os.path.join(base, "home"))
    os.makedirs(env["HOME"])
    # A first full index, so later trials are incremental writes as in daily use.
    subprocess.run([nerd, "index"], cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    py = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(ws) if ".git" not in dp for f in fs if f.endswith(".py"))
    killed_running = damaged = audit_failures = 0
    started = time.time()
    for trial in range(args.trials):
        for target in rng.sample(py, min(5, len(py))):
            with open(target, "a") as f:
                f.write(f"\ndef touched_{trial}():\n    return {trial}\n")
        action = '{"kind":"write_file","path":"src/lib.rs","content":"pub fn canary() -> u32 { %d }\\n"}' % trial
        procs = [
            subprocess.Popen([nerd, "index"], cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
            subprocess.Popen(
                [nerd, "act", "--json", "--intent", "mutation", "--action", action],
                cwd=ws, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ),
        ]
        time.sleep(rng.uniform(0.002, 0.4))
        for p in procs:
            if p.poll() is None:
                killed_running += 1
                p.kill()
            p.wait()
        for db in ("index.db", "state.db"):
            path = os.path.join(ws, ".nerd", db)
            if os.path.exists(path):
                verdict = integrity(path)
                if verdict != "ok":
                    damaged += 1
                    print(f"trial {trial}: {db}: {verdict}", file=sys.stderr)
        audit = subprocess.run([nerd, "audit", "verify"], cwd=ws, env=env, capture_output=True, text=True)
        if audit.returncode != 0:
            audit_failures += 1
            print(f"trial {trial}: audit: {audit.stdout.strip()} {audit.stderr.strip()}", file=sys.stderr)
    print(f"trials: {args.trials}")
    print(f"kills that landed while a process ran: {killed_running} of {2 * args.trials}")
    print(f"databases found damaged: {damaged}")
    print(f"audit verify failures: {audit_failures}")
    print(f"seconds: {time.time() - started:.0f}")
    shutil.rmtree(base, ignore_errors=True)
    return 1 if damaged or audit_failures else 0


if __name__ == "__main__":
    sys.exit(main())
