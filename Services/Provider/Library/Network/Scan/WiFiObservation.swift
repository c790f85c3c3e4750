/// One access point as one scan saw it. Only the BSSID is ever stored; the SSID is read
/// to honour the `_nomap` opt-out and then forgotten.
public struct WiFiObservation: Sendable, Equatable {
    public var bssid: MACAddress
    /// The network name as text (iw's `\xNN` escapes decoded); nil when hidden or not printed.
    public var ssid: String?
    public var frequencyMHz: Double?
    /// Received signal, dBm; nil when the tool printed none. nmcli's 0–100 % is converted
    /// back to dBm with NetworkManager's own mapping (−100 dBm + 0.6 dB per percent).
    public var signalDBm: Double?
    /// Seconds since the access point was last heard (iw's `last seen: N ms ago`).
    public var ageSeconds: Double?

    public init(bssid: MACAddress, ssid: String? = nil, frequencyMHz: Double? = nil, signalDBm: Double? = nil, ageSeconds: Double? = nil) {
        self.bssid = bssid
        self.ssid = ssid
        self.frequencyMHz = frequencyMHz
        self.signalDBm = signalDBm
        self.ageSeconds = ageSeconds
    }

    /// Whether its owner asked not to be mapped: an SSID ending in `_nomap`, or an address
    /// the device chose itself (hotspots, randomised addresses), which names no place.
    public var optedOut: Bool {
        if bssid.isLocallyAdministered || bssid.isMulticast { return true }
        guard let ssid else { return false }
        return ssid.hasSuffix("_nomap")
    }

    /// NetworkManager's signal percentage as dBm: its mapping is linear from −100 dBm (0 %)
    /// to −40 dBm (100 %).
    public static func dBm(fromPercent percent: Double) -> Double {
        -100 + 0.6 * min(100, max(0, percent))
    }
}
