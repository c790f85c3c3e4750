/// A 48-bit IEEE MAC address (a Wi-Fi BSSID), kept as an integer so it is a compact
/// database key. Parsing accepts the forms the scan tools print: six pairs of hex
/// digits separated by `:` (iw, nmcli) or `-`, in either case.
public struct MACAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address in the low 48 bits, first octet most significant.
    public let value: UInt64

    public init?(value: UInt64) {
        guard value <= 0xFFFF_FFFF_FFFF else { return nil }
        self.value = value
    }

    /// Parses `aa:bb:cc:dd:ee:ff` (or `-` separators); nil for anything else.
    public init?<Text: StringProtocol>(_ text: Text) {
        let bytes = Array(text.utf8)
        guard bytes.count == 17 else { return nil }
        var value: UInt64 = 0
        for octet in 0..<6 {
            let at = octet * 3
            if octet > 0, bytes[at - 1] != UInt8(ascii: ":"), bytes[at - 1] != UInt8(ascii: "-") { return nil }
            guard let high = ScanText.hexValue(bytes[at]), let low = ScanText.hexValue(bytes[at + 1]) else { return nil }
            value = value << 8 | UInt64(high << 4 | low)
        }
        self.value = value
    }

    /// Set by whoever chose the address rather than by the maker (the U/L bit): phones'
    /// hotspots and privacy-randomised addresses. Such an address says nothing about a
    /// place and is never stored.
    public var isLocallyAdministered: Bool { (value >> 40) & 0x02 != 0 }

    /// A group address, which no access point uses as its BSSID.
    public var isMulticast: Bool { (value >> 40) & 0x01 != 0 }

    public var description: String {
        (0..<6).map { octet in
            let byte = UInt8(truncatingIfNeeded: value >> UInt64(40 - octet * 8))
            return String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined(separator: ":")
    }

    public static func < (a: MACAddress, b: MACAddress) -> Bool { a.value < b.value }
}
