/// A device's tracks for nearby regions, by region slot (`MonitoredRegion.slot`).
///
/// A device is near a handful of regions at a time, so two small parallel arrays scanned
/// linearly beat a hash table: no hashing per fix, and the slots sit in one cache line.
public struct TrackList: Sendable, Equatable {
    public private(set) var slots: [Int] = []
    public private(set) var tracks: [RegionTrack] = []

    public init() {}

    public var count: Int { slots.count }
    public var isEmpty: Bool { slots.isEmpty }

    /// Where the track for `slot` is kept, for `track(at:)` and `replaceTrack(at:with:)`:
    /// one scan per fix and region instead of one per read and write.
    @inline(__always)
    public func position(of slot: Int) -> Int? { slots.firstIndex(of: slot) }

    @inline(__always)
    public func track(at position: Int) -> RegionTrack { tracks[position] }

    @inline(__always)
    public mutating func replaceTrack(at position: Int, with track: RegionTrack) { tracks[position] = track }

    /// The track for a slot; setting nil removes it.
    public subscript(slot: Int) -> RegionTrack? {
        get { slots.firstIndex(of: slot).map { tracks[$0] } }
        set {
            if let position = slots.firstIndex(of: slot) {
                if let newValue {
                    tracks[position] = newValue
                } else {
                    slots.swapAt(position, slots.count - 1)
                    tracks.swapAt(position, tracks.count - 1)
                    slots.removeLast()
                    tracks.removeLast()
                }
            } else if let newValue {
                slots.append(slot)
                tracks.append(newValue)
            }
        }
    }
}
