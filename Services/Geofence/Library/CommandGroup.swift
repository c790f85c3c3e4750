import LocusService
import LocusProtocol

/// Region commands applied in memory but not yet committed: consecutive `region.add` and
/// `region.remove` commands share one commit, made before anything else is handled (a fix,
/// a query) and at the end of a batch, so a bulk load costs one commit and no fix is ever
/// evaluated against a region that might not be stored. Until the commit their answers wait
/// here; if it fails, `undo` puts every region back as it was, newest first, and `failures`
/// answer each command with `region.failed` code `storage` instead.
struct CommandGroup {
    /// How to take one command back out of the region store.
    enum Undo {
        /// Remove `key` (it was added new), or put `previous` back (it was replaced or removed).
        case remove(RegionKey)
        case restore(MonitoredRegion)
    }

    struct Entry {
        var undo: Undo
        var answer: Outbound
        var failure: RegionFailed
        var t: Double
    }

    /// The writes pending before the group's first command: what stays pending if it fails.
    private(set) var base: PersistenceBatch?
    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Records one command, with `pending` as it was before the command wrote to it.
    mutating func append(_ entry: Entry, pendingBefore: PersistenceBatch) {
        if base == nil { base = pendingBefore }
        entries.append(entry)
    }

    /// Empties the group, returning its entries.
    mutating func take() -> (base: PersistenceBatch?, entries: [Entry]) {
        defer {
            base = nil
            entries.removeAll(keepingCapacity: true)
        }
        return (base, entries)
    }
}
