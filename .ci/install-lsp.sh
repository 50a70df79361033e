#!/usr/bin/env bash
# Installs the language server the LSP tool's tests run
# (crates/tack-cli/tests/lsp*.rs): python-lsp-server (PyPI, pure Python, a few
# seconds) with pyflakes for diagnostics, into a venv under target/lsp/ (or
# $TACK_LSP_DIR). The tests find `pylsp` there; with TACK_REQUIRE_INTEGRATIONS
# set, a missing server fails them. Idempotent (see pip-venv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/pip-venv.sh install-lsp "${TACK_LSP_DIR:-target/lsp}" \
    python-lsp-server==1.12.0 pyflakes==3.2.0
