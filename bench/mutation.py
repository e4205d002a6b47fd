#!/usr/bin/env python3
"""Test selection against mutation: does nerd select the tests that catch a broken function?

For each project fetched by bench/eight.sh, draw production functions and
methods with a seeded random draw, make each one raise or panic at entry, ask
nerd which tests must run (`needs_testing`; `maybe_needs_testing` for tests
reached only through uncertain calls) and run the project's own suite. Recall
is the share of really failing tests nerd selected, precision the share of
selected tests that really failed, both micro-averaged over a project's
mutations. Every failing test nerd missed is listed with a best-effort cause
read from nerd's `calls` and `unresolved_call` atoms and the test's source.

    usage: bench/mutation.py PROJECTS_DIR [--nerd PATH] [--projects a,b] [--count 20]
                             [--seed 12] [--json OUT] [--slow 3.0] [--python PY] [--vitest PATH]
                             [--go-deps DIR] [--no-doctests] [--precise] [--coverage] [--from-json IN] [--reselect IN]

The mutation is the first statement of the body:
    Python  raise RuntimeError("nerd-mutation")           (after the docstring)
    Go      if true { panic("nerd-mutation") };
    Rust    if ::core::hint::black_box(true) { panic!("nerd-mutation") }
    TS      if ((1 as number) === 1) { throw new Error("nerd-mutation") }
Draws that cannot be mutated sensibly are skipped and counted (stubs whose body
is only `...`/`pass`, overloads, abstract methods, declarations without a body,
expression-bodied arrow functions, one-line Python bodies, mutations that do
not parse or compile); the next symbol of the seeded order takes their place.
Functions are not filtered on having tests.

Each suite runs once unmutated first: tests failing there (and pytest tests
slower than --slow seconds) are left out of every run and of the scores, and
selected tests that were left out do not count against precision. Rust
doc-tests have no nerd symbol: their failures are counted apart and left out
of recall. Every repository is restored with `git checkout -- .` and
`git clean -fdq` (nerd's ignored .nerd/ stays) after each mutation.

Causes given to a missed test (best effort, from nerd's graph of the unmutated
repository; `TEST` in a detail stands for each test of its group):
    kernel            nerd has a certain call path from the test, yet did not select it
    uncertain call    only in maybe_needs_testing; the chain, `~>` the uncertain hops
    module level      the test file's import-time code reaches or mentions the function
    fixture           a pytest fixture, injected by parameter name, reaches it
    no edge test->fn, no edge test->caller, no edge X->caller
                      the nearest code nerd reaches from the test that mentions the
                      function or one of its callers (along nerd's edges) where nerd has
                      no edge to it, and what nerd recorded on that line
    chain broken      as above, but in code nerd does not reach from the test: where the
                      trail of nerd's callers ends (a hook registered by reference...)
    implicit protocol / implicit trait / accessor / interface call
                      dunder methods, Rust operator/fmt/drop traits, TS get/set
                      accessors, Go interface methods: called without call syntax
    no textual path   none of the above was found

How each suite runs (tests ids are mapped to nerd's test_symbol ids):
    pytest   PYTHON -m pytest -p no:cacheprovider -W ignore::pytest.PytestRemovedIn10Warning tests,
             PYTHONPATH=src, a small plugin records every report; plugin autoload is off except
             for py-requests (it needs pytest-httpbin, whose flask would import the mutated click).
             A module that fails to import fails all its baseline tests.
             tests/x.py::C::test_y[p] -> tests/x.py#C.test_y
    go       go test -vet=off -c per package, then the binary with -test.v; a panic kills the
             binary, so the tests it had not run yet are run again. dir TestX -> dir/*_test.go#TestX
    cargo    cargo test --no-fail-fast (RUST_BACKTRACE unset), CARGO_BUILD_JOBS=1 and
             CARGO_TARGET_DIR=/tmp/mutation-target/<project> unless set.
             tests/t.rs `a::b` -> tests/t.rs#a.b; unit `m::tests::f` -> src/m.rs#tests.f
    vitest   vitest run with a generated config (aliases zod/* to src/, JSON reporter with
             locations). file + title -> file#title, else the test symbol spanning the line.

Needs, besides nerd: PYTHON (default: this interpreter) with pytest, and for
py-requests pytest-httpbin, httpbin, trustme; go (--go-deps DIR: each module
go.mod requires is replaced by DIR/<module path> when present, through an
alternate -modfile outside the repository: go-testify without network, e.g.
from the sources of Debian's golang-*-dev packages); cargo; for ts-zod
vitest 3 (--vitest .../node_modules/.bin/vitest; @web-std/file, recheck and
@standard-schema/spec installed beside it). A project whose tool is missing
is reported as not run.

    bench/mutation.py /tmp/eight --nerd target/debug/nerd --python VENV/bin/python \
        --go-deps GODEPS/src --vitest NPM/node_modules/.bin/vitest --json /tmp/mutation.json
"""
import argparse, ast, collections, json, os, random, re, shutil, subprocess, sys, tempfile, time

MUTATION = "nerd-mutation"
SUITE_TIMEOUT = 900


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def sh(cmd, cwd, timeout=SUITE_TIMEOUT, env=None):
    """Run cmd; return (rc, combined output). rc 124 on timeout."""
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out


# ---------------------------------------------------------------- nerd

class Nerd:
    def __init__(self, exe, repo):
        self.exe, self.repo = exe, repo

    def index(self, precise=False, coverage=False, env=None):
        extra = (["--precise"] if precise else []) + (["--coverage"] if coverage else [])
        done = subprocess.run([self.exe, "--repo", self.repo, "index", *extra], check=True, capture_output=True,
                              text=True, env=env)
        for line in done.stdout.splitlines():
            if line.startswith(("precise:", "coverage:")):
                print(f"  {line}", file=sys.stderr)

    def query(self, predicate):
        out = subprocess.run([self.exe, "--repo", self.repo, "query", "--json", predicate],
                             check=True, capture_output=True, text=True).stdout
        return [json.loads(line)["args"] for line in out.splitlines() if line.startswith("{")]


class Sym:
    def __init__(self, args):
        self.id, self.kind, self.vis, self.path, self.line, self.endline, self.sig = args

    @property
    def qual(self):  # the part after '#', without nerd's ~N duplicate suffix
        return re.sub(r"~\d+$", "", self.id.split("#", 1)[1])

    @property
    def name(self):
        return self.qual.split(".")[-1]


# ---------------------------------------------------------------- text scanning for brace languages

