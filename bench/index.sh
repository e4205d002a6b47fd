#!/usr/bin/env bash
# Benchmarks the projection on real third-party code and prints figures:
#   cold `nerd index` CPU time and peak RSS vs `ast-grep` (one pattern per language),
#   warm `nerd index` with nothing changed, one-file edit latency under `nerd watch`,
#   function-definition recall vs universal-ctags.
#
#   usage: bench/index.sh [LANG...]        (default: rust go python ts)
#   env:   NERD_BENCH_DIR  cache for the corpus and tools (default: target/bench)
#
# Installs what it needs itself: the corpus via ../shared/bench/corpus.sh,
# @ast-grep/cli from npm into the cache, universal-ctags from apt if missing.
source "$(dirname "$0")/common.sh"
langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(rust go python ts)
install_astgrep
if ! ctags --version 2>/dev/null | grep -q Universal; then
  apt-get install -y -q universal-ctags >/dev/null
fi

# cpu_and_rss CMD... -> "user+sys seconds" "max RSS KiB" on one line
cpu_and_rss() {
  /usr/bin/time -f '%U %S %M %e' -o "$cache/time.txt" "$@" >/dev/null 2>&1 || true
  awk '{printf "%.2f %d %.2f\n", $1 + $2, $3, $4}' "$cache/time.txt"
}

printf '%-7s %6s %9s %9s %7s %9s %9s %10s %10s %8s\n' lang files nerd_cpu astgrep_cpu ratio nerd_rss warm_ms watch_e2e watch_proc recall
for lang in "${langs[@]}"; do
  dir=$cache/corpus/$lang
  case $lang in
    rust)   sg_lang=rust;       pattern='fn $F($$$A) { $$$B }';       ext='*.rs';  ctags_lang=Rust;       kinds='f P' ;;
    go)     sg_lang=go;         pattern='func $F($$$A) { $$$B }';     ext='*.go';  ctags_lang=Go;         kinds='f' ;;
    python) sg_lang=python;     pattern='def $F($$$A): $$$B';         ext='*.py';  ctags_lang=Python;     kinds='f m' ;;
    ts)     sg_lang=typescript; pattern='function $F($$$A) { $$$B }'; ext='*.ts';  ctags_lang=TypeScript; kinds='f m G' ;;
    *) echo "unknown language $lang" >&2; exit 2 ;;
  esac
  files=$(find "$dir" -name "$ext" | wc -l)
  rm -rf "$dir/.nerd"
  read -r nerd_cpu nerd_rss _ < <(cpu_and_rss "$nerd" index "$dir")
  read -r sg_cpu _ _ < <(cpu_and_rss "$astgrep" run --lang "$sg_lang" --pattern "$pattern" "$dir")
  ratio=$(awk -v a="$nerd_cpu" -v b="$sg_cpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  "$nerd" index "$dir" >/dev/null   # settle racily-clean files
  warm=$(for _ in 1 2 3 4 5 6 7; do "$nerd" index --json "$dir" | python3 -c 'import json,sys; print(json.load(sys.stdin)["elapsed_ms"])'; done | sort -n | sed -n 4p)
  read -r e2e proc < <(python3 "$here/watch_latency.py" "$nerd" "$dir" "$ext")
  recall=$(python3 "$here/recall.py" "$nerd" "$dir" "$ctags_lang" "$kinds")
  printf '%-7s %6s %8ss %8ss %6sx %7sMB %8.1f %8sms %8sms %8s\n' "$lang" "$files" "$nerd_cpu" "$sg_cpu" "$ratio" \
    "$((nerd_rss / 1024))" "$warm" "$e2e" "$proc" "$recall"
done
echo "nerd_cpu/astgrep_cpu: user+sys seconds of a cold run; warm_ms: median internal time of 7 no-change runs;"
echo "watch_e2e: median ms from a file write to the derived-atom report (debounce 10 ms); watch_proc: nerd's own share;"
echo "recall: share of ctags function/method definitions (by file and line) that nerd projects."
