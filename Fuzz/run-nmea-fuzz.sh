#!/usr/bin/env bash
# Fuzzes the NMEA decoder alone. Usage: Fuzz/run-nmea-fuzz.sh [SECONDS]   (default 30)
exec "$(dirname "$0")/run-all.sh" "${1:-30}" nmea
