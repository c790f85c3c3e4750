import Foundation
import Glibc
import LocusBus
import LocusService
import LocusProtocol

/// `locus bench resources`: resident memory and CPU of every service at 1 Hz input — the
/// cost of leaving Locus running on a small gateway. The stack runs on a private bus with
/// a simulated provider publishing one fix per second through fusion, geofence, motion and
/// the notifier; each process is read from /proc twice, `--seconds` apart. The peer is
/// gpsd fed one NMEA epoch per second over UDP, read the same way.
enum ResourceBench {
    static let spec = CommandLineSpec(
        program: "locus bench resources",
        summary: "RSS and CPU of each service at 1 Hz input, beside gpsd",
        usage: "locus bench resources [--seconds S] [--warmup S]",
        options: [
            OptionSpec("--seconds", value: "S", help: "measuring window", default: "20"),
            OptionSpec("--warmup", value: "S", help: "time after start before the window opens", default: "5"),
            OptionSpec("--data", value: "DIR", help: "gpsd logs for the gpsd peer", environment: "LOCUS_NMEA_DATA",
                       default: "../shared/data/nmea"),
            OptionSpec("--help", help: "print this help and exit"),
        ],
        footer: "Needs the Locus services beside locus; gpsd (Debian's gpsd) for the peer.")

    static let rssGoalMegabytes = 20.0
    static let cpuGoalPercent = 1.0

    struct Usage: Equatable {
        var name: String
        var rssMegabytes: Double
        var cpuPercent: Double
        /// Proportional set size: shared pages (libc, libzmq, the page cache of a binary)
        /// divided among the processes mapping them — what this service adds beside the others.
        var pssMegabytes: Double?
    }

    static func run(_ arguments: [String]) -> Int32 {
        let options = ServiceProgram.parseOrExit(spec, arguments: arguments)
        let seconds, warmup: Double
        do {
            seconds = try options.double("--seconds") ?? 20
            warmup = try options.double("--warmup") ?? 5
        } catch { ServiceProgram.usageFailure("locus bench resources", error.message) }
        let dataDirectory = options.string("--data") ?? "../shared/data/nmea"
        let usages: [Usage]
        let peer: Usage?
        do {
            (usages, peer) = try measure(seconds: seconds, warmup: warmup, nmeaDirectory: dataDirectory)
        } catch {
            FileHandle.standardError.write(Data("locus bench resources: \(error)\n".utf8))
            return 1
        }
        print("Resources at 1 Hz input, \(Int(seconds)) s window after \(Int(warmup)) s warm-up (goals ≤ 20 MB, ≤ 1 % CPU)\n")
        print("| process | RSS (MB) | PSS (MB) | CPU (%) |")
        print("|---|---:|---:|---:|")
        for usage in usages + (peer.map { [$0] } ?? []) {
            let pss = usage.pssMegabytes.map { String(format: "%.1f", $0) } ?? "?"
            print(String(format: "| %@ | %.1f | %@ | %.2f |", usage.name, usage.rssMegabytes, pss, usage.cpuPercent))
        }
        let peerName = peer?.name ?? "gpsd (not installed)"
        for usage in usages {
            BenchRecorder.shared.record(BenchRow(name: "\(usage.name) RSS at 1 Hz", ours: usage.rssMegabytes, peer: peer?.rssMegabytes,
                                                 peerName: peerName, unit: "MB", goal: .atMost(rssGoalMegabytes)))
        }
        for usage in usages {
            BenchRecorder.shared.record(BenchRow(name: "\(usage.name) CPU at 1 Hz", ours: usage.cpuPercent, peer: peer?.cpuPercent,
                                                 peerName: peerName, unit: "%", goal: .atMost(cpuGoalPercent)))
        }
        return 0
    }