def skip_literal(text, i, lang):
    """If a comment or string starts at i, return the index after it, else None."""
    c = text[i]
    if text.startswith("//", i):
        j = text.find("\n", i)
        return len(text) if j < 0 else j
    if text.startswith("/*", i):
        j = text.find("*/", i + 2)
        return len(text) if j < 0 else j + 2
    quotes = {"go": '"`\'', "rs": '"', "ts": '"\'`'}[lang]
    if lang == "rs" and c == "r" and re.match(r'r#*"', text[i:i + 5]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
        m = re.match(r'r(#*)"', text[i:])
        end = text.find('"' + m.group(1), i + len(m.group(0)))
        return len(text) if end < 0 else end + 1 + len(m.group(1))
    if c in quotes:
        j = i + 1
        while j < len(text) and text[j] != c:
            if text[j] == "\\" and c != "`":
                j += 1
            j += 1
        return j + 1
    return None


def find_body_brace(text, start, lang, limit):
    """Index of the '{' opening the body of the function whose signature starts at
    `start`, or (None, reason). Braces of type literals (Go struct{}/interface{},
    TS object types) are skipped; a ';' at depth 0 first means no body."""
    depth, i, prev = 0, start, ""
    while i < min(len(text), limit):
        j = skip_literal(text, i, lang)
        if j is not None:
            i, prev = j, "lit"
            continue
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if text.startswith("=>", i):
            prev = "=>"
            i += 2
            continue
        if text.startswith("->", i):
            prev = "->"
            i += 2
            continue
        if c in "([" or (c == "<" and lang in ("rs", "ts")):
            depth += 1
        elif c in ")]" or (c == ">" and lang in ("rs", "ts")):
            depth = max(0, depth - 1)
        elif c == ";" and depth == 0:
            return None, "no body (declaration)"
        elif c == "{" and depth == 0:
            typey = prev in ("struct", "interface") if lang == "go" else \
                prev in (":", "|", "&", ",", "=", "extends", "keyof", "typeof", "<", "?") if lang == "ts" else False
            if not typey:
                return i, None
            k, d = i, 0  # skip the balanced type literal
            while k < len(text):
                j = skip_literal(text, k, lang)
                if j is not None:
                    k = j
                    continue
                d += {"{": 1, "}": -1}.get(text[k], 0)
                k += 1
                if d == 0:
                    break
            i, prev = k, "}"
            continue
        m = re.match(r"[A-Za-z_$][\w$]*", text[i:])
        if m:
            prev = m.group(0)
            i += len(prev)
            continue
        prev = c
        i += 1
    return None, "body not found"


def line_offsets(text):
    offs, pos = [0], 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        offs.append(pos)
    return offs


def brace_mutate(text, sym, lang):
    offs = line_offsets(text)
    if sym.line - 1 >= len(offs):
        return None, "symbol line outside the file"
    start, limit = offs[sym.line - 1], offs[min(sym.endline, len(offs) - 1)]
    if lang == "rs" and sym.sig.startswith("macro_rules!"):
        return None, "macro_rules! macro, not a function"
    if lang == "rs" and "$" in sym.sig:
        return None, "inside a macro definition"
    if lang in ("go", "rs"):  # start at the `fn`/`func` keyword, skipping attributes and comments
        i, kw = start, "fn" if lang == "rs" else "func"
        while i < limit:
            j = skip_literal(text, i, lang)
            if j is not None:
                i = j
                continue
            if re.match(r"\b%s\b" % kw, text[i:i + len(kw) + 1]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                start = i + len(kw)
                break
            i += 1
        else:
            return None, f"no `{kw}` keyword in the symbol's lines"
    else:  # ts: skip the name, then an arrow function's `= ` if any
        pass
    brace, why = find_body_brace(text, start, lang, limit + 1)
    if brace is None:
        if lang == "ts" and "=>" in text[start:limit]:
            return None, "expression-bodied arrow function"
        return None, why
    stmt = {"go": ' if true { panic("%s") };' % MUTATION,
            "rs": ' if ::core::hint::black_box(true) { panic!("%s") }' % MUTATION,
            "ts": ' if ((1 as number) === 1) { throw new Error("%s"); }' % MUTATION}[lang]
    if lang == "ts":
        # a body that is only a single-expression arrow inside braces is fine; but `{` may open an
        # object literal returned by `=> ({...})`: that has '(' before and depth>0, so not here.
        pass
    return text[:brace + 1] + stmt + text[brace + 1:], None


def py_mutate(text, sym):
    tree = ast.parse(text)
    found = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child))
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)
    walk(tree, "")
    cands = [n for q, n in found if q == sym.qual]
    if not cands:
        return None, "definition not found by ast"
    first = lambda n: min([n.lineno] + [d.lineno for d in n.decorator_list])
    node = min(cands, key=lambda n: 0 if first(n) <= sym.line <= n.lineno or n.lineno == sym.line else abs(n.lineno - sym.line))
    decos = [ast.unparse(d) for d in node.decorator_list]
    if any(re.search(r"(^|\.)overload$", d) for d in decos):
        return None, "typing.overload stub"
    if any(re.search(r"abstractmethod$", d) for d in decos):
        return None, "abstract method"
    body = node.body
    doc = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
    rest = body[1:] if doc else body
    stub = lambda s: isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is Ellipsis)
    if not rest or all(stub(s) for s in rest):
        return None, "stub body (only docstring/.../pass)"
    if body[0].lineno == node.lineno:
        return None, "one-line body"
    lines = text.splitlines(keepends=True)
    target = rest[0]
    tline = min([target.lineno] + [d.lineno for d in getattr(target, "decorator_list", [])])
    indent = re.match(r"[ \t]*", lines[body[0].lineno - 1]).group(0)
    if doc and tline <= body[0].end_lineno:  # statement on the docstring's last line
        return None, "statement shares the docstring's line"
    new = "".join(lines[:tline - 1]) + f'{indent}raise RuntimeError("{MUTATION}")\n' + "".join(lines[tline - 1:])
    ast.parse(new)
    return new, None


# ---------------------------------------------------------------- projects

TESTY = re.compile(r"(_test\.go$|(^|/)tests?/|(^|/)test_[^/]*\.py$|_test\.py$|\.(test|spec)\.tsx?$|__tests__/|(^|/)benchmarks?/|(^|/)benches/|(^|/)examples?/|conftest\.py$)")


class Project:
    lang = None

    def __init__(self, name, repo, opts):
        self.name, self.repo, self.opts = name, repo, opts

    def production(self, path):
        return not TESTY.search(path)

    def mutate(self, text, sym):
        return brace_mutate(text, sym, self.lang)

    def check_tools(self):
        return None

    def configure_coverage(self):
        """What `nerd index --coverage` needs in the repository. Python: the interpreter and
        pytest arguments the suite runs with, as [index] settings."""
        if self.lang != "py":
            return
        os.makedirs(os.path.join(self.repo, ".nerd"), exist_ok=True)
        args = ["-W", "ignore::pytest.PytestRemovedIn10Warning", "tests"]
        with open(os.path.join(self.repo, ".nerd", "config.toml"), "w") as f:
            f.write("[index]\ncoverage_python = %s\ncoverage_pytest_args = %s\n" % (json.dumps(self.opts.python), json.dumps(args)))

    def coverage_env(self):
        """The environment `nerd index --coverage` runs with (settings it needs go to .nerd/config.toml)."""
        return dict(os.environ)


