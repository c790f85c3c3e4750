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
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
        }
        func number(_ name: StaticString, _ value: Double?) {
            guard let value else { return }
            key(name)
            var text = value.description
            text.withUTF8 { utf8 in
                let whole = utf8.count >= 2 && utf8[utf8.count - 2] == UInt8(ascii: ".") && utf8[utf8.count - 1] == UInt8(ascii: "0")
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<(whole ? utf8.count - 2 : utf8.count)]))
            }
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

    /// A JSON string: copied in one step when nothing needs escaping (nearly always).
    private static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 { appendEscaped(byte, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ byte: UInt8, to bytes: inout [UInt8]) {
        let escape: UInt8?
        switch byte {
        case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
        case 0x08: escape = UInt8(ascii: "b")
        case 0x09: escape = UInt8(ascii: "t")
        case 0x0A: escape = UInt8(ascii: "n")
        case 0x0C: escape = UInt8(ascii: "f")
        case 0x0D: escape = UInt8(ascii: "r")
        case 0..<0x20: escape = nil
        default:
            bytes.append(byte)
            return
        }
        bytes.append(UInt8(ascii: "\\"))
        if let escape {
            bytes.append(escape)
        } else {
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }
    }
}
