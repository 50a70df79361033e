#!/usr/bin/env bash
# Installs pinned PyPI packages into a venv of their own, for the install-*.sh
# scripts: `pip-venv.sh <label> <dir> <name>==<version>...`. Idempotent: when
# the venv already holds exactly those versions it only says so; otherwise it
# makes the venv anew (a half-finished install is never taken for a good one).
set -euo pipefail

label=$1 dir=$2
shift 2

installed() {
    "$dir/bin/python" - "$@" <<'PY' 2>/dev/null
import importlib.metadata as m, sys
sys.exit(0 if all(m.version(n) == v for n, v in (p.split("==") for p in sys.argv[1:])) else 1)
PY
}

if [ -x "$dir/bin/python" ] && installed "$@"; then
    echo "$label: $* already in $dir"
    exit 0
fi
rm -rf "$dir"
python3 -m venv "$dir"
"$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
installed "$@" || { echo "$label: $dir does not hold $* after pip install" >&2; exit 1; }
echo "$label: $* installed in $dir"
