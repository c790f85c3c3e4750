public import LocusProtocol

/// One service's view of its storage: whether the last write failed, since when, and when
/// to try again. Every service that keeps state holds one, so a storage fault looks the same
/// everywhere: `degraded` in `health.<service>` with the fault under `storage` in its detail,
/// one `error.<service>` report with code `storage` when an episode begins (not one per
/// failed write), retries on `RetrySchedule`, and `ok` again once a write succeeds.
///
/// A value type with no clock of its own: callers pass the time (wall seconds), so the
/// episode logic is tested without waiting.
public struct StorageGuard: Sendable, Equatable {
    /// The fault of the current episode; nil while writes succeed.
    public private(set) var fault: StorageFault?
    /// When the current episode began (on the clock its first failure was given).
    public private(set) var since: Double?
    public private(set) var schedule: RetrySchedule
    /// Failed writes and episodes since the start, for `health.<service>`.
    public private(set) var failures = 0
    public private(set) var episodes = 0

    public init(schedule: RetrySchedule = RetrySchedule()) {
        self.schedule = schedule
    }

    /// True during an episode.
    public var isFailing: Bool { fault != nil }

    /// Whether a retry may run at `now` (always true outside an episode).
    public func isRetryDue(now: Double) -> Bool { schedule.isDue(now: now) }

    /// Records a failed write at `now` on the retry clock (nil for a write made on another
    /// clock, e.g. message time: the next retry is then due at once). Returns the report to
    /// publish on `error.<service>` when this failure begins an episode, nil while one goes
    /// on (the fault shown in health is updated: a full disk that turns read-only says so).
    /// `holding` says what the service does meanwhile, for that report.
    public mutating func failed(_ fault: StorageFault, now: Double?, holding: String) -> ErrorReport? {
        failures += 1
        if let now { schedule.failed(now: now) }
        let beginning = self.fault == nil
        self.fault = fault
        guard beginning else { return nil }
        since = now
        episodes += 1
        return ErrorReport(code: "storage", message: "\(fault); \(holding) until it can be written again")
    }

    /// Records a successful write; returns whether it ended an episode.
    @discardableResult
    public mutating func succeeded() -> Bool {
        schedule.succeeded()
        guard fault != nil else { return false }
        fault = nil
        since = nil
        return true
    }

    /// `degraded` during an episode.
    public var healthState: HealthState { fault == nil ? .ok : .degraded }

    /// The fault for `health.<service>`'s detail (`storage`), empty outside an episode.
    public var healthDetail: [String: String] {
        guard let fault else { return [:] }
        return ["storage": fault.description]
    }

    /// `storageErrors` and `storageEpisodes` once any write has failed.
    public var counters: [String: Int] {
        failures == 0 ? [:] : ["storageErrors": failures, "storageEpisodes": episodes]
    }
}
