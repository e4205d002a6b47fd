#!/usr/bin/env python3
"""The heuristic tier's callers against the precise tier's, per language, in one run.

For each project: index with nerd (heuristic tier only) and read the `calls`
atoms; then `nerd index --precise` (scip-python, scip-typescript,
rust-analyzer, gopls: whichever are installed) and read the `precise` edges.
Call sites are compared as sets of (file, line, name called), so that a call
through an interface counts once whether it names the interface's method (as
the indexers do) or every implementation (as the heuristic tier's `inferred`
dispatch edges do), in the files the
indexer covered and for callees it answered for (gopls cannot give the
references of a method that implements an interface), over sites that are
calls in the source (`name(`): the
precise tier also reports callbacks passed by name, which the heuristic tier
does not look for. Precision = heuristic sites the indexer confirms /
heuristic sites; recall = confirmed / the indexer's sites. Both are given
for certain heuristic edges (exact, inferred) and for all (with name_only).
"judged" counts the certain sites where the indexer resolved the name to
anything (the project or outside it), and "prec" after it the share of those
it confirms: a site it had no answer for (a pytest fixture's value, code
behind `sys.platform`) is listed in DIR/PROJECT.unjudged, not judged wrong.
"edge prec" is the share of certain heuristic edges, at sites the indexer
answered, that link to the symbol the indexer names (a site can be right by
name and link to another type's method of that name), leaving out dispatch
edges: an `inferred` edge to another method of the same name at a site where
the heuristic tier also linked the indexer's symbol (the override or
implementation a call on `self`/`this` or an interface may run; the indexer
names only the declared method), counted apart as "dispatch". A second table
compares functions named as values where they are not called (`map(f)`,
`callback=f`, a struct field's value), as edges. Also prints each
indexer's time and reach, the share of heuristic edges by
provenance and the parse errors, and the hand-checked questions of
bench/truth/ answered with the precise tier in place.

    usage: bench/precise.py PROJECTS_DIR [NERD] [--misses DIR]
           (PROJECTS_DIR from bench/eight.sh; the indexers on PATH:
           scripts/install-indexers prints the PATH to use; --misses writes
           DIR/PROJECT.missed and DIR/PROJECT.wrong, one site per line, with
           its source line, DIR/PROJECT.misedge, edges at a confirmed
           site that link another symbol than the indexer's, and
           DIR/PROJECT.value-missed and .value-wrong for functions named as values)
"""
import collections, json, os, re, sqlite3, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callers import QUESTIONS, ATOM  # noqa: E402

PROJECTS = ["py-click", "py-requests", "rs-anyhow", "rs-semver", "rs-itertools", "go-pflag", "go-testify", "ts-zod"]
LANG_OF = {".py": "python", ".rs": "rust", ".go": "go", ".ts": "typescript", ".tsx": "typescript"}


def lang(path):
    return LANG_OF.get(os.path.splitext(path)[1])


def calls(nerd, repo):
    out = subprocess.run([nerd, "--repo", repo, "query", "calls", "--no-refresh"], check=True, capture_output=True, text=True).stdout
    return [m.groups() for m in map(ATOM.match, out.splitlines()) if m]


def bare(callee):
    return callee.split("#")[-1].split(".")[-1].split("~")[0]


def call_site(lines, line, callee):
    """Whether the source line calls the callee's bare name."""
    name = bare(callee)
    text = lines.get(int(line), "")
    return re.search(r"\b" + re.escape(name) + r"\s*(::<[^()]*>)?\(", text) is not None


def value_site(lines, line, callee):
    """Whether the source line names the callee's bare name without calling
    it (`map(f)`, `key=f`): written there, and followed by no `(` or `!`."""
    text = lines.get(int(line), "")
    name = re.escape(bare(callee))
    # Not a call (a Rust turbofish or a TypeScript type argument list may
    # come first), a macro, nor a field or property written (`x.f = v`).
    after = r"\b(?!\s*(::<[^()]*>|<[^()]*>)?[(!])(?!\s*=[^=>])"
    return re.search(r"\b" + name + after, text) is not None and not call_site(lines, line, callee)


