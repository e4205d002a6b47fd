#!/usr/bin/env python3
"""Runs eval tasks (from bench/eval/make_tasks.py) through an agent, nerd or
aider, and judges each one independently of what the agent says.

Each task gets a fresh clone of its project (for a bug task, with the mutation
committed as HEAD). The agent works in it with the same request:

  nerd   `nerd run --task-file tasks/<id>.json` (its own retry budget and
         approval mode) with the given provider.
  aider  `aider --message REQUEST` driving a model behind an OpenAI-compatible
         server (bench/eval/setup-aider.sh serve), with no files added (its
         repository map and --yes-always let it pick them, as nerd does). For
         a bug or test task it gets the project's test command (--test-cmd
         --auto-test: after an edit it runs the suite and retries, at most 3
         reflections, aider's own limit, as nerd's retry budget is 3); for a
         bug task the message also carries the last 3,000 bytes of the
         failing suite's output, which nerd gathers by itself (that run
         counts in aider's wall time). A question goes in ask mode.
  oracle no model: the harness's self-check (see run_oracle).

Then the judge, outside the agent:
  bug       solved when the project's suite passes, something changed and no
            test file did;
  tests     solved when only test files changed (and a manifest declaring
            them, where the project needs that), the suite (new tests
            included) passes, and fails once the stored surviving mutant
            is applied on top;
  question  solved when the answer names every caller stored with the task.
  rename    solved when the suite passes, the file that defined the old name
            defines the new one, and no source file (syntax trees, as
            make_tasks.py reads them) defines or calls the old name.

Reported per task and in total (and per kind and language): solved, status,
attempts (nerd: patches proposed, accepted, rolled back; aider: edits
applied), actions permitted and refused (nerd only), model tokens (nerd: as
its model events count them; aider: the "Tokens: N sent, M received" lines it
prints, rounded to 0.1k above 1,000), wall time.

    usage: bench/eval/run.py EVAL_DIR PROJECTS_DIR [--agent nerd|aider|oracle] [--provider P]
                             [--nerd PATH] [--model GGUF] [--threads 2]
                             [--aider PATH] [--api-base URL] [--model-name NAME]
                             [--only ID,ID] [--timeout 3600] [--json OUT]
           bench/eval/run.py --compare A.json B.json     (two runs' results, side by side)
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from projects import CARGO_LOCK, PROJECTS, TOP  # noqa: E402

PROMPT_TAIL = 3000


def sh(cmd, cwd, env=None, timeout=3600):
    """(exit code or None on timeout, stdout + stderr)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out + "\n[timed out]"


def checkout(task, judge, projects_dir, work):
    """A fresh clone of the task's project under `work`, with a bug task's mutation committed."""
    project = PROJECTS[judge["project"]]
    repo = os.path.join(work, "repo")
    sh(["git", "clone", "-q", os.path.abspath(os.path.join(projects_dir, judge["project"])), repo], work)
    project.prepare(repo)
    with open(os.path.join(repo, ".git", "info", "exclude"), "a") as f:
        f.write("\n.nerd/\n.aider*\nCargo.lock\n")
    if judge["kind"] == "bug":
        patch = os.path.join(work, "bug.patch")
        open(patch, "w").write(judge["mutation_patch"])
        sh(["git", "apply", patch], repo)
        sh(["git", "-c", "user.name=eval", "-c", "user.email=eval@local", "-c", "commit.gpgsign=false",
            "commit", "-qam", "bug"], repo)
    return repo


def changed_files(repo):
    """Files changed or added since HEAD (ignored ones aside)."""
    tracked = sh(["git", "diff", "--name-only", "HEAD"], repo)[1].split()
    added = sh(["git", "ls-files", "--others", "--exclude-standard"], repo)[1].split()
    return sorted(set(tracked + added))


