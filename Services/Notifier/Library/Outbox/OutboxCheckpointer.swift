import Foundation

/// Copies the outbox's write-ahead log into the database on its own thread and connection.
/// Commits never checkpoint (`wal_autocheckpoint=0`), so the disk flushes a checkpoint needs
/// happen here, off the event → notification path; a PASSIVE checkpoint neither blocks the
/// writer nor waits for readers. It runs when the writer reports a log of `thresholdFrames`
/// or more (`logGrew`), or every `intervalSeconds` at the latest.
final class OutboxCheckpointer: @unchecked Sendable {
    private let directory: URL
    private let thresholdFrames: Int
    private let intervalSeconds: Double
    private let condition = NSCondition()
    private var stopping = false
    private var exited = true
    private var due = false

    init(directory: URL, thresholdFrames: Int = 1_000, intervalSeconds: Double = 60) {
        self.directory = directory
        self.thresholdFrames = thresholdFrames
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

    /// The writer's commit hook: the log now holds `frames` frames.
    func logGrew(to frames: Int) {
        guard frames >= thresholdFrames else { return }
        condition.lock()
        if !due {
            due = true
            condition.broadcast()
        }
        condition.unlock()
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
            while !stopping && !due && condition.wait(until: deadline) {}
            due = false
            let stop = stopping
            condition.unlock()
            _ = try? outbox.checkpoint()
            if stop { return }
        }
    }
}
