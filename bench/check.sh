#!/usr/bin/env bash
# Overhead of `nerd check --staged` beyond the tools it runs, on the Go and
# Python corpora turned into git repositories, and the time of a re-check of
# an unchanged staged tree. Prints one line per corpus.
#
#   usage: bench/check.sh [LANG...]     (default: go python)
#   env:   NERD_BENCH_DIR  cache for the corpus (default: target/bench)
source "$(dirname "$0")/common.sh"
langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(go python)
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(round(d['$1'], 1))"; }

printf '%-7s %6s %14s %14s %14s %10s\n' lang files cold_overhead warm_overhead tools_ms recheck_ms
for lang in "${langs[@]}"; do
  repo=$(corpus_repo check "$lang")
  case $lang in go) ext='*.go'; comment='// bench';; python) ext='*.py'; comment='# bench';; *) ext='*'; comment='';; esac
  target=$(cd "$repo" && git ls-files "$ext" | sort | sed -n 100p)
  files=$(cd "$repo" && git ls-files | wc -l)
  echo "$comment 1" >> "$repo/$target"; (cd "$repo" && g add "$target")
  cold=$(cd "$repo" && "$nerd" check --json --no-cache | field overhead_ms || true)
  # Steady state: the snapshot exists; one more edit is staged.
  echo "$comment 2" >> "$repo/$target"; (cd "$repo" && g add "$target")
  warm_json=$(cd "$repo" && "$nerd" check --json --no-cache || true)
  warm=$(echo "$warm_json" | field overhead_ms)
  tools=$(echo "$warm_json" | python3 -c "import json,sys; print(round(sum(t['elapsed_ms'] for t in json.load(sys.stdin)['tools']), 1))")
  recheck=$(for _ in 1 2 3 4 5; do (cd "$repo" && "$nerd" check --json || true) | field elapsed_ms; done | sort -n | sed -n 3p)
  printf '%-7s %6s %12sms %12sms %12sms %8sms\n' "$lang" "$files" "$cold" "$warm" "$tools" "$recheck"
done
echo "cold_overhead: first check, the staged snapshot is written whole; warm_overhead: a later check after one staged edit;"
echo "tools_ms: time inside the detected tools (ruff for Python; the Go corpus has no go.mod, so none); recheck_ms: median of 5 unchanged re-checks."
