import Foundation

/// Reads the 3GPP part of `mmcli -m N --location-get` in any of its output forms:
///
/// - human (ModemManager ≥ 1.10): `  3GPP |       operator mcc: 262`, then `       | location
///   area code: 04D2` and so on; LAC (`%04lX`), TAC (`%06lX`) and cell id (`%08lX`) in hex;
/// - human (older releases): `  3GPP location   | Mobile country code: '262'`, values
///   quoted and in decimal;
/// - `-K` key-value: `modem.location.3gpp.cid : 01A2B3C4`, `--` for none;
/// - `-J` JSON: `{"modem":{"location":{"3gpp":{"mcc":"262",…}}}}`.
///
/// MCC `0`, a cell id of 0 or neither a LAC nor a TAC means the modem has no 3GPP location
/// (not registered, or 3GPP location gathering is off): an error that says so.
public enum MMCLILocationParser {
    static func looksLikeOutput(_ lines: [Substring]) -> Bool {
        lines.contains { line in
            line.contains("modem.location.3gpp.") || line.contains("\"3gpp\"")
                || (line.contains("|") && (line.contains("operator mcc") || line.contains("Mobile country code")))
        }
    }

    public static func parse(_ lines: [Substring]) throws(ScanParseError) -> NetworkScan {
        var fields: [String: (value: String, quoted: Bool)] = [:]
        let first = lines.first { !ScanText.trimmed($0).isEmpty }.map(ScanText.trimmed) ?? ""
        if first.hasPrefix("{") {
            fields = jsonFields(lines.joined(separator: "\n"))
        } else {
            for line in lines {
                if let field = keyValueField(line) ?? humanField(line) { fields[field.key] = (field.value, field.quoted) }
            }
        }
        func number(_ key: String, hex: Bool) -> UInt64? {
            guard let field = fields[key], field.value != "--", !field.value.isEmpty else { return nil }
            return hex && !field.quoted ? ScanText.hexNumber(Substring(field.value)) : UInt64(field.value)
        }
        guard let mcc = number("mcc", hex: false), (1...999).contains(mcc) else {
            throw ScanParseError(.noEntries, "mmcli output has no 3GPP location (modem not registered, or 3GPP location gathering off: "
                                 + "mmcli -m N --location-enable-3gpp)")
        }
        guard let mnc = number("mnc", hex: false), mnc <= 999 else { throw ScanParseError(.noEntries, "mmcli output has no valid operator mnc") }
        let lac = number("lac", hex: true).flatMap { $0 > 0 && $0 <= 0xFFFF ? Int($0) : nil }
        let tac = number("tac", hex: true).flatMap { $0 > 0 && $0 <= 0xFF_FFFF ? Int($0) : nil }
        guard let cell = number("cid", hex: true), cell > 0, cell <= 0xF_FFFF_FFFF else {
            throw ScanParseError(.noEntries, "mmcli output has no valid cell id")
        }
        guard lac != nil || tac != nil else { throw ScanParseError(.noEntries, "mmcli output has neither a location area code nor a tracking area code") }
        return NetworkScan(format: .mmcli, cells: [CellObservation(mcc: Int(mcc), mnc: Int(mnc), lac: lac, tac: tac, cell: Int64(cell))])
    }

    /// `modem.location.3gpp.mcc   : 262`
    static func keyValueField(_ line: Substring) -> (key: String, value: String, quoted: Bool)? {
        let text = ScanText.trimmed(line)
        guard text.hasPrefix("modem.location.3gpp."), let colon = text.firstIndex(of: ":") else { return nil }
        let key = ScanText.trimmed(text[..<colon].dropFirst("modem.location.3gpp.".count))
        return (String(key), String(ScanText.trimmed(text[text.index(after: colon)...])), false)
    }

    /// `  3GPP |       operator mcc: 262` or the older `| Mobile country code: '262'`.
    static func humanField(_ line: Substring) -> (key: String, value: String, quoted: Bool)? {
        guard let bar = line.firstIndex(of: "|") else { return nil }
        let rest = line[line.index(after: bar)...]
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let name = ScanText.trimmed(rest[..<colon]).lowercased()
        var value = ScanText.trimmed(rest[rest.index(after: colon)...])
        let quoted = value.count >= 2 && value.hasPrefix("'") && value.hasSuffix("'")
        if quoted { value = value.dropFirst().dropLast() }
        let keys = ["operator mcc": "mcc", "mobile country code": "mcc", "operator mnc": "mnc", "mobile network code": "mnc",
                    "location area code": "lac", "tracking area code": "tac", "cell id": "cid"]
        guard let key = keys[name] else { return nil }
        return (key, String(value), quoted)
    }

    /// The string members of `modem.location.3gpp` in mmcli's JSON output.
    static func jsonFields(_ text: String) -> [String: (value: String, quoted: Bool)] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let modem = object["modem"] as? [String: Any], let location = modem["location"] as? [String: Any],
              let cellular = location["3gpp"] as? [String: Any] else { return [:] }
        var out: [String: (value: String, quoted: Bool)] = [:]
        for (key, value) in cellular {
            if let text = value as? String { out[key] = (text, false) }
        }
        return out
    }
}
