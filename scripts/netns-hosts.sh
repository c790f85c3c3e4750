#!/usr/bin/env bash
# Three test "hosts" on one machine: network namespaces NAME-a, NAME-b, NAME-c, each with an
# eth0 on a private /24, joined by a bridge that lives in a fourth namespace NAME-sw, so
# nothing is added to the machine's own network stack (its routes, firewall and bridge
# netfilter settings do not apply inside the new namespaces).
#
#   scripts/netns-hosts.sh up NAME [PREFIX]   PREFIX defaults to 10.200.0 (hosts .1 .2 .3)
#   scripts/netns-hosts.sh down NAME          removes every namespace of NAME; missing ones are fine
#
# `up` prints one "host address namespace" line per host. It needs root and iproute2;
# on any failure it removes what it made and exits non-zero. Run a program on a host with
# `ip netns exec NAME-a PROGRAM`.
set -euo pipefail

usage() { echo "usage: $0 up NAME [PREFIX] | down NAME" >&2; exit 64; }
[[ $# -ge 2 ]] || usage
action=$1
name=$2
prefix=${3:-10.200.0}
[[ $name =~ ^[A-Za-z0-9-]{1,10}$ ]] || { echo "$0: NAME must be 1-10 letters, digits or '-'" >&2; exit 64; }
[[ $prefix =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || { echo "$0: PREFIX looks like 10.200.0" >&2; exit 64; }
hosts=(a b c)

down() {
    # Deleting a namespace destroys its interfaces, and a veth goes with its peer.
    local ns
    for ns in "$name-a" "$name-b" "$name-c" "$name-sw"; do
        ip netns delete "$ns" 2>/dev/null || true
    done
}

up() {
    trap 'down; exit 1' ERR
    ip netns add "$name-sw"
    ip -n "$name-sw" link set lo up
    ip -n "$name-sw" link add br0 type bridge forward_delay 0 stp_state 0
    ip -n "$name-sw" link set br0 up
    local index=1 host
    for host in "${hosts[@]}"; do
        ip netns add "$name-$host"
        ip -n "$name-$host" link set lo up
        ip -n "$name-sw" link add "port-$host" type veth peer name eth0 netns "$name-$host"
        ip -n "$name-sw" link set "port-$host" master br0
        ip -n "$name-sw" link set "port-$host" up
        ip -n "$name-$host" addr add "$prefix.$index/24" dev eth0
        ip -n "$name-$host" link set eth0 up
        index=$((index + 1))
    done
    trap - ERR
    index=1
    for host in "${hosts[@]}"; do
        echo "$host $prefix.$index $name-$host"
        index=$((index + 1))
    done
}

case $action in
    up) up ;;
    down) down ;;
    *) usage ;;
esac
