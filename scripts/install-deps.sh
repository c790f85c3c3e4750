#!/usr/bin/env bash
# Installs the Debian packages and Python test clients Locus needs, only when missing, and says
# which it installed and which were already there (so a log tells a fresh machine from a warm one).
# Used by `make demo`, `make test` and CI; needs root or sudo for apt-get.
# `install-deps.sh --print-packages` lists the packages ("debian NAME" / "python NAME") and installs
# nothing: scripts/check-test-programs.py reads it to check that every program a test runs is here.
set -euo pipefail

debian_packages=(make)  # the Makefile is how tests and the demo are run

debian_packages+=(libzmq3-dev libsqlite3-dev libmosquitto-dev libnats-dev libcurl4-openssl-dev libsodium-dev libcrypt-dev)  # C libraries the Swift targets link (libcurl: webhooks, loaded only when a webhook sink is configured; libsodium: the approx stream's HMAC; libcrypt: bcrypt for `locus nats config`)
debian_packages+=(nats-server)  # the NATS cluster of the fleet tier (scripts/nats-cluster.sh, test_nats_*.py)
debian_packages+=(gpsd gpsd-clients)  # gpsd and gpsfake for the gpsd source tests
debian_packages+=(mosquitto mosquitto-clients)  # a real MQTT broker (mosquitto_passwd), mosquitto_pub/_sub for the MQTT sink and OwnTracks tests
debian_packages+=(ca-certificates)  # the CAs webhooks to https:// receivers are checked against
# Doors to other programs (Tests/IntegrationTests/test_phones.py, test_sinks_tls.py, test_metrics.py):
# openssl makes the test CA and certificates, curl speaks the OsmAnd protocol, prometheus scrapes
# locus-metrics and gives promtool.
debian_packages+=(openssl curl prometheus)
debian_packages+=(tzdata)  # the zone rules region activeHours are read in (Foundation TimeZone; ActiveHoursTests)
debian_packages+=(dbus dbus-daemon dbus-bin libnotify-bin libglib2.0-bin)  # dbus-run-session, dbus-monitor, notify-send, gdbus for the desktop sink test
debian_packages+=(iproute2 systemd)  # ip netns for the multi-host test, systemd-analyze for the unit check
debian_packages+=(chromium)  # headless browser for the map page test (Tests/IntegrationTests/test_map_browser.py)
# gpsd's own clients and GeoClue for locus-gpsd's tests (Tests/IntegrationTests/test_gpsd*.py):
# cgps (gpsd-tools) run under tmux, the Python client, GeoClue 2 and its demo client where-am-i.
debian_packages+=(gpsd-tools python3-gps tmux geoclue-2.0 geoclue-2-demo)
debian_packages+=(sqlite3)  # the peer of the cell-import benchmark (locus bench network)
# Storage-fault tests: libfuse 2 under fusepy for the fault-injecting filesystem
# (Tests/IntegrationTests/faultfs.py: read-only, unwritable and failing state directories).
debian_packages+=(libfuse2 mount)  # mount and umount for the small tmpfs and the FUSE filesystem
python_packages=(pyzmq geographiclib shapely pytest jsonschema nats-py fusepy)
python_modules="zmq, geographiclib, shapely, pytest, jsonschema, nats, fuse"

if [ "${1:-}" = "--print-packages" ]; then
    printf 'debian %s\n' "${debian_packages[@]}"
    printf 'python %s\n' "${python_packages[@]}"
    exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
present=()
for pkg in "${debian_packages[@]}"; do
    if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        present+=("$pkg")
    else
        missing+=("$pkg")
    fi
done
echo "install-deps: Debian packages already installed: ${present[*]:-none}" >&2
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: installing Debian packages: ${missing[*]}" >&2
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "install-deps: installing Debian packages: none" >&2
fi

if [ "${LOCUS_SKIP_PIP:-0}" != "1" ]; then
    if python3 -c "import $python_modules" 2>/dev/null; then
        echo "install-deps: Python packages already installed: ${python_packages[*]}" >&2
    else
        echo "install-deps: installing Python test clients: ${python_packages[*]}" >&2
        python3 -m pip install -q "${python_packages[@]}" 2>/dev/null \
            || python3 -m pip install -q --break-system-packages "${python_packages[@]}"
    fi
fi