def main():
    args = sys.argv[1:]
    misses = None
    if "--misses" in args:
        at = args.index("--misses")
        misses = os.path.abspath(args[at + 1])
        del args[at:at + 2]
        os.makedirs(misses, exist_ok=True)
    root = os.path.abspath(args[0])
    nerd = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "..", "target", "release", "nerd")
    here = os.path.dirname(os.path.abspath(__file__))
    by_lang = collections.defaultdict(lambda: collections.Counter())
    runs, provenance, parse_errors, precise_edges = [], {}, {}, {}
    for project in PROJECTS:
        repo = os.path.join(root, project)
        if not os.path.isdir(repo):
            print(f"skipped {project}: not in {root}", file=sys.stderr)
            continue
        subprocess.run(["rm", "-rf", os.path.join(repo, ".nerd")], check=True)
        report = json.loads(subprocess.run([nerd, "--repo", repo, "index", "--json"], check=True, capture_output=True, text=True).stdout)
        parse_errors[project] = report["parse_errors"]
        heuristic = calls(nerd, repo)
        provenance[project] = collections.Counter(r[4] for r in heuristic)
        started = time.time()
        report = json.loads(subprocess.run([nerd, "--repo", repo, "index", "--json", "--precise"], check=True, capture_output=True, text=True).stdout)
        wall = time.time() - started
        ran = {r["lang"] for r in report["precise"] or [] if r["status"] == "ran"}
        for r in report["precise"] or []:
            runs.append((project, r, wall))
        both = calls(nerd, repo)
        precise_edges[project] = both
        db = sqlite3.connect(os.path.join(repo, ".nerd", "index.db"))
        covered = {p for (p,) in db.execute("SELECT path FROM precise_file")}
        unanswered = {s for (s,) in db.execute("SELECT symbol FROM precise_unanswered")}
        # Every (file, line, name) the indexer resolved, to the project or
        # outside it: a heuristic site elsewhere is one it had no answer for.
        judged = {(p, str(l), n) for p, l, n in db.execute("SELECT path, line, name FROM precise_site")}
        db.close()
        sources = {}

        def lines_of(path):
            if path not in sources:
                try:
                    with open(os.path.join(repo, path), encoding="utf-8", errors="replace") as f:
                        sources[path] = {i + 1: t for i, t in enumerate(f.read().splitlines())}
                except OSError:
                    sources[path] = {}
            return sources[path]

        def sites(rows, keep):
            # Only where the indexer answered: a covered calling file, a callee
            # in a covered file whose references it could give.
            return {(p, l, bare(callee)) for caller, callee, p, l, prov in rows
                    if p in covered and callee.split("#")[0] in covered and callee not in unanswered
                    and keep(prov) and call_site(lines_of(p), l, callee)}

        def edges(rows, keep):
            # The same sites, each with the symbol it links to: a site can be
            # right by name and still link to another type's method.
            return {(p, l, callee) for caller, callee, p, l, prov in rows
                    if p in covered and callee.split("#")[0] in covered and callee not in unanswered
                    and keep(prov) and call_site(lines_of(p), l, callee)}

        def values(rows, keep):
            # Functions named where they are not called (`map(f)`,
            # `callback=f`): the indexer reports these references too.
            # Inside functions only: at a file's top level the precise tier
            # counts calls only (its rule; see src/world/resolve/precise.rs).
            return {(p, l, callee) for caller, callee, p, l, prov in rows
                    if p in covered and callee.split("#")[0] in covered and callee not in unanswered
                    and "#" in caller and keep(prov) and value_site(lines_of(p), l, callee)}

        value_truth = values(both, lambda prov: prov == "precise")
        value_certain = values(heuristic, lambda prov: prov in ("exact", "inferred"))
        truth_edges = edges(both, lambda prov: prov == "precise")
        certain_edges = edges(heuristic, lambda prov: prov in ("exact", "inferred"))
        # Dispatch edges: see the docstring; they stay out of "edge prec".
        agreed = {(p, l, bare(c)) for p, l, c in certain_edges & truth_edges}
        dispatch = {(p, l, c) for p, l, c in edges(heuristic, lambda prov: prov == "inferred")
                    if (p, l, bare(c)) in agreed and (p, l, c) not in truth_edges}
        certain_edges -= dispatch
        truth = sites(both, lambda prov: prov == "precise")
        certain = sites(heuristic, lambda prov: prov in ("exact", "inferred"))
        every = sites(heuristic, lambda prov: True)
        if misses:
            answered = {(p, l) for p, l, _ in truth}
            with open(os.path.join(misses, f"{project}.dispatch"), "w") as out:
                for p, l, callee in sorted(dispatch):
                    out.write(f"{p}:{l}\t{callee}\t{lines_of(p).get(int(l), '').strip()}\n")
            with open(os.path.join(misses, f"{project}.misedge"), "w") as out:
                for p, l, callee in sorted(x for x in certain_edges - truth_edges if (x[0], x[1]) in answered):
                    said = sorted(c for q, m, c in truth_edges if (q, m) == (p, l))
                    out.write(f"{p}:{l}\t{callee}\tindexer: {' '.join(said)}\n")
            for kind, found in (("value-missed", value_truth - value_certain), ("value-wrong", value_certain - value_truth)):
                with open(os.path.join(misses, f"{project}.{kind}"), "w") as out:
                    for p, l, callee in sorted(found):
                        out.write(f"{p}:{l}\t{callee}\t{lines_of(p).get(int(l), '').strip()}\n")
            unjudged = {x for x in certain - truth if (x[0], str(x[1]), x[2]) not in judged}
            for kind, found in (("missed", truth - certain), ("wrong", certain - truth - unjudged), ("unjudged", unjudged)):
                with open(os.path.join(misses, f"{project}.{kind}"), "w") as out:
                    for p, l, name in sorted(found):
                        out.write(f"{p}:{l}\t{name}\t{lines_of(p).get(int(l), '').strip()}\n")
        for language in ran:
            c = by_lang[language]
            mine = lambda s: {x for x in s if lang(x[0]) == language}
            t, h, a = mine(truth), mine(certain), mine(every)
            c["precise"] += len(t)
            c["certain"] += len(h)
            c["certain_right"] += len(h & t)
            c["all"] += len(a)
            c["all_right"] += len(a & t)
            c["certain_judged"] += len({x for x in h if (x[0], str(x[1]), x[2]) in judged})
            he = {x for x in certain_edges if lang(x[0]) == language}
            confirmed = {(p, l) for p, l, _ in t}
            # Edges at sites the indexer answered, and those it links to the same symbol.
            c["edges"] += len({x for x in he if (x[0], x[1]) in confirmed})
            c["edges_right"] += len(he & {x for x in truth_edges if lang(x[0]) == language})
            c["dispatch"] += len({x for x in dispatch if lang(x[0]) == language})
            vt, vh = mine(value_truth), mine(value_certain)
            c["values"] += len(vt)
            c["values_certain"] += len(vh)
            c["values_right"] += len(vt & vh)
    print("indexer runs (wall time of `nerd index --precise`, indexers included):")
    for project, r, wall in runs:
        detail = f"{r['files']} files, {r['calls']} edges, {r['elapsed_ms'] / 1000:.1f} s" if r["status"] == "ran" else r.get("hint") or r.get("message", "")
        print(f"  {project:14} {r['indexer']:16} {r['status']:8} {detail}")
    print()
    print("heuristic call sites against the precise tier's (call-shaped sites in covered files):")
    print(f"{'language':11} {'precise':>8} {'heur.certain':>12} {'prec':>6} {'recall':>6} {'heur.all':>9} {'prec':>6} {'recall':>6} {'edge prec':>9} {'dispatch':>8} {'judged':>7} {'prec':>6}")
    for language, c in sorted(by_lang.items()):
        p1 = c["certain_right"] / c["certain"] if c["certain"] else 1
        r1 = c["certain_right"] / c["precise"] if c["precise"] else 1
        p2 = c["all_right"] / c["all"] if c["all"] else 1
        r2 = c["all_right"] / c["precise"] if c["precise"] else 1
        p3 = c["edges_right"] / c["edges"] if c["edges"] else 1
        p5 = c["certain_right"] / c["certain_judged"] if c["certain_judged"] else 1
        print(f"{language:11} {c['precise']:8} {c['certain']:12} {p1:6.1%} {r1:6.1%} {c['all']:9} {p2:6.1%} {r2:6.1%} {p3:9.1%} {c['dispatch']:8} {c['certain_judged']:7} {p5:6.1%}")
    print()
    print("functions named as values, not called (`map(f)`, `callback=f`): certain heuristic edges against the precise tier's")
    print(f"{'language':11} {'precise':>8} {'heur.certain':>12} {'prec':>6} {'recall':>6}")
    for language, c in sorted(by_lang.items()):
        p4 = c["values_right"] / c["values_certain"] if c["values_certain"] else 1
        r4 = c["values_right"] / c["values"] if c["values"] else 1
        print(f"{language:11} {c['values']:8} {c['values_certain']:12} {p4:6.1%} {r4:6.1%}")
    print()
    print(f"{'project':14} {'parse errors':>12}  heuristic edges by provenance")
    for project in sorted(provenance):
        total = sum(provenance[project].values()) or 1
        shares = ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(provenance[project].items()))
        print(f"{project:14} {parse_errors[project]:12}  {shares}")
    print()
    print("hand-checked questions (bench/truth/), answered with the precise tier in place:")
    print(f"{'question':44} {'truth':>5} {'nerd':>5} {'right':>5}  provenance")
    for project, name, symbol in QUESTIONS:
        if project not in precise_edges:
            continue
        truth = set(open(os.path.join(here, "truth", project, name + ".txt")).read().split())
        found = {f"{p}:{l}": prov for caller, callee, p, l, prov in precise_edges[project] if callee == symbol}
        right = truth & set(found)
        kinds = collections.Counter(found.values())
        print(f"{project + ' ' + name:44} {len(truth):5} {len(found):5} {len(right):5}  " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


if __name__ == "__main__":
    main()
