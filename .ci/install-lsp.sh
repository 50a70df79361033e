#!/usr/bin/env bash
# Installs the language server the LSP tool's tests run
# (crates/tack-cli/tests/lsp*.rs): python-lsp-server (PyPI, pure Python, a few
# seconds) with pyflakes for diagnostics, into a venv under target/lsp/ (or
# $TACK_LSP_DIR). The tests find `pylsp` there; with TACK_REQUIRE_INTEGRATIONS
# set, a missing server fails them. Idempotent: a second run with the same pins
# only checks the versions.
set -euo pipefail
cd "$(dirname "$0")/.."

PYLSP_VERSION=1.12.0
PYFLAKES_VERSION=3.2.0
DIR="${TACK_LSP_DIR:-target/lsp}"

installed() {
    "$DIR/bin/python" - "$PYLSP_VERSION" "$PYFLAKES_VERSION" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(0 if (m.version("python-lsp-server"), m.version("pyflakes")) == tuple(sys.argv[1:3]) else 1)
PY
}

if [ -x "$DIR/bin/pylsp" ] && installed; then
    echo "install-lsp: python-lsp-server $PYLSP_VERSION, pyflakes $PYFLAKES_VERSION already in $DIR"
    exit 0
fi
rm -rf "$DIR"
python3 -m venv "$DIR"
"$DIR/bin/pip" install --quiet --disable-pip-version-check \
    "python-lsp-server==$PYLSP_VERSION" "pyflakes==$PYFLAKES_VERSION"
echo "install-lsp: python-lsp-server $PYLSP_VERSION, pyflakes $PYFLAKES_VERSION installed in $DIR"
