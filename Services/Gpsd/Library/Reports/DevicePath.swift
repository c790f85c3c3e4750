/// The gpsd device path under which a Locus device is served: `locus://<device id>`.
///
/// gpsd's clients keep a device path in a 128-byte buffer (`GPS_PATH_MAX` in libgps) and
/// drop a whole report whose path does not fit, and they read paths as plain JSON
/// strings. So bytes other than letters, digits and `-._~:@+` are percent-encoded
/// (`van 7` cannot occur, but `van"7` can: `locus://van%227`), and a path that would pass
/// 127 bytes keeps its first bytes and ends in `~` plus 8 hex digits of an FNV-1a hash of
/// the id, so two long ids sharing a prefix still get different paths.
public enum DevicePath {
    public static let scheme = "locus://"
    /// Longest path written (bytes, without the C string's terminating zero).
    public static let maximumBytes = 127

    public static func path(for device: String) -> String {
        var encoded: [UInt8] = Array(scheme.utf8)
        var boundaries: [Int] = []  // lengths at which `encoded` can be cut without splitting a %XX
        for byte in device.utf8 {
            boundaries.append(encoded.count)
            if isKept(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigit(byte >> 4))
                encoded.append(hexDigit(byte & 0x0F))
            }
        }
        guard encoded.count > maximumBytes else { return String(decoding: encoded, as: UTF8.self) }
        let suffix = "~" + hex32(fnv1a(device))
        let room = maximumBytes - suffix.utf8.count
        let cut = boundaries.last(where: { $0 <= room }) ?? scheme.utf8.count
        return String(decoding: encoded[..<cut], as: UTF8.self) + suffix
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"),
             UInt8(ascii: "@"), UInt8(ascii: "+"):
            return true
        default:
            return false
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    private static func hex32(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func fnv1a(_ text: String) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }
}
