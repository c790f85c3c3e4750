import Foundation
import Glibc

/// Runs a shell command once and collects its output, bounded in time and size, and
/// stoppable: a scan tool (`iw dev wlan0 scan dump`, `mmcli -m 0 --location-get`) that
/// hangs or floods its output must not take the provider with it.
struct CommandRunner {
    struct Result {
        var output: String
        var errorOutput: String
        /// Exit status, nil when killed (timeout, stop request, signal).
        var status: Int32?
        var timedOut = false
        var truncated = false
    }

    var command: String
    var timeoutSeconds: Double
    var maximumOutputBytes: Int

    /// Runs the command; throws when it cannot be started.
    func run(stop: StopFlag) throws(SourceError) -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw SourceError("cannot run '\(command)': \(error.localizedDescription)")
        }
        var result = Result(output: "", errorOutput: "", status: nil)
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var open = [out.fileHandleForReading.fileDescriptor, err.fileHandleForReading.fileDescriptor]
        let deadline = Date().timeIntervalSince1970 + timeoutSeconds
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            if stop.isRaised || Date().timeIntervalSince1970 > deadline {
                result.timedOut = !stop.isRaised
                process.terminate()
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), 200) > 0 else { continue }
            for entry in fds where entry.revents != 0 {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(entry.fd, $0.baseAddress, $0.count) }
                if count <= 0 {
                    if count == 0 || (errno != EINTR && errno != EAGAIN) { open.removeAll { $0 == entry.fd } }
                    continue
                }
                if entry.fd == out.fileHandleForReading.fileDescriptor {
                    if output.count + count > maximumOutputBytes {
                        result.truncated = true
                        process.terminate()
                        open.removeAll()
                        break
                    }
                    output.append(contentsOf: chunk[0..<count])
                } else if errors.count < 4096 {
                    errors.append(contentsOf: chunk[0..<min(count, 4096 - errors.count)])
                }
            }
        }
        process.waitUntilExit()
        if process.terminationReason == .exit, !result.timedOut, !result.truncated { result.status = process.terminationStatus }
        result.output = String(decoding: output, as: UTF8.self)
        result.errorOutput = String(decoding: errors, as: UTF8.self)
        return result
    }
}
