#!/usr/bin/env bash
# How a local model reads a public set of requests that no model was tuned on
# (tests/fixtures/perception/public5.tsv, the set the 0.5B and 1.5B coders
# were measured on; see its README), through the same boundary and intent
# grammar as `nerd perceive --provider local`, next to the offline rules on the
# same rows (whose second reader was trained on them). Prints every miss and
# one summary line.
#
#   bench/perception.sh [MODEL.gguf] [ROWS]   (default: the 1.5B coder, all rows)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
model=${1:-$("$top/scripts/install-model" --coder)}
NERD_PERCEIVE_MODEL=$model NERD_PERCEIVE_ROWS=${2:-100000} \
  cargo test --release --features nerd/local --manifest-path "$top/Cargo.toml" --test local_model \
  model_reads_the_fresh_public_set -- --ignored --nocapture
