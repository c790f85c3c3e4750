import Foundation

/// Copies the outbox's write-ahead log into the database on its own thread and connection,
/// every `intervalSeconds`. Commits never checkpoint (`wal_autocheckpoint=0`), so the disk
/// flush a checkpoint needs happens here, off the event → notification path; a PASSIVE
/// checkpoint neither blocks the writer nor waits for readers.
final class OutboxCheckpointer: @unchecked Sendable {
    private let directory: URL
    private let intervalSeconds: Double
    private let condition = NSCondition()
    private var stopping = false
    private var exited = true

    init(directory: URL, intervalSeconds: Double = 1) {
        self.directory = directory
        self.intervalSeconds = intervalSeconds
    }

    func start() {
        condition.lock()
        exited = false
        condition.unlock()
        let thread = Thread { [self] in run() }
        thread.name = "outbox-checkpoint"
        thread.start()
    }

    /// Stops the thread after a last checkpoint, waiting up to `timeoutSeconds`.
    func stop(timeoutSeconds: Double) {
        condition.lock()
        stopping = true
        condition.broadcast()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while !exited && condition.wait(until: deadline) {}
        condition.unlock()
    }

    private func run() {
        defer {
            condition.lock()
            exited = true
            condition.broadcast()
            condition.unlock()
        }
        guard let outbox = try? Outbox(directory: directory) else { return }
        while true {
            condition.lock()
            let deadline = Date().addingTimeInterval(intervalSeconds)
            while !stopping && condition.wait(until: deadline) {}
            let stop = stopping
            condition.unlock()
            _ = try? outbox.checkpoint()
            if stop { return }
        }
    }
}
