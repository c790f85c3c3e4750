/// Parses the `xsd:dateTime` GPX uses (`2016-05-27T10:08:47.8Z`, `…+02:00`, no zone = UTC)
/// into Unix seconds, without Foundation's formatters (which reject fractions or zones
/// depending on options) and without allocating.
public enum ISO8601Time {
    public static func unixSeconds(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8).drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
        var index = bytes.startIndex
        func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.endIndex, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
              index < bytes.endIndex, bytes[index] == 0x54 || bytes[index] == 0x20 else { return nil }
        index += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2),
              let date = NMEACivilDate(year: year, month: month, day: day),
              hour < 24, minute < 60, second <= 60 else { return nil }
        var fraction = 0.0
        if index < bytes.endIndex, bytes[index] == 0x2E {
            index += 1
            var scale = 0.1
            var any = false
            while index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
                any = true
            }
            guard any else { return nil }
        }
        var offsetSeconds = 0
        if index < bytes.endIndex {
            switch bytes[index] {
            case 0x5A: index += 1  // Z
            case 0x2B, 0x2D:
                let sign = bytes[index] == 0x2B ? 1 : -1
                index += 1
                guard let hours = digits(2) else { return nil }
                _ = expect(0x3A)
                let minutes = digits(2) ?? 0
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            default: return nil
            }
        }
        while index < bytes.endIndex, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D {
            index += 1
        }
        guard index == bytes.endIndex else { return nil }
        let whole = date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Double(whole) + fraction
    }
}