class PyProject(Project):
    lang = "py"
    PLUGIN = '''import json, os
_out = open(os.environ["NERD_MUTATION_OUT"], "w")
def pytest_runtest_logreport(report):
    _out.write(json.dumps({"id": report.nodeid, "when": report.when, "outcome": report.outcome, "duration": report.duration}) + "\\n"); _out.flush()
def pytest_collectreport(report):
    if report.failed:
        _out.write(json.dumps({"id": report.nodeid, "when": "collect", "outcome": "failed", "duration": 0}) + "\\n"); _out.flush()
'''

    def production(self, path):
        # A package's modules, in a `src/` layout or at the top (`tomlkit/`), not its docs, examples or tooling.
        top = path.split("/")[0]
        return ("/" in path and top not in ("docs", "doc", "examples", "example", "benchmarks", "bench", "scripts",
                                             "tools", "tasks") and not top.startswith(".") and not TESTY.search(path))

    def mutate(self, text, sym):
        return py_mutate(text, sym)

    def check_tools(self):
        rc, out = sh([self.opts.python, "-m", "pytest", "--version"], self.repo, 60)
        return None if rc == 0 else f"{self.opts.python} -m pytest not available: {out.strip()[-200:]}"

    def run(self, excluded, baseline=None):
        tmp = tempfile.mkdtemp(prefix="nerd-mutation-py-")
        try:
            with open(os.path.join(tmp, "nerd_mutation_plugin.py"), "w") as f:
                f.write(self.PLUGIN)
            env = dict(os.environ, NERD_MUTATION_OUT=os.path.join(tmp, "out.jsonl"),
                       PYTHONPATH=os.pathsep.join([os.path.join(self.repo, "src"), tmp]), PYTHONDONTWRITEBYTECODE="1")
            if self.name != "py-requests":  # requests needs pytest-httpbin; other projects must not load it:
                env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # httpbin imports flask, which imports the mutated click
            cmd = [self.opts.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "nerd_mutation_plugin",
                   "--continue-on-collection-errors", "-W", "ignore::pytest.PytestRemovedIn10Warning", "tests"]  # click sets filterwarnings=error; pytest 9 deprecations
            for e in sorted(excluded):
                cmd += ["--deselect", e]
            rc, out = sh(cmd, self.repo, env=env)
            outcomes, durations, collect_fail = {}, collections.Counter(), []
            if os.path.exists(env["NERD_MUTATION_OUT"]):
                for line in open(env["NERD_MUTATION_OUT"]):
                    r = json.loads(line)
                    if r["when"] == "collect":
                        collect_fail.append(r["id"])
                        continue
                    durations[r["id"]] += r["duration"] or 0
                    old = outcomes.get(r["id"])
                    if r["outcome"] == "failed" or old == "failed":
                        outcomes[r["id"]] = "failed"
                    elif r["when"] == "call" or old is None:
                        outcomes[r["id"]] = r["outcome"]
            for cid in collect_fail:  # a module that failed to import: all its tests fail
                hits = [b for b in (baseline or {}) if cid in ("", ".") or b == cid or b.startswith(cid + "::") or b.startswith(cid.rstrip("/") + "/")]
                for b in hits:
                    if b not in excluded:
                        outcomes[b] = "failed"
                if not hits:
                    outcomes[cid] = "failed"
            info = {"rc": rc, "collect_errors": collect_fail}
            if rc == 124:
                info["timeout"] = True
            if not outcomes and rc not in (0, 1):
                info["error"] = out[-2000:]
            return outcomes, durations, info
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def to_nerd(self, raw, tests):
        path, _, rest = raw.partition("::")
        rest = re.sub(r"\[.*\]$", "", rest, flags=re.S)
        nid = f"{path}#{rest.replace('::', '.')}"
        return nid if nid in tests else None


