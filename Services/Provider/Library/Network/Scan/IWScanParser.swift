/// Reads `iw dev IF scan` / `iw dev IF scan dump` output.
///
/// Each access point is a block that starts with `BSS aa:bb:cc:dd:ee:ff(on wlan0)` (older
/// versions print a space before `(on`, and a ` -- associated` status may follow) and goes
/// on with tab-indented `key: value` lines. Read at one tab of indentation: `freq: 2437`
/// (or `2437.0` where the kernel reports a frequency offset), `signal: -45.00 dBm` (or
/// `60/100` from drivers without dBm; iw prints hundredths of a negative dBm value as
/// `-45.-50`, read as −45.50), `last seen: 120 ms ago`, and `SSID: name` with iw's `\xNN`
/// escapes. Deeper lines (information elements) are skipped, and so is everything else.
/// A block whose address does not parse is skipped and counted; a block cut short keeps
/// what it has.
public enum IWScanParser {
    public static func parse(_ lines: [Substring]) -> NetworkScan {
        var scan = NetworkScan(format: .iw)
        var current: WiFiObservation?
        var inBlock = false
        func close() {
            if let entry = current { scan.wifi.append(entry) }
            current = nil
        }
        for line in lines {
            if line.hasPrefix("BSS") {
                close()
                inBlock = true
                let rest = line.dropFirst(3).drop(while: { $0 == " " })
                if let address = MACAddress(rest.prefix(17)), rest.count == 17 || "( -".contains(rest.dropFirst(17).first ?? " ") {
                    current = WiFiObservation(bssid: address)
                } else {
                    scan.skippedEntries += 1
                }
                continue
            }
            guard inBlock, current != nil, line.hasPrefix("\t"), !line.hasPrefix("\t\t") else { continue }
            let body = line.dropFirst()
            guard let colon = body.firstIndex(of: ":") else { continue }
            let key = body[..<colon]
            let value = body[body.index(after: colon)...].drop(while: { $0 == " " })
            switch key {
            case "freq": current?.frequencyMHz = positiveNumber(value)
            case "signal": current?.signalDBm = signal(value)
            case "last seen": current?.ageSeconds = lastSeenSeconds(value)
            case "SSID" where current?.ssid == nil: current?.ssid = ScanText.unescapeHexBytes(value)
            default: break
            }
        }
        close()
        return scan
    }

    /// `2437` or `2437.0`, nil unless finite and positive.
    static func positiveNumber(_ text: Substring) -> Double? {
        guard let value = Double(ScanText.trimmed(text)), value.isFinite, value > 0 else { return nil }
        return value
    }

    /// `-45.00 dBm`, iw's `-45.-50 dBm`, or `60/100` (converted like a percentage).
    static func signal(_ text: Substring) -> Double? {
        let words = text.split(separator: " ")
        guard let number = words.first else { return nil }
        if words.count >= 2, words[1] == "dBm" {
            var parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[1].hasPrefix("-") { parts[1] = parts[1].dropFirst() }
            guard let whole = Int(parts[0]), whole > -200, whole < 100 else { return nil }
            var value = Double(whole)
            if parts.count == 2 {
                guard parts[1].count <= 3, let fraction = Int(parts[1]), fraction >= 0 else { return nil }
                let magnitude = Double(fraction) / pow10(parts[1].count)
                value += (number.hasPrefix("-") ? -magnitude : magnitude)
            }
            return value
        }
        if number.hasSuffix("/100"), let quality = Double(number.dropLast(4)), quality >= 0, quality <= 100 {
            return WiFiObservation.dBm(fromPercent: quality)
        }
        return nil
    }

    /// `120 ms ago` → 0.12; the boot-time form (`1234.567s [boottime]`) is not an age.
    static func lastSeenSeconds(_ text: Substring) -> Double? {
        let words = text.split(separator: " ")
        guard words.count == 3, words[1] == "ms", words[2] == "ago", let ms = Double(words[0]), ms.isFinite, ms >= 0 else { return nil }
        return ms / 1000
    }

    private static func pow10(_ digits: Int) -> Double {
        digits <= 0 ? 1 : (1...digits).reduce(1.0) { value, _ in value * 10 }
    }
}
