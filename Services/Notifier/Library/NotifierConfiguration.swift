/// What the notifier does with events, apart from where it sends them (the sinks).
public struct NotifierConfiguration: Sendable {
    // MARK: text

    /// Titles and bodies for the chosen `--locale`.
    public var catalog: MessageCatalog

    // MARK: noise control

    /// A notification of the same kind for the same region and device within this many
    /// seconds of the previous one is suppressed (0: off). Stops a device on a boundary
    /// from raising a notification per crossing.
    public var cooldownSeconds: Double = 0
    /// Region entries of one device within this window become one "N regions entered"
    /// notification (0: off).
    public var mergeWindowSeconds: Double = 0

    // MARK: destination tracking

    /// Default distance between progress notifications, metres.
    public var progressStepMeters: Double = 1_000
    /// Default arrival radius, metres (the seed: "arrived within 500 m").
    public var arrivalRadiusMeters: Double = 500

    // MARK: restart

    /// Asks the bus to replay the events published while this notifier was down
    /// (`bus.replay`, docs/reliability.md); nil in `--stdio` mode and in tests without a bus.
    public var replay: ReplaySettings?

    // MARK: shutdown

    /// How long `finish` waits for sinks to take everything (end of `--stdio` input).
    public var drainTimeoutSeconds: Double = 10

    public init(catalog: MessageCatalog) {
        self.catalog = catalog
    }

    /// Every setting at its default, with the built-in catalog of the default locale: the
    /// values `locus-notifier --help` prints and falls back to.
    public static var defaults: NotifierConfiguration {
        // The default locale's catalog is built in (BuiltInCatalogs): it cannot be missing.
        // swiftlint:disable:next force_try
        NotifierConfiguration(catalog: try! MessageCatalog(locale: MessageCatalog.defaultLocale))
    }
}
