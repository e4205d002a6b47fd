# Sourced by the bench scripts: where things live, the corpus from
# ../shared/bench/corpus.sh, a release build of nerd, and shared helpers.
#   env: NERD_BENCH_DIR  cache for the corpus and tools (default: target/bench)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${NERD_BENCH_DIR:-$top/target/bench}
mkdir -p "$cache"
bash "$(cd "$top/.." && pwd)/shared/bench/corpus.sh" "$cache/corpus" >/dev/null
(cd "$top" && cargo build --release --quiet)
nerd=$top/target/release/nerd

# git with a fixed identity and no signing.
g() { git -c user.name=bench -c user.email=bench@nerd.invalid -c commit.gpgsign=false "$@"; }

# ast-grep from npm into the cache (/usr/bin/sg is often shadow's `sg`, not ast-grep); sets $astgrep.
install_astgrep() {
  if [ ! -x "$cache/tools/node_modules/.bin/ast-grep" ]; then
    npm install --silent --prefix "$cache/tools" @ast-grep/cli >/dev/null
  fi
  astgrep=$cache/tools/node_modules/.bin/ast-grep
}

# corpus_repo NAME LANG: a fresh copy of the LANG corpus at $cache/NAME-LANG,
# committed as a git repository of its own (as a user's would be, so nerd
# does not climb to an enclosing one). Prints its path.
corpus_repo() {
  local repo=$cache/$1-$2
  rm -rf "$repo" && mkdir -p "$repo"
  cp -r "$cache/corpus/$2/." "$repo/"
  rm -rf "$repo/.nerd"
  (cd "$repo" && g init -q -b main && g add -A && g commit -q -m corpus)
  echo "$repo"
}