class GoProject(Project):
    lang = "go"

    def production(self, path):
        return path.endswith(".go") and not path.endswith("_test.go") and not path.startswith("_") and "/_" not in path and "testdata/" not in path

    def check_tools(self):
        return None if shutil.which("go") else "go not on PATH"

    def coverage_env(self):
        return self.go_env()

    def go_env(self):
        """The environment for go; with --go-deps DIR, an alternate go.mod (-modfile, outside the
        repository) replaces each required module found under DIR/<module path>: no network."""
        env = dict(os.environ)
        if self.opts.go_deps:
            if not getattr(self, "modfile", None):
                self.modfile = os.path.join(tempfile.mkdtemp(prefix="nerd-mutation-gomod-"), "go.mod")
                text = open(os.path.join(self.repo, "go.mod")).read()
                reqs = re.findall(r"^\s*(?:require\s+)?([\w.\-]+\.[\w]+/[\w./\-]+)\s+v\S+", text, re.M)
                extra = [f"replace {m} => {os.path.join(os.path.abspath(self.opts.go_deps), m)}" for m in reqs
                         if os.path.isdir(os.path.join(self.opts.go_deps, m))]
                open(self.modfile, "w").write(text + "\n" + "\n".join(extra) + "\n")
            env["GOFLAGS"] = (env.get("GOFLAGS", "") + " -modfile=" + self.modfile).strip()
        return env

    def run(self, excluded, baseline=None):
        env = self.go_env()
        rc, out = sh(["go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}", "./..."], self.repo, 300, env)
        if rc != 0:
            return {}, {}, {"rc": rc, "error": out[-2000:], "compile_error": True}
        tmp = tempfile.mkdtemp(prefix="nerd-mutation-go-")
        outcomes, info = {}, {"rc": 0, "panics": 0, "reruns": 0}
        try:
            for n, line in enumerate(out.split("\n")):
                if "\t" not in line:
                    continue
                pkg, d = line.split("\t")
                rel = os.path.relpath(d, self.repo)
                binary = os.path.join(tmp, f"p{n}.test")
                rc, bout = sh(["go", "test", "-p", "1", "-vet=off", "-c", "-o", binary, pkg], self.repo, 600, env)
                if rc != 0:
                    info["compile_error"] = True
                    info["error"] = bout[-2000:]
                    return outcomes, {}, info
                if not os.path.exists(binary):
                    continue  # no test files
                rc, lout = sh([binary, "-test.list", ".*"], d, 120)
                if rc != 0 and baseline:
                    # Listing runs the package's initialisation too: if that panics,
                    # every test of the package the baseline knew fails.
                    info["init_panic"] = True
                    for key in baseline:
                        if key.partition("::")[0] == rel and key not in excluded:
                            outcomes[key] = "failed"
                    continue
                names = [x for x in lout.split() if re.match(r"^(Test|Example)\w*$", x)]
                remaining = [x for x in names if f"{rel}::{x}" not in excluded]
                while remaining:
                    regex = "^(" + "|".join(re.escape(x) for x in remaining) + ")$"
                    rc, rout = sh([binary, "-test.v", "-test.count=1", "-test.timeout=300s", "-test.run", regex], d, 400)
                    started, done, top = [], {}, set(remaining)
                    for ln in rout.splitlines():  # only listed names: tests that call testing.RunTests print inner ones
                        m = re.match(r"^=== (RUN|CONT|PAUSE)\s+(\S+)$", ln)
                        if m and m.group(2) in top and m.group(1) == "RUN":
                            started.append(m.group(2))
                        m = re.match(r"^--- (PASS|FAIL|SKIP): (\S+)", ln)
                        if m and m.group(2) in top:
                            done[m.group(2)] = {"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[m.group(1)]
                    if rc != 0:  # the binary died (panic, os.Exit, timeout): find the test it died in
                        info["panics"] += 1
                        if not started:  # before any test ran: the package's initialisation panicked
                            info["init_panic"] = True
                            for x in remaining:
                                done[x] = "failed"
                        elif not any(done.get(x) == "failed" for x in started):
                            unfinished = [x for x in started if x not in done]
                            if unfinished:
                                done[unfinished[-1]] = "failed"
                    for k, v in done.items():
                        outcomes[f"{rel}::{k}"] = v
                    left = [x for x in remaining if x not in done]
                    if len(left) == len(remaining):
                        for x in left:
                            outcomes[f"{rel}::{x}"] = "not run"
                        break
                    if left:
                        info["reruns"] += 1
                    remaining = left
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return outcomes, {}, info

    def to_nerd(self, raw, tests):
        d, _, name = raw.partition("::")
        for t in tests:
            p, _, q = t.partition("#")
            if q == name and os.path.dirname(p) == ("" if d == "." else d) and p.endswith("_test.go"):
                return t
        return None


class RsProject(Project):
    lang = "rs"

    def production(self, path):
        return path.startswith("src/") and not TESTY.search(path)

    def check_tools(self):
        return None if shutil.which("cargo") else "cargo not on PATH"

    def mutate(self, text, sym):
        if re.search(r"(^|\.)tests?\.", sym.qual):
            return None, "test-only helper (in a tests module)"
        return brace_mutate(text, sym, "rs")

    def run(self, excluded, baseline=None):
        env = dict(os.environ)
        env.setdefault("CARGO_BUILD_JOBS", "1")
        env.setdefault("CARGO_TARGET_DIR", os.path.join("/tmp/mutation-target", self.name))
        for v in ("RUST_BACKTRACE", "RUST_LIB_BACKTRACE"):  # anyhow's test_fmt expects no backtrace
            env.pop(v, None)
        targets = ["--lib", "--tests"] if self.opts.no_doctests else []  # --lib --tests: no doc-tests, no examples
        rc, out = sh(["cargo", "test", "--no-fail-fast"] + targets, self.repo, SUITE_TIMEOUT, env)
        outcomes, info, cur = {}, {"rc": rc}, None
        for ln in out.splitlines():
            m = re.match(r"^\s+Running (unittests )?(\S+) \(", ln)
            if m:
                cur = ("unit" if m.group(1) else "integ", m.group(2))
                continue
            if re.match(r"^\s+Doc-tests ", ln):
                cur = ("doc", "")
                continue
            m = re.match(r"^test (.+?)(?: - should panic)? \.\.\. (ok|FAILED|ignored)", ln)
            if m and cur:
                name = m.group(1)
                raw = f"doc::{name}" if cur[0] == "doc" else f"{cur[0]}::{cur[1]}::{name}"
                outcomes[raw] = {"ok": "passed", "FAILED": "failed", "ignored": "skipped"}[m.group(2)]
        if re.search(r"^error(\[E\d+\])?: could not compile", out, re.M) or (rc != 0 and not outcomes):
            info["compile_error"] = True
            info["error"] = "\n".join(l for l in out.splitlines() if l.startswith(("error", " -->")))[-2000:]
        if rc == 124:
            info["timeout"] = True
        return {k: v for k, v in outcomes.items() if k not in excluded}, {}, info

    def to_nerd(self, raw, tests):
        kind, _, rest = raw.removesuffix(" - should panic").partition("::")  # runs before the suffix was read
        if kind == "doc":
            return None
        path, _, name = rest.partition("::")
        segs = name.split("::")
        if kind == "integ":
            base = path[:-3]
            for t in tests:
                p, _, q = t.partition("#")
                if (p == path or p.startswith(base + "/")) and q == ".".join(segs):
                    return t
            for t in tests:
                p, _, q = t.partition("#")
                if (p == path or p.startswith(base + "/")) and q.split(".")[-1] == segs[-1]:
                    return t
            return None
        src = os.path.dirname(path)
        for k in range(len(segs) - 1, -1, -1):
            mods = segs[:k]
            files = [path] if not mods else [f"{src}/{'/'.join(mods)}.rs", f"{src}/{'/'.join(mods)}/mod.rs"]
            for f in files:
                nid = f"{f}#{'.'.join(segs[k:])}"
                if nid in tests:
                    return nid
        same = [t for t in tests if t.startswith(src + "/") and t.split("#")[1].split(".")[-1] == segs[-1]]
        return same[0] if len(same) == 1 else None


class TsProject(Project):
    lang = "ts"
    CONFIG = '''const Z = %(root)s, N = %(nm)s;
export default {
  resolve: { alias: [
    { find: /^zod\\/v4\\/core$/, replacement: Z + "/src/v4/core/index.ts" },
    { find: /^zod\\/v4\\/mini$/, replacement: Z + "/src/v4/mini/index.ts" },
    { find: /^zod\\/v4-mini$/, replacement: Z + "/src/v4-mini/index.ts" },
    { find: /^zod\\/v4\\/locales\\/(.*)$/, replacement: Z + "/src/v4/locales/$1" },
    { find: /^zod\\/v4\\/locales$/, replacement: Z + "/src/v4/locales/index.ts" },
    { find: /^zod\\/v4$/, replacement: Z + "/src/v4/index.ts" },
    { find: /^zod\\/v3$/, replacement: Z + "/src/v3/index.ts" },
    { find: /^zod$/, replacement: Z + "/src/index.ts" },
    { find: /^(@web-std\\/file|recheck|@standard-schema\\/spec|ts-morph)$/, replacement: N + "/$1" },
  ] },
  cacheDir: %(cache)s,
  server: { fs: { strict: false } },
  test: { include: ["src/**/*.test.ts"], watch: false, includeTaskLocation: true,
          pool: "forks", poolOptions: { forks: { singleFork: true } } },
};
'''

    def production(self, path):
        return path.startswith("src/") and path.endswith(".ts") and not path.endswith(".d.ts") and not TESTY.search(path)

    def configure_coverage(self):
        """`nerd index --coverage` runs the project's own vitest in the repository, so it gets
        what `npm install` and a config of its own would give it: node_modules (a link to the
        one beside --vitest) and bench/eval's zod config as vitest.config.mjs, both git-excluded."""
        nm = os.path.dirname(os.path.dirname(os.path.realpath(self.vitest)))
        link, config = os.path.join(self.repo, "node_modules"), os.path.join(self.repo, "vitest.config.mjs")
        if not os.path.lexists(link):
            os.symlink(nm, link)
        if not os.path.lexists(config):
            shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "eval", "node", "zod.vitest.config.mjs"), config)
        exclude = os.path.join(self.repo, ".git", "info", "exclude")
        existing = open(exclude).read().split() if os.path.exists(exclude) else []
        with open(exclude, "a") as f:
            for name in ("node_modules", "vitest.config.mjs"):
                if name not in existing:
                    f.write(f"\n{name}\n")

    def check_tools(self):
        v = self.opts.vitest or shutil.which("vitest")
        if not v or not os.path.exists(v):
            return "vitest not found (give --vitest PATH/node_modules/.bin/vitest)"
        self.vitest = v
        return None

    def run(self, excluded, baseline=None):
        tmp = tempfile.mkdtemp(prefix="nerd-mutation-ts-")
        try:
            nm = os.path.dirname(os.path.dirname(os.path.realpath(self.vitest)))  # .../node_modules
            cfg = os.path.join(tmp, "vitest.config.mjs")
            with open(cfg, "w") as f:
                f.write(self.CONFIG % {"root": json.dumps(self.repo), "nm": json.dumps(nm), "cache": json.dumps(os.path.join(tmp, "cache"))})
            res = os.path.join(tmp, "out.json")
            rc, out = sh([self.vitest, "run", "--config", cfg, "--root", self.repo, "--reporter=json", "--outputFile=" + res], self.repo)
            outcomes, info = {}, {"rc": rc}
            if not os.path.exists(res):
                info["error"] = out[-2000:]
                return outcomes, {}, info
            data = json.load(open(res))
            for r in data["testResults"]:
                path = os.path.relpath(r["name"], self.repo)
                if not r["assertionResults"] and r["status"] == "failed":  # the file failed to load
                    for b in (baseline or {}):
                        if b.startswith(path + "\t") and b not in excluded:
                            outcomes[b] = "failed"
                    info.setdefault("file_errors", []).append(path)
                for a in r["assertionResults"]:
                    line = (a.get("location") or {}).get("line", 0)
                    raw = f"{path}\t{' > '.join(a['ancestorTitles'] + [a['title']])}\t{line}"
                    if raw in excluded:
                        continue
                    outcomes[raw] = {"passed": "passed", "failed": "failed"}.get(a["status"], "skipped")
            return outcomes, {}, info
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def to_nerd(self, raw, tests):
        path, full, line = raw.split("\t")
        title, line = full.split(" > ")[-1], int(line or 0)
        nid = f"{path}#{title}"
        if nid in tests:
            return nid
        inside = [s for s in self.test_syms if s.path == path and s.line <= line <= s.endline]
        return min(inside, key=lambda s: s.endline - s.line).id if inside else None


KINDS = {"py": PyProject, "go": GoProject, "rs": RsProject, "ts": TsProject}
ORDER = ["py-requests", "py-click", "go-pflag", "go-testify", "rs-semver", "rs-anyhow", "rs-itertools", "ts-zod"]


