import LocusService
import LocusProtocol
import LocusStore

/// One event as the notifier received it, kept to be routed again.
struct ReceivedEvent {
    var message: Message
    var topic: String
    /// The time it was received at (the replay point it moves).
    var now: Double
}

/// What the notifier holds back when the outbox cannot be written, and the batch it has not
/// committed yet. Events whose commit failed wait here, oldest first, until `retryHeld` routes
/// them again (input is refused meanwhile); a batch (`commitsOnFlush`) keeps the routing state
/// from before its first write, its events and its output, so a failed batch commit is undone
/// and held exactly as failed per-event commits are: nothing lost, nothing published before
/// its commit, nothing twice.
struct EventHold {
    private(set) var storage = StorageGuard()
    /// Events to route again, oldest first.
    private(set) var held: [ReceivedEvent] = []
    private(set) var batch: OpenBatch?

    struct OpenBatch {
        /// Routing as it was before the batch's first write.
        var router: EventRouter
        var events: [ReceivedEvent] = []
        /// What the batch's events publish once it is committed.
        var output: [Outbound] = []
    }

    /// True during a storage episode: new events are held behind the failed ones.
    var isFailing: Bool { storage.isFailing }

    mutating func hold(_ event: ReceivedEvent) {
        held.append(event)
    }

    /// Starts the batch bookkeeping with the routing state its writes may change.
    mutating func open(router: EventRouter) {
        batch = OpenBatch(router: router)
    }

    /// An event routed into the open batch, with what it publishes after the commit.
    mutating func add(_ event: ReceivedEvent?, output: [Outbound]) {
        if let event { batch?.events.append(event) }
        batch?.output += output
    }

    /// The batch is committed: its output, to publish now.
    mutating func committed() -> [Outbound] {
        defer { batch = nil }
        return batch?.output ?? []
    }

    /// A write or the commit of the open batch failed (its writes are rolled back by the
    /// caller): its events, then `event`, are held; returns the routing state to put back and
    /// the report that begins the episode, if it does.
    mutating func batchFailed(_ fault: StorageFault, adding event: ReceivedEvent? = nil) -> (router: EventRouter?, report: ErrorReport?) {
        let open = batch
        batch = nil
        held.insert(contentsOf: open?.events ?? [], at: 0)
        if let event { held.append(event) }
        return (open?.router, storage.failed(fault, now: nil, holding: "holding events"))
    }

    /// One event's commit failed: it is held; the report that begins the episode, if it does.
    mutating func failed(_ event: ReceivedEvent, _ fault: StorageFault) -> ErrorReport? {
        held.append(event)
        return storage.failed(fault, now: nil, holding: "holding events")
    }

    /// A write that holds no event failed (merged bursts): the report that begins the episode, if it does.
    mutating func writeFailed(_ fault: StorageFault) -> ErrorReport? {
        storage.failed(fault, now: nil, holding: "holding events")
    }

    /// Whether held events may be routed again at `now` (wall clock): during an episode, once
    /// the back-off allows.
    func isRetryDue(now: Double) -> Bool {
        storage.isFailing && storage.isRetryDue(now: now)
    }

    /// A retry failed at `now`: the back-off grows.
    mutating func retryFailed(_ fault: StorageFault, now: Double) {
        _ = storage.failed(fault, now: now, holding: "")
    }

    /// The first `count` held events were routed; when none is left the episode ends.
    mutating func retried(_ count: Int) {
        held.removeFirst(count)
        if held.isEmpty { storage.succeeded() }
    }
}
