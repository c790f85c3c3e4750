import Foundation
import LocusProvider

/// `locus bench nmea`: sentences per second of our NMEA decoder against Debian's
/// `gpsdecode` on the same bytes, in the same run, so the ratio is comparable
/// across machines. Our figure is the decoder in-process (the provider's real cost);
/// gpsdecode's is the whole process reading a file, its own fastest path.
public enum NMEABench {
    /// Options: `--data DIR` (gpsd logs; default `../shared/data/nmea`, or
    /// `$LOCUS_NMEA_DATA`), `--sentences N` (minimum total, default 1 000 000),
    /// `--gpsdecode PATH`. Returns a process exit status.
    public static func run(arguments: [String]) -> Int32 {
        var dataDirectory = ProcessInfo.processInfo.environment["LOCUS_NMEA_DATA"] ?? "../shared/data/nmea"
        var minimumSentences = 1_000_000
        var gpsdecode: String?
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--data": dataDirectory = value ?? dataDirectory; index += 1
            case "--sentences": minimumSentences = value.flatMap(Int.init) ?? minimumSentences; index += 1
            case "--gpsdecode": gpsdecode = value; index += 1
            case "--help", "-h":
                print("usage: locus bench nmea [--data DIR] [--sentences N] [--gpsdecode PATH]")
                return 0
            default:
                FileHandle.standardError.write(Data("locus bench nmea: unknown argument \(arguments[index])\n".utf8))
                return 64
            }
            index += 1
        }

        guard let (input, sentences) = loadInput(directory: dataDirectory, minimumSentences: minimumSentences) else {
            FileHandle.standardError.write(Data("locus bench nmea: no *.log files in \(dataDirectory)\n".utf8))
            return 66
        }

        let oursSeconds = timeOurDecoder(input)
        var rows = [("Locus NMEADecoder (in-process)", oursSeconds)]
        var ratio: Double?
        if let path = gpsdecode ?? findGpsdecode() {
            if let theirs = timeGpsdecode(path, input) {
                rows.append(("gpsdecode (\(path), whole process)", theirs))
                ratio = theirs / oursSeconds
            }
        } else {
            print("gpsdecode not found: install Debian's gpsd-clients for the comparison")
        }

        print("| decoder | sentences | seconds | sentences/s |")
        print("|---|---:|---:|---:|")
        for (name, seconds) in rows {
            print("| \(name) | \(sentences) | \(String(format: "%.3f", seconds)) | \(String(format: "%.0f", Double(sentences) / seconds)) |")
        }
        let peerSeconds = rows.count > 1 ? rows[1].1 : nil
        BenchRecorder.shared.record(BenchRow(
            name: "NMEA decode", ours: Double(sentences) / oursSeconds, peer: peerSeconds.map { Double(sentences) / $0 },
            peerName: peerSeconds == nil ? "gpsdecode (not installed)" : "gpsdecode (whole process)", unit: "sentences/s",
            goal: .ratioAtLeast(2)))
        if let ratio {
            print("\nratio: \(String(format: "%.2f", ratio))× gpsdecode (goal ≥ 2×)")
        }
        return 0
    }

    /// Concatenates the logs, repeated until at least `minimumSentences` sentence lines.
    static func loadInput(directory: String, minimumSentences: Int) -> (Data, Int)? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.filter { $0.hasSuffix(".log") }.sorted() ?? []
        var once = Data()
        for name in names {
            if let data = FileManager.default.contents(atPath: directory + "/" + name) {
                once.append(data)
                if data.last != 0x0A { once.append(0x0A) }
            }
        }
        let perCopy = once.split(separator: 0x0A).filter { $0.first == 0x24 || $0.first == 0x21 }.count
        guard perCopy > 0 else { return nil }
        let copies = (minimumSentences + perCopy - 1) / perCopy
        var all = Data(capacity: once.count * copies)
        for _ in 0..<copies { all.append(once) }
        return (all, perCopy * copies)
    }

    static func timeOurDecoder(_ input: Data) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        var decoder = NMEADecoder()
        var fixes = 0
        input.withUnsafeBytes { bytes in
            // Feed in 4 KiB reads, as from a file or socket.
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 4096, bytes.count)
                fixes += decoder.feed(bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<end])).count
                offset = end
            }
        }
        fixes += decoder.finish().count
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        precondition(fixes > 0, "decoder produced no fixes")
        return seconds
    }

    static func findGpsdecode() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map { "\($0)/gpsdecode" } + ["/usr/bin/gpsdecode"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `gpsdecode < file > /dev/null` and times the whole process.
    static func timeGpsdecode(_ path: String, _ input: Data) -> Double? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("locus-bench-nmea-\(ProcessInfo.processInfo.processIdentifier).log")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try input.write(to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.standardInput = try FileHandle(forReadingFrom: file)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let start = DispatchTime.now().uptimeNanoseconds
            try process.run()
            process.waitUntilExit()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        } catch {
            return nil
        }
    }
}