# ---------------------------------------------------------------- causes of misses

RS_TRAIT = {"fmt", "eq", "ne", "cmp", "partial_cmp", "hash", "clone", "drop", "deref", "deref_mut", "from", "into",
            "try_from", "from_str", "next", "next_back", "size_hint", "fold", "rfold", "index", "as_ref", "borrow",
            "default", "into_iter", "extend", "from_iter", "count", "last", "nth", "source", "description", "provide",
            "poll", "call", "lt", "le", "gt", "ge", "add", "sub", "mul", "neg", "not", "write_str", "serialize", "deserialize"}
RS_IMPLICIT = {"fmt", "drop", "deref", "deref_mut", "eq", "ne", "partial_cmp", "cmp", "hash", "index", "index_mut",
               "lt", "le", "gt", "ge", "add", "sub", "mul", "div", "neg", "not", "provide"}
GO_IFACE = {"String", "Error", "Set", "Type", "Get", "Len", "Less", "Swap", "Read", "Write", "ServeHTTP", "Format", "Unwrap", "Is", "As", "Replace", "Append", "GetSlice"}


class Graph:
    """nerd's call graph as the kernel reads it: certain edges (every provenance but
    name_only, plus test_of links) carry impact; name_only guesses and unresolved calls
    of a symbol's name are uncertain_call edges."""

    def __init__(self, repo, syms, calls, unresolved, uncertain, test_of):
        self.repo, self.syms = repo, syms
        self.out, self.maybe = collections.defaultdict(set), collections.defaultdict(set)
        for caller, callee in uncertain:
            self.maybe[caller].add(callee)
        for caller, callee, path, line, prov in calls:
            (self.maybe if prov == "name_only" else self.out)[caller].add(callee)
        for test, sym in test_of:
            self.out[test].add(sym)
        self.unres = collections.defaultdict(list)
        for caller, name, path, line in unresolved:
            self.unres[(path, int(line))].append((caller, name))
        self.at = collections.defaultdict(list)
        for caller, callee, path, line, prov in calls:
            self.at[(path, int(line))].append((callee, prov))
        self.files, self.module, self.anc, self.into, self.elsewhere = {}, {}, {}, collections.defaultdict(set), {}

    def lines(self, path):
        if path not in self.files:
            try:
                self.files[path] = open(os.path.join(self.repo, path), errors="replace").read().splitlines()
            except OSError:
                self.files[path] = []
        return self.files[path]

    def bfs(self, start, uncertain=False):
        parent, queue = {start: None}, collections.deque([start])
        while queue:
            x = queue.popleft()
            for y in sorted(self.out.get(x, set()) | (self.maybe.get(x, set()) if uncertain else set())):
                if y not in parent:
                    parent[y] = x
                    queue.append(y)
        return parent

    @staticmethod
    def chain(parent, x):
        out = []
        while x is not None:
            out.append(x)
            x = parent[x]
        return list(reversed(out))

    def body_lines(self, sid):
        """The lines a symbol's own code is on; for a file id, its module-level lines."""
        if "#" not in sid:
            if sid not in self.module:
                taken = {n for s in self.syms.values() if s.path == sid and s.kind in ("function", "method", "test")
                         for n in range(s.line, s.endline + 1)}
                self.module[sid] = [n for n in range(1, len(self.lines(sid)) + 1) if n not in taken]
            return sid, self.module[sid]
        s = self.syms.get(sid)
        if not s or s.kind not in ("function", "method", "test"):
            return None, []
        return s.path, range(s.line, s.endline + 1)

    def mention(self, sid, pattern):
        path, numbers = self.body_lines(sid)
        ls = self.lines(path) if path else []
        for n in numbers:
            if n > len(ls):
                break
            if pattern.search(self.code(path, n)):
                return n
        return None

    def code(self, path, n):
        """Line n of path without string literals and comments (a test's title is no call)."""
        line = self.lines(path)[n - 1]
        strings = r'"(\\.|[^"\\])*"' if path.endswith(".rs") else r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'|`[^`]*`'
        line = re.sub(strings, '""', line)
        return line.split("#")[0] if path.endswith(".py") else line.split("//")[0]

    def ancestors(self, fn, targets):
        """fn, the symbols enclosing it, and their callers along nerd's certain edges, nearest
        first (40 at most): any of them mentioned where nerd has no edge is where nerd lost the trail.
        Returns [(id, name, chain to fn)] and one regex of their names."""
        if fn in self.anc:
            return self.anc[fn]
        if not self.into:
            for a, bs in self.out.items():
                for b in bs:
                    self.into[b].add(a)
        counts = collections.Counter(x.name for x in self.syms.values())
        child, queue, found = {t: None for t in targets}, collections.deque(sorted(targets, key=lambda t: t != fn)), []
        while queue and len(found) < 40:
            x = queue.popleft()
            xs = self.syms.get(x)
            if xs and xs.kind != "test":
                name = xs.qual.split(".")[-2] if xs.name == "__init__" and "." in xs.qual else xs.name
                up = [x]
                while child[up[-1]] is not None:
                    up.append(child[up[-1]])
                owner = xs.qual.split(".")[-2] if "." in xs.qual and xs.name != "__init__" else ""
                # beyond fn and its enclosing symbols, a name many symbols share counts only as a method
                # call or with its owner (x.bar(, Own::new): plain `new`, `get`, `fmt` would be noise
                if x in targets or (len(name) >= 3 and counts[name] <= 2):
                    found.append((x, name, up, re.compile(r"(?<![\w$])%s(?![\w$])" % re.escape(name))))
                elif len(name) >= 3 and owner:
                    pat = r"(%s\s*(::|\.)\s*%s(?![\w$])|(?<=[.])\s*%s\s*\()" % (re.escape(owner), re.escape(name), re.escape(name))
                    found.append((x, name, up, re.compile(pat)))
            for y in sorted(self.into.get(x, ())):
                if y not in child:
                    child[y] = x
                    queue.append(y)
        near = set(targets) | set(child)
        self.anc[fn] = (found, near)
        return self.anc[fn]

    def mention_any(self, sid, found, near):
        """The first line of sid's code that mentions one of `found` where nerd has no edge to it."""
        path, numbers = self.body_lines(sid)
        ls = self.lines(path) if path else []
        for n in numbers:
            if n > len(ls):
                break
            code = self.code(path, n)
            for y, name, up, pat in found:
                if y == sid or not pat.search(code):
                    continue
                if re.search(r"\b(def|fn|func|function|class|struct|impl|type)\s+%s\b" % re.escape(name), code):
                    continue
                if any(c == y or c.startswith(y + ".") for c, _ in self.at.get((path, n), [])):
                    continue  # nerd has this edge
                return n, y, name, up, pat
        return None

    def nerd_at(self, path, line, name):
        notes = []
        for caller, n in self.unres.get((path, line), []):
            if n == name or n.endswith("." + name) or name in n:
                notes.append(f"unresolved_call `{n}`")
        for callee, prov in self.at.get((path, line), []):
            if callee.split("#")[-1].split(".")[-1].split("~")[0] == name:
                notes.append(f"resolved to {callee} ({prov})")
        return "; ".join(notes) if notes else "no call atom on that line"


