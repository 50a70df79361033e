#!/usr/bin/env bash
# Finds the functions a tack session runs and writes them, one mangled name per
# line, to crates/tack-cli/hot-symbols.txt. The release link places them
# together (lld's --symbol-ordering-file, see crates/tack-cli/build.rs), so a
# session maps a few hundred KiB of the binary's code instead of touching a
# page in most 64 KiB stretches of it: the kernel maps text in 64 KiB windows
# ("fault-around"), and a process's resident size counts every mapped page.
#
# Needs `perf` (sampling the CPU clock at 50 kHz) and a release build with
# symbols: `cargo build --profile symbols -p tack-cli --bin tack` (this script
# runs it). Rerun after large changes; a stale list is still correct, only
# less effective (names no longer found are skipped at link time).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-150}
cargo build --profile symbols -p tack-cli --bin tack
cargo build -p tack-testkit --bin tack-mock-api
tack=$PWD/target/symbols/tack
mock=$PWD/target/debug/tack-mock-api
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# A git repository with a few files to read, search and edit.
repo=$work/repo
mkdir -p "$repo/src" "$work/home"
printf 'fn main() {\n    println!("hi");\n}\n' > "$repo/src/main.rs"
printf '# Demo\n\nA project.\n' > "$repo/README.md"
git -C "$repo" init -q
git -C "$repo" -c user.email=a@b -c user.name=n add -A
git -C "$repo" -c user.email=a@b -c user.name=n commit -qm init

# One answer, and a turn of every common tool then an answer.
cat > "$work/answer.json" <<'JSON'
[{"text": "Hello! How can I help you today?"}]
JSON
cat > "$work/tools.json" <<'JSON'
[{"blocks": [{"type": "text", "text": "Looking."},
   {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "src/main.rs"}},
   {"type": "tool_use", "id": "t2", "name": "Glob", "input": {"pattern": "**/*.rs"}},
   {"type": "tool_use", "id": "t3", "name": "Grep", "input": {"pattern": "println", "output_mode": "content"}}],
  "stop_reason": "tool_use"},
 {"blocks": [{"type": "tool_use", "id": "t4", "name": "Bash", "input": {"command": "echo ok && ls"}},
   {"type": "tool_use", "id": "t5", "name": "Edit", "input": {"file_path": "README.md", "old_string": "A project.", "new_string": "A project!"}},
   {"type": "tool_use", "id": "t6", "name": "Write", "input": {"file_path": "notes.txt", "content": "n\n"}},
   {"type": "tool_use", "id": "t7", "name": "TodoWrite", "input": {"todos": [{"content": "x", "status": "pending", "activeForm": "x"}]}}],
  "stop_reason": "tool_use"},
 {"text": "Done: read, searched, edited."}]
JSON

serve() { # script file -> base URL on stdout
  "$mock" --script "$1" --loop > "$1.port" 2>&1 &
  for _ in $(seq 50); do
    grep -q listening "$1.port" 2>/dev/null && break
    sleep 0.1
  done
  sed -n 's/^listening on //p' "$1.port"
}
answer_url=$(serve "$work/answer.json")
tools_url=$(serve "$work/tools.json")

cat > "$work/workload.sh" <<SH
set -u
cd "$repo"
export HOME="$work/home" ANTHROPIC_API_KEY=k
for i in \$(seq $RUNS); do
  ANTHROPIC_BASE_URL=$answer_url "$tack" -p hi > /dev/null
  ANTHROPIC_BASE_URL=$answer_url "$tack" -p hi --output-format json > /dev/null
  echo '{"type":"user","message":{"role":"user","content":"hi"}}' |
    ANTHROPIC_BASE_URL=$answer_url "$tack" -p --input-format stream-json \
      --output-format stream-json --verbose > /dev/null
  ANTHROPIC_BASE_URL=$tools_url "$tack" -p "work" --dangerously-skip-permissions > /dev/null
  git checkout -q -- . && rm -f notes.txt
done
SH
perf record -q -F 50000 -e cpu-clock -o "$work/perf.data" -- bash "$work/workload.sh"
perf script -i "$work/perf.data" -F ip,sym,dso --no-demangle 2>/dev/null |
  awk -v bin="$tack" 'index($0, "(" bin ")") { print $2 }' |
  grep -v '^\[unknown\]$' | sort -u > crates/tack-cli/hot-symbols.txt
echo "$(wc -l < crates/tack-cli/hot-symbols.txt) hot functions -> crates/tack-cli/hot-symbols.txt"
