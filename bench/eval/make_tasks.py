#!/usr/bin/env python3
"""Eval tasks from real projects: seeded operator mutations of real functions
that make the project's own tests fail, each written as a nerd task file.

For each Python project (a git repository, e.g. from ../shared/bench/projects.sh),
functions of its package are drawn in a seeded order; in each, one comparison,
arithmetic or boolean operator token (read with `tokenize`, so strings and
comments are never touched) is swapped (`<` for `<=`, `+` for `-`, `and` for
`or`...). The mutation is kept as a task only if the suite passed before it and
fails with it; the mutation is stored as a patch, and the repository restored.

    usage: bench/eval/make_tasks.py PROJECTS_DIR OUT_DIR [--projects a,b] [--per-project 4]
                                    [--seed 7] [--python PY]

Each task is OUT_DIR/<project>-<n>.json: a nerd task file ("fix the failing
tests") plus the fields bench/eval/run.py reads (project, mutation patch,
function, the tests that fail).
"""
import argparse
import ast
import io
import json
import os
import random
import subprocess
import sys
import tokenize

SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "+": "-", "-": "+",
        "*": "//", "and": "or", "or": "and"}
SUITE_TIMEOUT = 600


def sh(cmd, cwd, timeout=SUITE_TIMEOUT):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return None, "timeout"


def suite(repo, python):
    return sh([python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-W", "ignore"], repo)


def failing_tests(output):
    return sorted({l.split(" ")[1] for l in output.splitlines() if l.startswith("FAILED ")})[:10]


def functions(path):
    text = open(path, encoding="utf-8").read()
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 2:
            yield node.name, node.lineno, node.end_lineno


def operator_tokens(text, first, last):
    """(line, col, old) of every swappable operator token in lines first..last."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        line = tok.start[0]
        if not first < line <= last:
            continue
        if (tok.type == tokenize.OP or (tok.type == tokenize.NAME and tok.string in ("and", "or"))) and tok.string in SWAP:
            out.append((line, tok.start[1], tok.string))
    return out


def mutate(text, line, col, old):
    lines = text.splitlines(keepends=True)
    l = lines[line - 1]
    assert l[col:col + len(old)] == old
    lines[line - 1] = l[:col] + SWAP[old] + l[col + len(old):]
    return "".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("projects_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--projects", default="py-attrs,py-tomlkit")
    ap.add_argument("--per-project", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--python", default=sys.executable)
    opts = ap.parse_args()
    os.makedirs(opts.out_dir, exist_ok=True)
    for name in opts.projects.split(","):
        repo = os.path.abspath(os.path.join(opts.projects_dir, name))
        code, out = suite(repo, opts.python)
        if code != 0:
            print(f"{name}: its suite does not pass unmutated; skipped ({out.strip().splitlines()[-1:]})", file=sys.stderr)
            continue
        sources = []
        for root, dirs, files in os.walk(os.path.join(repo, "src") if os.path.isdir(os.path.join(repo, "src")) else repo):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("tests", "test", "docs", "bench")]
            sources += [os.path.join(root, f) for f in files if f.endswith(".py") and not f.startswith("test")]
        draws = [(path, fn) for path in sorted(sources) for fn in functions(path)]
        random.Random(f"{opts.seed}:{name}").shuffle(draws)
        made = 0
        for path, (fn, first, last) in draws:
            if made >= opts.per_project:
                break
            text = open(path, encoding="utf-8").read()
            tokens = operator_tokens(text, first, last)
            if not tokens:
                continue
            line, col, old = random.Random(f"{opts.seed}:{path}:{fn}").choice(tokens)
            open(path, "w", encoding="utf-8").write(mutate(text, line, col, old))
            try:
                code, out = suite(repo, opts.python)
                patch = subprocess.run(["git", "diff"], cwd=repo, capture_output=True, text=True).stdout
            finally:
                open(path, "w", encoding="utf-8").write(text)
            if code in (0, None) or not failing_tests(out):
                continue
            made += 1
            rel = os.path.relpath(path, repo)
            task = {
                "id": f"{name}-{made}", "request": "fix the failing tests", "retry_budget": 3, "approval": "auto",
                "project": name, "function": f"{rel}#{fn}", "mutation": f"`{old}` -> `{SWAP[old]}` at {rel}:{line}",
                "mutation_patch": patch, "failing": failing_tests(out),
            }
            json.dump(task, open(os.path.join(opts.out_dir, f"{task['id']}.json"), "w"), indent=1)
            print(f"{task['id']}: {task['mutation']} fails {len(task['failing'])} test(s)")


if __name__ == "__main__":
    main()