def run_nerd(task_file, repo, env, language, opts):
    """Runs nerd on one task; returns the agent's half of the row and its answer text.
    On a Rust project the whole run holds the machine's compile lock, since nerd
    runs cargo itself."""
    out_file = os.path.join(os.path.dirname(repo), "out.json")
    env = dict(env, NERD_LOCAL_THREADS=opts.threads)
    if opts.model:
        env["NERD_LOCAL_MODEL"] = os.path.abspath(opts.model)
    cmd = [os.path.abspath(opts.nerd), "run", "--task-file", task_file, "--output-file", out_file]
    if opts.provider:
        cmd += ["--provider", opts.provider]
    if language == "rust":
        cmd = ["flock", CARGO_LOCK] + cmd
    started = time.monotonic()
    _code, output = sh(cmd, repo, env=env, timeout=opts.timeout)
    wall = time.monotonic() - started
    result = json.load(open(out_file)) if os.path.exists(out_file) else {"status": f"no result ({output[-200:]})"}
    events = result.get("events", [])
    patches = [e for e in events if e.get("event") == "patch"]
    actions = [e for e in events if e.get("event") == "action"]
    tokens = sum((c.get("tokens") or {}).get("prompt", 0) + (c.get("tokens") or {}).get("completion", 0)
                 for c in events if c.get("event") == "model")
    return {
        "status": result.get("status"), "wall_s": round(wall, 1), "model_tokens": tokens,
        "attempts": len(patches), "accepted": sum(1 for p in patches if p.get("accepted")),
        "rolled_back": sum(1 for p in patches if "rolled back" in p.get("reason", "")),
        "permitted": sum(1 for a in actions if a.get("decision") == "permitted"),
        "refused": sum(1 for a in actions if a.get("decision") == "refused"),
        "rejections": [p.get("reason", "")[:160] for p in patches if not p.get("accepted")],
    }, str(result.get("answer") or "")


def count(number, unit):
    """aider's token counts: "1.2k" is 1200."""
    return round(float(number) * {"": 1, "k": 1000, "m": 1000000}[unit.lower()])


def run_aider(task, judge, repo, env, opts):
    """Runs aider on one task; returns the agent's half of the row and its reply text."""
    project = PROJECTS[judge["project"]]
    work = os.path.dirname(repo)
    started = time.monotonic()
    message = task["request"]
    test_cmd = shlex.join(project.suite())
    cmd = [os.path.abspath(opts.aider), "--model", f"openai/{opts.model_name}", "--openai-api-base", opts.api_base,
           "--openai-api-key", "local", "--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore",
           "--no-show-model-warnings", "--no-check-update", "--no-show-release-notes", "--no-analytics",
           "--no-pretty", "--no-stream", "--no-fancy-input", "--no-suggest-shell-commands", "--no-detect-urls",
           "--no-auto-lint", "--map-tokens", "1024",
           "--chat-history-file", os.path.join(work, "aider.chat.md"),
           "--input-history-file", os.path.join(work, "aider.input"),
           "--llm-history-file", os.path.join(work, "aider.llm.log")]
    if judge["kind"] == "question":
        cmd += ["--chat-mode", "ask"]
    else:
        cmd += ["--test-cmd", test_cmd, "--auto-test"]
    if judge["kind"] == "bug":
        _code, output = project.run_suite(repo)
        message += f"\n\nThe test command `{test_cmd}` fails; the end of its output:\n\n{output[-PROMPT_TAIL:]}"
    cmd += ["--message", message]
    env = dict(env, LITELLM_LOCAL_MODEL_COST_MAP="True")
    code, output = sh(cmd, repo, env=env, timeout=opts.timeout)
    wall = time.monotonic() - started
    sent = sum(count(n, u) for n, u in re.findall(r"Tokens: ([\d.]+)([km]?) sent", output))
    received = sum(count(n, u) for n, u in re.findall(r"([\d.]+)([km]?) received", output))
    edits = len(re.findall(r"^Applied edit to ", output, re.M))
    status = "timed out" if code is None else ("done" if code == 0 else f"exit {code}")
    return {
        "status": status, "wall_s": round(wall, 1), "model_tokens": sent + received,
        "attempts": edits, "accepted": edits, "rolled_back": 0, "permitted": None, "refused": None,
        "rejections": [], "output_tail": output[-1500:],
    }, output


