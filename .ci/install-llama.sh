#!/usr/bin/env bash
# Installs llama.cpp's OpenAI-compatible server (the PyPI package
# llama-cpp-python, which compiles llama.cpp from source: about 10-20 minutes
# on 2 cores) and the gguf package that writes the test's tiny model, into a
# venv under target/llama/ (or $TACK_LLAMA_DIR). Idempotent: a second run with
# the same pins only checks the installed versions, so a CI cache of that
# folder makes it fast.
#
# Opt-in: `.ci/run` does not call it (the compile would take most of CI's
# time budget); `.ci/run-llama` does, then runs the test against the real
# server. Without the install, tests/llama.rs prints why and passes.
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_CPP_PYTHON_VERSION=0.3.36
GGUF_VERSION=0.19.0
DIR="${TACK_LLAMA_DIR:-target/llama}"

installed() {
    "$DIR/bin/python" - "$LLAMA_CPP_PYTHON_VERSION" "$GGUF_VERSION" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(0 if (m.version("llama_cpp_python"), m.version("gguf")) == tuple(sys.argv[1:3]) else 1)
PY
}

if [ -x "$DIR/bin/python" ] && installed; then
    echo "install-llama: llama-cpp-python $LLAMA_CPP_PYTHON_VERSION and gguf $GGUF_VERSION already in $DIR"
    exit 0
fi
rm -rf "$DIR"
python3 -m venv "$DIR"
# A portable build (no -march=native), so a cached folder runs on other CPUs.
CMAKE_ARGS="-DGGML_NATIVE=OFF" "$DIR/bin/pip" install --quiet --disable-pip-version-check \
    "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" "gguf==$GGUF_VERSION"
installed
echo "install-llama: installed llama-cpp-python $LLAMA_CPP_PYTHON_VERSION and gguf $GGUF_VERSION into $DIR"
