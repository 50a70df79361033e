#!/usr/bin/env bash
# Installs the pinned official Agent SDKs that crates/tack-cli/tests/sdk.rs drives
# tack through: the Python SDK into a venv and the TypeScript SDK into a node
# project, both under target/sdk/. Their dependencies are pinned too
# (.ci/sdk/py-constraints.txt, .ci/sdk/package-lock.json), so a new release of
# one (mcp, zod, ...) cannot change what CI runs. Idempotent: a second run with
# the same pins only compares them with the ones installed.
#
# Both SDKs ship a ~380 MB Claude Code binary for the platform; the tests point
# the SDKs at tack instead (cli_path / pathToClaudeCodeExecutable), so neither is
# installed: the Python SDK is built from its sdist (410 KB; the platform wheel is
# 167 MB because it bundles the binary) and npm skips optional dependencies
# (the binary comes in an optional per-platform package).
#
# The Python SDK's own end-to-end suite (e2e-tests/ in its repository) is in
# neither its sdist nor its wheel, at any version: tests/sdk/e2e.py and its
# siblings re-create what the suite asks of the CLI instead.
set -euo pipefail
cd "$(dirname "$0")/.."

PY_SDK_VERSION=0.2.189
PINS=.ci/sdk
SDK_DIR="${TACK_SDK_DIR:-target/sdk}"

mkdir -p "$SDK_DIR"

# What an install was made from: the version and the pin files' contents.
stamp() {
    cat "$@" | sha256sum | cut -d' ' -f1
}

install_python() {
    local venv="$SDK_DIR/py"
    if ! command -v python3 >/dev/null 2>&1; then
        echo "install-sdks: python3 not found; skipping the Python SDK"
        return 0
    fi
    local want
    want="$PY_SDK_VERSION $(stamp "$PINS/py-constraints.txt")"
    if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.tack-pins" 2>/dev/null)" = "$want" ] &&
        [ "$("$venv/bin/python" -c 'import claude_agent_sdk; print(claude_agent_sdk.__version__)' 2>/dev/null)" = "$PY_SDK_VERSION" ]; then
        echo "install-sdks: Python claude-agent-sdk $PY_SDK_VERSION already in $venv"
        return 0
    fi
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        --constraint "$PINS/py-constraints.txt" \
        --no-binary claude-agent-sdk "claude-agent-sdk==$PY_SDK_VERSION"
    echo "$want" >"$venv/.tack-pins"
    echo "install-sdks: installed Python claude-agent-sdk $PY_SDK_VERSION into $venv"
}

install_typescript() {
    local dir="$SDK_DIR/ts"
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "install-sdks: node/npm not found; skipping the TypeScript SDK"
        return 0
    fi
    local version want
    version=$(node -p "require('./$PINS/package.json').dependencies['@anthropic-ai/claude-agent-sdk']")
    want="$version $(stamp "$PINS/package.json" "$PINS/package-lock.json")"
    local manifest="$dir/node_modules/@anthropic-ai/claude-agent-sdk/package.json"
    if [ -f "$manifest" ] && [ "$(cat "$dir/.tack-pins" 2>/dev/null)" = "$want" ] &&
        [ "$(node -p 'require(require("path").resolve(process.argv[1])).version' "$manifest" 2>/dev/null)" = "$version" ]; then
        echo "install-sdks: @anthropic-ai/claude-agent-sdk $version already in $dir"
        return 0
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$PINS/package.json" "$PINS/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --silent --no-audit --no-fund --omit=optional)
    echo "$want" >"$dir/.tack-pins"
    echo "install-sdks: installed @anthropic-ai/claude-agent-sdk $version into $dir"
}

# Zed's ACP adapters for Claude Code, current and older, that
# crates/tack-cli/tests/acp_adapters.rs points at tack (CLAUDE_CODE_EXECUTABLE):
# their own Agent SDKs come pinned with them, the Claude Code binary (optional)
# is skipped.
install_acp_adapters() {
    local dir="$SDK_DIR/acp"
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        echo "install-sdks: node/npm not found; skipping the ACP adapters"
        return 0
    fi
    local want
    want="$(stamp .ci/acp/package.json .ci/acp/package-lock.json)"
    if [ -f "$dir/node_modules/@zed-industries/claude-agent-acp/dist/index.js" ] &&
        [ -f "$dir/node_modules/@zed-industries/claude-code-acp/dist/index.js" ] &&
        [ "$(cat "$dir/.tack-pins" 2>/dev/null)" = "$want" ]; then
        echo "install-sdks: ACP adapters already in $dir"
        return 0
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    cp .ci/acp/package.json .ci/acp/package-lock.json "$dir/"
    (cd "$dir" && npm ci --silent --no-audit --no-fund --omit=optional)
    echo "$want" >"$dir/.tack-pins"
    echo "install-sdks: installed the ACP adapters into $dir"
}

install_python
install_typescript
install_acp_adapters