def run_oracle(judge, repo):
    """The harness's self-check, no model: re-checks what make_tasks.py claimed in this
    fresh clone (a bug's suite fails, a test task's mutant survives the suite), then
    gives the known fix (the mutation reversed) or the stored answer, which the
    judge must accept. A test task gets no tests (the judge must refuse it)."""
    project = PROJECTS[judge["project"]]
    started = time.monotonic()
    answer = ""
    if judge["kind"] == "bug":
        code, output = project.run_suite(repo)
        named = project.failing(output)
        status = f"fails before ({len(named)} named)" if code not in (0, None) and named else "PASSES BEFORE"
        patch = os.path.join(os.path.dirname(repo), "fix.patch")
        open(patch, "w").write(judge["mutation_patch"])
        sh(["git", "apply", "-R", patch], repo)
    elif judge["kind"] == "rename":
        # Every whole-word use of the old name, in every file of the language, renamed.
        code, _ = project.run_suite(repo)
        status = "suite passes before" if code == 0 else "SUITE FAILS BEFORE"
        word = re.compile(rf"(?<![\w$]){re.escape(judge['old'])}(?![\w$])")
        for root, dirs, files in os.walk(repo):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "target")]
            for f in (f for f in files if f.endswith(project.ext)):
                path = os.path.join(root, f)
                text = open(path, encoding="utf-8").read()
                if word.search(text):
                    open(path, "w", encoding="utf-8").write(word.sub(judge["new"], text))
    elif judge["kind"] == "tests":
        patch = os.path.join(os.path.dirname(repo), "mutant.patch")
        open(patch, "w").write(judge["mutation_patch"])
        sh(["git", "apply", patch], repo)
        code, _ = project.run_suite(repo)
        sh(["git", "apply", "-R", patch], repo)
        status = "mutant survives" if code == 0 else "MUTANT CAUGHT"
    else:
        answer, status = ", ".join(judge["answer"]), "answered"
    return {"status": status, "wall_s": round(time.monotonic() - started, 1), "model_tokens": 0, "attempts": 0,
            "accepted": 0, "rolled_back": 0, "permitted": None, "refused": None, "rejections": []}, answer


