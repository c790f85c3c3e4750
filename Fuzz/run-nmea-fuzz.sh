#!/usr/bin/env bash
# Builds the NMEA decoder with libFuzzer + AddressSanitizer and fuzzes it for a
# bounded time. Usage: Fuzz/run-nmea-fuzz.sh [SECONDS]   (default 30)
# The corpus is seeded from gpsd's regression logs in ../shared/data/nmea.
set -euo pipefail
seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
data="$root/../shared/data/nmea"
work="$root/.build/fuzz-nmea"
mkdir -p "$work/corpus"

if [ -d "$data" ]; then
    for log in "$data"/*.log; do
        # Seeds of a few kilobytes each keep libFuzzer's mutations effective.
        split -b 4096 -d -a 3 "$log" "$work/corpus/$(basename "$log" .log)-"
    done
fi

swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -module-name NMEAFuzz \
    "$root"/Services/Provider/Library/NMEA/*.swift \
    "$root"/Fuzz/NMEAFuzz/*.swift \
    -o "$work/nmea-fuzz"

mkdir -p "$work/artifacts"
"$work/nmea-fuzz" "$work/corpus" -max_total_time="$seconds" -max_len=65536 \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1
