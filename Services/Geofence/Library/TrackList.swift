/// A device's tracks for nearby regions, by region slot (`MonitoredRegion.slot`).
///
/// A device is near a handful of regions at a time and every one of its tracks is read on
/// each of its fixes, so slot and track sit side by side in one small array scanned
/// linearly: no hashing per fix, and one heap object — one cache miss to reach — per device.
public struct TrackList: Sendable, Equatable {
    private struct Entry: Sendable, Equatable {
        var slot: Int
        var track: RegionTrack
    }

    private var entries: [Entry] = []

    public init() {}

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// The slot of the track at `position` (0 ..< count).
    @inline(__always)
    public func slot(at position: Int) -> Int { entries[position].slot }

    /// Where the track for `slot` is kept, for `track(at:)` and `replaceTrack(at:with:)`:
    /// one scan per fix and region instead of one per read and write.
    @inline(__always)
    public func position(of slot: Int) -> Int? { entries.firstIndex { $0.slot == slot } }

    @inline(__always)
    public func track(at position: Int) -> RegionTrack { entries[position].track }

    @inline(__always)
    public mutating func replaceTrack(at position: Int, with track: RegionTrack) { entries[position].track = track }

    /// The track for a slot; setting nil removes it.
    public subscript(slot: Int) -> RegionTrack? {
        get { position(of: slot).map { entries[$0].track } }
        set {
            if let position = position(of: slot) {
                if let newValue {
                    entries[position].track = newValue
                } else {
                    entries.swapAt(position, entries.count - 1)
                    entries.removeLast()
                }
            } else if let newValue {
                entries.append(Entry(slot: slot, track: newValue))
            }
        }
    }
}
