#!/usr/bin/env bash
# Installs the MCP reference server (@modelcontextprotocol/server-everything,
# pinned) into target/mcp-everything for tack-mcp's end-to-end test. Without
# node and npm it does nothing: that test then says why it skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=2026.8.31
DEST="${CARGO_TARGET_DIR:-target}/mcp-everything"
PKG="$DEST/node_modules/@modelcontextprotocol/server-everything/package.json"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "install-mcp-everything: node or npm not found; skipping"
    exit 0
fi
if [ -f "$PKG" ] && grep -q "\"version\": \"$VERSION\"" "$PKG"; then
    echo "install-mcp-everything: server-everything $VERSION already in $DEST"
    exit 0
fi
mkdir -p "$DEST"
npm install --prefix "$DEST" --save-exact --no-audit --no-fund \
    "@modelcontextprotocol/server-everything@$VERSION"
echo "install-mcp-everything: installed server-everything $VERSION in $DEST"
