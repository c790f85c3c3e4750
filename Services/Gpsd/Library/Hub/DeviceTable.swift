import LocusProtocol

/// The devices served, in the order clients see them in DEVICES, with what each last reported.
public struct DeviceTable: Sendable {
    public struct Record: Sendable, Equatable {
        public let device: String
        public let path: String
        /// Wall-clock time of the first fix served (gpsd's `activated`); nil before it.
        public var activated: Double?
        public var fix: ServedFix?
        public var sky: SkyView?
    }

    public private(set) var records: [Record] = []
    private var indexByDevice: [String: Int] = [:]
    private var indexByPath: [String: Int] = [:]
    public let maximumCount: Int

    /// `known` devices are listed from the start (chosen with `--device`), not yet activated.
    public init(known: [String], maximumCount: Int) {
        self.maximumCount = max(maximumCount, known.count)
        for device in known { _ = insert(device) }
    }

    public func record(device: String) -> Record? {
        indexByDevice[device].map { records[$0] }
    }

    public func record(path: String) -> Record? {
        indexByPath[path].map { records[$0] }
    }

    /// The record for `device`, added if there is room; nil when the table is full.
    mutating func insert(_ device: String) -> Int? {
        if let index = indexByDevice[device] { return index }
        guard records.count < maximumCount else { return nil }
        var path = DevicePath.path(for: device)
        // Two ids cut to the same path prefix and hash are not expected, but a path must name one device.
        while indexByPath[path] != nil { path += "+" }
        records.append(Record(device: device, path: path))
        indexByDevice[device] = records.count - 1
        indexByPath[path] = records.count - 1
        return records.count - 1
    }

    /// Stores a fix; returns the served fix and whether the device was activated by it.
    mutating func store(_ location: Location, t: Double, now: Double) -> (record: Record, activated: Bool)? {
        guard let index = insert(location.device) else { return nil }
        let previous = records[index].fix
        records[index].fix = ServedFix(location: location, messageTime: t, previous: previous)
        let activated = records[index].activated == nil
        if activated { records[index].activated = now }
        return (records[index], activated)
    }

    /// Stores satellites of a device that is already served; nil for others.
    mutating func store(_ sky: SkyView, device: String) -> Record? {
        guard let index = indexByDevice[device] else { return nil }
        records[index].sky = sky
        return records[index]
    }
}