def cause(graph, lang, test, fn, maybe, tests_by_name):
    """A best-effort reason nerd did not select `test` for a change to `fn` (ids):
    (kind, detail, where), `where` the source line the detail is about."""
    f = graph.syms[fn]
    name = f.qual.split(".")[-2] if f.name == "__init__" and "." in f.qual else f.name
    short = lambda s: s.split("#", 1)[1] if "#" in s else s
    # nerd marks the symbols whose lines enclose the change modified too (the class of a method)
    targets = {fn} | {s.id for s in graph.syms.values() if s.path == f.path and f.id.startswith(s.id + ".")
                      and s.line <= f.line <= s.endline}
    hit = lambda par: next((x for x in par if x in targets), None)
    parent = graph.bfs(test)
    if hit(parent):
        return "kernel", "nerd has a certain call path but did not select: " + " -> ".join(map(short, graph.chain(parent, hit(parent)))), ""
    if test in maybe:
        par = graph.bfs(test, uncertain=True)
        if hit(par):
            c = graph.chain(par, hit(par))
            hops = "".join((" -> " if b in graph.out.get(a, ()) else " ~> ") + short(b) for a, b in zip(c, c[1:]))
            return "uncertain call", f"only in maybe_needs_testing: {short(test)}{hops}  (~> uncertain_call)", ""
        return "uncertain call", "only in maybe_needs_testing", ""
    t = graph.syms.get(test)
    starts = [(test, parent, "")]
    if t:  # module-level code of the test file runs at import: nerd's caller id is the file
        fpar = graph.bfs(t.path)
        if hit(fpar):
            return "module level", ("the test file's module-level code reaches it: " + " -> ".join(graph.chain(fpar, hit(fpar))) +
                                    " (nerd does not count a file's module-level calls for its tests)"), ""
        starts.append((t.path, fpar, " (module-level code)"))
    if lang == "py" and t and "(" in t.sig:  # pytest fixtures are injected by parameter name: no call edge
        for p in re.findall(r"\b(\w+)\b", t.sig.split("(", 1)[1]):
            for fx in tests_by_name.get(p, []):
                fpar = graph.bfs(fx)
                if hit(fpar):
                    return "fixture", (f"TEST gets fixture `{p}` (injected by name, no call edge), which reaches it: " +
                                       " -> ".join(map(short, graph.chain(fpar, hit(fpar))))), ""
                starts.append((fx, fpar, f" (fixture `{p}`)"))
    # names that are called implicitly, without call syntax: a text search would only find noise
    if lang == "py" and re.match(r"__\w+__$", f.name) and f.name != "__init__":
        return "implicit protocol", f"`{f.name}` is called implicitly (operator, builtin or protocol)", ""
    if lang == "rs" and f.name in RS_IMPLICIT:
        return "implicit trait", f"`{f.name}` is a trait method called implicitly (formatting, operator, drop, deref)", ""
    if lang == "ts" and re.match(r"(get|set)\b", f.sig):
        return "accessor", f"`{f.name}` is a property accessor: a property read or write calls it, with no call syntax", ""
    found, near = graph.ancestors(fn, targets)
    best = None
    for root, par, via in starts:
        for sid in par:  # breadth-first order
            m = graph.mention_any(sid, found, near)
            if m:
                depth = len(graph.chain(par, sid))
                if best is None or depth < best[0]:
                    best = (depth, root, par, sid, m, via)
                break
    if best:
        depth, root, par, sid, (n, y, yname, up, pat), via = best
        path = graph.syms[sid].path if sid in graph.syms else sid
        chain = " -> ".join(map(short, graph.chain(par, sid)))
        if via:
            chain = f"TEST{via}: " + chain
        use = "called" if re.search(r"(?<![\w$])%s\s*[(<]" % re.escape(yname), graph.code(path, n)) else "mentioned, not called (a reference, callback, class kept in a variable, or a type)"
        rest = " -> ".join(map(short, up))
        kind = "fixture" if via.startswith(" (fixture") else "module level" if via else \
            ("no edge test->fn" if y in targets else "no edge test->caller") if sid == test else "no edge X->caller"
        return kind, f"{chain} -/-> {rest}: `{yname}` {use} there; nerd: {graph.nerd_at(path, n, yname)}", f"{path}:{n}"
    if fn not in graph.elsewhere:  # not in code nerd reaches from the test: anywhere else in the code
        graph.elsewhere[fn] = None
        counts = collections.Counter(x.name for x in graph.syms.values())
        distinct = [e for e in found if counts[e[1]] <= 2]  # common names (new, get, fmt) would only be noise here
        for s in sorted(graph.syms.values(), key=lambda s: (s.path, s.line)):
            if s.kind in ("function", "method") and not TESTY.search(s.path) and s.path != "build.rs":
                m = graph.mention_any(s.id, distinct, near)
                if m:
                    graph.elsewhere[fn] = (s, m)
                    break
    if graph.elsewhere[fn]:
        s, (n, y, yname, up, pat) = graph.elsewhere[fn]
        use = "calls" if re.search(r"(?<![\w$])%s\s*[(<]" % re.escape(yname), graph.code(s.path, n)) else "mentions, without calling,"
        return "chain broken", (f"nerd's callers end at {short(y)} ({' -> '.join(map(short, up))}); {short(s.id)} (not reached by nerd "
                                f"from the test) {use} `{yname}`; nerd: {graph.nerd_at(s.path, n, yname)}"), f"{s.path}:{n}"
    if lang == "rs" and f.name in RS_TRAIT:
        return "implicit trait", f"`{f.name}` is a trait method called implicitly (formatting, operator, iterator or conversion)", ""
    if lang == "go" and f.name in GO_IFACE:
        return "interface call", f"`{f.name}` is called through an interface (dynamic dispatch)", ""
    return "no textual path", f"no code nerd reaches from the test (or its file's module level) mentions `{name}`: callback, dynamic dispatch or a missing edge further up", ""


# ---------------------------------------------------------------- the benchmark

def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True, text=True).stdout


def restore(repo):
    git(repo, "checkout", "--", ".")
    git(repo, "clean", "-fdq")


