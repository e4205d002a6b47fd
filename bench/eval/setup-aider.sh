#!/usr/bin/env bash
# The comparison agent for bench/eval.sh: aider, driving the same local model
# through an OpenAI-compatible server (llama-cpp-python's, which builds
# llama.cpp from its sdist). Two virtual environments, so that neither
# package's pins move the other's:
#
#   target/eval-venv/aider   aider-chat       (its `aider` command)
#   target/eval-venv/llama   llama-cpp-python[server]  (python -m llama_cpp.server)
#
#   bench/eval/setup-aider.sh                 install both (idempotent)
#   bench/eval/setup-aider.sh serve GGUF [PORT] [ALIAS]
#                                             start the server in the foreground on
#                                             127.0.0.1:PORT (default 8089), the model
#                                             named ALIAS (default "local-coder");
#                                             `scripts/install-model --coder` prints the GGUF
#
# The llama.cpp build is heavy: it runs under `nice` and only while holding
# /tmp/nerd-cargo.lock, the lock this machine's compiles share.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
venvs=$top/target/eval-venv
AIDER_VERSION=0.86.2
LLAMA_VERSION=0.3.36

if [ "${1:-}" = serve ]; then
  gguf=${2:?usage: setup-aider.sh serve GGUF [PORT] [ALIAS]}
  exec "$venvs/llama/bin/python" -m llama_cpp.server --model "$gguf" --model_alias "${4:-local-coder}" \
    --host 127.0.0.1 --port "${3:-8089}" --n_ctx "${EVAL_N_CTX:-16384}" --n_threads "${EVAL_THREADS:-2}"
fi

if ! "$venvs/aider/bin/aider" --version 2>/dev/null | grep -q "$AIDER_VERSION"; then
  python3 -m venv "$venvs/aider"
  "$venvs/aider/bin/pip" install --quiet --disable-pip-version-check "aider-chat==$AIDER_VERSION"
fi
if ! "$venvs/llama/bin/python" -c "import llama_cpp, llama_cpp.server; assert llama_cpp.__version__ == '$LLAMA_VERSION'" 2>/dev/null; then
  python3 -m venv "$venvs/llama"
  CMAKE_BUILD_PARALLEL_LEVEL=${EVAL_BUILD_JOBS:-2} CMAKE_ARGS="-DGGML_NATIVE=ON" \
    flock /tmp/nerd-cargo.lock nice -n 19 "$venvs/llama/bin/pip" install --disable-pip-version-check \
    --no-binary llama-cpp-python "llama-cpp-python[server]==$LLAMA_VERSION"
fi
echo "aider: $("$venvs/aider/bin/aider" --version)"
echo "llama-cpp-python: $("$venvs/llama/bin/python" -c 'import llama_cpp; print(llama_cpp.__version__)')"
