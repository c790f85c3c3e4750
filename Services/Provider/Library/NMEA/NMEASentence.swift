/// One checked NMEA 0183 sentence: who sent it, what it is, and its fields.
///
/// Fields are kept as byte ranges over one copy of the sentence body, so reading a
/// sentence costs two small allocations however many fields it has; the typed
/// readers in `NMEASentence+Fields.swift` parse numbers straight from the bytes.
public struct NMEASentence: Sendable {
    /// The two-letter talker, e.g. `GP`, `GN`, `BD`.
    public let talker: String
    /// The formatter, e.g. `.gga`.
    public let kind: NMEASentenceKind
    /// Body bytes after the address field, without the checksum.
    let body: [UInt8]
    /// `starts[i]` is where field `i` begins; the last entry is `body.count + 1`.
    let starts: [Int]

    /// Number of data fields after the address field.
    public var fieldCount: Int { starts.count - 1 }

    /// Field `index` as text (empty when the receiver left it blank), nil past the end.
    public func field(_ index: Int) -> String? {
        guard index >= 0, index < fieldCount else { return nil }
        return String(decoding: body[range(index)], as: UTF8.self)
    }

    /// All data fields as text; convenient for tools, not used on the hot path.
    public var fields: [String] { (0..<fieldCount).map { field($0) ?? "" } }

    @inline(__always)
    func range(_ index: Int) -> Range<Int> {
        starts[index]..<(starts[index + 1] - 1)
    }
}

extension NMEASentence {
    /// Longest line accepted. NMEA 0183 allows 82 characters; some receivers send
    /// longer GSV/GNS lines, none send kilobytes.
    public static let maximumLineBytes = 1024

    /// Parses one line (with or without its CR/LF).
    public static func parse(_ line: some StringProtocol) throws(NMEAParseError) -> NMEASentence {
        var copy = String(line)
        let result = copy.withUTF8 { buffer in Result { () throws(NMEAParseError) in try parse(bytes: buffer) } }
        return try result.get()
    }

    /// Parses one line of bytes: frames `$…*hh`, verifies the checksum, splits fields.
    ///
    /// Junk before the `$` is skipped (a stream may start mid-sentence); a line with
    /// no checksum is rejected as truncated, as gpsd's regression logs expect.
    public static func parse(bytes line: UnsafeBufferPointer<UInt8>) throws(NMEAParseError) -> NMEASentence {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A || line[end - 1] == 0x20 { end -= 1 }
        guard end > 0 else { throw .notNMEA("empty line") }
        guard end <= maximumLineBytes else { throw .tooLong(byteCount: end) }
        var dollar = -1
        for i in 0..<end where line[i] == 0x24 { dollar = i; break }  // "$"
        guard dollar >= 0 else {
            if line[0] == 0x21 { throw .unsupported("encapsulated sentence (!…)") }
            throw .notNMEA("no '$' start")
        }
        var star = -1
        var sum: UInt8 = 0
        var i = dollar + 1
        while i < end {
            if i + 8 <= end, let base = line.baseAddress {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if NMEAByteScan.isPlainBody(word) {
                    sum ^= NMEAByteScan.xorFold(word)
                    i += 8
                    continue
                }
            }
            let byte = line[i]
            if byte == 0x2A { star = i; break }  // "*"
            guard byte >= 0x20, byte < 0x7F else { throw .notNMEA("binary byte 0x\(String(byte, radix: 16)) in sentence") }
            if byte == 0x24 { throw .truncated("a new sentence starts inside this one") }
            sum ^= byte
            i += 1
        }
        guard star >= 0 else { throw .truncated("no '*' checksum") }
        guard star + 3 <= end else { throw .truncated("checksum cut short") }
        guard star + 3 == end, let high = hexValue(line[star + 1]), let low = hexValue(line[star + 2]) else {
            throw .notNMEA("checksum is not two hex digits at the end of the line")
        }
        let expected = high << 4 | low
        guard expected == sum else { throw .badChecksum(expected: expected, computed: sum) }

        // Address field: talker (2) + formatter (3), or P + vendor + formatter.
        var comma = dollar + 1
        while comma < star, line[comma] != 0x2C { comma += 1 }
        let addressLength = comma - dollar - 1
        guard addressLength > 0 else { throw .notNMEA("empty address field") }
        if line[dollar + 1] == 0x50 {  // "P"
            throw .vendor(String(decoding: UnsafeBufferPointer(rebasing: line[(dollar + 1)..<comma]), as: UTF8.self))
        }
        guard addressLength == 5 else {
            throw .notNMEA("address '\(String(decoding: UnsafeBufferPointer(rebasing: line[(dollar + 1)..<comma]), as: UTF8.self))' is not talker+formatter")
        }
        let a = dollar + 1
        for k in a..<comma {
            let byte = line[k]
            guard (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) else {
                throw .notNMEA("address has a character outside A–Z, 0–9")
            }
        }
        guard let kind = NMEASentenceKind.from(line[a + 2], line[a + 3], line[a + 4]) else {
            throw .unsupported(String(decoding: UnsafeBufferPointer(rebasing: line[a..<comma]), as: UTF8.self))
        }
        let talker = String(decoding: UnsafeBufferPointer(rebasing: line[a..<(a + 2)]), as: UTF8.self)

        let bodyStart = min(comma + 1, star)
        let body = Array(UnsafeBufferPointer(rebasing: line[bodyStart..<star]))
        var starts: [Int] = []
        starts.reserveCapacity(24)
        starts.append(0)
        if comma < star {
            body.withUnsafeBufferPointer { bytes in NMEAByteScan.forEach(0x2C, in: bytes) { starts.append($0 + 1) } }
            starts.append(body.count + 1)
        } else {
            starts = [0]  // no data fields at all
        }
        return NMEASentence(talker: talker, kind: kind, body: body, starts: starts)
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
