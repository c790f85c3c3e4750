import Foundation
import LocusBus
import LocusService

/// Starts Locus programs as child processes, restarts any that exit unexpectedly (with
/// a growing back-off), and stops them in reverse start order: the job `locus up` does,
/// and what systemd does in production.
///
/// Like systemd's `RestartPreventExitStatus=`, an exit with a status in
/// `preventRestartStatuses` (64 bad arguments, 78 bad configuration: a mistake, not a crash)
/// is not restarted: the same command would fail the same way for ever.
final class Supervisor: @unchecked Sendable {
    struct Program {
        var name: String
        var executable: String
        var arguments: [String]
        /// False for a job that ends by itself (a replayed route): it is not restarted when it exits 0.
        var restartOnExit = true
    }

    private final class Child {
        let program: Program
        var process: Process?
        var restarts = 0
        var startedAt = 0.0
        var backoff = 0.5
        var restartAt: Double?
        var finished = false
        /// Exited with a status that prevents restarts; left down.
        var givenUp = false
        init(program: Program) { self.program = program }
    }

    let log: ServiceLog
    let environment: [String: String]
    /// How long a child must have run for its exit to count as a new failure rather than
    /// part of a crash loop: its back-off then starts again at 0.5 s.
    var healthyAfterSeconds = 30.0
    /// Exit statuses that mean "misconfigured", after which a program is left down.
    var preventRestartStatuses: Set<Int32> = [64, 78]
    private var children: [Child] = []
    private let wake = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopping = false

    init(log: ServiceLog, environment: [String: String]) {
        self.log = log
        self.environment = environment
    }

    /// The Locus executables installed beside `locus` (or in `directory`), in start order.
    static func installedServices(in directory: String) -> [String] {
        ["locus-bus", "locus-fusion", "locus-geofence", "locus-motion", "locus-notifier"].filter {
            FileManager.default.isExecutableFile(atPath: directory + "/" + $0)
        }
    }

    /// Services `locus up` starts only when asked (`--with`): a gpsd server takes a well-known
    /// port that a real gpsd on the host may hold.
    static let optionalServices = ["locus-gpsd", "locus-metrics"]

    static var ownDirectory: String { ServiceProgram.ownDirectory }

    func start(_ program: Program) throws {
        let child = Child(program: program)
        lock.lock()
        children.append(child)
        lock.unlock()
        try launch(child)
    }

    private func launch(_ child: Child) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: child.program.executable)
        process.arguments = child.program.arguments
        process.environment = environment
        process.terminationHandler = { [weak self] _ in self?.wake.signal() }
        try process.run()
        child.process = process
        child.startedAt = Date().timeIntervalSince1970
        log.info("started \(child.program.name) (pid \(process.processIdentifier))")
    }

    /// Supervises until `stop()`; then terminates every child, last started first.
    func run() {
        while true {
            _ = wake.wait(timeout: .now() + 0.5)
            lock.lock()
            let done = stopping
            lock.unlock()
            if done { break }
            let now = Date().timeIntervalSince1970
            for child in children {
                if let process = child.process, !process.isRunning {
                    if !child.program.restartOnExit && process.terminationStatus == 0 {
                        log.info("\(child.program.name) finished")
                        child.process = nil
                        lock.lock()
                        child.finished = true
                        lock.unlock()
                        continue
                    }
                    let ranFor = now - child.startedAt
                    if process.terminationReason == .exit && preventRestartStatuses.contains(process.terminationStatus) {
                        log.error("\(child.program.name) exited with status \(process.terminationStatus) (\(Self.meaning(process.terminationStatus))): not restarting it; its own error line above says what to fix")
                        child.process = nil
                        lock.lock()
                        child.givenUp = true
                        lock.unlock()
                        continue
                    }
                    if ranFor >= healthyAfterSeconds { child.backoff = 0.5 }
                    log.warn("\(child.program.name) exited (status \(process.terminationStatus)) after \(String(format: "%.1f", ranFor)) s; restarting in \(child.backoff) s")
                    child.process = nil
                    child.restartAt = now + child.backoff
                    child.backoff = min(child.backoff * 2, 30)
                }
                if child.process == nil, let at = child.restartAt, now >= at {
                    child.restartAt = nil
                    child.restarts += 1
                    do { try launch(child) } catch {
                        log.error("cannot restart \(child.program.name): \(error)")
                        child.restartAt = now + child.backoff
                    }
                }
            }
        }
        shutdown()
    }

    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        wake.signal()
    }

    /// SIGTERM to each child in reverse order, waiting up to 5 s for each before SIGKILL.
    private func shutdown() {
        for child in children.reversed() {
            guard let process = child.process, process.isRunning else { continue }
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().timeIntervalSince1970 + 5
            while process.isRunning && Date().timeIntervalSince1970 < deadline { usleep(20_000) }
            if process.isRunning {
                log.warn("\(child.program.name) ignored SIGTERM; killing it")
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            log.info("stopped \(child.program.name) (status \(process.terminationStatus))")
        }
    }

    static func meaning(_ status: Int32) -> String {
        switch status {
        case 64: "bad arguments"
        case 78: "bad configuration"
        default: "a status that prevents restarts"
        }
    }

    /// Programs left down because they exited with a status that prevents restarts.
    var givenUp: [String] {
        lock.lock()
        defer { lock.unlock() }
        return children.filter(\.givenUp).map(\.program.name)
    }

    /// Whether a job started with `restartOnExit: false` has ended successfully.
    func hasFinished(_ name: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return children.first { $0.program.name == name }?.finished ?? false
    }

    var restartCounts: [String: Int] {
        Dictionary(children.map { ($0.program.name, $0.restarts) }, uniquingKeysWith: +)
    }
}
