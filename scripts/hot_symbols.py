#!/usr/bin/env python3
"""Turns callgrind profiles of a stripped binary (`--dump-instr=yes
--compress-pos=no --compress-strings=no`) into the names of the functions that
ran, most instructions first, using the linker map of the same link
(`-Wl,-Map`, see crates/tack-cli/build.rs): each function is its own input
section `.text[.unlikely|.hot|...].<mangled name>` there. Callgrind reports a
position-independent binary's instructions at the addresses the link gave them.

usage: hot_symbols.py BINARY MAP CALLGRIND_OUT... > hot-symbols.txt
       hot_symbols.py --check LIST MAP [MIN_PERCENT]

--check: how many of LIST's names the link of MAP has (a function each); exits
1 when fewer than MIN_PERCENT (default 95) are found. The names carry crate
hashes, which change with the build's profile and dependencies: a list made
from another build (or before a dependency change) is stale, and the link
then orders only the few names it still finds (see scripts/check-hot-symbols.sh).
"""

import bisect
import collections
import re
import sys

SECTION = re.compile(
    r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S*:\(\.text\.(?:(?:unlikely|hot|startup|exit|split)\.)?(\S+)\)$"
)


def sections(map_path):
    starts, ends, names = [], [], []
    with open(map_path) as f:
        for line in f:
            m = SECTION.match(line)
            if m:
                start, size = int(m.group(1), 16), int(m.group(2), 16)
                if size:
                    starts.append(start)
                    ends.append(start + size)
                    names.append(m.group(3))
    order = sorted(range(len(starts)), key=starts.__getitem__)
    return [starts[i] for i in order], [ends[i] for i in order], [names[i] for i in order]


def executed(binary, profile, costs):
    """Adds each instruction of `binary` the profile saw to `costs` (its own
    instructions executed; a call's line carries the callee's inclusive cost,
    so it counts once)."""
    current = None
    after_call = False
    with open(profile) as f:
        for line in f:
            if line.startswith("ob="):
                current = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True
            elif line.startswith("0x") and current == binary:
                fields = line.split()
                cost = 1 if after_call or len(fields) < 3 else int(fields[-1])
                costs[int(fields[0], 16)] += cost
                after_call = False
            else:
                after_call = False


def check(list_path, map_path, min_percent):
    """Prints how many of the list's names the link has; False when too few."""
    with open(list_path) as f:
        wanted = [line.strip() for line in f if line.strip()]
    linked = set(sections(map_path)[2])
    found = sum(1 for name in wanted if name in linked)
    percent = 100.0 * found / len(wanted) if wanted else 0.0
    print(f"hot-symbols: {found} of {len(wanted)} names found in the link ({percent:.1f}%, "
          f"at least {min_percent}% wanted)")
    return percent >= min_percent


def main():
    if sys.argv[1:2] == ["--check"]:
        list_path, map_path = sys.argv[2], sys.argv[3]
        min_percent = float(sys.argv[4]) if len(sys.argv) > 4 else 95.0
        if not check(list_path, map_path, min_percent):
            print("hot-symbols: the list is stale: run scripts/hot-symbols.sh "
                  "(after `cargo clean --release -p tack-cli`) and commit it", file=sys.stderr)
            sys.exit(1)
        return
    binary, map_path, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    starts, ends, names = sections(map_path)
    costs = collections.Counter()
    for profile in profiles:
        executed(binary, profile, costs)
    per_function = collections.Counter()
    for address, cost in costs.items():
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < ends[i]:
            per_function[names[i]] += cost
    for name, _ in sorted(per_function.items(), key=lambda kv: (-kv[1], kv[0])):
        print(name)


if __name__ == "__main__":
    main()
