#!/usr/bin/env bash
# The agent with a model on real projects in four languages (Python, Go, Rust,
# TypeScript): bugs from seeded operator mutations of real functions that make
# the projects' own tests fail, test-writing tasks checked against surviving
# mutants, and questions with known answers (bench/eval/make_tasks.py); run
# through `nerd run --task-file` (or aider, on the same tasks with the same
# model) and judged by the projects' suites run again outside the agent
# (bench/eval/run.py).
#
#   bench/eval.sh --provider local [--agent nerd|aider | --compare] [PROJECTS_DIR]
#
#   --agent nerd   (default) nerd with the provider; `local` is the 1.5B coder
#                  (scripts/install-model --coder)
#   --agent aider  aider (bench/eval/setup-aider.sh) driving the same GGUF through
#                  llama-cpp-python's OpenAI-compatible server, started here
#   --compare      both on the same tasks, then the two side by side
#
# Tasks are made once into target/eval-tasks (delete it to make them anew;
# EVAL_PROJECTS, EVAL_BUGS, EVAL_TESTS, EVAL_QUESTIONS, EVAL_RENAMES, EVAL_MAX_TRIES tune
# make_tasks.py); EVAL_ONLY=id,id runs some of them; EVAL_MODEL=GGUF replaces the
# 1.5B coder (e.g. the 0.5B one, for a quick check). Prints one line per task
# and the totals (overall, per kind, per language); results go to
# target/eval-<agent>-<provider>.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
usage() { echo "usage: bench/eval.sh --provider PROVIDER [--agent nerd|aider | --compare] [PROJECTS_DIR]" >&2; exit 2; }
provider= agents=nerd projects=$top/target/bench-projects
while [ $# -gt 0 ]; do
  case $1 in
    --provider) provider=${2:-}; shift 2 ;;
    --agent) agents=${2:-}; shift 2 ;;
    --compare) agents="nerd aider"; shift ;;
    -*) usage ;;
    *) projects=$1; shift ;;
  esac
done
[ -n "$provider" ] || usage
case " $agents " in *" aider "*) [ "$provider" = local ] || { echo "aider runs the local model: use --provider local" >&2; exit 2; } ;; esac
[ -d "$projects/ts-zod" ] || "$top/../shared/bench/projects.sh" "$projects"
"$here/eval/setup-suites.sh"
py=$top/target/eval-venv/py/bin/python
tasks=$top/target/eval-tasks
[ -n "$(ls "$tasks"/tasks/*.json 2>/dev/null)" ] || "$py" "$here/eval/make_tasks.py" "$projects" "$tasks" \
  --projects "${EVAL_PROJECTS:-py-tomlkit,go-uuid,rs-semver,rs-itoa,ts-zod}" --bugs "${EVAL_BUGS:-8}" \
  --tests "${EVAL_TESTS:-1}" --questions "${EVAL_QUESTIONS:-2}" --renames "${EVAL_RENAMES:-1}" \
  --max-tries "${EVAL_MAX_TRIES:-30}"
model=
[ "$provider" = local ] && model=${EVAL_MODEL:-$("$top/scripts/install-model" --coder)}
only=(); [ -n "${EVAL_ONLY:-}" ] && only=(--only "$EVAL_ONLY")
results=()
for agent in $agents; do
  out=$top/target/eval-$agent-$provider.json
  case $agent in
    nerd)
      flock /tmp/nerd-cargo.lock cargo build --release --features nerd/local --manifest-path "$top/Cargo.toml" >&2
      args=(--provider "$provider"); [ -n "$model" ] && args+=(--model "$model")
      "$py" "$here/eval/run.py" "$tasks" "$projects" --agent nerd --nerd "$top/target/release/nerd" "${args[@]}" "${only[@]}" --json "$out" ;;
    aider)
      "$here/eval/setup-aider.sh"
      port=${EVAL_PORT:-8089}
      "$here/eval/setup-aider.sh" serve "$model" "$port" local-coder > "$top/target/eval-llama-server.log" 2>&1 &
      server=$!
      # uvicorn waits for open requests on TERM: a second signal, then KILL, end it.
      stop() { kill "$server" 2>/dev/null || return 0; sleep 5; kill -INT "$server" 2>/dev/null || return 0; sleep 5; kill -9 "$server" 2>/dev/null || true; }
      trap stop EXIT
      for _ in $(seq 300); do
        curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break
        kill -0 "$server" 2>/dev/null || { echo "the model server died: target/eval-llama-server.log" >&2; exit 1; }
        sleep 1
      done
      "$py" "$here/eval/run.py" "$tasks" "$projects" --agent aider --api-base "http://127.0.0.1:$port/v1" \
        --model-name local-coder "${only[@]}" --json "$out"
      stop; trap - EXIT ;;
    *) usage ;;
  esac
  results+=("$out")
done
if [ "${#results[@]}" = 2 ]; then
  echo; "$py" "$here/eval/run.py" --compare "${results[@]}"
fi