    static func measure(seconds: Double, warmup: Double, nmeaDirectory: String) throws -> ([Usage], Usage?) {
        let stack = BenchStack(tag: "resources")
        defer { stack.stop() }
        try stack.start("locus-bus", ["--log-level", "warn"])
        try stack.start("locus-fusion", ["--log-level", "warn"])
        try stack.start("locus-geofence", ["--default-authorization", "always", "--log-level", "warn"])
        try stack.start("locus-motion", ["--log-level", "warn"])
        try stack.start("locus-notifier", ["--sink", "jsonl:\(stack.directory)/notifications.jsonl",
                                           "--state", stack.directory + "/notifier", "--log-level", "warn"])
        try stack.start("locus-provider", ["sim", "--waypoints", "45.0,7.0;45.004,7.0;45.004,7.006;45.0,7.006", "--loop",
                                           "--hz", "1", "--mps", "15", "--device-id", "res", "--log-level", "warn"])
        // A region on the simulated route, so the geofence and the notifier have work.
        let context = ZMQContext()
        let publisher = try BusPublisher(context: context, endpoint: stack.endpoints.pub, source: "bench/resources")
        defer { publisher.socket.close() }
        if try publisher.waitUntilConnected(timeoutSeconds: 10) {
            _ = try publisher.publish(.regionAdd(RegionAdd(owner: "bench", region: Region(
                id: "corner", shape: .circle(center: GeoPoint(lon: 7.0, lat: 45.004), radius: 150)))),
                topic: Topic.regionCmd, t: Date().timeIntervalSince1970)
        }
        let gpsd = GpsdPeer(directory: stack.directory, nmeaDirectory: nmeaDirectory)
        defer { gpsd?.stop() }

        Thread.sleep(forTimeInterval: warmup)
        let processes = stack.children.map { (name: $0.name, pid: $0.process.processIdentifier) }
            + (gpsd.map { [(name: "gpsd \($0.version) (NMEA over UDP)", pid: $0.process.processIdentifier)] } ?? [])
        let before = processes.map { ProcSample.read(pid: $0.pid) }
        let windowStart = Date().timeIntervalSince1970
        let end = windowStart + seconds
        while Date().timeIntervalSince1970 < end {
            gpsd?.sendEpoch()
            Thread.sleep(forTimeInterval: min(1, max(0, end - Date().timeIntervalSince1970)))
        }
        let wall = Date().timeIntervalSince1970 - windowStart
        var usages: [Usage] = []
        for (index, process) in processes.enumerated() {
            guard let first = before[index], let last = ProcSample.read(pid: process.pid) else {
                throw BenchFailure("\(process.name) (pid \(process.pid)) exited during the run")
            }
            usages.append(Usage(name: process.name, rssMegabytes: Double(last.rssKilobytes) / 1024,
                                cpuPercent: last.cpuPercent(since: first, wallSeconds: wall),
                                pssMegabytes: ProcSample.readPssKilobytes(pid: process.pid).map { Double($0) / 1024 }))
        }
        let peer = gpsd == nil ? nil : usages.removeLast()
        return (usages, peer)
    }
}

/// One reading of a process from /proc: resident memory and CPU time so far.
struct ProcSample: Equatable {
    var rssKilobytes: Int
    /// utime + stime, in clock ticks.
    var cpuTicks: Int

    /// `Pss` from /proc/PID/smaps_rollup, in kB; nil where the kernel does not offer it.
    static func readPssKilobytes(pid: Int32) -> Int? {
        (try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8)).flatMap(parsePss)
    }

    static func parsePss(rollup: String) -> Int? {
        guard let line = rollup.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }) else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }

    /// `VmHWM` (peak resident memory) from /proc/PID/status, in kB.
    static func readPeakKilobytes(pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }

    static func read(pid: Int32) -> ProcSample? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return parse(status: status, stat: stat)
    }

    /// Reads `VmRSS` from /proc/PID/status and utime + stime (fields 14 and 15) from
    /// /proc/PID/stat; the command name in stat may hold spaces and parentheses, so fields
    /// are counted from the last `)`.
    static func parse(status: String, stat: String) -> ProcSample? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let rss = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) }),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (state), so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let utime = Int(fields[11]), let stime = Int(fields[12]) else { return nil }
        return ProcSample(rssKilobytes: rss, cpuTicks: utime + stime)
    }

    /// CPU used since `earlier`, as a percentage of one core over `wallSeconds`.
    func cpuPercent(since earlier: ProcSample, wallSeconds: Double, ticksPerSecond: Double = Double(sysconf(Int32(_SC_CLK_TCK)))) -> Double {
        guard wallSeconds > 0, ticksPerSecond > 0 else { return .nan }
        return Double(cpuTicks - earlier.cpuTicks) / ticksPerSecond / wallSeconds * 100
    }
}

/// gpsd in the foreground reading NMEA from a UDP port that this process feeds: one RMC
/// and one GGA sentence per `sendEpoch()`, taken in turn from the project's NMEA logs.
final class GpsdPeer {
    let process: Process
    let version: String
    private let socketFD: Int32
    private var address = sockaddr_in()
    private var epochs: [[String]]
    private var next = 0

    init?(directory: String, nmeaDirectory: String) {
        guard let path = ["/usr/sbin/gpsd", "/usr/local/sbin/gpsd", "/usr/bin/gpsd"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        epochs = Self.loadEpochs(nmeaDirectory)
        guard !epochs.isEmpty else { return nil }
        let port = UInt16(20_000 + Int(getpid()) % 20_000)
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-N", "-n", "-b", "-F", directory + "/gpsd.sock", "-S", String(port + 1), "udp://127.0.0.1:\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        version = Self.version(path)
        socketFD = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        guard socketFD >= 0, (try? process.run()) != nil else { return nil }
    }

    deinit { close(socketFD) }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    func sendEpoch() {
        for sentence in epochs[next % epochs.count] {
            let bytes = Array((sentence + "\r\n").utf8)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socketFD, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        next += 1
    }

    /// RMC + GGA pairs from the logs: what a 1 Hz receiver sends each second.
    private static func loadEpochs(_ directory: String) -> [[String]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.filter { $0.hasSuffix(".log") }.sorted() ?? []
        var epochs: [[String]] = []
        for name in names {
            guard let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8) else { continue }
            var pending: String?
            for line in text.split(whereSeparator: \.isNewline) {
                let sentence = String(line)
                if sentence.hasPrefix("$GPRMC") { pending = sentence }
                if sentence.hasPrefix("$GPGGA"), let rmc = pending {
                    epochs.append([rmc, sentence])
                    pending = nil
                }
            }
            if epochs.count >= 600 { break }
        }
        return epochs
    }

    private static func version(_ path: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-V"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        guard (try? process.run()) != nil else { return "?" }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
    }
}
