/// Which tool printed a scan.
public enum ScanFormat: String, Sendable, CaseIterable {
    /// `iw dev IF scan` or `iw dev IF scan dump`.
    case iw
    /// `nmcli -t -f BSSID,SSID,FREQ,SIGNAL dev wifi list`.
    case nmcli
    /// `mmcli -m N --location-get` (human, `-K` key-value or `-J` JSON output).
    case mmcli

    /// Whether the format carries Wi-Fi access points (else cells).
    public var isWiFi: Bool { self != .mmcli }
}

/// What one run of a scan tool saw: access points or the serving cell.
public struct NetworkScan: Sendable, Equatable {
    public var format: ScanFormat
    public var wifi: [WiFiObservation]
    public var cells: [CellObservation]
    /// Entries that could not be read (a truncated block, a line of the wrong shape); the
    /// readable ones are kept.
    public var skippedEntries: Int

    public init(format: ScanFormat, wifi: [WiFiObservation] = [], cells: [CellObservation] = [], skippedEntries: Int = 0) {
        self.format = format
        self.wifi = wifi
        self.cells = cells
        self.skippedEntries = skippedEntries
    }
}

/// Output that is not a scan: says what was wrong and quotes the start of it.
public struct ScanParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Nothing (or only blank lines).
        case empty
        /// Not the output of a tool this reader knows.
        case unknownFormat
        /// The tool printed an error instead of results (`command failed: …`, `Error: …`).
        case toolError
        /// Recognised, but without one readable entry.
        case noEntries
        /// Larger than a scan can be.
        case tooLarge
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
