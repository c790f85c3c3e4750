import Foundation
import LocusService

/// Copies the outbox's write-ahead log into the database on its own thread and connection.
/// Commits never checkpoint (`wal_autocheckpoint=0`), so the disk flushes a checkpoint needs
/// happen here, off the event → notification path; a PASSIVE checkpoint neither blocks the
/// writer nor waits for readers. It runs when the writer reports a log of `thresholdFrames`
/// or more (`logGrew`), or every `intervalSeconds` at the latest, and at most once per
/// `spacingSeconds`. The writer's first commit after a complete checkpoint restarts the log
/// and flushes its header (tens of milliseconds on a busy disk, measured), so the threshold is
/// high: 4096 frames (16 MB) is a few hundred events between flushes.
///
/// Under a flood a passive checkpoint never catches up: the writer commits again before it
/// has copied everything, so the log is never complete and never restarts, and the file grew
/// by about 26 KB per event (80 MB for 3 000 events, measured). At `limitFrames` the
/// checkpoint therefore truncates instead: it holds writers back until the log is copied and
/// readers have left it, then empties the file. That bounds the log near `limitFrames`
/// whatever the flood's length, for one short pause on the event path per `limitFrames`.
/// The thread, its stop and its lock (which also guards `due` and `reportedFrames`) are a
/// `WorkerThread`.
final class OutboxCheckpointer: @unchecked Sendable {
    private let directory: URL
    private let thresholdFrames: Int
    private let limitFrames: Int
    private let intervalSeconds: Double
    private let spacingSeconds: Double
    private let thread = WorkerThread(name: "outbox-checkpoint")
    private var due = false
    /// The log's frame count at the writer's last commit.
    private var reportedFrames = 0

    init(directory: URL, thresholdFrames: Int = 4_096, limitFrames: Int = 8_192, intervalSeconds: Double = 300,
         spacingSeconds: Double = 1) {
        self.directory = directory
        self.thresholdFrames = thresholdFrames
        self.limitFrames = max(thresholdFrames, limitFrames)
        self.intervalSeconds = intervalSeconds
        self.spacingSeconds = spacingSeconds
    }

    func start() {
        thread.start { [self] in run() }
    }

    /// The writer's commit hook: the log now holds `frames` frames.
    func logGrew(to frames: Int) {
        guard frames >= thresholdFrames else { return }
        thread.locked {
            let overLimit = frames >= limitFrames && reportedFrames < limitFrames
            reportedFrames = frames
            if !due || overLimit {
                due = true
                thread.broadcastLocked()
            }
        }
    }

    /// Stops the thread after a last checkpoint that also empties the log file (the sink
    /// workers have stopped by then), waiting up to `timeoutSeconds`.
    func stop(timeoutSeconds: Double) {
        thread.stop(timeoutSeconds: timeoutSeconds)
    }

    private func run() {
        guard let outbox = try? Outbox(directory: directory) else { return }
        while true {
            let (stop, truncating) = thread.locked {
                let deadline = Date().addingTimeInterval(intervalSeconds)
                while !thread.stopRequested && !due && thread.waitLocked(until: deadline) {}
                return (thread.stopRequested, thread.stopRequested || reportedFrames >= limitFrames)
            }
            outbox.reopenIfMoved()
            let done = (try? outbox.checkpoint(truncating: truncating)) != nil
            if stop { return }
            // The log keeps its frame count until the writer restarts it, so commits in the
            // meantime report it as big still: let them coalesce instead of re-checkpointing,
            // unless the log passes the limit meanwhile.
            thread.locked {
                if truncating && done { reportedFrames = 0 }
                let quiet = Date().addingTimeInterval(spacingSeconds)
                while !thread.stopRequested && reportedFrames < limitFrames && thread.waitLocked(until: quiet) {}
                due = reportedFrames >= limitFrames
            }
        }
    }
}
