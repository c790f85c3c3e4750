// libFuzzer entry for the NMEA decoder: compiled together with the decoder's sources
// (see ../run-nmea-fuzz.sh), so no module import is needed.

/// Feeds the input as a byte stream in two uneven pieces, then line by line, and
/// checks the decoder's promises: no trap, and every fix in range with a finite accuracy.
@_cdecl("LLVMFuzzerTestOneInput")
public func nmeaFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var decoder = NMEADecoder()
    let split = size / 3
    var fixes = decoder.feed(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<split]))
    fixes += decoder.feed(bytes: UnsafeRawBufferPointer(rebasing: bytes[split..<size]))
    fixes += decoder.finish()

    // Lines end at each LF byte (a CR before it stays, as `feed(line:)` allows). Splitting
    // the UTF-8 view, not the String, keeps CR LF from fusing into one Character, which
    // would hand whole CR LF logs to the decoder as a single line.
    var lineDecoder = NMEADecoder()
    var text = String(decoding: bytes, as: UTF8.self)
    var lineEnds: [Int] = []
    text.withUTF8 { stored in
        var offset = 0
        while offset < stored.count {
            offset = NMEAByteScan.firstIndex(of: 0x0A, in: stored, from: offset)
            lineEnds.append(offset)
            offset += 1
        }
    }
    let utf8 = text.utf8
    var lineStart = 0
    for lineEnd in lineEnds {
        if lineEnd > lineStart {
            let range = utf8.index(utf8.startIndex, offsetBy: lineStart)..<utf8.index(utf8.startIndex, offsetBy: lineEnd)
            fixes += lineDecoder.feed(line: Substring(utf8[range]))
        }
        lineStart = lineEnd + 1
    }
    fixes += lineDecoder.finish()

    for fix in fixes {
        precondition((-90...90).contains(fix.lat) && (-180...180).contains(fix.lon), "fix out of range")
        precondition(fix.hacc > 0 && fix.hacc.isFinite, "accuracy not positive and finite")
        precondition(!(fix.lat == 0 && fix.lon == 0), "null island passed")
    }
    return 0
}
