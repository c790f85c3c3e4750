import Foundation

/// Runs a command per notification with the JSON on stdin and the fields in `LOCUS_*`
/// environment variables — the counterpart of iOS relaunching an app for a region event.
/// Exit status 0 is delivered, 75 (EX_TEMPFAIL) or a timeout asks for a retry, anything
/// else fails this notification.
public final class ExecSink: NotificationSink {
    public let name: String
    public let command: String
    public let timeoutSeconds: Double

    public init(name: String = "exec", command: String, timeoutSeconds: Double = 30) {
        self.name = name
        self.command = command
        self.timeoutSeconds = timeoutSeconds
    }

    public func deliver(_ record: NotificationRecord) -> DeliveryOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(record.environment) { $1 }
        let input = Pipe()
        process.standardInput = input
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do { try process.run() } catch {
            return .retry("cannot start /bin/sh: \(error.localizedDescription)")
        }
        // The command may not read stdin; a closed pipe must not kill the notifier.
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: record.json())
        try? input.fileHandleForWriting.close()
        if finished.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            return .retry("'\(command)' ran longer than \(timeoutSeconds) s and was killed")
        }
        switch (process.terminationReason, process.terminationStatus) {
        case (.exit, 0): return .delivered
        case (.exit, 75): return .retry("'\(command)' asked for a retry (exit 75)")
        case (.exit, let status): return .failed("'\(command)' exited with status \(status)")
        case (_, let signal): return .retry("'\(command)' was killed by signal \(signal)")
        }
    }
}
