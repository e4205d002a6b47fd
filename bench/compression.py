#!/usr/bin/env python3
"""Semantic compression of a session: the history's text against what nerd keeps, and
whether later turns still find what they need.

A scripted 100-turn session over a copy of a real project, one request per `nerd run
--resume SESSION` process: with the offline transducer and no model (the default), or with
`--provider local --model GGUF`, where a local model writes the explanations (perception
stays the offline transducer's either way, so the script's needs are the same). The script is built from the
project's own functions and tests by a seeded random choice (--seed), in ten blocks of ten
turns: explain, who calls, a reference back to the last query ("the function we looked at
before"), a link said in words ("remember that A is configured by B"), where is, a test
named by a phrase ("remember that the flaky test is T", a different phrase per block),
explain, a later use of a phrase said up to three blocks before ("what does the flaky test
call"), who calls, and "explain that function again".

    history  every request and everything nerd printed for it (the answer and the
             progress lines): the text a transcript-keeping agent carries into its next turn
    kept     what nerd's durable state holds for later requests: the memories written
             (text and subject), the knowledge links, and the session's state; the audit
             trail of the decisions and actions (kept for `nerd why` and `nerd audit`,
             read by no model call) is reported beside it

The needs are written down when the script is built, before anything runs:
    back     a reference back needs the target of the query before it: met when nerd's
             focus is that symbol, confidently (the one candidate at 0.85 or more)
    phrase   a test named by a phrase needs the link said earlier: met the same way
    fact     at the end, each link said must be recallable: `nerd memory search "where is
             A configured"` lists its memory among the first three
    target   at the end, each query's target must be recallable: `nerd memory search
             NAME` lists a memory about it among the first three

Tokens are characters / 4 for both sides.

    usage: bench/compression.py PROJECT_DIR [--nerd PATH] [--seed N] [--json OUT]
                                [--provider local --model GGUF]
"""

import argparse, json, os, random, re, shutil, sqlite3, subprocess, sys, tempfile

PHRASES = ["flaky", "slow", "noisy", "fragile", "timing", "network", "legacy", "unicode", "locale", "platform"]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def tokens(text):
    return (len(text) + 3) // 4


def symbols(nerd, root):
    out = subprocess.run([nerd, "query", "symbol", "--json"], cwd=root, capture_output=True, text=True, check=True)
    rows = [json.loads(line)["args"] for line in out.stdout.splitlines()]
    names = {}
    for r in rows:
        names.setdefault(r[0].rsplit("#", 1)[-1].rsplit(".", 1)[-1], []).append(r)
    # Names that are unique in the project, so a failure to ground is memory's, not the name's.
    unique = [rs[0] for n, rs in names.items()
              if len(rs) == 1 and len(n) >= 5 and not n.startswith("_") and "~" not in n]
    functions = sorted(r[0] for r in unique if r[1] in ("function", "method") and "test" not in r[3].split("/")[0])
    tests = sorted(r[0] for r in unique if r[1] == "test")
    return functions, tests


def bare(symbol_id):
    return symbol_id.rsplit("#", 1)[-1].rsplit(".", 1)[-1]


def script(functions, tests, seed):
    """Turns (request, need) and the end checks, chosen before anything runs."""
    rng = random.Random(seed)
    turns, facts, targets = [], [], []
    said = []
    for block in range(10):
        f = rng.sample(functions, 7)
        t = rng.choice(tests)
        phrase = f"{PHRASES[block]} test"
        said.append((phrase, t))
        earlier = said[max(0, block - 3)] if block % 2 else said[block]
        turns += [
            (f"explain {bare(f[0])}", None),
            (f"who calls {bare(f[1])}", None),
            ("explain the function we looked at before", ("back", f[1])),
            (f"remember that {bare(f[2])} is configured by {bare(f[3])}", None),
            (f"where is {bare(f[4])} defined", None),
            (f"remember that the {phrase} is {bare(t)}", None),
            (f"explain {bare(f[5])}", None),
            (f"what does the {earlier[0]} call", ("phrase", earlier[1])),
            (f"who calls {bare(f[6])}", None),
            ("explain that function again", ("back", f[6])),
        ]
        facts.append((f"where is {bare(f[2])} configured", f[2]))
        targets += [f[0], f[1], f[5], f[6]]
    return turns, facts, targets


