#!/usr/bin/env bash
# Installs the Debian packages and Python test clients Locus needs, only when missing.
# Used by `make demo`, `make test` and CI; needs root or sudo for apt-get.
set -euo pipefail

debian_packages=(libzmq3-dev libsqlite3-dev gpsd gpsd-clients libmosquitto-dev mosquitto dbus libnotify-bin libglib2.0-bin)
debian_packages+=(iproute2 systemd)  # ip netns for the multi-host test, systemd-analyze for the unit check
debian_packages+=(chromium)  # headless browser for the map page test (Tests/IntegrationTests/test_map_browser.py)
debian_packages+=(sqlite3)  # the peer of the cell-import benchmark (locus bench network)
python_packages=(pyzmq geographiclib shapely pytest jsonschema)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for pkg in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}" >&2
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${LOCUS_SKIP_PIP:-0}" != "1" ]; then
    need_pip=0
    python3 -c "import zmq, geographiclib, shapely, pytest, jsonschema" 2>/dev/null || need_pip=1
    if [ "$need_pip" = 1 ]; then
        echo "install-deps: installing Python test clients ${python_packages[*]}" >&2
        python3 -m pip install -q "${python_packages[@]}" 2>/dev/null \
            || python3 -m pip install -q --break-system-packages "${python_packages[@]}"
    fi
fi
