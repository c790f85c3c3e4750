import Foundation
@testable import LocusProvider

/// Finds gpsd's regression logs and runs both decoders over them.
enum NMEALogFixtures {
    /// `../shared/data/nmea` relative to the repository root.
    static var directory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/data/nmea")
    }

    /// Every `NAME.log` that has a `NAME.log.chk` beside it, sorted by name.
    static func logs() throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        return names.filter { $0.hasSuffix(".log") && names.contains($0 + ".chk") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }

    /// Our decoder over a whole file, fed as raw bytes like a serial stream.
    static func decode(_ data: Data) -> (fixes: [NMEAFix], decoder: NMEADecoder) {
        var decoder = NMEADecoder()
        var fixes = data.withUnsafeBytes { decoder.feed(bytes: $0) }
        fixes += decoder.finish()
        return (fixes, decoder)
    }

    static func timedPositions(_ fixes: [NMEAFix]) -> [TimedPosition] {
        fixes.map { fix in
            TimedPosition(timeOfDayMillis: Int((fix.timeOfDay * 1000).rounded()),
                          date: fix.time.map(dateString), lat: fix.lat, lon: fix.lon)
        }
    }

    static func dateString(_ unixSeconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date(timeIntervalSince1970: unixSeconds))
    }

    /// Path of Debian's `gpsdecode`, or nil when gpsd-clients is not installed.
    static var gpsdecodePath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/gpsdecode" } + ["/usr/bin/gpsdecode"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let installHint = "gpsdecode not found: install Debian's gpsd-clients (sudo apt-get install gpsd-clients)"

    /// Runs `gpsdecode < file` and returns its stdout.
    static func runGpsdecode(_ executable: String, on file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.standardInput = try FileHandle(forReadingFrom: file)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
