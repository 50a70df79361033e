#!/usr/bin/env bash
# Fails when crates/tack-cli/hot-symbols.txt has gone stale: fewer than 95% of
# its names are functions of the release link. The release link orders those
# functions first (build.rs); their names carry crate hashes, which change
# with the profile and with any dependency change, and LLD skips the names it
# does not find in silence. A list made from another build (a `cargo bench`
# one) found 851 of 2,571 names and took one turn's peak RSS from 9 to 14 MiB
# (BENCHMARKS.md). When this fails: `cargo clean --release -p tack-cli`, then
# `scripts/hot-symbols.sh`, and commit the list.
#
# The names' hashes depend on the whole profile (`lto` and `codegen-units`
# included: cargo hashes the profile into each crate's -C metadata), so this
# needs a release build; it reads the map its link writes (build.rs), running
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -p tack-cli --bin tack
map=$(ls -t target/release/build/tack-cli-*/out/tack.map | head -1)
python3 scripts/hot_symbols.py --check crates/tack-cli/hot-symbols.txt "$map" 95
