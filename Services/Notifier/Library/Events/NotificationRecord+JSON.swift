/// `NotificationRecord.json()` written by hand, byte for byte what Foundation's `JSONEncoder`
/// writes for the record with `.sortedKeys` and `.withoutEscapingSlashes` (checked by
/// `NotificationRecordJSONTests`): members in key order, absent optionals left out, numbers
/// as Swift prints them without a trailing `.0`, strings with `"`, `\` and control
/// characters escaped.
extension NotificationRecord {
    /// Appends the record's JSON object to `bytes`.
    public func appendJSON(to bytes: inout [UInt8]) {
        var first = true
        func key(_ name: StaticString) {
            bytes.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func number(_ name: StaticString, _ value: Double?) {
            guard let value else { return }
            key(name)
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            bytes.append(contentsOf: text.utf8)
        }
        func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            Self.appendQuoted(value, to: &bytes)
        }
        // The keys in sorted order.
        number("accuracyMeters", accuracyMeters)
        string("body", body)
        string("device", device)
        number("distanceMeters", distanceMeters)
        string("id", id)
        string("kind", kind.rawValue)
        number("lat", lat)
        string("locale", locale)
        number("lon", lon)
        string("owner", owner)
        string("ref", ref)
        string("region", region)
        if let regions {
            key("regions")
            bytes.append(UInt8(ascii: "["))
            for (index, region) in regions.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.appendQuoted(region, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        number("t", t)
        string("title", title)
        if first { bytes.append(UInt8(ascii: "{")) }
        bytes.append(UInt8(ascii: "}"))
    }

    private static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
