#!/usr/bin/env bash
# The agent with a model on real projects: seeded operator mutations of real
# functions that make the projects' own tests fail, fixed by `nerd run
# --task-file`, judged by the projects' suites run again outside nerd.
#
#   bench/eval.sh --provider local [PROJECTS_DIR]   (the local 1.5B coder: scripts/install-model --coder)
#
# Projects come from ../shared/bench/projects.sh (Python ones for now: see
# bench/eval/make_tasks.py). Prints one line per task and the totals.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
[ "${1:-}" = "--provider" ] || { echo "usage: bench/eval.sh --provider PROVIDER [PROJECTS_DIR]" >&2; exit 2; }
provider=$2
projects=${3:-$top/target/bench-projects}
[ -d "$projects/py-tomlkit" ] || "$top/../shared/bench/projects.sh" "$projects"
tasks=$top/target/eval-tasks
[ -n "$(ls "$tasks"/*.json 2>/dev/null)" ] || python3 "$here/eval/make_tasks.py" "$projects" "$tasks" --projects "${EVAL_PROJECTS:-py-tomlkit}" --per-project "${EVAL_PER_PROJECT:-6}"
args=()
if [ "$provider" = local ]; then
  args+=(--model "$("$top/scripts/install-model" --coder)")
fi
cargo build --release --features nerd/local --manifest-path "$top/Cargo.toml" >&2
python3 "$here/eval/run.py" "$tasks" "$projects" --provider "$provider" --nerd "$top/target/release/nerd" "${args[@]}" --json "$top/target/eval-$provider.json"