def bench_project(proj, opts):
    repo, nerd = proj.repo, Nerd(opts.nerd, proj.repo)
    t0 = time.time()
    if git(repo, "status", "--porcelain").strip():
        return {"project": proj.name, "error": "repository not clean: git status is not empty"}
    err = proj.check_tools()
    if err:
        return {"project": proj.name, "error": err}
    # With --precise the unmutated repository gets the precise tier once; each
    # mutated file is then back on the heuristic tier, as after a user's edit.
    if opts.coverage:
        proj.configure_coverage()
    nerd.index(precise=opts.precise, coverage=opts.coverage, env=proj.coverage_env())
    syms = {a[0]: Sym(a) for a in nerd.query("symbol")}
    tests = {a[0] for a in nerd.query("test_symbol")}
    test_files = {a[0] for a in nerd.query("file") if a[5]}
    proj.test_syms = [syms[t] for t in tests if t in syms]
    pool = sorted(s.id for s in syms.values() if s.kind in ("function", "method") and s.id not in tests
                  and s.path not in test_files and proj.production(s.path))
    order = random.Random(opts.seed).sample(pool, len(pool))
    log(f"[{proj.name}] {len(pool)} production functions/methods; seed {opts.seed}; baseline run...")

    base, durations, binfo = proj.run(set())
    restore(repo)
    if binfo.get("compile_error") or (not base and binfo.get("error")):
        return {"project": proj.name, "error": "baseline run failed: " + binfo.get("error", "")[-800:]}
    base_failed = sorted(k for k, v in base.items() if v == "failed" or v == "not run")
    slow = sorted(k for k, d in durations.items() if d > opts.slow and k not in base_failed)
    excluded = set(base_failed) | set(slow)
    runnable = {k for k, v in base.items() if k not in excluded}
    map_raw = lambda raw: proj.to_nerd(raw, tests)
    excluded_nerd = {map_raw(k) for k in excluded} - {map_raw(k) for k in runnable} - {None}
    unmapped = sorted(k for k in base if not k.startswith("doc::") and map_raw(k) is None)
    log(f"[{proj.name}] baseline: {len(base)} tests, {len(base_failed)} failing, {len(slow)} slower than {opts.slow}s (left out)")

    muts, skips, defects = [], [], []
    for fid in order:
        if len(muts) >= opts.count:
            break
        s = syms[fid]
        path = os.path.join(repo, s.path)
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
        try:
            new, why = proj.mutate(text, s)
        except SyntaxError as e:
            new, why = None, f"mutation does not parse ({e.msg})"
        if new is None:
            skips.append((fid, why))
            log(f"[{proj.name}] skip {fid}: {why}")
            continue
        t1 = time.time()
        try:
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(new)
            nerd.index()
            perr = [a for a in nerd.query("parse_error") if a[0] == s.path]
            if perr:
                skips.append((fid, f"mutated file does not parse for nerd (line {perr[0][1]}: {perr[0][2]})"))
                continue
            modified = {a[0] for a in nerd.query("modified")}
            if fid not in modified:
                defects.append(f"{fid}: mutated but not in `modified` (modified: {sorted(m for m in modified if m.startswith(s.path))})")
            needs = {a[0] for a in nerd.query("needs_testing")}
            maybe = {a[0] for a in nerd.query("maybe_needs_testing")}
            out, _, info = proj.run(excluded, base)
        finally:
            restore(repo)
        if info.get("compile_error") or info.get("error"):
            skips.append((fid, "mutation does not compile/run: " + (info.get("error") or "")[-300:].strip().replace("\n", " | ")))
            log(f"[{proj.name}] skip {fid}: does not compile/run")
            continue
        failed_raw = sorted(k for k, v in out.items() if v == "failed" and k not in excluded)
        doc = [r for r in failed_raw if r.startswith("doc::")]
        failed = {}
        for r in failed_raw:
            if r in doc:
                continue
            failed.setdefault(map_raw(r) or "?" + r, []).append(r)
        m = {"function": fid, "kind": s.kind, "failed": sorted(failed), "failed_raw": failed_raw, "doctest_failures": doc,
             "needs_testing": sorted(needs - excluded_nerd), "maybe_needs_testing": sorted(maybe - needs - excluded_nerd),
             "in_modified": fid in modified, "seconds": round(time.time() - t1, 1), "run": info}
        muts.append(m)
        hit = len(set(failed) & needs)
        log(f"[{proj.name}] {len(muts):2}/{opts.count} {fid}: {len(failed)} failing, {len(needs)} selected, {hit} caught ({m['seconds']}s)")

    nerd.index()
    result = {"project": proj.name, "lang": proj.lang, "seed": opts.seed, "pool": len(pool), "drawn": len(muts) + len(skips),
              "skipped": [{"function": f, "why": w} for f, w in skips], "mutations": muts, "defects": defects,
              "baseline": {"tests": len(base), "failing": base_failed, "slow": slow, "unmapped": unmapped,
                           "excluded_nerd": sorted(excluded_nerd),
                           "doctests": sum(1 for k in base if k.startswith("doc::"))},
              "seconds": round(time.time() - t0, 1)}
    analyse(result, repo, nerd)
    return result


def reselect(result, proj, opts):
    """Recompute nerd's selection for the mutants of an earlier run: each mutant is
    written again, indexed and queried; the failing tests are the run's own (a
    test outcome does not depend on nerd). Compares rule or resolution changes
    in minutes, where a full run takes the suites' time."""
    repo, nerd = proj.repo, Nerd(opts.nerd, proj.repo)
    if git(repo, "status", "--porcelain").strip():
        raise RuntimeError("repository not clean: git status is not empty")
    err = proj.check_tools()
    if err:
        raise RuntimeError(err)
    if opts.coverage:
        proj.configure_coverage()
    nerd.index(precise=opts.precise, coverage=opts.coverage, env=proj.coverage_env())
    syms = {a[0]: Sym(a) for a in nerd.query("symbol")}
    # Tests all of whose runs were left out (failing or slow unmutated). Runs
    # before this field was kept: those left-out tests no earlier list named.
    excluded_nerd = set(result["baseline"].get("excluded_nerd", []))
    if "excluded_nerd" not in result["baseline"]:
        tests = {a[0] for a in nerd.query("test_symbol")}
        proj.test_syms = [syms[t] for t in tests if t in syms]
        named = {t for m in result["mutations"] for t in m["needs_testing"] + m["maybe_needs_testing"] + m["failed"]}
        left_out = result["baseline"]["failing"] + result["baseline"]["slow"]
        excluded_nerd = {proj.to_nerd(k, tests) for k in left_out} - named - {None}
    # The runner's test ids mapped again: this nerd may name tests the earlier one did not.
    tests = {a[0] for a in nerd.query("test_symbol")}
    for m in result["mutations"]:
        failed = {proj.to_nerd(r, tests) or "?" + r for r in m["failed_raw"] if not r.startswith("doc::")}
        m["failed"] = sorted(failed - excluded_nerd)
    base = result["baseline"]
    base["unmapped"] = [r for r in base.get("unmapped", []) if proj.to_nerd(r, tests) is None]
    for m in result["mutations"]:
        s = syms.get(m["function"])
        if s is None:
            raise RuntimeError(f"{m['function']} is no symbol for this nerd")
        path = os.path.join(repo, s.path)
        text = open(path, encoding="utf-8", errors="surrogateescape").read()
        new, why = proj.mutate(text, s)
        if new is None:
            raise RuntimeError(f"{m['function']}: {why}")
        try:
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(new)
            nerd.index()
            needs = {a[0] for a in nerd.query("needs_testing")}
            maybe = {a[0] for a in nerd.query("maybe_needs_testing")}
        finally:
            restore(repo)
        m["needs_testing"] = sorted(needs - excluded_nerd)
        m["maybe_needs_testing"] = sorted(maybe - needs - excluded_nerd)
        log(f"[{proj.name}] {m['function']}: {len(m['failed'])} failing, {len(m['needs_testing'])} selected, "
            f"{len(set(m['failed']) & needs)} caught")
    nerd.index()
    analyse(result, repo, nerd)
    return result


def analyse(result, repo, nerd):
    """Give every failing test nerd did not select a cause, from nerd's graph of the unmutated repository."""
    nerd.index()
    syms = {a[0]: Sym(a) for a in nerd.query("symbol")}
    test_files = {a[0] for a in nerd.query("file") if a[5]}
    graph = Graph(repo, syms, nerd.query("calls"), nerd.query("unresolved_call"), nerd.query("uncertain_call"), nerd.query("test_of"))
    tests_by_name = collections.defaultdict(list)  # pytest fixtures and helpers, by name
    for s in syms.values():
        if s.kind == "function" and s.path in test_files:
            tests_by_name[s.name].append(s.id)
    for m in result["mutations"]:
        m["missed"] = []
        for t in m["failed"]:
            if t in m["needs_testing"]:
                continue
            if t.startswith("?"):
                m["missed"].append({"test": t[1:], "cause": "no nerd test symbol", "detail": "the runner's test id maps to no test_symbol", "where": ""})
                continue
            kind, detail, where = cause(graph, result["lang"], t, m["function"], set(m["maybe_needs_testing"]), tests_by_name)
            m["missed"].append({"test": t, "cause": kind, "detail": detail, "where": where})