FOCUS = re.compile(r"^· focus: (.*)$", re.M)
CANDIDATE = re.compile(r"(\S+) \((\d\.\d\d)\)")
SESSION = re.compile(r"session (s[0-9a-f]+) \(resume with")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("project")
    ap.add_argument("--nerd", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "nerd"))
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--json")
    ap.add_argument("--provider", help="a model for the explanations, e.g. local (default: none)")
    ap.add_argument("--model", help="the GGUF file of --provider local")
    a = ap.parse_args()
    nerd = os.path.abspath(a.nerd)
    work = tempfile.mkdtemp(prefix="nerd-compression-")
    root = os.path.join(work, "project")
    shutil.copytree(a.project, root, ignore=shutil.ignore_patterns(".nerd"))
    env = dict(os.environ, NERD_EMBEDDING_MODEL=os.environ.get("NERD_EMBEDDING_MODEL", ""))
    provider = ["--provider", a.provider] if a.provider else []
    if a.model:
        env.update(NERD_LOCAL_MODEL=os.path.abspath(a.model), NERD_LOCAL_THREADS="2", NERD_SEED="7")
    subprocess.run([nerd, "index"], cwd=root, capture_output=True, check=True)
    functions, tests = symbols(nerd, root)
    turns, facts, targets = script(functions, tests, a.seed)
    log(f"{len(turns)} turns over {a.project}: {len(functions)} functions, {len(tests)} tests to choose from")

    history, session, met, needs, rows = 0, None, 0, 0, []
    for n, (request, need) in enumerate(turns, 1):
        argv = [nerd, "run", "--approval", "never"] + provider + (["--resume", session] if session else []) + [request]
        out = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=env)
        if session is None:
            m = SESSION.search(out.stderr)
            session = m.group(1) if m else None
        # What the user saw: the answer (stdout) and the progress lines (stderr).
        shown = out.stdout + out.stderr
        history += tokens(request) + tokens(shown)
        ok = None
        if need:
            needs += 1
            focus = FOCUS.search(out.stderr)
            found = [(c, float(x)) for c, x in CANDIDATE.findall(focus.group(1))] if focus else []
            sure = [c for c, x in found if x >= 0.85]
            ok = sure == [need[1]]
            met += ok
            log(f"  {n:>3} {request!r}: needs {need[0]} {need[1]}: {'met' if ok else 'MISSED ' + str(found)}")
        rows.append({"turn": n, "request": request, "need": need, "met": ok, "history_tokens": tokens(shown)})

    def search(query):
        out = subprocess.run([nerd, "memory", "search", query, "-k", "3", "--json"], cwd=root, capture_output=True,
                             text=True, env=env)
        return json.loads(out.stdout)["items"] if out.returncode == 0 else []

    recalled = 0
    for query, subject in facts:
        ok = any(h.get("subject") == subject or bare(subject) in h["text"] for h in search(query))
        recalled += ok
        if not ok:
            log(f"  fact not recalled: {query!r} ({subject})")
    for subject in targets:
        ok = any(h.get("subject") == subject for h in search(bare(subject)))
        recalled += ok
        if not ok:
            log(f"  target not recalled: {bare(subject)} ({subject})")

    db = sqlite3.connect(os.path.join(root, ".nerd", "state.db"))
    memories = db.execute("SELECT kind, text, coalesce(subject, '') FROM memory").fetchall()
    links = db.execute("SELECT a, relation, b FROM knowledge_link").fetchall()
    state = db.execute("SELECT coalesce(group_concat(state, ''), '') FROM session").fetchone()[0]
    audit = db.execute("SELECT coalesce(sum(length(body)), 0) FROM audit_record").fetchone()[0]
    kept = sum(tokens(t) + tokens(s) for _, t, s in memories) + sum(tokens(f"{x} {r} {y}") for x, r, y in links)
    kept_with_session = kept + tokens(state)
    checks = len(facts) + len(targets)
    result = {
        "project": a.project, "seed": a.seed, "provider": a.provider or "none", "turns": len(turns),
        "history_tokens": history,
        "kept_tokens": kept, "session_state_tokens": tokens(state), "audit_tokens": (audit + 3) // 4,
        "memories": len(memories), "links": len(links),
        "ratio": round(history / max(kept_with_session, 1), 1),
        "needs_met": met, "needs": needs, "recalled": recalled, "recall_checks": checks,
        "recall": round((met + recalled) / max(needs + checks, 1), 3), "turn_rows": rows,
    }
    print(f"history {history} tokens : kept {kept_with_session} tokens "
          f"(memories {kept} in {len(memories)} rows and {len(links)} links, session state {tokens(state)}) "
          f"= {result['ratio']}:1; audit trail {result['audit_tokens']} tokens")
    print(f"needs met in later turns {met}/{needs}; recalled at the end {recalled}/{checks}; "
          f"recall {100 * result['recall']:.1f}%")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
