#!/usr/bin/env bash
# Runs the tack-tools search benchmark (Grep/Glob through the tools on a 50k-file
# tree, plus rg and find on the same tree in the same run when installed; Read of
# a 100k-line file) and prints the mean times and the tack/external ratios.
#
#   crates/tack-tools/benches/compare.sh
#
# rg is optional (`apt-get install -y ripgrep`); without it only find is compared.
set -euo pipefail
cd "$(dirname "$0")/../../.."
command -v rg >/dev/null || echo "note: rg not installed; skipping the rg comparisons" >&2
command -v find >/dev/null || echo "note: find not installed; skipping the find comparison" >&2
cargo bench -p tack-tools --bench search -- --noplot "$@"

crit="${CARGO_TARGET_DIR:-target}/criterion"
mean_ms() { # group id -> mean in ms, or empty
  local f="$crit/$1/$2/new/estimates.json"
  [ -f "$f" ] && python3 -c "import json,sys; print('%.2f' % (json.load(open(sys.argv[1]))['mean']['point_estimate']/1e6))" "$f"
}
ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1])/float(sys.argv[2])))" "$1" "$2"; }

printf '\n%-32s %-22s %10s %10s\n' group benchmark "mean (ms)" "vs tack"
for pair in "grep_50k_files_with_matches tack_Grep rg" "grep_50k_content tack_Grep rg" \
            "glob_50k tack_Glob find" "glob_50k tack_Glob rg_files" \
            "read_100k_lines tack_Read_first_2000 -" "read_100k_lines tack_Read_last_1000 -"; do
  set -- $pair
  tack=$(mean_ms "$1" "$2" || true)
  [ -n "$tack" ] && printf '%-32s %-22s %10s\n' "$1" "$2" "$tack"
  if [ "$3" != "-" ]; then
    ext=$(mean_ms "$1" "$3" || true)
    if [ -n "$ext" ] && [ -n "$tack" ]; then
      printf '%-32s %-22s %10s %10s\n' "$1" "$3" "$ext" "tack/$3 = $(ratio "$tack" "$ext")"
    fi
  fi
done
