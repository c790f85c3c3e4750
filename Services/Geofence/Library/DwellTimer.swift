/// Core Location-style dwell: one `dwell` event once a device has stayed inside a region
/// for the region's dwell seconds, measured in fix time from when it was found inside.
public struct DwellTimer: Sendable, Equatable {
    /// Fix time the current stay began, nil when outside.
    public private(set) var enteredAt: Double? {
        get { entered.value }
        set { entered.value = newValue }
    }
    private var entered: PackedOptionalDouble
    /// Whether this stay has already produced its event.
    public private(set) var fired: Bool

    public init(enteredAt: Double? = nil, fired: Bool = false) {
        self.entered = PackedOptionalDouble(enteredAt)
        self.fired = fired
    }

    public mutating func start(at fixTime: Double) {
        enteredAt = fixTime
        fired = false
    }

    public mutating func stop() {
        enteredAt = nil
        fired = false
    }

    /// True exactly once per stay, on the first fix at least `dwellSeconds` after entry.
    public mutating func shouldFire(fixTime: Double, dwellSeconds: Double?) -> Bool {
        guard let dwellSeconds, let enteredAt, !fired, fixTime - enteredAt >= dwellSeconds else { return false }
        fired = true
        return true
    }
}
