"""What bench/eval knows about each real project (from ../shared/bench/projects.sh):
its language, where its non-test sources are, how its own suite runs offline,
how a failing test is named in that suite's output, and which paths are tests.

Shared by make_tasks.py (which mutates the sources and keeps what the suite
catches) and run.py (which judges each task by running the same suite again).

Toolchains the suites need, all installed under target/ by bench/eval.sh:
  Python     target/eval-venv/py (pytest + hypothesis, on top of the system site-packages)
  Rust       cargo; every cargo run holds /tmp/nerd-cargo.lock (this machine's compile lock)
  Go         go (the module has no dependencies; GOPROXY=off)
  TypeScript target/eval-node: vitest and the two packages zod's tests import, pinned in
             bench/eval/node/package.json; the npm package of zod ships its tests but no
             runner or config, so each copy of ts-zod gets node_modules and that config
             (bench/eval/node/zod.vitest.config.mjs as vitest.config.mjs) copied in and
             git-excluded, and runs vitest with it
"""
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
PY_VENV = os.path.join(TOP, "target", "eval-venv", "py")
NODE_DIR = os.path.join(TOP, "target", "eval-node")
CARGO_TARGETS = os.path.join(TOP, "target", "eval-cargo")
CARGO_LOCK = "/tmp/nerd-cargo.lock"
ZOD_CONFIG = os.path.join(HERE, "node", "zod.vitest.config.mjs")
SUITE_TIMEOUT = 900


@dataclass
class Project:
    """One project: `sources` are folders (relative to the repository) whose
    files with extension `ext` hold the functions to mutate and question about."""

    name: str
    language: str
    ext: str
    sources: list
    excluded: tuple = ()
    env: dict = field(default_factory=dict)
    # Where a test-writing task's new tests go, when the language's default is not enough.
    new_tests: str = ""
    # Non-test files a test-writing task may change too (a manifest that declares test targets).
    test_manifests: tuple = ()

    def suite(self, fast=False):
        """The argv of the project's own suite; `fast` stops at the first failure where the runner can."""
        if self.language == "python":
            pytest = [os.path.join(PY_VENV, "bin", "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore"]
            return pytest + (["-x"] if fast else [])
        if self.language == "go":
            return ["go", "test", "./..."]
        if self.language == "rust":
            # The time limit starts once the lock is held: waiting for it is no slowness of the suite.
            return ["flock", CARGO_LOCK, "timeout", str(SUITE_TIMEOUT), "nice", "cargo", "test"]
        return [os.path.join("node_modules", ".bin", "vitest"), "run", "--config", ZOD_CONFIG, "src/v3"] + (["--bail=1"] if fast else [])

    def suite_env(self):
        """The environment the suite (and an agent working on the project) runs with."""
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1", GOPROXY="off",
                   CARGO_TARGET_DIR=os.path.join(CARGO_TARGETS, self.name), CARGO_NET_OFFLINE="true",
                   PATH=os.path.join(PY_VENV, "bin") + os.pathsep + os.environ.get("PATH", ""))
        env.update(self.env)
        return env

    def prepare(self, repo):
        """Makes a fresh copy of the project ready for its suite: ts-zod gets the node
        toolchain and the vitest config, as a project that ran `npm install` has them.
        Both are copies, not links: an agent's sandbox (nerd's) may write only inside the
        workspace, and vite writes its bundled config into node_modules/.vite-temp."""
        if self.language != "typescript":
            return
        modules = os.path.join(repo, "node_modules")
        if not os.path.lexists(modules):
            shutil.copytree(os.path.join(NODE_DIR, "node_modules"), modules, symlinks=True)
        config = os.path.join(repo, "vitest.config.mjs")
        if not os.path.lexists(config):
            shutil.copyfile(ZOD_CONFIG, config)
        exclude = os.path.join(repo, ".git", "info", "exclude")
        os.makedirs(os.path.dirname(exclude), exist_ok=True)
        existing = open(exclude).read().split() if os.path.exists(exclude) else []
        with open(exclude, "a") as f:
            for name in ("node_modules", "vitest.config.mjs"):
                if name not in existing:
                    f.write(f"\n{name}\n")

    def run_suite(self, repo, fast=False):
        """(exit code or None on timeout, output) of the suite in `repo`."""
        timeout = None if self.language == "rust" else SUITE_TIMEOUT
        try:
            p = subprocess.run(self.suite(fast), cwd=repo, capture_output=True, text=True, timeout=timeout, env=self.suite_env())
            return p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            return None, "timeout"

    def failing(self, output):
        """The names of the tests that failed, as the suite's output gives them (at most 10)."""
        pattern = {
            "python": r"^FAILED (\S+)",
            "go": r"^\s*--- FAIL: (\S+)",
            "rust": r"^test (\S+) \.\.\. FAILED",
            "typescript": r"^\s*(?:FAIL|×)\s+(src/\S+\.test\.ts > .+?)(?: \d+ms)?$",
        }[self.language]
        return sorted({m.group(1) for m in re.finditer(pattern, output, re.M)})[:10]

    def is_test(self, path):
        """Whether a path (relative to the repository) is a test file."""
        base = os.path.basename(path)
        if self.language == "python":
            return path.startswith("tests/") or base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"
        if self.language == "go":
            return base.endswith("_test.go")
        if self.language == "rust":
            return path.startswith("tests/")
        return ".test." in base or "/tests/" in path

    def source_files(self, repo):
        """The non-test source files to mutate, relative to the repository, sorted."""
        out = []
        for top in self.sources:
            for root, dirs, files in os.walk(os.path.join(repo, top)):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("tests", "test", "node_modules") + self.excluded)
                for f in files:
                    rel = os.path.relpath(os.path.join(root, f), repo)
                    if f.endswith(self.ext) and not self.is_test(rel) and not f.endswith(".d.ts"):
                        out.append(rel)
            if top == ".":
                out = [p for p in out if os.sep not in p]
        return sorted(out)

    def test_hint(self):
        """Where new tests go, for a test-writing task's request."""
        return self.new_tests or {
            "python": "a new test file under tests/",
            "go": "a new _test.go file in the package",
            "rust": "a new test file under tests/",
            "typescript": "a new .test.ts file under src/v3/tests/",
        }[self.language]


PROJECTS = {p.name: p for p in [
    Project("py-tomlkit", "python", ".py", ["tomlkit"]),
    Project("py-attrs", "python", ".py", ["src"], env={"PYTHONPATH": "src"}),
    Project("go-uuid", "go", ".go", ["."]),
    Project("rs-semver", "rust", ".rs", ["src"], test_manifests=("Cargo.toml",),
            new_tests="a new test file under tests/, declared as a [[test]] in Cargo.toml (autotests is off)"),
    Project("rs-itoa", "rust", ".rs", ["src"]),
    Project("ts-zod", "typescript", ".ts", ["src/v3"], excluded=("benchmarks", "locales")),
]}
