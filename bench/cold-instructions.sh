#!/usr/bin/env bash
# Counts the instructions a cold `nerd index` executes, for two nerd binaries
# on copies of the same tree, under valgrind's callgrind: a CPU-work figure
# that a shared, noisy machine does not move (CPU seconds there vary by 30%
# from run to run). Prints each count and the ratio A/B.
#
#   usage: bench/cold-instructions.sh NERD_A NERD_B DIR
#   e.g.   bench/cold-instructions.sh target/release/nerd /tmp/nerd-old /tmp/eight
#
# Each binary indexes its own copy of DIR (its .nerd removed first), one after
# the other. Needs valgrind (Debian: apt-get install valgrind); about 50 times
# slower than a plain run.
set -euo pipefail
[ $# -eq 3 ] || { sed -n 2,11p "$0"; exit 2; }
a=$(realpath "$1"); b=$(realpath "$2"); dir=$(realpath "$3")
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count() {
  local bin=$1 copy=$work/tree
  rm -rf "$copy"
  cp -r "$dir" "$copy"
  rm -rf "$copy/.nerd"
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$bin" index "$copy" >/dev/null 2>"$work/log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/log"
}
ia=$(count "$a")
ib=$(count "$b")
printf 'A %s: %s instructions\nB %s: %s instructions\nA/B %s\n' "$a" "$ia" "$b" "$ib" \
  "$(awk -v x="$ia" -v y="$ib" 'BEGIN { printf "%.3f", x / y }')"
