#!/usr/bin/env bash
# Builds every libFuzzer target and runs each for a bounded time, then prints one line
# per target with the inputs executed and the crashes found.
# Usage: Fuzz/run-all.sh [SECONDS] [TARGET...]   (default 30 s; targets: nmea codec region gpx config gpsd network phones)
# FUZZ_RUNS=N stops each target after N inputs instead (SECONDS still bounds it).
# Exit status 1 when any target found a crash, leak or timeout (artifacts are kept in
# .build/fuzz-TARGET/artifacts/ to reproduce with: .build/fuzz-TARGET/TARGET-fuzz FILE).
set -uo pipefail
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(nmea codec region gpx config gpsd network phones)
root="$(cd "$(dirname "$0")/.." && pwd)"
data="$root/../shared/data"
export LSAN_OPTIONS="suppressions=$root/Fuzz/lsan.supp:print_suppressions=0"

# Seeds are rebuilt each run; the corpus directory keeps what earlier runs learned.
seed() {
    local target="$1" seeds="$2"
    rm -rf "$seeds"
    mkdir -p "$seeds"
    case "$target" in
        nmea)
            # Seeds of a few kilobytes each keep libFuzzer's mutations effective.
            for log in "$data"/nmea/*.log; do
                [ -f "$log" ] && split -b 4096 -d -a 3 "$log" "$seeds/$(basename "$log" .log)-"
            done ;;
        codec|region)
            local generator
            generator="$("$root/Fuzz/build-target.sh" seedgen)" || return 1
            "$generator" "$seeds" >/dev/null || return 1
            if [ "$target" = region ]; then rm -f "$seeds"/line-*; fi ;;
        gpx)
            for file in "$data"/gpx/*.gpx; do [ -f "$file" ] && cp "$file" "$seeds/"; done ;;
        config)
            for file in "$root"/deploy/config/*.json; do cp "$file" "$seeds/"; done
            printf '{"pub":"ipc:///tmp/x","stdio":true,"sink":["stdout","file:///tmp/n"],"health-interval":1.5,"rate":3}' > "$seeds/all-kinds.json"
            printf '{"unknown":1}' > "$seeds/unknown-key.json"
            printf '[1,2]' > "$seeds/not-object.json" ;;
        gpsd)
            # What gpsd's clients send: libgps (no line end), the Python client, people with nc.
            printf '?WATCH={"enable":true,"json":true};' > "$seeds/libgps.txt"
            printf '?WATCH={"enable":true,"nmea":true}\n?POLL;\n' > "$seeds/python.txt"
            printf '?VERSION;?DEVICES;?DEVICE;\r\n?DEVICE={"path":"locus://car"}\n' > "$seeds/commands.txt"
            printf '?WATCH={"enable":true,"device":"locus://van%%227","raw":2,"scaled":false};?FOO;\nhello\n' > "$seeds/mixed.txt" ;;
        network)
            # Each tool's output format as the tests read it, and a stream with markers.
            cp "$root"/Tests/LocusProviderTests/Fixtures/network/* "$seeds/" ;;
        phones)
            # OwnTracks payloads, and OsmAnd / Traccar Client requests in each of their forms.
            printf '{"_type":"location","tid":"px","lat":52.5163,"lon":13.3777,"tst":1789999000,"acc":12,"alt":48,"vac":3,"vel":36,"cog":270,"batt":81}' > "$seeds/owntracks.json"
            printf '{"_type":"lwt","tst":1789999000}' > "$seeds/owntracks-lwt.json"
            printf 'GET /?id=van-3&lat=48.137&lon=11.575&timestamp=1789999000&speed=10&bearing=90&altitude=520&accuracy=7&batt=64&token=t HTTP/1.1\r\nHost: x\r\n\r\n' > "$seeds/osmand-query.txt"
            printf 'POST / HTTP/1.1\r\nContent-Length: 63\r\n\r\nid=van-3&location=48.137%%2C11.575&timestamp=1789999000000&accuracy=7' > "$seeds/osmand-form.txt"
            printf 'POST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 178\r\n\r\n{"device_id":"van-3","location":{"timestamp":"2026-09-21T10:00:00Z","coords":{"latitude":48.1,"longitude":11.5,"accuracy":9,"speed":4.5,"heading":180,"altitude":520},"battery":{"level":0.5}}}' > "$seeds/traccar-json.txt" ;;
    esac
}

summary=()
failed=0
for target in "${targets[@]}"; do
    work="$root/.build/fuzz-$target"
    echo "== $target: building" >&2
    if ! binary="$("$root/Fuzz/build-target.sh" "$target")"; then
        summary+=("$target: BUILD FAILED"); failed=1; continue
    fi
    seed "$target" "$work/seeds" || { summary+=("$target: SEEDING FAILED"); failed=1; continue; }
    mkdir -p "$work/corpus" "$work/artifacts"
    log="$work/last-run.log"
    # Inputs as long as the format needs, not longer: the time per input grows with its
    # length, and over a long run libFuzzer lets inputs grow to the limit.
    # nmea: 4 kB holds dozens of sentences (many cycles to learn cycle ends from) and a line
    #       past the decoder's 1024-byte limit; the seeds are 4 kB pieces of real logs.
    # gpx:  8 kB holds the header, metadata, waypoints, a route and a track of dozens of
    #       points with extensions, i.e. every element the reader acts on, several times.
    maxlen=65536
    # network: 8 kB holds a dense iw scan with information elements, or dozens of nmcli lines,
    #       mmcli output in every form, or a page of CSV rows.
    case "$target" in
        nmea) maxlen=4096 ;;
        gpx|network) maxlen=8192 ;;
    esac
    limits=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$maxlen" -print_final_stats=1)
    [ -n "${FUZZ_RUNS:-}" ] && limits+=(-runs="$FUZZ_RUNS")
    echo "== $target: fuzzing for at most $seconds s" >&2
    before=$(ls "$work/artifacts" | wc -l)
    "$binary" "$work/corpus" "$work/seeds" "${limits[@]}" -artifact_prefix="$work/artifacts/" >"$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    found=$(( $(ls "$work/artifacts" | wc -l) - before ))
    line="$target: ${runs:-?} inputs (${rate:-?}/s), $found new artifacts, exit $status"
    if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
        failed=1
        line="$line — see $log"
        grep -m3 -E "ERROR|Fatal error|panic" "$log" >&2 || true
    fi
    summary+=("$line")
done
printf '%s\n' "${summary[@]}"
exit "$failed"
