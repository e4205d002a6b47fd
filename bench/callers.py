#!/usr/bin/env python3
"""Callers precision and recall of nerd's call edges against hand-checked ground truth.

For each question in bench/truth/ (one `path:LINE` per true call site of one
symbol, see bench/truth/README.md), index the project with nerd, read the
`calls` atoms whose callee is that symbol and compare the call sites as sets.
Also counts, per project, call edges from code outside tests into test files
(always wrong: production code cannot call test code) and the share of edges
by provenance.

    usage: bench/callers.py PROJECTS_DIR [NERD]   (PROJECTS_DIR from bench/eight.sh)
"""
import collections, json, os, re, subprocess, sys, time

QUESTIONS = [
    # project, truth file, symbol id
    ("py-requests", "api.get", "src/requests/api.py#get"),
    ("py-requests", "Session.get", "src/requests/sessions.py#Session.get"),
    ("py-requests", "Session.request", "src/requests/sessions.py#Session.request"),
    ("py-click", "Context.invoke", "src/click/core.py#Context.invoke"),
    ("go-pflag", "FlagSet.Parse", "flag.go#FlagSet.Parse"),
    ("go-pflag", "Parse.func", "flag.go#Parse"),
    ("rs-semver", "Version.parse", "src/lib.rs#Version.parse"),
    ("rs-semver", "Identifier.new_unchecked", "src/identifier.rs#Identifier.new_unchecked"),
    ("rs-anyhow", "Error.msg", "src/error.rs#Error.msg"),
    ("rs-anyhow", "Error.downcast_ref", "src/error.rs#Error.downcast_ref"),
    ("ts-zod", "addIssueToContext", "src/v3/helpers/parseUtil.ts#addIssueToContext"),
]
TEST_PATH = re.compile(r"(_test\.go$|(^|/)tests?/|(^|/)test_[^/]*\.py$|_test\.py$|\.(test|spec)\.tsx?$|__tests__/)")
ATOM = re.compile(r'^calls\("([^"]*)", "([^"]*)", "([^"]*)", (\d+), "([^"]*)"\)$')


def main():
    root = os.path.abspath(sys.argv[1])
    nerd = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "target", "release", "nerd")
    here = os.path.dirname(os.path.abspath(__file__))
    edges = {}
    for project in sorted({q[0] for q in QUESTIONS} | {"go-testify"}):
        repo = os.path.join(root, project)
        subprocess.run(["rm", "-rf", os.path.join(repo, ".nerd")], check=True)
        start = time.process_time()
        subprocess.run([nerd, "--repo", repo, "index"], check=True, capture_output=True)
        out = subprocess.run([nerd, "--repo", repo, "query", "calls"], check=True, capture_output=True, text=True).stdout
        rows = [m.groups() for m in map(ATOM.match, out.splitlines()) if m]
        edges[project] = rows
    print(f"{'question':44} {'truth':>5} {'nerd':>5} {'right':>5} {'prec':>6} {'recall':>6}  name_only")
    worst = []
    for project, name, symbol in QUESTIONS:
        truth = set(open(os.path.join(here, "truth", project, name + ".txt")).read().split())
        found = {f"{path}:{line}": prov for caller, callee, path, line, prov in edges[project] if callee == symbol}
        right = truth & set(found)
        precision = len(right) / len(found) if found else 1.0
        recall = len(right) / len(truth) if truth else 1.0
        guessed = sum(1 for p in found.values() if p == "name_only")
        print(f"{project + ' ' + name:44} {len(truth):5} {len(found):5} {len(right):5} {precision:6.0%} {recall:6.0%}  {guessed}")
        for site in sorted(set(found) - truth)[:5]:
            worst.append(f"  {project} {name}: extra {site} ({found[site]})")
        for site in sorted(truth - set(found))[:5]:
            worst.append(f"  {project} {name}: missed {site}")
    print()
    print(f"{'project':14} {'edges':>6} {'prod->test':>10}  provenance")
    for project, rows in sorted(edges.items()):
        into_tests = sum(1 for c, callee, *_ in rows if TEST_PATH.search(callee.split("#")[0]) and not TEST_PATH.search(c.split("#")[0]))
        shares = collections.Counter(r[4] for r in rows)
        total = len(rows) or 1
        print(f"{project:14} {len(rows):6} {into_tests:10}  " + ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(shares.items())))
    if worst:
        print("\nfirst differences:")
        print("\n".join(worst))


if __name__ == "__main__":
    main()
