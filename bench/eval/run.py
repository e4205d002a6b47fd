#!/usr/bin/env python3
"""Runs eval tasks (from bench/eval/make_tasks.py) through `nerd run --task-file`
and judges each one independently of what nerd says.

Each task gets a fresh clone of its project with the mutation committed as
HEAD; nerd runs the task (its own retry budget and approval mode) with the
given provider; then the project's suite runs again, outside nerd. A task is
solved when that suite passes and nerd changed no test file. Reported per task
and in total: solved, nerd's status, patch attempts (accepted/rejected),
rollbacks, actions permitted and refused, model tokens (read and written, as
the model reported or counted them), wall time.

    usage: bench/eval/run.py TASKS_DIR PROJECTS_DIR --provider P [--nerd PATH] [--model GGUF]
                             [--threads 2] [--json OUT] [--python PY]
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, cwd, env=None, timeout=1800):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks_dir")
    ap.add_argument("projects_dir")
    ap.add_argument("--provider", required=True)
    ap.add_argument("--nerd", default=os.path.join(HERE, "..", "..", "target", "release", "nerd"))
    ap.add_argument("--model", default=None)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--json", default=None)
    ap.add_argument("--python", default=sys.executable)
    opts = ap.parse_args()
    nerd = os.path.abspath(opts.nerd)
    rows = []
    for path in sorted(glob.glob(os.path.join(opts.tasks_dir, "*.json"))):
        task = json.load(open(path))
        work = tempfile.mkdtemp(prefix=f"eval-{task['id']}-")
        repo = os.path.join(work, "repo")
        src = os.path.abspath(os.path.join(opts.projects_dir, task["project"]))
        sh(["git", "clone", "-q", src, repo], work)
        patch = os.path.join(work, "bug.patch")
        open(patch, "w").write(task["mutation_patch"])
        sh(["git", "apply", patch], repo)
        sh(["git", "-c", "user.name=eval", "-c", "user.email=eval@local", "commit", "-qam", "bug"], repo)
        spec = {k: task[k] for k in ("id", "request", "retry_budget", "approval")}
        spec.update({"workspace": "repo", "provider": opts.provider, "seed": 7})
        task_file = os.path.join(work, "task.json")
        json.dump(spec, open(task_file, "w"))
        out_file = os.path.join(work, "out.json")
        env = dict(os.environ, NERD_LOCAL_THREADS=opts.threads, PYTHONDONTWRITEBYTECODE="1")
        if opts.model:
            env["NERD_LOCAL_MODEL"] = os.path.abspath(opts.model)
        started = time.monotonic()
        code, output = sh([nerd, "run", "--task-file", task_file, "--output-file", out_file], work, env=env)
        wall = time.monotonic() - started
        result = json.load(open(out_file)) if os.path.exists(out_file) else {"status": f"no result ({output[-200:]})"}
        events = result.get("events", [])
        patches = [e for e in events if e.get("event") == "patch"]
        actions = [e for e in events if e.get("event") == "action"]
        calls = [e for e in events if e.get("event") == "model"]
        tokens = sum((c.get("tokens") or {}).get("prompt", 0) + (c.get("tokens") or {}).get("completion", 0) for c in calls)
        changed = sh(["git", "diff", "--name-only", "HEAD"], repo)[1].split()
        suite, _ = sh([opts.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore"], repo)
        touched_tests = [c for c in changed if c.startswith("tests/") or "/test_" in c or c.startswith("test_")]
        row = {
            "id": task["id"], "mutation": task["mutation"], "status": result.get("status"),
            "solved": suite == 0 and bool(changed) and not touched_tests,
            "attempts": len(patches), "accepted": sum(1 for p in patches if p.get("accepted")),
            "rolled_back": sum(1 for p in patches if "rolled back" in p.get("reason", "")),
            "permitted": sum(1 for a in actions if a.get("decision") == "permitted"),
            "refused": sum(1 for a in actions if a.get("decision") == "refused"),
            "changed": changed, "touched_tests": touched_tests, "wall_s": round(wall, 1), "model_tokens": tokens,
            "rejections": [p.get("reason", "")[:160] for p in patches if not p.get("accepted")],
        }
        rows.append(row)
        print(f"{row['id']:16} {'SOLVED' if row['solved'] else 'not solved':10} {row['status']:12} "
              f"attempts {row['attempts']} (accepted {row['accepted']}, rolled back {row['rolled_back']}) "
              f"actions {row['permitted']}/{row['refused']} refused  {row['model_tokens']} tokens  {row['wall_s']} s  {task['mutation']}"
              + (f"  changed tests: {touched_tests}" if touched_tests else ""), flush=True)
        for why in row["rejections"]:
            print(f"{'':16}   rejected: {why}", flush=True)
        shutil.rmtree(work, ignore_errors=True)
    if rows:
        solved = sum(r["solved"] for r in rows)
        print(f"\n{opts.provider}: solved {solved} of {len(rows)}; attempts {sum(r['attempts'] for r in rows)}, "
              f"rolled back {sum(r['rolled_back'] for r in rows)}, actions refused {sum(r['refused'] for r in rows)}, "
              f"model tokens {sum(r['model_tokens'] for r in rows)}, "
              f"wall {sum(r['wall_s'] for r in rows):.0f} s")
    if opts.json:
        json.dump(rows, open(opts.json, "w"), indent=1)


if __name__ == "__main__":
    main()