def judge_task(judge, repo, answer):
    """Whether the task was solved, and why not, checked outside the agent."""
    project = PROJECTS[judge["project"]]
    if judge["kind"] == "question":
        missing = [n for n in judge["answer"] if not re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", answer)]
        return not missing, (f"does not name {', '.join(missing)}" if missing else "")
    changed = changed_files(repo)
    tests = [c for c in changed if project.is_test(c)]
    code, _ = project.run_suite(repo)
    if judge["kind"] == "rename":
        return judge_rename(judge, project, repo, code)
    if judge["kind"] == "bug":
        if not changed:
            return False, "nothing changed"
        if tests:
            return False, f"changed tests: {tests}"
        return code == 0, ("" if code == 0 else "the suite still fails")
    if not tests:
        return False, "no test file written"
    others = sorted(set(changed) - set(tests) - set(project.test_manifests))
    if others:
        return False, f"changed non-test files: {others}"
    if code != 0:
        return False, "the suite fails on the real code"
    patch = os.path.join(os.path.dirname(repo), "mutant.patch")
    open(patch, "w").write(judge["mutation_patch"])
    applied, why = sh(["git", "apply", patch], repo)
    if applied != 0:
        return False, f"the mutant no longer applies: {why.strip()[:120]}"
    killed, _ = project.run_suite(repo)
    return killed not in (0, None), ("" if killed not in (0, None) else "the new tests do not catch the mutant")


def judge_rename(judge, project, repo, suite_code):
    """Whether a rename task was done: the suite passes, the defining file defines the new name,
    and no source file defines or calls the old one (as make_tasks.py's syntax trees read them)."""
    from make_tasks import scan
    if suite_code != 0:
        return False, "the suite fails"
    where = judge["function"].split("#")[0]
    found = {path: scan(os.path.join(repo, path), project.language) for path in project.source_files(repo)}
    if not any(f[0] == judge["new"] for f in found.get(where, [])):
        return False, f"{where} does not define {judge['new']}"
    left = sorted({path for path, fs in found.items() for f in fs if f[0] == judge["old"] or judge["old"] in f[4]})
    return not left, (f"{judge['old']} is still defined or called in {', '.join(left)}" if left else "")


def totals(rows, label):
    """Lines of totals: overall, then per kind and per language."""
    lines = []

    def line(name, group):
        solved = sum(r["solved"] for r in group)
        refused = sum(r["refused"] or 0 for r in group)
        lines.append(f"{label} {name:12} solved {solved:3} of {len(group):3}; attempts {sum(r['attempts'] for r in group)}, "
                     f"rolled back {sum(r['rolled_back'] for r in group)}, actions refused {refused}, "
                     f"model tokens {sum(r['model_tokens'] for r in group)}, wall {sum(r['wall_s'] for r in group):.0f} s")

    line("all", rows)
    for key in ("kind", "language"):
        for value in sorted({r[key] for r in rows}):
            line(value, [r for r in rows if r[key] == value])
    return lines


def compare(a_path, b_path):
    """Prints two runs' results side by side, task by task, then both totals."""
    a, b = json.load(open(a_path)), json.load(open(b_path))
    la, lb = a[0]["agent"] if a else "A", b[0]["agent"] if b else "B"
    by_id = {r["id"]: r for r in b}

    def cell(row):
        return "-" if row is None else f"{'SOLVED' if row['solved'] else 'no'} {row['model_tokens']}t {row['wall_s']:.0f}s"

    print(f"{'task':28} {la:>24} {lb:>24}")
    for r in a:
        print(f"{r['id']:28} {cell(r):>24} {cell(by_id.get(r['id'])):>24}")
    common = set(by_id) & {r["id"] for r in a}
    for label, rows in ((la, a), (lb, b)):
        print("\n".join(totals([r for r in rows if r["id"] in common], label)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("eval_dir", nargs="?")
    ap.add_argument("projects_dir", nargs="?")
    ap.add_argument("--agent", choices=("nerd", "aider", "oracle"), default="nerd")
    ap.add_argument("--provider", default=None, help="nerd's provider (e.g. local)")
    ap.add_argument("--nerd", default=os.path.join(TOP, "target", "release", "nerd"))
    ap.add_argument("--model", default=None, help="the GGUF nerd's local provider loads")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--aider", default=os.path.join(TOP, "target", "eval-venv", "aider", "bin", "aider"))
    ap.add_argument("--api-base", default="http://127.0.0.1:8089/v1")
    ap.add_argument("--model-name", default="local-coder", help="the model's name on the server")
    ap.add_argument("--only", default=None, help="comma-separated task ids")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per agent run")
    ap.add_argument("--json", default=None)
    ap.add_argument("--compare", nargs=2, metavar=("A_JSON", "B_JSON"))
    opts = ap.parse_args()
    # Killed mid-task, the `finally` still removes the task's clone.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    if opts.compare:
        compare(*opts.compare)
        return
    if not (opts.eval_dir and opts.projects_dir):
        ap.error("EVAL_DIR and PROJECTS_DIR are required")
    only = set(opts.only.split(",")) if opts.only else None
    label = {"nerd": f"nerd/{opts.provider or 'default'}", "aider": f"aider/{opts.model_name}", "oracle": "oracle"}[opts.agent]
    rows = []
    for task_file in sorted(glob.glob(os.path.join(opts.eval_dir, "tasks", "*.json"))):
        task = json.load(open(task_file))
        if only and task["id"] not in only:
            continue
        judge = json.load(open(os.path.join(opts.eval_dir, "judge", os.path.basename(task_file))))
        work = tempfile.mkdtemp(prefix=f"eval-{task['id']}-")
        try:
            repo = checkout(task, judge, opts.projects_dir, work)
            env = PROJECTS[judge["project"]].suite_env()
            if opts.agent == "nerd":
                row, answer = run_nerd(os.path.abspath(task_file), repo, env, judge["language"], opts)
            elif opts.agent == "aider":
                row, answer = run_aider(task, judge, repo, env, opts)
            else:
                row, answer = run_oracle(judge, repo)
            solved, why = judge_task(judge, repo, answer)
            row.update(id=task["id"], agent=label, kind=judge["kind"], language=judge["language"],
                       solved=solved, why=why, changed=changed_files(repo),
                       what=judge.get("mutation") or (f"{judge['old']} -> {judge['new']}" if judge["kind"] == "rename"
                                                      else f"callers of {judge['function'].split('#')[1]}"))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        rows.append(row)
        actions = "-" if row["permitted"] is None else f"{row['permitted']}/{row['refused']}"
        print(f"{row['id']:28} {'SOLVED' if solved else 'not solved':10} {str(row['status']):12} "
              f"attempts {row['attempts']} (accepted {row['accepted']}, rolled back {row['rolled_back']}) "
              f"actions {actions} refused  {row['model_tokens']} tokens  {row['wall_s']} s  {row['what']}"
              + (f"  ({why})" if why else ""), flush=True)
        for reason in row["rejections"]:
            print(f"{'':28}   rejected: {reason}", flush=True)
    if rows:
        print("\n" + "\n".join(totals(rows, label)))
    if opts.json:
        json.dump(rows, open(opts.json, "w"), indent=1)


if __name__ == "__main__":
    main()
