#!/usr/bin/env python3
"""Ephemeral generalists: "explain the architecture" of real projects, surveyed by
nerd alone (`[shards] max_parallel = 1`: the kernel delegates nothing) against the
same survey delegated to read-only children (max_parallel = N: one task per top-level
area, shared out among at most N children; `delegate_min_files = 0`, so that small
projects delegate too), in the same run, alternating A B A B, medians of wall time.

Also, from the delegated runs' JSON events and audit trail: how many children,
how long each ran, and its start-up (process start to its kernel's first decision,
`first_decision_ms` in its report). The answers of both modes must list the same
areas with the same findings; a difference is printed and fails the run.

    usage: bench/delegate.py PROJECT_DIR... [--nerd PATH] [--runs N] [--parallel N]

Projects: ../shared/bench/projects.sh DEST fetches real ones (attrs, tomlkit, semver,
itoa, uuid, zod); ../shared/bench/corpus.sh DEST larger code. Each is copied to a temp
folder and indexed first.
"""

import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time


def run(nerd, cwd, args):
    return subprocess.run([nerd, *args], cwd=cwd, capture_output=True, text=True)


def survey(nerd, ws, parallel):
    os.makedirs(os.path.join(ws, ".nerd"), exist_ok=True)
    with open(os.path.join(ws, ".nerd", "config.toml"), "w") as f:
        # The threshold is lifted so that the delegated runs delegate whatever the size:
        # these runs are what the default threshold (1000 files) was chosen from.
        f.write(f"[shards]\nmax_parallel = {parallel}\ndelegate_min_files = 0\n")
    start = time.perf_counter()
    out = run(nerd, ws, ["run", "--json", "explain the architecture"])
    wall = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{ws}: nerd run failed ({out.returncode}): {out.stderr[-2000:]}")
    events = [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
    answer = [e["text"] for e in events if e.get("event") == "answer"][-1]
    children = [e for e in events if e.get("event") == "child"]
    return wall, answer, children


def area_lines(answer):
    return [l.split(" [")[0] for l in answer.splitlines() if "/  " in l or l.startswith("  ")]


def child_figures(nerd, ws):
    out = run(nerd, ws, ["audit", "show", "--json"])
    firsts, walls = [], []
    for line in out.stdout.splitlines():
        try:
            r = json.loads(line)["record"]
        except (ValueError, KeyError):
            continue
        if r.get("record") == "result" and r.get("action", {}).get("kind") == "delegate":
            d = r["outcome"]
            walls.append(d.get("wall_ms", 0))
            child = d.get("child") or {}
            if child.get("first_decision_ms") is not None:
                firsts.append(child["first_decision_ms"])
    return firsts, walls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("projects", nargs="+")
    ap.add_argument("--nerd", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "nerd"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--parallel", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    nerd = os.path.abspath(a.nerd)
    print(f"{os.cpu_count()} cores; delegated runs with max_parallel = {a.parallel}; medians of {a.runs} runs each")
    print(f"{'project':<14} {'areas':>5} {'files':>6} {'alone':>8} {'delegated':>10} {'speed-up':>9} "
          f"{'children':>8} {'child wall':>11} {'child start':>12}")
    failed = False
    for project in a.projects:
        with tempfile.TemporaryDirectory() as tmp:
            ws = os.path.join(tmp, "ws")
            shutil.copytree(project, ws, symlinks=True, ignore=shutil.ignore_patterns(".nerd"))
            if run(nerd, ws, ["index"]).returncode != 0:
                sys.exit(f"{project}: nerd index failed")
            alone, delegated, children = [], [], []
            answers = {}
            for _ in range(a.runs):
                w, ans, _ = survey(nerd, ws, 1)
                alone.append(w)
                answers["alone"] = ans
                w, ans, ch = survey(nerd, ws, a.parallel)
                delegated.append(w)
                answers["delegated"] = ans
                children = ch
            firsts, walls = child_figures(nerd, ws)
            same = area_lines(answers["alone"]) == area_lines(answers["delegated"])
            if not same:
                failed = True
                print(f"{project}: the two surveys differ:\n--- alone\n{answers['alone']}\n--- delegated\n{answers['delegated']}")
            areas = sum(1 for l in answers["alone"].splitlines() if "/  " in l)
            files = answers["alone"].split(" files with projected code")[0].rsplit(" ", 1)[-1]
            ma, md = statistics.median(alone), statistics.median(delegated)
            n_children = sum(1 for c in children if c["state"] == "running")
            cw = f"{statistics.median(walls) / 1000:.2f} s" if walls else "-"
            cs = f"{statistics.median(firsts)} ms" if firsts else "-"
            print(f"{os.path.basename(project.rstrip('/')):<14} {areas:>5} {files:>6} {ma:>7.2f}s {md:>9.2f}s "
                  f"{ma / md:>8.2f}x {n_children:>8} {cw:>11} {cs:>12}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
