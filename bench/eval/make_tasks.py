#!/usr/bin/env python3
"""Eval tasks from real projects in four languages (projects.py says which and
how their suites run), each written as a nerd task file.

Four kinds of task:

  bug       one binary operator of a real function is swapped (`<` for `<=`,
            `+` for `-`, `&&` for `||`, `==` for `!=`...), seeded; kept only if
            the project's suite passed before and fails with it, naming the
            failing tests. Request: "fix the failing tests".
  tests     a swap the suite does NOT catch (a surviving mutant; only swaps
            that are rarely equivalent: `==`/`!=`, `+`/`-`, `&&`/`||`...), in a
            function that is not nested in another (so tests can call it).
            Request: write tests for that function. Judged by run.py: the
            suite, new tests included, passes on the real code and fails with
            the stored mutant.
  question  "which functions call X?", for an X defined once whose callers
            (2 to 5 functions, each name defined once) are read from the
            sources' syntax trees; the callers are stored as the answer.
  rename    a refactor with a checkable outcome: "rename X to X_v2" (X2 in
            Go's and TypeScript's camel case), for an X chosen the same way
            as a question's. Judged by run.py: the suite passes, and the
            syntax trees define the new name where X was defined, and neither
            define nor call X anywhere.

Operators are found in syntax trees, never by text: Python with `tokenize`
(strings and comments are never touched; `+`, `-`, `*` only where binary,
after an operand), Go, Rust and TypeScript with
tree-sitter (only the operator of a binary expression: no generics, no
unary minus, nothing in strings or comments).

    usage: bench/eval/make_tasks.py PROJECTS_DIR OUT_DIR [--projects a,b] [--bugs 8]
                                    [--tests 1] [--questions 2] [--renames 0] [--max-tries 30] [--seed 7]

Writes OUT_DIR/tasks/<id>.json, nerd task files (run from the project's
repository: `cd REPO && nerd run --task-file OUT_DIR/tasks/<id>.json`, or the
folder with --tasks-dir), and OUT_DIR/judge/<id>.json, what run.py needs to
prepare and judge the task (project, kind, mutation patch, failing tests,
answer). Needs tree-sitter and its grammars (target/eval-venv/py, see eval.sh).
"""
import argparse
import ast
import io
import json
import keyword
import os
import random
import signal
import subprocess
import sys
import tokenize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from projects import PROJECTS  # noqa: E402

SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "+": "-", "-": "+",
        "*": "/", "and": "or", "or": "and", "&&": "||", "||": "&&", "===": "!==", "!==": "==="}
# Python divides integers with `//` (in the other three languages `//` opens a comment).
PYTHON_SWAP = dict(SWAP, **{"*": "//"})
# Swaps that rarely leave a program equivalent: only these make test-writing tasks.
KILLABLE = {"==", "!=", "===", "!==", "+", "-", "&&", "||", "and", "or"}
# Names too common to ask or answer about: trait methods and builtins many types share.
COMMON = {"clone", "drop", "eq", "ne", "fmt", "hash", "cmp", "partial_cmp", "from", "into", "default", "deref",
          "next", "len", "parse", "get", "set", "keys", "values", "items", "append", "push", "write", "read"}
# Per language: syntax nodes that define functions, and the field holding the callee of a call.
TREE = {
    "go": {"defs": ("function_declaration", "method_declaration"), "call": ("call_expression", "function"),
           "callee": {"selector_expression": "field"}},
    "rust": {"defs": ("function_item",), "call": ("call_expression", "function"),
             "callee": {"scoped_identifier": "name", "field_expression": "field", "generic_function": "function"}},
    "typescript": {"defs": ("function_declaration", "method_definition", "variable_declarator"),
                   "call": ("call_expression", "function"), "callee": {"member_expression": "property"}},
}


def parser(language):
    """A tree-sitter parser for Go, Rust or TypeScript."""
    import tree_sitter
    if language == "go":
        import tree_sitter_go as grammar
        lang = grammar.language()
    elif language == "rust":
        import tree_sitter_rust as grammar
        lang = grammar.language()
    else:
        import tree_sitter_typescript as grammar
        lang = grammar.language_typescript()
    return tree_sitter.Parser(tree_sitter.Language(lang))


def def_name(node, language):
    """The name a function-defining node gives, or None (a variable that holds no function)."""
    name = node.child_by_field_name("name")
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in ("arrow_function", "function_expression"):
            return None
    return name.text.decode() if name is not None else None


def callee_name(node, language):
    """The called name of a call node (`f(..)`, `x.f(..)`, `m::f(..)`), or None."""
    target = node.child_by_field_name(TREE[language]["call"][1])
    while target is not None and target.type in TREE[language]["callee"]:
        target = target.child_by_field_name(TREE[language]["callee"][target.type])
    if target is not None and target.type in ("identifier", "field_identifier", "property_identifier"):
        return target.text.decode()
    return None


