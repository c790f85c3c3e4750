/// Which devices are served, decided on the bus thread before anything crosses to the
/// server: the devices named with `--device`, or else the first `maximumCount` devices
/// whose fixes arrive. A fleet's other devices cost one set lookup per fix and nothing
/// more; how many were turned away is counted for `health.gpsd`.
public struct DeviceAdmission: Sendable, Equatable {
    public let named: Set<String>
    public let maximumCount: Int
    public private(set) var admitted: Set<String> = []
    /// Devices turned away (each counted once, up to 100 000 remembered).
    public private(set) var refusedDevices = 0
    private var refused: Set<String> = []

    public init(named: [String], maximumCount: Int) {
        self.named = Set(named)
        self.maximumCount = maximumCount
    }

    /// Whether fixes of `device` are served; admits it when there is room.
    public mutating func admit(_ device: String) -> Bool {
        if admitted.contains(device) { return true }
        let allowed = named.isEmpty ? admitted.count < maximumCount : named.contains(device)
        if allowed {
            admitted.insert(device)
            return true
        }
        if refused.count < 100_000, refused.insert(device).inserted { refusedDevices += 1 }
        return false
    }

    /// Whether `device` is already served (raw fixes never admit a device by themselves).
    public func isAdmitted(_ device: String) -> Bool { admitted.contains(device) }
}
