#!/usr/bin/env python3
"""Turns `perf script -F pid,ip,dso --show-mmap-events` output for a stripped
binary into the names of the functions sampled, using the linker map of the
same link (`-Wl,-Map`, see crates/tack-cli/build.rs): each function is its
own input section `.text[.unlikely|.hot|...].<mangled name>` there.

usage: hot_symbols.py BINARY MAP < perf-script-output > hot-symbols.txt
"""

import bisect
import re
import subprocess
import sys

MMAP = re.compile(
    r"^\s*(\d+)\s+PERF_RECORD_MMAP2? (\d+)/\d+: \[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ 0x([0-9a-f]+)"
    r" .*\]: r-xp (\S+)$"
)
SAMPLE = re.compile(r"^\s*(\d+)\s+([0-9a-f]+) \((\S+)\)$")
SECTION = re.compile(
    r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S*:\(\.text\.(?:(?:unlikely|hot|startup|exit|split)\.)?(\S+)\)$"
)


def text_delta(binary):
    """p_vaddr - p_offset of the executable segment."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD" and "E" in fields[6:-1]:
            return int(fields[2], 16) - int(fields[1], 16)
    sys.exit("no executable LOAD segment in " + binary)


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


def main():
    binary, map_path = sys.argv[1], sys.argv[2]
    delta = text_delta(binary)
    starts, ends, names = sections(map_path)
    bases = {}  # pid -> (start, pgoff)
    hot = set()
    for line in sys.stdin:
        m = MMAP.match(line)
        if m:
            if m.group(5) == binary:
                bases[m.group(2)] = (int(m.group(3), 16), int(m.group(4), 16))
            continue
        m = SAMPLE.match(line)
        if not m or m.group(3) != binary or m.group(1) not in bases:
            continue
        start, pgoff = bases[m.group(1)]
        vaddr = int(m.group(2), 16) - start + pgoff + delta
        i = bisect.bisect_right(starts, vaddr) - 1
        if i >= 0 and vaddr < ends[i]:
            hot.add(names[i])
    for name in sorted(hot):
        print(name)


if __name__ == "__main__":
    main()
