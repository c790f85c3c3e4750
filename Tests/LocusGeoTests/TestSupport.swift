import Foundation
import LocusGeo

/// Paths and helpers shared by the LocusGeo tests.
enum TestSupport {
    /// `Tests/LocusGeoTests/Fixtures`, found from this file so tests run from any directory.
    static let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Rows of a committed CSV fixture as dictionaries keyed by the header.
    static func csvRows(_ name: String) throws -> [[String: String]] {
        let text = try String(contentsOf: fixturesDirectory.appendingPathComponent(name), encoding: .utf8)
        var lines = text.split(separator: "\n").map(String.init)
        let header = lines.removeFirst().split(separator: ",").map(String.init)
        return lines.map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        }
    }

    /// Smallest difference between two angles in degrees, in [0, 180].
    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    /// Runs python3 with a script and stdin; nil when python3 or a module it imports is missing.
    static func runPython(script: String, input: String) throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do { try process.run() } catch { return nil }
        // Write and read on separate threads so neither pipe fills up and blocks the other.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        _ = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: output, as: UTF8.self)
    }
}
