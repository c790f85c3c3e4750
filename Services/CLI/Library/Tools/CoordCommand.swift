import Foundation
import LocusBus
import LocusService
import LocusGeo

/// `locus coord`: converts between WGS-84 and the China map datums GCJ-02 and BD-09 at the
/// edge of the system (the bus is always WGS-84), for one point or a stream of lines.
enum CoordCommand {
    static let spec = CommandLineSpec(
        program: "locus coord",
        summary: "convert coordinates between WGS-84, GCJ-02 and BD-09",
        usage: "locus coord [--from DATUM] [--to DATUM] [LAT LON]",
        options: [
            OptionSpec("--from", value: "DATUM", help: "datum of the input: wgs84, gcj02 or bd09", default: "wgs84"),
            OptionSpec("--to", value: "DATUM", help: "datum of the output: wgs84, gcj02 or bd09", default: "gcj02"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: """
        Without LAT LON, reads 'LAT LON' (or 'LAT,LON') lines from stdin and writes one line each.
        Points outside China pass through unchanged. Inverses are iterated to better than 1 cm.
        """)

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        guard let from = MapDatum(rawValue: options.string("--from") ?? "wgs84"),
              let to = MapDatum(rawValue: options.string("--to") ?? "gcj02") else {
            ServiceProgram.usageFailure("locus coord", "datums are wgs84, gcj02 or bd09")
        }
        if !options.positionals.isEmpty {
            guard options.positionals.count == 2 else { ServiceProgram.usageFailure("locus coord", "expected LAT LON") }
            guard let point = parse(options.positionals.joined(separator: " ")) else {
                ServiceProgram.usageFailure("locus coord", "'\(options.positionals.joined(separator: " "))' is not a latitude and longitude in range")
            }
            print(format(from.convert(point, to: to)))
            return 0
        }
        var status: Int32 = 0
        var number = 0
        while let line = readLine() {
            number += 1
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard let point = parse(line) else {
                FileHandle.standardError.write(Data("locus coord: line \(number): '\(line)' is not LAT LON in range\n".utf8))
                status = 65
                continue
            }
            print(format(from.convert(point, to: to)))
        }
        return status
    }

    static func parse(_ text: String) -> Coordinate? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]),
              lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return Coordinate(lat: lat, lon: lon)
    }

    static func format(_ c: Coordinate) -> String {
        String(format: "%.10f %.10f", c.lat, c.lon)
    }
}
