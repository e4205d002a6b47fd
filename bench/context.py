#!/usr/bin/env python3
"""Context selection against mutation: does the code a model is given contain the broken function?

Reads the results of bench/mutation.py (seeded-random production functions made
to raise or panic at entry, and the tests that then really failed, from the
projects' own suites run for real), and for each mutation with failing tests
asks three selectors, each at 4k and 8k tokens, what a model fixing "the
failing tests" would be shown:

    nerd   `nerd context "fix the failing tests" --fact test_outcome(...)` for every
           failing test: the kernel's spreading activation from those tests, the
           selected code spans (the function counts when a selected span holds its
           definition line)
    nerd+pass  the same, also told which tests passed (`test_outcome(..., "pass")`):
           every other test of the index, since bench/mutation.py ran the whole
           suite; the kernel then weighs what only the failing tests run (Ochiai)
    bm25   Okapi BM25 over the project's source files (the SWE-bench retrieval
           baseline), the query being the request, the failing tests' names and
           their source; files in rank order until the budget is spent (the
           function counts when its definition line lies in the part sent)
    aider  aider's repository map (`aider --model gpt-4o --show-repo-map --map-tokens N`
           with the failing tests' files named; no model is called), where aider is
           installed (--aider PATH, e.g. from `pip install aider-chat` in a venv); the
           function counts when its definition line appears in the map

Tokens are characters / 4 for every selector. The repositories must be the
unmutated checkouts bench/mutation.py ran on (bench/eight.sh).

    usage: bench/context.py RESULTS.json [RESULTS.json ...] --projects-dir DIR
                            [--nerd PATH] [--aider PATH] [--budgets 4000,8000]
                            [--aider-budgets 8000] [--json OUT]
"""

import argparse, collections, json, math, os, re, subprocess, sys

SOURCE = {".py", ".go", ".rs", ".ts"}
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def words(text):
    """Identifier words, split at snake and camel case, lowercased."""
    out = []
    for w in WORD.findall(text):
        for part in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", w):
            if len(part) > 1:
                out.append(part.lower())
    return out


def source_files(repo):
    out = []
    for base, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "target", "vendor")]
        for f in files:
            if os.path.splitext(f)[1] in SOURCE:
                path = os.path.join(base, f)
                rel = os.path.relpath(path, repo)
                try:
                    out.append((rel, open(path, encoding="utf-8", errors="replace").read()))
                except OSError:
                    pass
    return sorted(out)


class Bm25:
    def __init__(self, docs, k1=1.2, b=0.75):
        self.docs = docs
        self.tf = [collections.Counter(words(text)) for _, text in docs]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / max(1, len(self.len))
        df = collections.Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(docs)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query):
        q = collections.Counter(words(query))
        scores = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            for w in q:
                f = tf.get(w)
                if f:
                    s += self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self.len[i] / self.avg))
            scores.append((s, i))
        scores.sort(key=lambda x: (-x[0], x[1]))
        return [i for s, i in scores if s > 0]


def bm25_contains(bm, query, budget, fn_path, fn_line):
    spent = 0
    for i in bm.rank(query):
        path, text = bm.docs[i]
        lines = text.splitlines()
        room = budget - spent
        sent = 0
        for n, line in enumerate(lines, 1):
            cost = math.ceil((len(line) + 1) / 4)
            if sent + cost > room:
                break
            sent += cost
            if path == fn_path and n == fn_line:
                return True
        spent += sent
        if spent >= budget:
            return False
    return False


def symbols(nerd, repo):
    out = subprocess.run([nerd, "query", "symbol", "--json"], cwd=repo, capture_output=True, text=True, timeout=1800)
    table = {}
    for line in out.stdout.splitlines():
        a = json.loads(line)["args"]
        table[a[0]] = (a[3], a[4], a[5], a[1])
    return table


