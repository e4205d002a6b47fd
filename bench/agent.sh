#!/usr/bin/env bash
# The agent's fact-answered questions against what a user would otherwise run,
# on the corpora from ../shared/bench/corpus.sh (warm index, this machine):
#   "what calls X"  — `nerd run` (perceive, refresh, ground, evaluate, answer)
#                     vs `grep -rnw X` and ast-grep's `X($$$)` pattern;
#   "what breaks if I change X" — `nerd run` (the impact rules) vs nothing
#                     comparable (grep would need one search per caller, recursively).
# X is the most-called function of each corpus. Times are medians of 5 runs.
#
#   usage: bench/agent.sh [LANG...]     (default: go python)
#   env:   NERD_BENCH_DIR  cache for the corpus (default: target/bench)
source "$(dirname "$0")/common.sh"
langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(go python)
install_astgrep
sg=$astgrep

# Median wall time in milliseconds of a command run 5 times.
median_ms() {
  for _ in 1 2 3 4 5; do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
  done | sort -n | sed -n 3p
}

printf '%-7s %-22s %9s %9s %9s %9s %9s %9s %9s\n' lang symbol nerd_ms grep_ms sg_ms callers grep_hits sg_hits impact_ms
for lang in "${langs[@]}"; do
  repo=$(corpus_repo agent "$lang")
  (cd "$repo" && "$nerd" index >/dev/null)
  # The most-called function that is not a language builtin a same-named definition shadows.
  read -r name id < <(cd "$repo" && "$nerd" query calls --json --no-refresh | python3 -c '
import builtins, collections, json, sys
go = {"append", "len", "make", "new", "panic", "copy", "delete", "cap", "close", "print", "println",
      "recover", "min", "max", "clear", "complex", "real", "imag", "Error", "String"}
skip = go | set(dir(builtins))
counts = collections.Counter(json.loads(l)["args"][1] for l in sys.stdin)
for sym, _ in counts.most_common(500):
    name = sym.split("#")[1].split(".")[-1]
    if len(name) > 3 and "~" not in name and name not in skip:
        print(name, sym)
        break
')
  case $lang in go) pattern="$name(\$\$\$)"; sglang=go;; python) pattern="$name(\$\$\$)"; sglang=python;; *) pattern="$name(\$\$\$)"; sglang=$lang;; esac
  callers=$(cd "$repo" && "$nerd" query calls --json --no-refresh | python3 -c "
import json, sys
print(sum(1 for l in sys.stdin if json.loads(l)['args'][1] == '$id'))")
  hits=$(cd "$repo" && grep -rnw --exclude-dir=.nerd "$name" . | wc -l)
  status=$(cd "$repo" && "$nerd" run --json "what calls $name" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
  [ "$status" = answered ] || echo "warning: \"what calls $name\" ended $status" >&2
  t_nerd=$(cd "$repo" && median_ms "$nerd" run "what calls $name")
  t_grep=$(cd "$repo" && median_ms grep -rnw --exclude-dir=.nerd "$name" .)
  t_sg=$(cd "$repo" && median_ms "$sg" run --lang "$sglang" -p "$pattern" .)
  sg_hits=$(cd "$repo" && "$sg" run --lang "$sglang" -p "$pattern" . 2>/dev/null | grep -c "$name(" || true)
  t_impact=$(cd "$repo" && median_ms "$nerd" run "what breaks if I change $name")
  printf '%-7s %-22s %9s %9s %9s %9s %9s %9s %9s\n' "$lang" "$name" "$t_nerd" "$t_grep" "$t_sg" "$callers" "$hits" "$sg_hits" "$t_impact"
done
