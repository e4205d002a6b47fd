#!/usr/bin/env bash
# What the eval projects' own suites and bench/eval/make_tasks.py need, all
# under target/ (idempotent; see bench/eval/projects.py):
#   target/eval-venv/py   pytest's plugins the Python projects import (hypothesis),
#                         on top of the system site-packages, plus tree-sitter and
#                         the Go, Rust and TypeScript grammars make_tasks.py reads
#   target/eval-node      vitest and what zod's tests import (bench/eval/node/package.json)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
venv=$top/target/eval-venv/py
if ! "$venv/bin/python" -c "import pytest, hypothesis, tree_sitter, tree_sitter_go, tree_sitter_rust, tree_sitter_typescript" 2>/dev/null; then
  python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check pytest==9.2.0 hypothesis==6.112.0 tree-sitter==0.24.0 \
    tree-sitter-go==0.23.4 tree-sitter-rust==0.23.2 tree-sitter-typescript==0.23.2
fi
node=$top/target/eval-node
if [ ! -x "$node/node_modules/.bin/vitest" ] || ! cmp -s "$top/bench/eval/node/package.json" "$node/package.json"; then
  mkdir -p "$node"
  cp "$top/bench/eval/node/package.json" "$node/package.json"
  (cd "$node" && npm install --no-audit --no-fund --silent)
fi
