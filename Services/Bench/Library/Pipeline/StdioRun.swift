import Foundation
import Glibc

/// One run of a service in `--stdio` mode with a file as its input: the wall time and the
/// CPU time (user + system, from the child's own resource usage) it took, for benchmarks
/// that compare services on the same input.
struct StdioRun {
    var wallSeconds: Double
    var cpuSeconds: Double

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `program` with `arguments`, stdin from `input`, stdout to `output` (default
    /// /dev/null), stderr to /dev/null; fails when it cannot start or exits non-zero.
    static func run(_ program: String, _ arguments: [String], input: String, output: String = "/dev/null") throws -> StdioRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = Date().timeIntervalSince1970
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start \(program): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw Failure(description: "waiting for \(program): \(String(cString: strerror(errno)))") }
        }
        let wall = Date().timeIntervalSince1970 - started
        // Exited normally with status 0: the low seven bits (the signal) and the status byte are zero.
        guard status & 0xFFFF == 0 else { throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed (wait status \(status))") }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return StdioRun(wallSeconds: wall, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }

    /// Writes text-form lines (`topic body`) to `path`.
    static func write(_ frames: [(topic: String, body: [UInt8])], to path: String) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames.count * 320)
        for frame in frames {
            bytes.append(contentsOf: frame.topic.utf8)
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: frame.body)
            bytes.append(UInt8(ascii: "\n"))
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw Failure(description: "cannot write \(path)")
        }
    }
}

/// The middle value of a sample (the mean of the two middle ones for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
