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

    var lineDecoder = NMEADecoder()
    let text = String(decoding: bytes, as: UTF8.self)
    for line in text.split(separator: "\n") { fixes += lineDecoder.feed(line: line) }
    fixes += lineDecoder.finish()

    for fix in fixes {
        precondition((-90...90).contains(fix.lat) && (-180...180).contains(fix.lon), "fix out of range")
        precondition(fix.hacc > 0 && fix.hacc.isFinite, "accuracy not positive and finite")
        precondition(!(fix.lat == 0 && fix.lon == 0), "null island passed")
    }
    return 0
}
