/// Reads `nmcli -t -f BSSID,SSID,FREQ,SIGNAL dev wifi list`: one access point per line,
/// fields separated by `:`, with `:` and `\` inside a field escaped by a backslash
/// (nmcli's terse mode), e.g. `AA\:BB\:CC\:DD\:EE\:FF:Home:2437 MHz:75`. FREQ is
/// `2437 MHz`; SIGNAL is NetworkManager's 0–100 %, converted back to dBm. A hidden network
/// has an empty SSID (or `--`). A line of another shape is skipped and counted.
public enum NMCLIScanParser {
    /// Whether `line` looks like one of these lines: an escaped address, then three more fields.
    static func looksLikeEntry(_ line: Substring) -> Bool {
        let fields = split(line)
        return fields.count == 4 && MACAddress(fields[0]) != nil
    }

    public static func parse(_ lines: [Substring]) -> NetworkScan {
        var scan = NetworkScan(format: .nmcli)
        for line in lines where !ScanText.trimmed(line).isEmpty {
            let fields = split(line)
            guard fields.count == 4, let bssid = MACAddress(fields[0]) else {
                scan.skippedEntries += 1
                continue
            }
            let ssid = fields[1].isEmpty || fields[1] == "--" ? nil : fields[1]
            var entry = WiFiObservation(bssid: bssid, ssid: ssid)
            let frequency = fields[2].hasSuffix(" MHz") ? fields[2].dropLast(4) : Substring(fields[2])
            if let value = Double(frequency), value.isFinite, value > 0 { entry.frequencyMHz = value }
            if let percent = Int(fields[3]), (0...100).contains(percent) { entry.signalDBm = WiFiObservation.dBm(fromPercent: Double(percent)) }
            scan.wifi.append(entry)
        }
        return scan
    }

    /// The fields of a terse line with nmcli's escapes removed.
    static func split(_ line: Substring) -> [String] {
        var fields: [String] = []
        var field: [UInt8] = []
        var escaped = false
        for byte in line.utf8 {
            if escaped {
                field.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: ":") {
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            } else {
                field.append(byte)
            }
        }
        if escaped { field.append(UInt8(ascii: "\\")) }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
    }
}
