#!/usr/bin/env bash
# A three-node NATS cluster with JetStream on this machine's loopback, for trying Locus on NATS
# and for the tests (docs/nats.md).
#
#   scripts/nats-cluster.sh up [DIR]     start n1..n3 (configs, data and logs in DIR), wait until
#                                        JetStream has a leader, print the endpoint for LOCUS_PUB
#   scripts/nats-cluster.sh down [DIR]   stop them (SIGTERM, then SIGKILL after 10 s)
#   scripts/nats-cluster.sh endpoint     print the endpoint only
#
# Environment: LOCUS_NATS_PORT (first client port, default 4222; the nodes use PORT, PORT+1,
# PORT+2; routes PORT+2000…, monitoring PORT+4000…), LOCUS_NATS_RAW_PARTITIONS (partitions of
# location.raw, default 2), LOCUS_NATS_FUSED_PARTITIONS (of location.fused, default 3),
# LOCUS_NATS_AUTH (a file with an authorization section, e.g. from `locus nats config`).
set -euo pipefail

command=${1:-}
dir=${2:-${XDG_RUNTIME_DIR:-/tmp/locus-$(id -u)}/nats-cluster}
port=${LOCUS_NATS_PORT:-4222}
raw_partitions=${LOCUS_NATS_RAW_PARTITIONS:-2}
fused_partitions=${LOCUS_NATS_FUSED_PARTITIONS:-3}
here=$(cd "$(dirname "$0")/.." && pwd)

endpoint() {
    echo "nats://127.0.0.1:$port,nats://127.0.0.1:$((port + 1)),nats://127.0.0.1:$((port + 2))"
}

write_config() {  # node index (1..3)
    local n=$1 client=$((port + $1 - 1))
    local route=$((client + 2000)) monitor=$((client + 4000))
    local routes="nats-route://127.0.0.1:$((port + 2000)),nats-route://127.0.0.1:$((port + 2001)),nats-route://127.0.0.1:$((port + 2002))"
    mkdir -p "$dir/n$n"
    sed -e "s|@NAME@|n$n|; s|@CLIENT@|127.0.0.1:$client|; s|@MONITOR@|127.0.0.1:$monitor|" \
        -e "s|@STORE@|$dir/n$n/jetstream|; s|@ROUTE@|127.0.0.1:$route|; s|@ROUTES@|$routes|" \
        -e "s|@RAW_PARTITIONS@|$raw_partitions|; s|@FUSED_PARTITIONS@|$fused_partitions|" \
        "$here/deploy/nats/node.conf.in" > "$dir/n$n/nats.conf"
    if [ -n "${LOCUS_NATS_AUTH:-}" ]; then
        echo "include \"$(realpath "$LOCUS_NATS_AUTH")\"" >> "$dir/n$n/nats.conf"
    fi
}

alive() {  # pid: running and not a zombie (a killed node whose parent has not reaped it yet)
    kill -0 "$1" 2>/dev/null && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

wait_ready() {  # every node answers /healthz (JetStream current) within 30 s
    python3 - "$port" <<'PY'
import sys, time, urllib.request
base = int(sys.argv[1])
deadline = time.monotonic() + 30
pending = {base + 4000 + i for i in range(3)}
while pending and time.monotonic() < deadline:
    for monitor in sorted(pending):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{monitor}/healthz", timeout=1) as answer:
                if answer.status == 200:
                    pending.discard(monitor)
        except Exception:
            pass
    time.sleep(0.2)
sys.exit(1 if pending else 0)
PY
}

case "$command" in
    up)
        command -v nats-server >/dev/null || { echo "nats-cluster: nats-server is not installed (scripts/install-deps.sh)" >&2; exit 69; }
        mkdir -p "$dir"
        for n in 1 2 3; do
            if [ -f "$dir/n$n/pid" ] && alive "$(cat "$dir/n$n/pid")"; then continue; fi
            write_config "$n"
            nats-server -c "$dir/n$n/nats.conf" >>"$dir/n$n/log" 2>&1 &
            echo $! > "$dir/n$n/pid"
        done
        if ! wait_ready; then
            echo "nats-cluster: the cluster did not become ready in 30 s; logs in $dir/n*/log" >&2
            exit 1
        fi
        endpoint
        ;;
    down)
        for n in 1 2 3; do
            [ -f "$dir/n$n/pid" ] || continue
            pid=$(cat "$dir/n$n/pid")
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
            rm -f "$dir/n$n/pid"
        done
        ;;
    endpoint)
        endpoint
        ;;
    *)
        sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
        exit 64
        ;;
esac
