import Foundation
import LocusService

/// A private three-node NATS cluster for one bench run: `scripts/nats-cluster.sh` on free
/// loopback ports, in a temporary directory, taken down at the end.
final class NATSBenchCluster {
    let directory: String
    let endpoint: String
    private let environment: [String: String]
    private let script: String

    /// `LOCUS_NATS_CLUSTER_SCRIPT`, else the repository's script above the build directory.
    static var scriptPath: String {
        if let path = ProcessInfo.processInfo.environment["LOCUS_NATS_CLUSTER_SCRIPT"] { return path }
        var directory = URL(fileURLWithPath: ServiceProgram.ownDirectory)
        for _ in 0..<5 {
            directory.deleteLastPathComponent()
            let candidate = directory.appendingPathComponent("scripts/nats-cluster.sh").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return "scripts/nats-cluster.sh"
    }

    init(tag: String, fusedPartitions: Int = 3) throws {
        script = Self.scriptPath
        guard FileManager.default.fileExists(atPath: script) else {
            throw GeofenceBusRun.BenchError("\(script) not found (run from the repository's build, or set LOCUS_NATS_CLUSTER_SCRIPT)")
        }
        directory = NSTemporaryDirectory() + "locus-bench-nats-\(tag)-\(getpid())"
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_NATS_PORT"] = String(try Self.freePortBase())
        environment["LOCUS_NATS_FUSED_PARTITIONS"] = String(fusedPartitions)
        environment.removeValue(forKey: "LOCUS_NATS_AUTH")
        self.environment = environment
        let (status, output) = Self.run(script, ["up", directory], environment)
        guard status == 0 else { throw GeofenceBusRun.BenchError("nats-cluster.sh up failed: \(output)") }
        endpoint = output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The nodes' process ids (n1, n2, n3).
    var pids: [Int32] {
        (1...3).compactMap { node in
            (try? String(contentsOfFile: "\(directory)/n\(node)/pid", encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    func down() {
        _ = Self.run(script, ["down", directory], environment)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs the script and returns its exit status and output, read to its end: the servers it
    /// starts in the background must not inherit the output pipe.
    private static func run(_ script: String, _ arguments: [String], _ environment: [String: String]) -> (Int32, String) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return (127, "cannot make a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        // Neither end stays open in the script: the servers it starts would hold the pipe open for ever.
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let argv = (["/bin/bash", script] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { return (127, "cannot run \(script): \(String(cString: strerror(spawned)))") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, String(decoding: output, as: UTF8.self))
    }

    /// A client port P with P…P+2, P+2000… (routes) and P+4000… (monitoring) free on loopback.
    static func freePortBase() throws -> Int {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let base = Int.random(in: 30_000..<35_000, using: &generator)
            let ports = [0, 2000, 4000].flatMap { offset in (0..<3).map { base + offset + $0 } }
            if ports.allSatisfy(isFree) { return base }
        }
        throw GeofenceBusRun.BenchError("no free port range for a NATS cluster")
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
