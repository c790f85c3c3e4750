/// When each device next needs the motion tick (a pause or a degradation step falling due),
/// so a tick looks only at the devices whose time has come instead of at every device: with
/// a fleet and `--stdio` (a tick after every line) scanning all of them per fix was quadratic.
///
/// A min-heap of times, each device queued at most once at its earliest time. Moving a
/// device's due time later (every good fix does) only records the new time; the queued
/// entry, found early when it comes up, is queued again at the recorded time.
struct TickSchedule: Sendable {
    private struct Entry: Sendable {
        /// When the device is due; nil: nothing can fall due until its track changes.
        var due: Double?
        /// The time of the device's entry in the heap, if it has one.
        var queued: Double?
    }

    private var entries: [String: Entry] = [:]
    private var heap: [(time: Double, device: String)] = []

    /// Records when `device` is next due (nil: not until its track changes).
    mutating func set(_ device: String, due: Double?) {
        var entry = entries[device] ?? Entry()
        entry.due = due
        if let due, entry.queued.map({ due < $0 }) ?? true {
            entry.queued = due
            push((due, device))
        }
        entries[device] = entry
    }

    /// The devices due at `now`, in name order; each is taken off the schedule, so the caller
    /// sets its next due time after handling it.
    mutating func takeDue(at now: Double) -> [String] {
        var due: [String] = []
        while let top = heap.first, top.time <= now {
            pop()
            guard var entry = entries[top.device], entry.queued == top.time else { continue }
            entry.queued = nil
            if let time = entry.due {
                if time <= now {
                    due.append(top.device)
                    entry.due = nil
                } else {
                    entry.queued = time
                    push((time, top.device))
                }
            }
            entries[top.device] = entry
        }
        return due.sorted()
    }

    // MARK: Binary heap on `time`

    private mutating func push(_ item: (time: Double, device: String)) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].time < heap[parent].time else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func pop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].time < heap[smallest].time { smallest = left }
            if right < heap.count, heap[right].time < heap[smallest].time { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
