public import LocusService
import LocusProtocol
import LocusStore

/// Durability: what changed is written before the messages reporting it are released,
/// commands are answered only once committed, and a storage episode holds everything.
extension GeofenceLogic {
    /// Writes the held state again when the back-off allows; once it is written the held
    /// messages are released and input is taken again. The database gets ready first: its
    /// log folded back on a full disk, its file put back after its directory was removed.
    public mutating func retryHeld(now: Double) -> [Outbound] {
        guard storage.isFailing, storage.isRetryDue(now: now), let persistence else { return [] }
        do {
            if let fault = storage.fault { try persistence.prepareRetry(after: fault) }
            if pending.isEmpty { try persistence.probe() } else { try persistence.apply(pending) }
        } catch {
            _ = storage.failed(StorageFault.from(error, path: persistence.location), now: now, holding: "")
            return []
        }
        pending.removeAll()
        storage.succeeded()
        return release()
    }

    /// Region events are kept with the state until the transport confirms them: a geofence
    /// killed after committing a crossing and before its event was stored sends the event
    /// at its next start instead of finding the crossing already done.
    public mutating func keepOutputUntilConfirmed(source: String) {
        guard persistence != nil else { return }
        keptSource = source
    }

    /// Holds messages until their state is committed; region events to keep are named now
    /// and written in that same commit.
    mutating func hold(_ out: [Outbound]) {
        guard let source = keptSource else {
            unconfirmed.append(contentsOf: out)
            return
        }
        for var outbound in out {
            if outbound.topic.hasPrefix(Topic.regionEventPrefix) {
                let id = keptIDs.next()
                outbound.id = id
                pending.kept.append(KeptMessage(topic: outbound.topic, message: Message(body: outbound.body, id: id, t: outbound.t, src: source)))
                keptOutstanding = true
            }
            unconfirmed.append(outbound)
        }
    }

    public mutating func keptMessagesConfirmed() {
        guard keptOutstanding else { return }
        keptOutstanding = false
        pending.clearsKept = true
    }

    public mutating func takeUnconfirmedMessages() -> [KeptMessage] {
        defer { unsentKept = [] }
        return unsentKept
    }

    /// Commits the open command group with everything pending before it; its answers then
    /// join the messages to release. If that fails (or an episode is going on) every command
    /// of the group is taken back and answered `region.failed` (`storage`) in `direct`, and
    /// the writes pending before the group stay held.
    mutating func closeCommands(into direct: inout [Outbound]) {
        guard !commands.isEmpty else { return }
        let (base, entries) = commands.take()
        var fault = storage.fault
        if fault == nil, let persistence {
            do { try persistence.apply(pending) } catch {
                fault = StorageFault.from(error, path: persistence.location)
                startEpisode(fault!, t: entries[0].t, into: &direct)
            }
        }
        guard let fault else {
            pending.removeAll()
            for entry in entries {
                if case .regionAdded = entry.answer.body { counters.regionsAdded += 1 } else { counters.regionsRemoved += 1 }
                unconfirmed.append(entry.answer)
            }
            return
        }
        pending = base ?? PersistenceBatch()
        for entry in entries.reversed() {
            switch entry.undo {
            case .remove(let key): store.remove(key)
            case .restore(let region): store.restore(region)
            }
        }
        for entry in entries {
            var failure = entry.failure
            failure.message += ": \(fault)"
            counters.regionsFailed += 1
            direct.append(Outbound(topic: Topic.regionState(failure.owner), body: .regionFailed(failure), t: entry.t))
        }
    }

    /// Writes what changed since the last commit and releases the messages waiting for it;
    /// on failure keeps both, starts an episode and returns its report.
    mutating func commit(t: Double) -> [Outbound] {
        if storage.isFailing { return [] }
        guard !pending.isEmpty, let persistence else {
            pending.removeAll()
            return release()
        }
        do {
            try persistence.apply(pending)
        } catch {
            var report: [Outbound] = []
            startEpisode(StorageFault.from(error, path: persistence.location), t: t, into: &report)
            return report
        }
        pending.removeAll()
        return release()
    }

    mutating func startEpisode(_ fault: StorageFault, t: Double, into out: inout [Outbound]) {
        if let report = storage.failed(fault, now: nil, holding: "holding fixes, commands and events") {
            out.append(Outbound(topic: Topic.error("geofence"), body: .error(report), t: t))
        }
    }

    /// The messages whose state is committed now.
    mutating func release() -> [Outbound] {
        guard !unconfirmed.isEmpty else { return [] }
        defer { unconfirmed.removeAll(keepingCapacity: true) }
        return unconfirmed
    }
}
