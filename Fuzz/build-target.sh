#!/usr/bin/env bash
# Builds one libFuzzer target and prints the path of the binary.
# Usage: Fuzz/build-target.sh TARGET   (nmea, codec, region, gpx, config, gpsd, network, phones, seedgen)
#
# SwiftPM cannot build with -sanitize=fuzzer, so each target is compiled by swiftc as one
# module: the product sources it exercises plus its entry file. Project-module imports
# (`import LocusProtocol`, ...) are dropped from a staged copy of the sources, so the code
# under test is instrumented for coverage exactly as it is written.
# FUZZ_SANITIZE overrides the sanitizers (default fuzzer,address).
set -euo pipefail
target="${1:?usage: build-target.sh TARGET}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build/fuzz-$target"
sanitize="${FUZZ_SANITIZE:-fuzzer,address}"
protocol=$(find "$root/Shared/LocusProtocol" -name '*.swift' | sort)
geo=$(find "$root/Shared/LocusGeo" -name '*.swift' | sort)
nmea=$(find "$root/Services/Provider/Library/NMEA" -name '*.swift' | sort)

case "$target" in
    nmea)    sources="$nmea" ;;
    codec)   sources="$protocol" ;;
    region)  sources="$protocol $geo" ;;
    gpx)     sources="$protocol $geo $nmea $(find "$root/Services/Provider/Library/GPX" -name '*.swift' | sort)
                      $root/Services/Provider/Library/Core/FixMapping.swift" ;;
    config)  sources="$root/Shared/LocusService/CommandLineOptions.swift" ;;
    gpsd)    sources="$protocol $(find "$root/Services/Gpsd/Library" -name '*.swift' ! -name GpsdLogic.swift | sort)" ;;
    network) sources="$(find "$root/Services/Provider/Library/Network/Scan" -name '*.swift' | sort)
                      $root/Services/Provider/Library/Network/Import/OpenCellIDRow.swift
                      $root/Services/Provider/Library/Network/Import/CSVNumber.swift" ;;
    phones)  sources="$protocol $(find "$root/Shared/LocusNet/HTTP" -name '*.swift' | sort)
                      $(find "$root/Services/Provider/Library/Phones" -name '*.swift' ! -name PhoneIntake.swift ! -name DeviceTokens.swift | sort)
                      $root/Services/Provider/Library/GPX/ISO8601Time.swift $root/Services/Provider/Library/NMEA/NMEACivilDate.swift" ;;
    seedgen) sources="$protocol"; sanitize="" ;;
    *) echo "unknown fuzz target '$target' (nmea, codec, region, gpx, config, gpsd, network, phones, seedgen)" >&2; exit 64 ;;
esac
case "$target" in
    nmea) entry="$root/Fuzz/NMEAFuzz" ;;
    seedgen) entry="$root/Fuzz/SeedGen" ;;
    *) entry="$root/Fuzz/$(echo "${target:0:1}" | tr a-z A-Z)${target:1}Fuzz" ;;
esac
[ "$target" = gpx ] && entry="$root/Fuzz/GPXFuzz"

# A private staging directory and an atomic rename let two runs build the same target at once.
staged="$work/src-$$"
rm -rf "$staged"
mkdir -p "$staged"
for file in $sources "$entry"/*.swift; do
    # Flattened names stay unique (Codec/JSONWriter.swift -> Codec_JSONWriter.swift).
    name="${file#"$root"/}"
    sed -E '/^(public |internal )?import (LocusProtocol|LocusGeo|LocusBus|LocusService|LocusProvider|LocusNet)$/d' \
        "$file" > "$staged/${name//\//_}"
done

flags=(-parse-as-library -O -g -module-name "Fuzz${target}")
[ -n "$sanitize" ] && flags+=(-sanitize="$sanitize")
# gold warns once per ASan helper symbol; those lines are noise, everything else is shown.
rm -f "$work/$target-fuzz.$$"
swiftc "${flags[@]}" "$staged"/*.swift -o "$work/$target-fuzz.$$" 2>&1 | grep -v "Cannot export local symbol" >&2 || true
rm -rf "$staged"
[ -x "$work/$target-fuzz.$$" ] || { echo "build of $target failed" >&2; exit 1; }
mv -f "$work/$target-fuzz.$$" "$work/$target-fuzz"
echo "$work/$target-fuzz"
