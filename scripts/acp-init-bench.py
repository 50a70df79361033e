# `tack acp` start -> `initialize` answered, for BENCHMARKS.md: spawns the given
# binary as `tack acp` 21 times in an empty HOME and prints the median.
import subprocess, time, json, statistics, sys, os, tempfile
exe = os.path.abspath(sys.argv[1])
times = []
home = tempfile.mkdtemp()
env = dict(os.environ, HOME=home, ANTHROPIC_API_KEY="sk-test")
req = json.dumps({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":True,"writeTextFile":True},"terminal":False}}}) + "\n"
for i in range(21):
    t0 = time.perf_counter()
    p = subprocess.Popen([exe, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=home)
    p.stdin.write(req.encode()); p.stdin.flush()
    line = p.stdout.readline()
    t1 = time.perf_counter()
    assert b'"result"' in line, line
    p.stdin.close(); p.wait()
    times.append((t1 - t0) * 1000)
print("median %.2f ms, min %.2f, max %.2f (n=%d)" % (statistics.median(times), min(times), max(times), len(times)))
