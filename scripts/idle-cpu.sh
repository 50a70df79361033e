#!/usr/bin/env bash
# The idle terminal session's budget: `tack` in a terminal (tmux on a socket of
# its own), one answered prompt from the scripted server, then CPU time, context
# switches (every thread) and RSS over the next N seconds. Prints one line.
# Usage: bash scripts/idle-cpu.sh [tack binary] [seconds]
set -euo pipefail
tack=$(realpath "${1:-target/release/tack}")
secs=${2:-30}
mock=$(realpath target/debug/tack-mock-api)
[ -x "$mock" ] || cargo build -q -p tack-testkit --bin tack-mock-api
dir=$(mktemp -d)
sock="idle-cpu-$$"
cleanup() { tmux -L "$sock" kill-server 2>/dev/null || true; kill "$mock_pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
mkdir -p "$dir/home" "$dir/proj"
echo '[{"text":"hello there"}]' >"$dir/script.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$mock" --script "$dir/script.json" --port "$port" --loop >/dev/null 2>&1 &
mock_pid=$!
printf '{"projects":{"%s":{"hasTrustDialogAccepted":true}},"hasCompletedOnboarding":true}\n' "$dir/proj" >"$dir/home/.claude.json"
tmux -L "$sock" new-session -d -x 100 -y 30 -c "$dir/proj" \
    "exec env -i PATH=$PATH TERM=xterm-256color HOME=$dir/home ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=test $tack"
wait_for() { for _ in $(seq 100); do tmux -L "$sock" capture-pane -p | grep -qF "$1" && return 0; sleep 0.1; done; echo "never saw: $1" >&2; exit 1; }
wait_for "for shortcuts"
tmux -L "$sock" send-keys "say hi" Enter
wait_for "hello there"
sleep 1
pid=$(tmux -L "$sock" list-panes -F '#{pane_pid}')
ticks() { awk '{print $14+$15}' "/proc/$pid/stat"; }
# Per thread, so a pool worker that exits meanwhile does not count negative;
# one that starts meanwhile counts from zero.
switches() { for t in /proc/"$pid"/task/*; do echo "${t##*/} $(awk '/ctxt_switches/{s+=$2} END{print s}' "$t/status" 2>/dev/null)"; done; }
t0=$(ticks); switches >"$dir/c0"
sleep "$secs"
t1=$(ticks); switches >"$dir/c1"
n=$(awk 'NR==FNR{a[$1]=$2; next} {s+=$2-($1 in a ? a[$1] : 0)} END{print s+0}' "$dir/c0" "$dir/c1")
hz=$(getconf CLK_TCK)
rss=$(awk '/VmRSS/{print $2}' "/proc/$pid/status")
echo "idle ${secs} s after one turn: CPU $(awk -v t=$((t1 - t0)) -v hz="$hz" 'BEGIN{printf "%.2f", t/hz}') s, ${n} context switches (all threads), RSS ${rss} KiB"
