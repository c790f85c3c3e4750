#!/usr/bin/env bash
# Installs Locus as systemd services: binaries, a `locus` system user, units, example
# configs (never overwriting existing ones) and docs. Run from a checkout as root:
#   sudo deploy/install.sh [--prefix /usr/local] [--no-build] [--enable]
set -euo pipefail
prefix=/usr/local
build=1
enable=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --enable) enable=1; shift ;;
        -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root" >&2; exit 77; }
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "$build" = 1 ]; then
    bash scripts/install-deps.sh
    swift build -c release
fi
bin="$(swift build -c release --show-bin-path)"
install -d "$prefix/bin" "$prefix/share/doc/locus" /etc/locus /etc/systemd/system
for program in locus locus-bench locus-bus locus-provider locus-fusion locus-geofence locus-motion locus-notifier locus-gpsd; do
    [ -x "$bin/$program" ] && install -m 0755 "$bin/$program" "$prefix/bin/$program"
done
id locus >/dev/null 2>&1 || useradd --system --home-dir /var/lib/locus --shell /usr/sbin/nologin locus
install -d -o locus -g locus -m 0700 /var/lib/locus
for unit in deploy/systemd/*; do
    sed "s#/usr/local/bin/#$prefix/bin/#g" "$unit" > "/etc/systemd/system/$(basename "$unit")"
done
for config in deploy/config/*; do
    target="/etc/locus/$(basename "$config")"
    [ -e "$target" ] || install -m 0640 -g locus "$config" "$target"
done
install -m 0644 README.md docs/*.md "$prefix/share/doc/locus/"
systemctl daemon-reload 2>/dev/null || true
if [ "$enable" = 1 ]; then systemctl enable --now locus.target; fi
echo "installed into $prefix; configs in /etc/locus; start with: systemctl enable --now locus.target"
