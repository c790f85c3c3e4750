/// Turns one run of a scan tool's output into a `NetworkScan`, recognising the tool from
/// the text (or told which it is), and refusing with a reason what is not a scan.
public enum ScanParser {
    /// Output longer than this is refused: a dense city scan is tens of kilobytes.
    public static let maximumBytes = 4 << 20

    /// Parses `text` as `format`, or as whichever format it looks like when `format` is nil.
    public static func parse(_ text: String, format: ScanFormat? = nil) throws(ScanParseError) -> NetworkScan {
        guard text.utf8.count <= maximumBytes else {
            throw ScanParseError(.tooLarge, "scan output of \(text.utf8.count) bytes is over the \(maximumBytes)-byte limit")
        }
        let lines = ScanText.lines(text)
        guard let firstLine = lines.first(where: { !ScanText.trimmed($0).isEmpty }) else {
            throw ScanParseError(.empty, "scan output is empty")
        }
        if let message = toolError(lines) { throw ScanParseError(.toolError, "the scan tool reported: \(message)") }
        guard let chosen = format ?? detect(lines) else {
            throw ScanParseError(.unknownFormat, "not the output of iw scan, nmcli -t -f BSSID,SSID,FREQ,SIGNAL or mmcli --location-get: "
                                 + "first line '\(ScanText.quote(firstLine))'")
        }
        let scan: NetworkScan
        switch chosen {
        case .iw: scan = IWScanParser.parse(lines)
        case .nmcli: scan = NMCLIScanParser.parse(lines)
        case .mmcli: return try MMCLILocationParser.parse(lines)
        }
        guard !scan.wifi.isEmpty else {
            throw ScanParseError(.noEntries, "\(chosen.rawValue) output without one readable access point"
                                 + (scan.skippedEntries > 0 ? " (\(scan.skippedEntries) unreadable)" : "")
                                 + ": first line '\(ScanText.quote(firstLine))'")
        }
        return scan
    }

    /// The format `lines` look like, nil when none.
    public static func detect(_ lines: [Substring]) -> ScanFormat? {
        if lines.contains(where: { $0.hasPrefix("BSS ") }) { return .iw }
        if MMCLILocationParser.looksLikeOutput(lines) { return .mmcli }
        if lines.contains(where: NMCLIScanParser.looksLikeEntry) { return .nmcli }
        return nil
    }

    /// The message of a tool that printed an error instead of results: iw's `command failed:`,
    /// nmcli's `Error:`, mmcli's `error:`.
    static func toolError(_ lines: [Substring]) -> String? {
        for line in lines.prefix(3) {
            let text = ScanText.trimmed(line)
            if text.hasPrefix("command failed:") || text.hasPrefix("Error:") || text.hasPrefix("error:") {
                return ScanText.quote(text, limit: 200)
            }
        }
        return nil
    }
}