def scan(path, language):
    """The functions of one file: (name, first line, last line, [(line, col, operator)], {called names},
    whether it is nested in another function)."""
    text = open(path, encoding="utf-8").read()
    if language == "python":
        return scan_python(text)
    data = text.encode()
    tree = parser(language).parse(data)
    out = []

    def walk(node, current):
        if node.type in TREE[language]["defs"]:
            name = def_name(node, language)
            if name:
                current = [name, node.start_point[0] + 1, node.end_point[0] + 1, [], set(), current is not None]
                out.append(current)
        if current is not None:
            if node.type == "binary_expression":
                op = node.child_by_field_name("operator")
                if op is not None and op.type in SWAP:
                    row, col = op.start_point
                    line_start = data.rfind(b"\n", 0, op.start_byte) + 1
                    current[3].append((row + 1, len(data[line_start:op.start_byte].decode()), op.type))
            elif node.type == TREE[language]["call"][0]:
                called = callee_name(node, language)
                if called:
                    current[4].add(called)
        for child in node.children:
            walk(child, current)

    walk(tree.root_node, None)
    return [tuple(f) for f in out]


def binary_position(prev):
    """Whether `+`, `-` or `*` after the token `prev` is binary (`a - b`), not unary (`-1`, `f(*args)`)."""
    if prev is None:
        return False
    if prev.type == tokenize.NAME:
        return not keyword.iskeyword(prev.string) or prev.string in ("True", "False", "None")
    return prev.type in (tokenize.NUMBER, tokenize.STRING) or (prev.type == tokenize.OP and prev.string in ")]}")


