#!/usr/bin/env bash
# Finds the functions a tack session runs and writes them, one mangled name per
# line, most instructions first, to crates/tack-cli/hot-symbols.txt. The release
# link places them together (lld's --symbol-ordering-file, see
# crates/tack-cli/build.rs), so a session maps a few hundred KiB of the binary's
# code instead of touching a page in most 64 KiB stretches of it: the kernel
# maps text in 64 KiB windows ("fault-around"), and a process's resident size
# counts every mapped page.
#
# Needs valgrind and python3. Each session of the workload runs under callgrind,
# which sees every instruction executed (sampling, as with perf, misses the
# functions that run once for a few microseconds, and each one missed costs a
# 64 KiB window). It runs the release binary itself (stripped; callgrind reports
# its addresses as the link placed them) and names the functions through the map
# its link wrote (build.rs): a build with other settings would name the same
# functions differently. Rerun after a change to a workspace dependency (the
# names carry each crate's hash) or large changes, then rebuild; a stale list is
# still correct, only less effective (names no longer found are skipped at link
# time).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-2}
cargo build --release -p tack-cli --bin tack
cargo build -p tack-testkit --bin tack-mock-api
tack=$PWD/target/release/tack
map=$(ls -t target/release/build/tack-cli-*/out/tack.map | head -1)
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

run="valgrind -q --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no"
run="$run --callgrind-out-file=$work/callgrind.%p $tack"
cat > "$work/workload.sh" <<SH
set -u
cd "$repo"
export HOME="$work/home" ANTHROPIC_API_KEY=k
for i in \$(seq $RUNS); do
  ANTHROPIC_BASE_URL=$answer_url $run -p hi > /dev/null
  ANTHROPIC_BASE_URL=$answer_url $run -p hi --output-format json > /dev/null
  echo '{"type":"user","message":{"role":"user","content":"hi"}}' |
    ANTHROPIC_BASE_URL=$answer_url $run -p --input-format stream-json \
      --output-format stream-json --verbose > /dev/null
  ANTHROPIC_BASE_URL=$tools_url $run -p "work" --dangerously-skip-permissions > /dev/null
  git checkout -q -- . && rm -f notes.txt
done
SH
bash "$work/workload.sh"
python3 scripts/hot_symbols.py "$tack" "$map" "$work"/callgrind.* > crates/tack-cli/hot-symbols.txt
echo "$(wc -l < crates/tack-cli/hot-symbols.txt) hot functions -> crates/tack-cli/hot-symbols.txt"