def summarize(r):
    muts = r["mutations"]
    failing = sum(len(m["failed"]) for m in muts)
    selected = sum(len(m["needs_testing"]) for m in muts)
    hit = sum(len(set(m["failed"]) & set(m["needs_testing"])) for m in muts)
    hit_maybe = sum(len(set(m["failed"]) & (set(m["needs_testing"]) | set(m["maybe_needs_testing"]))) for m in muts)
    sel_maybe = selected + sum(len(m["maybe_needs_testing"]) for m in muts)
    pct = lambda a, b: f"{a / b:.0%}" if b else "-"
    return {"drawn": r["drawn"], "skipped": len(r["skipped"]), "mutated": len(muts),
            "with_failure": sum(1 for m in muts if m["failed"]), "zero_failing": sum(1 for m in muts if not m["failed"]),
            "failing": failing, "selected": selected, "hit": hit, "recall": pct(hit, failing), "precision": pct(hit, selected),
            "selected_maybe": sel_maybe, "recall_maybe": pct(hit_maybe, failing), "precision_maybe": pct(hit_maybe, sel_maybe),
            "doctests": sum(len(m["doctest_failures"]) for m in muts), "seconds": r["seconds"]}


def report(results):
    print(f"{'project':13} {'drawn':>5} {'skip':>4} {'mut':>4} {'fail>0':>6} {'fail=0':>6} {'failing':>7} {'selected':>8} "
          f"{'caught':>6} {'recall':>6} {'prec':>5} | {'+maybe':>6} {'recall':>6} {'prec':>5} | {'doctest':>7} {'time':>6}")
    for r in results:
        if "error" in r:
            print(f"{r['project']:13} not run: {r['error']}")
            continue
        s = summarize(r)
        print(f"{r['project']:13} {s['drawn']:5} {s['skipped']:4} {s['mutated']:4} {s['with_failure']:6} {s['zero_failing']:6} "
              f"{s['failing']:7} {s['selected']:8} {s['hit']:6} {s['recall']:>6} {s['precision']:>5} | {s['selected_maybe']:6} "
              f"{s['recall_maybe']:>6} {s['precision_maybe']:>5} | {s['doctests']:7} {s['seconds']:5.0f}s")
    print("\nrecall = failing tests selected by needs_testing / failing tests; precision = of selected, share that failed;"
          "\n+maybe counts maybe_needs_testing as selected too. Doc-test failures have no nerd symbol and are left out of recall.")
    for r in results:
        if "error" in r:
            continue
        print(f"\n== {r['project']} (seed {r['seed']}, {r['pool']} functions/methods in the pool)")
        b = r["baseline"]
        print(f"baseline: {b['tests']} tests; left out: {len(b['failing'])} failing unmutated, {len(b['slow'])} slow")
        for t in b["failing"]:
            print(f"  baseline failing: {t}")
        for t in b["slow"]:
            print(f"  slow: {t}")
        if b.get("doctests"):
            print(f"  doc-tests in the suite: {b['doctests']} (no nerd symbol; their failures are counted apart)")
        if b.get("unmapped"):
            print(f"  runner test ids with no nerd test_symbol: {len(b['unmapped'])}: " + ", ".join(b["unmapped"][:15]) + (" ..." if len(b["unmapped"]) > 15 else ""))
        for k in r["skipped"]:
            print(f"  skipped {k['function']}: {k['why']}")
        for d in r["defects"]:
            print(f"  BENCH DEFECT {d}")
        for m in r["mutations"]:
            hit = len(set(m["failed"]) & set(m["needs_testing"]))
            print(f"  {m['function']:60} failing {len(m['failed']):3}  selected {len(m['needs_testing']):3}  caught {hit:3}"
                  f"  maybe {len(m['maybe_needs_testing']):3}" + (f"  doctests {len(m['doctest_failures'])}" if m["doctest_failures"] else "")
                  + ("  TIMEOUT" if m["run"].get("timeout") else "") + ("  import errors: " + ", ".join(m["run"]["collect_errors"]) if m["run"].get("collect_errors") else "")
                  + ("  package init panicked" if m["run"].get("init_panic") else "") + ("  file load errors: " + ", ".join(m["run"]["file_errors"]) if m["run"].get("file_errors") else ""))
        missed = [(m["function"], x) for m in r["mutations"] for x in m["missed"]]
        if missed:
            print(f"missed failing tests: {len(missed)} (grouped by mutated function and cause; TEST stands for each test)")
            by = collections.Counter(x["cause"] for _, x in missed)
            print("  by cause: " + ", ".join(f"{k} {v}" for k, v in by.most_common()))
            groups = collections.defaultdict(list)
            for f, x in missed:
                short = x["test"].split("#", 1)[-1]
                detail = re.sub(r"(?<![\w.])%s(?![\w])" % re.escape(short), "TEST", x["detail"], count=1)
                groups[(x["cause"], f, detail)].append(x["test"] + (f" ({x['where']})" if x.get("where") else ""))
            for (kind, f, detail), ts in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1], -len(g[1]))):
                print(f"  [{kind}] {f}: {len(ts)} test{'s' if len(ts) > 1 else ''}: {', '.join(sorted(ts))}")
                print(f"      {detail}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("projects_dir")
    ap.add_argument("--nerd", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "nerd"))
    ap.add_argument("--projects", default=",".join(ORDER))
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--json")
    ap.add_argument("--slow", type=float, default=3.0, help="leave out pytest tests slower than this in the baseline")
    ap.add_argument("--python", default=sys.executable, help="interpreter that runs pytest")
    ap.add_argument("--vitest", help="vitest executable for ts-zod")
    ap.add_argument("--no-doctests", action="store_true", help="Rust: cargo test --lib --tests (doc-tests are out of recall anyway)")
    ap.add_argument("--from-json", metavar="IN", help="no runs: re-derive the causes of misses for the results in IN and print the report")
    ap.add_argument("--reselect", metavar="IN", help="no test runs: the mutants and failing tests of IN, nerd's selection "
                    "recomputed with --nerd (with --coverage/--precise as IN was made)")
    ap.add_argument("--coverage", action="store_true", help="run `nerd index --coverage` on the unmutated repository first (observed tier)")
    ap.add_argument("--precise", action="store_true", help="run `nerd index --precise` on the unmutated repository first (indexers on PATH)")
    ap.add_argument("--go-deps", help="a GOPATH-like src/ folder holding the Go projects' dependencies (no module proxy)")
    opts = ap.parse_args()
    opts.nerd = os.path.abspath(opts.nerd)
    if opts.from_json:
        results = json.load(open(opts.from_json))
        for r in results:
            if "error" not in r:
                r.setdefault("lang", {"py": "py", "go": "go", "rs": "rs", "ts": "ts"}[r["project"].split("-")[0]])
                analyse(r, os.path.abspath(os.path.join(opts.projects_dir, r["project"])), Nerd(opts.nerd, os.path.join(opts.projects_dir, r["project"])))
        if opts.json:
            json.dump(results, open(opts.json, "w"), indent=1)
        report(results)
        return
    if opts.reselect:
        results = json.load(open(opts.reselect))
        for r in results:
            if "error" not in r:
                r = reselect(r, KINDS[r["project"].split("-")[0]](r["project"], os.path.abspath(os.path.join(opts.projects_dir, r["project"])), opts), opts)
        if opts.json:
            json.dump(results, open(opts.json, "w"), indent=1)
        report(results)
        return
    print(f"mutation bench: nerd {opts.nerd}, seed {opts.seed}, {opts.count} functions per project")
    results = []
    for name in opts.projects.split(","):
        repo = os.path.abspath(os.path.join(opts.projects_dir, name))
        cls = KINDS.get(name.split("-")[0])
        if not cls or not os.path.isdir(repo):
            results.append({"project": name, "error": "unknown project or missing directory"})
            continue
        try:
            results.append(bench_project(cls(name, repo, opts), opts))
        except Exception as e:  # keep going with the other projects; the repository is restored
            restore(repo)
            results.append({"project": name, "error": f"{type(e).__name__}: {e}"})
            log(f"[{name}] failed: {e!r}")
        if opts.json:
            json.dump(results, open(opts.json, "w"), indent=1)
    report(results)


if __name__ == "__main__":
    main()
