#!/usr/bin/env python3
"""Function-definition recall of nerd's projection against universal-ctags.

usage: recall.py NERD DIR CTAGS_LANG "KIND..." -> prints "<recall>% (<hits>/<ctags defs>)"
A ctags definition counts as found when nerd has a function, method or test
symbol starting on the same line of the same file. Only files with extensions
nerd projects count (ctags also reads Cython `.pyx` as Python, for example).
"""
import json
import subprocess
import sys

nerd, root, lang, kinds = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4].split())
tags = subprocess.run(["ctags", "-R", "--languages=" + lang, "--output-format=json", "--fields=+nK",
                       "--extras=-F", "-f", "-", "."], cwd=root, capture_output=True, text=True).stdout
full = {"f": {"function", "func"}, "P": {"method"}, "m": {"member", "method"}, "G": {"generator"}}
wanted = set().union(*(full.get(k, {k}) for k in kinds))
projected = {"Rust": (".rs",), "Go": (".go",), "Python": (".py", ".pyi"), "TypeScript": (".ts", ".mts", ".cts", ".tsx")}[lang]
defs = set()
for line in tags.splitlines():
    t = json.loads(line)
    if t.get("_type") == "tag" and t.get("kind") in wanted and t["path"].endswith(projected):
        defs.add((t["path"].removeprefix("./"), t["line"]))
out = subprocess.run([nerd, "query", "symbol", "--json", "--no-refresh"], cwd=root,
                     capture_output=True, text=True).stdout
ours = set()
for line in out.splitlines():
    a = json.loads(line)["args"]
    if a[1] in ("function", "method", "test"):
        ours.add((a[3], a[4]))
hits = len(defs & ours)
print(f"{100 * hits / max(len(defs), 1):.1f}%({hits}/{len(defs)})")
