import LocusProtocol

/// Everything `locus-gpsd` decides with, with the defaults docs/gpsd.md documents.
public struct GpsdConfiguration: Sendable, Equatable {
    /// Which Locus stream is served as gpsd's fixes.
    public enum Stream: String, Sendable, Equatable {
        /// `location.fused.<device>`: the best estimate.
        case fused
        /// `location.approx.<device>`: the reduced-accuracy grid only, for a viewer that
        /// must not see more (nothing else, not even satellite counts, is read).
        case approx

        /// The topic prefix of the served fixes.
        public var prefix: String {
            switch self {
            case .fused: Topic.locationFusedPrefix
            case .approx: Topic.locationApproxPrefix
            }
        }
    }

    // MARK: What is served

    public var stream: Stream = .fused
    /// Devices to serve, in this order; empty serves the first `maximumDevices` devices seen.
    public var devices: [String] = []
    /// Most devices served. gpsd's clients read at most 4 devices from a DEVICES reply
    /// (libgps's `MAXUSERDEVS`), so more are served only when asked for.
    public var maximumDevices = 4
    /// A raw fix's satellite count and HDOP describe a served fix only if they are at most
    /// this many seconds apart.
    public var skyMaximumAgeSeconds = 5.0

    // MARK: Clients

    /// Open client connections at once (TCP and NMEA socket together); more are refused.
    public var maximumClients = 64
    /// Bytes of reports queued for one client; a client that falls further behind is dropped.
    public var maximumQueuedBytes = 256 * 1024
    /// Unparsed request bytes kept for one client; gpsd's commands are at most 80 bytes.
    public var maximumRequestBytes = 4096
    /// Updates waiting between the bus thread and the server thread; the oldest go first.
    public var feedCapacity = 8192

    /// The `rev` of the VERSION object.
    public var revision = "locus-gpsd"

    public init() {}

    /// A copy with some fields changed.
    public func with(_ change: (inout GpsdConfiguration) -> Void) -> GpsdConfiguration {
        var copy = self
        change(&copy)
        return copy
    }
}