def scan_python(text):
    """scan() for Python: functions from `ast`, operators from `tokenize`."""
    tokens, prev = [], None
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        if t.type in (tokenize.NL, tokenize.COMMENT):
            continue
        operator = t.type == tokenize.OP or (t.type == tokenize.NAME and t.string in ("and", "or"))
        if operator and t.string in SWAP and (t.string not in ("+", "-", "*") or binary_position(prev)):
            tokens.append(t)
        prev = None if t.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) else t
    defs = [n for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    out = []
    for node in defs:
        nested = any(o is not node and o.lineno < node.lineno <= o.end_lineno for o in defs)
        ops = [(t.start[0], t.start[1], t.string) for t in tokens if node.lineno < t.start[0] <= node.end_lineno]
        called = {c.func.id if isinstance(c.func, ast.Name) else c.func.attr for c in ast.walk(node)
                  if isinstance(c, ast.Call) and isinstance(c.func, (ast.Name, ast.Attribute))}
        out.append((node.name, node.lineno, node.end_lineno, ops, called, nested))
    return out


def swap(language, old):
    """What the operator `old` becomes in a mutant."""
    return (PYTHON_SWAP if language == "python" else SWAP)[old]


def mutate(text, line, col, old, new):
    """`text` with the operator `old` at (line, col) replaced by `new`."""
    lines = text.splitlines(keepends=True)
    current = lines[line - 1]
    assert current[col:col + len(old)] == old, (line, col, old, current)
    lines[line - 1] = current[:col] + new + current[col + len(old):]
    return "".join(lines)


def git(repo, *args):
    """The output of a git command in `repo`."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True).stdout


def questions(project, functions, count, rng):
    """Up to `count` (callee, its file, [callers]) with callers read from the syntax trees."""
    defined = {}
    for path, (name, *_rest) in functions:
        defined.setdefault(name, []).append(path)
    callers = {}
    for path, (name, _first, _last, _ops, called, _nested) in functions:
        for callee in called:
            if callee != name:
                callers.setdefault(callee, set()).add(name)
    picks = [(x, defined[x][0], sorted(who)) for x, who in sorted(callers.items())
             if len(defined.get(x, [])) == 1 and len(x) >= 6 and x not in COMMON and 2 <= len(who) <= 5
             and all(len(defined[w]) == 1 and w not in COMMON and not w.startswith("__") for w in who)]
    rng.shuffle(picks)
    return picks[:count]


def renamed(name):
    """The new name of a rename task, in the name's own style: parse_header -> parse_header_v2,
    ParseBytes -> ParseBytesV2."""
    return f"{name}_v2" if "_" in name or name.islower() else f"{name}V2"


def write(out_dir, task, judge):
    """Writes the nerd task file and the judge's record of one task."""
    json.dump(task, open(os.path.join(out_dir, "tasks", f"{task['id']}.json"), "w"), indent=1)
    json.dump(judge, open(os.path.join(out_dir, "judge", f"{task['id']}.json"), "w"), indent=1)


def nerd_task(task_id, request):
    """A nerd task file: the request with the fields `nerd run --task-file` reads (no workspace:
    it runs in the repository it is started from)."""
    return {"id": task_id, "request": request, "retry_budget": 3, "approval": "auto", "seed": 7}


def make(project, repo, opts):
    """Writes the tasks of one project; returns how many of each kind."""
    project.prepare(repo)
    if git(repo, "status", "--porcelain", "--untracked-files=no").strip():
        print(f"{project.name}: the working tree has changes; skipped", file=sys.stderr)
        return {}
    code, out = project.run_suite(repo)
    if code != 0:
        print(f"{project.name}: its suite does not pass unmutated; skipped ({out.strip().splitlines()[-3:]})", file=sys.stderr)
        return {}
    functions = [(path, f) for path in project.source_files(repo) for f in scan(os.path.join(repo, path), project.language)]
    made = {"bug": 0, "tests": 0, "question": 0, "rename": 0}
    renames = questions(project, functions, opts.renames, random.Random(f"{opts.seed}:{project.name}:r"))
    for callee, where, callers in renames:
        made["rename"] += 1
        task_id = f"{project.name}-rename-{made['rename']}"
        new_name = renamed(callee)
        write(opts.out_dir, nerd_task(task_id, f"rename {callee} to {new_name}"),
              {"id": task_id, "project": project.name, "language": project.language, "kind": "rename",
               "function": f"{where}#{callee}", "old": callee, "new": new_name, "callers": callers})
        print(f"{task_id}: rename {callee} ({where}, called by {', '.join(callers)}) to {new_name}", flush=True)
    for callee, where, answer in questions(project, functions, opts.questions, random.Random(f"{opts.seed}:{project.name}:q")):
        made["question"] += 1
        task_id = f"{project.name}-question-{made['question']}"
        write(opts.out_dir, nerd_task(task_id, f"which functions call {callee}?"),
              {"id": task_id, "project": project.name, "language": project.language, "kind": "question",
               "function": f"{where}#{callee}", "answer": answer})
        print(f"{task_id}: which functions call {callee}? -> {', '.join(answer)}", flush=True)
    draws = [(path, f) for path, f in functions if f[2] - f[1] >= 2 and f[3]]
    random.Random(f"{opts.seed}:{project.name}").shuffle(draws)
    for path, (fn, _first, _last, ops, _called, nested) in draws[:opts.max_tries]:
        if made["bug"] >= opts.bugs and made["tests"] >= opts.tests:
            break
        line, col, old = random.Random(f"{opts.seed}:{path}:{fn}").choice(ops)
        if made["bug"] >= opts.bugs and (old not in KILLABLE or nested):
            continue
        full = os.path.join(repo, path)
        text = open(full, encoding="utf-8").read()
        new = swap(project.language, old)
        open(full, "w", encoding="utf-8").write(mutate(text, line, col, old, new))
        try:
            code, out = project.run_suite(repo, fast=True)
            patch = git(repo, "diff")
        finally:
            open(full, "w", encoding="utf-8").write(text)
        mutation = f"`{old}` -> `{new}` at {path}:{line}"
        failing = project.failing(out)
        judge = {"project": project.name, "language": project.language, "function": f"{path}#{fn}",
                 "mutation": mutation, "mutation_patch": patch}
        if code not in (0, None) and failing and made["bug"] < opts.bugs:
            made["bug"] += 1
            task_id = f"{project.name}-bug-{made['bug']}"
            write(opts.out_dir, nerd_task(task_id, "fix the failing tests"),
                  dict(judge, id=task_id, kind="bug", failing=failing))
            print(f"{task_id}: {mutation} fails {len(failing)} test(s)", flush=True)
        elif code == 0 and old in KILLABLE and not nested and made["tests"] < opts.tests:
            made["tests"] += 1
            task_id = f"{project.name}-tests-{made['tests']}"
            request = (f"write tests for {fn} in {path} that check its results; put them in "
                       f"{project.test_hint()} and do not change {path}")
            write(opts.out_dir, nerd_task(task_id, request), dict(judge, id=task_id, kind="tests"))
            print(f"{task_id}: tests for {fn}; the mutant {mutation} survives the suite", flush=True)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("projects_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--projects", default="py-tomlkit,go-uuid,rs-semver,rs-itoa,ts-zod")
    ap.add_argument("--bugs", type=int, default=8, help="bug tasks per project")
    ap.add_argument("--tests", type=int, default=1, help="test-writing tasks per project")
    ap.add_argument("--questions", type=int, default=2, help="question tasks per project")
    ap.add_argument("--renames", type=int, default=0, help="rename tasks per project")
    ap.add_argument("--max-tries", type=int, default=30, help="mutations run per project")
    ap.add_argument("--seed", type=int, default=7)
    opts = ap.parse_args()
    # Killed mid-mutation, the `finally` still restores the source it changed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    for sub in ("tasks", "judge"):
        os.makedirs(os.path.join(opts.out_dir, sub), exist_ok=True)
    totals = {}
    for name in opts.projects.split(","):
        made = make(PROJECTS[name], os.path.abspath(os.path.join(opts.projects_dir, name)), opts)
        totals[name] = made
        print(f"{name}: {made}", flush=True)
    print(f"tasks: {sum(sum(m.values()) for m in totals.values())} in {opts.out_dir}/tasks")


if __name__ == "__main__":
    main()