def test_source(repo, table, test):
    info = table.get(test)
    if not info:
        return ""
    path, start, end = info[:3]
    try:
        lines = open(os.path.join(repo, path), encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return ""
    return "\n".join(lines[start - 1 : end])


def nerd_contains(nerd, repo, failed, budget, fn_path, fn_line, passed=()):
    args = [nerd, "context", "fix the failing tests", "--budget", str(budget), "--json"]
    for t, outcome in [(t, "fail") for t in failed] + [(t, "pass") for t in passed]:
        path, _, name = t.partition("#")
        args += ["--fact", "test_outcome(%s, %s, 0, \"%s\")" % (json.dumps(name), json.dumps(path), outcome)]
    out = subprocess.run(args, cwd=repo, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    ctx = json.loads(out.stdout)["context"]
    hit = any(i["path"] == fn_path and i["start_line"] <= fn_line <= i["end_line"] for i in ctx["items"])
    return hit, ctx["tokens"], len(ctx["items"])


def aider_contains(aider, repo, failed, budget, fn_path, fn_line):
    files = sorted({t.partition("#")[0] for t in failed})[:20]
    out = subprocess.run(
        [aider, "--model", "gpt-4o", "--show-repo-map", "--map-tokens", str(budget), "--no-check-update",
         "--no-show-model-warnings", "--no-analytics", "--yes-always", *files],
        cwd=repo, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
        env={**os.environ, "OPENAI_API_KEY": "unused", "COLUMNS": "100000", "AIDER_CHECK_UPDATE": "false"},
    )
    try:
        line = open(os.path.join(repo, fn_path), encoding="utf-8", errors="replace").read().splitlines()[fn_line - 1].strip()
    except (OSError, IndexError):
        return False
    # The map names each file on a line of its own ("path:"), then shows chosen lines as "│line".
    current = None
    for row in out.stdout.splitlines():
        if row.endswith(":") and not row.startswith(("│", "⋮", " ")):
            current = row[:-1]
        elif current == fn_path and row.startswith("│") and line and row[1:].strip() == line:
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--projects-dir", required=True)
    ap.add_argument("--nerd", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "nerd"))
    ap.add_argument("--aider")
    ap.add_argument("--budgets", default="4000,8000")
    ap.add_argument("--aider-budgets", default="8000", help="aider takes ~13 s a map: the budgets it is asked for")
    ap.add_argument("--json")
    ap.add_argument("--no-passing", dest="passing", action="store_false", help="skip the nerd+pass selector")
    opts = ap.parse_args()
    budgets = [int(b) for b in opts.budgets.split(",")]
    aider_budgets = [int(b) for b in opts.aider_budgets.split(",")]
    mutations = collections.OrderedDict()
    for f in opts.results:
        for proj in json.load(open(f)):
            for m in proj["mutations"]:
                if m.get("failed"):
                    mutations.setdefault((proj["project"], proj["lang"], m["function"]), m["failed"])
    rows = []
    by_project = collections.defaultdict(list)
    for (project, lang, fn), failed in mutations.items():
        by_project[project].append((lang, fn, failed))
    for project, items in by_project.items():
        repo = os.path.join(opts.projects_dir, project)
        log(f"[{project}] {len(items)} mutations with failing tests; indexing...")
        table = symbols(opts.nerd, repo)
        bm = Bm25(source_files(repo))
        for lang, fn, failed in items:
            if fn not in table:
                log(f"  {fn}: not in nerd's symbols; skipped")
                continue
            fn_path, fn_line = table[fn][:2]
            query = "fix the failing tests\n" + "\n".join(
                t.partition("#")[2] + "\n" + test_source(repo, table, t)[:4000] for t in failed[:50]
            )
            row = {"project": project, "lang": lang, "function": fn, "failing_tests": len(failed)}
            passed = sorted(t for t, info in table.items() if info[3] == "test" and t not in set(failed))
            for b in budgets:
                hit, used, n = nerd_contains(opts.nerd, repo, failed, b, fn_path, fn_line)
                row[f"nerd_{b}"] = hit
                row[f"nerd_{b}_tokens"] = used
                if opts.passing:
                    row[f"nerd+pass_{b}"] = nerd_contains(opts.nerd, repo, failed, b, fn_path, fn_line, passed)[0]
                row[f"bm25_{b}"] = bm25_contains(bm, query, b, fn_path, fn_line)
                if opts.aider and b in aider_budgets:
                    row[f"aider_{b}"] = aider_contains(opts.aider, repo, failed, b, fn_path, fn_line)
            rows.append(row)
            log("  " + fn + "  " + "  ".join(f"{k}={v}" for k, v in row.items() if k.startswith(("nerd_", "nerd+pass_", "bm25_", "aider_")) and not k.endswith("tokens")))
    selectors = ["nerd"] + (["nerd+pass"] if opts.passing else []) + ["bm25"] + (["aider"] if opts.aider else [])
    print(f"context selection against {len(rows)} mutations ({', '.join(sorted({r['project'] for r in rows}))}):")
    for lang in sorted({r["lang"] for r in rows}) + ["all"]:
        part = [r for r in rows if lang == "all" or r["lang"] == lang]
        cells = []
        for s in selectors:
            for b in budgets:
                if s == "aider" and b not in aider_budgets:
                    continue
                hits = sum(1 for r in part if r.get(f"{s}_{b}"))
                cells.append(f"{s}@{b // 1000}k {hits}/{len(part)} ({100 * hits / max(1, len(part)):.0f}%)")
        print(f"  {lang:<7} " + "  ".join(cells))
    for s in ["nerd"] + (["nerd+pass"] if opts.passing else []):
        for r in rows:
            if not r.get(f"{s}_{budgets[-1]}"):
                print(f"  {s} missed at {budgets[-1] // 1000}k: {r['function']} ({r['failing_tests']} failing tests)")
    if opts.json:
        json.dump(rows, open(opts.json, "w"), indent=1)


if __name__ == "__main__":
    main()
