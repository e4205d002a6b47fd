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

# The HEAD baseline, needed only when the staged tree has something that blocks:
# HEAD gets an error-level finding of its own, then one more edit is staged.
echo
printf '%-7s %16s %14s %16s %14s\n' lang new_head_elapsed new_head_base steady_elapsed steady_base
for lang in "${langs[@]}"; do
  [ "$lang" = python ] || continue
  repo=$cache/check-$lang
  target=$(cd "$repo" && git ls-files '*.py' | sort | sed -n 100p)
  printf '\ndef _bench_old():\n    return _bench_undefined\n' >> "$repo/$target"
  (cd "$repo" && g commit -qam "an error HEAD keeps")
  echo "# bench 3" >> "$repo/$target"; (cd "$repo" && g add "$target")
  first=$(cd "$repo" && "$nerd" check --json --no-cache || true)
  echo "# bench 4" >> "$repo/$target"; (cd "$repo" && g add "$target")
  steady=$(cd "$repo" && "$nerd" check --json --no-cache || true)
  base() { python3 -c "import json,sys; b=json.load(sys.stdin)['baseline']; print(b['state'] + (' %.1fms' % b['tools_ms'] if 'tools_ms' in b else ''))"; }
  printf '%-7s %14sms %14s %14sms %14s\n' "$lang" "$(echo "$first" | field elapsed_ms)" "$(echo "$first" | base)" \
    "$(echo "$steady" | field elapsed_ms)" "$(echo "$steady" | base)"
done
echo "new_head: the first check after a commit whose tree has an error of its own (HEAD's tools run once, then cached);"
echo "steady: the next check on the same HEAD. A staged tree with nothing blocking never needs HEAD's findings."
