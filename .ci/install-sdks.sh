#!/usr/bin/env bash
# Installs the pinned official Agent SDKs that crates/tack-cli/tests/sdk.rs drives
# tack through: the Python SDK into a venv and the TypeScript SDK into a node
# project, both under target/sdk/. Idempotent: a second run with the same pins
# only checks the installed versions.
#
# Both SDKs ship a ~380 MB Claude Code binary for the platform; the tests point
# the SDKs at tack instead (cli_path / pathToClaudeCodeExecutable), so neither is
# installed: the Python SDK is built from its sdist (410 KB; the platform wheel is
# 167 MB because it bundles the binary) and npm skips optional dependencies
# (the binary comes in an optional per-platform package).
set -euo pipefail
cd "$(dirname "$0")/.."

PY_SDK_VERSION=0.2.189
TS_SDK_VERSION=0.3.332
SDK_DIR="${TACK_SDK_DIR:-target/sdk}"

mkdir -p "$SDK_DIR"

install_python() {
    local venv="$SDK_DIR/py"
    if ! command -v python3 >/dev/null 2>&1; then
        echo "install-sdks: python3 not found; skipping the Python SDK"
        return 0
    fi
    if [ -x "$venv/bin/python" ] &&
        [ "$("$venv/bin/python" -c 'import claude_agent_sdk; print(claude_agent_sdk.__version__)' 2>/dev/null)" = "$PY_SDK_VERSION" ]; then
        echo "install-sdks: Python claude-agent-sdk $PY_SDK_VERSION already in $venv"
        return 0
    fi
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        --no-binary claude-agent-sdk "claude-agent-sdk==$PY_SDK_VERSION"
    echo "install-sdks: installed Python claude-agent-sdk $PY_SDK_VERSION into $venv"
}

install_typescript() {
    local dir="$SDK_DIR/ts"
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "install-sdks: node/npm not found; skipping the TypeScript SDK"
        return 0
    fi
    local manifest="$dir/node_modules/@anthropic-ai/claude-agent-sdk/package.json"
    if [ -f "$manifest" ] &&
        [ "$(node -p "require('./$manifest').version" 2>/dev/null)" = "$TS_SDK_VERSION" ]; then
        echo "install-sdks: @anthropic-ai/claude-agent-sdk $TS_SDK_VERSION already in $dir"
        return 0
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    echo '{"name": "tack-sdk-tests", "private": true, "type": "module"}' >"$dir/package.json"
    (cd "$dir" && npm install --silent --no-audit --no-fund --omit=optional \
        "@anthropic-ai/claude-agent-sdk@$TS_SDK_VERSION")
    echo "install-sdks: installed @anthropic-ai/claude-agent-sdk $TS_SDK_VERSION into $dir"
}

install_python
install_typescript
