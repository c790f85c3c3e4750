import Foundation

// libFuzzer entry for the network scan readers and the OpenCellID-layout row parser:
// compiled with those sources alone (see ../build-target.sh).

/// Reads the input as one scan tool's output (detected, and as each format in turn), as a
/// stream of scans cut at random places, and as CSV rows. The readers' promise: any bytes
/// give a scan or a `ScanParseError` with a reason, never a trap; every access point read
/// has a valid address and finite, plausible fields; every cell a valid identity; every
/// row a position in range.
@_cdecl("LLVMFuzzerTestOneInput")
public func networkFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    for format in [nil, ScanFormat.iw, .nmcli, .mmcli] {
        do {
            check(try ScanParser.parse(text, format: format))
        } catch {
            precondition(!error.message.isEmpty, "scan refused without a reason")
        }
    }
    // The same bytes as a stream, fed in pieces whose sizes come from the input itself.
    var splitter = ScanRecordSplitter()
    splitter.maximumLineBytes = 512
    var records: [ScanRecordSplitter.Record] = []
    var offset = 0
    var piece = 1
    while offset < size {
        let end = min(size, offset + piece)
        records += splitter.feed(bytes[offset..<end])
        piece = Int(bytes[offset] % 64) + 1
        offset = end
    }
    if let last = splitter.flush() { records.append(last) }
    for record in records {
        if let time = record.time { precondition(time.isFinite && time > 0, "marker time not finite") }
        precondition(!record.oversize || record.text.isEmpty, "an oversize record kept its text")
        if let scan = try? ScanParser.parse(record.text) { check(scan) }
    }
    // Each line as a CSV row.
    var start = 0
    while start <= size {
        var end = start
        while end < size, bytes[end] != 0x0A { end += 1 }
        let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if let row = try? OpenCellIDRow.parse(line) {
            precondition(abs(row.lat) <= 90 && abs(row.lon) <= 180 && row.lat.isFinite && row.lon.isFinite, "row position out of range")
            precondition(row.range >= 0 && row.range.isFinite && row.samples >= 0, "row range or samples out of range")
            precondition((1...999).contains(row.identity.mcc) && row.identity.cell >= 0, "row identity out of range")
        }
        _ = OpenCellIDRow.mcc(line)
        start = end + 1
    }
    return 0
}

private func check(_ scan: NetworkScan) {
    precondition(!scan.wifi.isEmpty || !scan.cells.isEmpty, "a scan without entries was accepted")
    for entry in scan.wifi {
        precondition(entry.bssid.value <= 0xFFFF_FFFF_FFFF, "address beyond 48 bits")
        precondition(MACAddress(entry.bssid.description) == entry.bssid, "address does not round-trip")
        if let signal = entry.signalDBm { precondition(signal.isFinite && signal > -200 && signal < 100, "implausible signal \(signal)") }
        if let frequency = entry.frequencyMHz { precondition(frequency.isFinite && frequency > 0, "implausible frequency") }
        if let age = entry.ageSeconds { precondition(age.isFinite && age >= 0, "negative age") }
        _ = entry.optedOut
    }
    for cell in scan.cells {
        precondition((1...999).contains(cell.mcc) && (0...999).contains(cell.mnc) && cell.cell > 0, "cell identity out of range")
        precondition(!cell.candidates.isEmpty, "a cell without a candidate identity")
    }
}
