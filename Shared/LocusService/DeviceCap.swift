/// How many devices a service keeps state for. Past the cap a message about one more device
/// is refused as `tooManyDevices` (on `error.<service>`), so made-up device ids cannot grow
/// memory without bound, while the devices already known carry on. Fusion and motion both
/// check it, with the same code and wording.
public struct DeviceCap: Sendable, Equatable {
    /// The error code of a refusal.
    public static let errorCode = "tooManyDevices"
    /// The health counter of refusals, the same in every service that keeps a cap.
    public static let counter = "rejected." + errorCode
    /// The cap unless one is configured.
    public static let defaultMaximum = 10_000

    public var maximum: Int

    public init(maximum: Int = DeviceCap.defaultMaximum) {
        self.maximum = maximum
    }

    /// Nil while a new device fits beside the `known` ones; otherwise the refusal to report.
    public func refusal(known: Int) -> (code: String, message: String)? {
        known < maximum ? nil : (Self.errorCode, "more than \(maximum) devices")
    }
}
