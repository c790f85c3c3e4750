import Foundation

// libFuzzer entry for locus-gpsd's request side: compiled with Shared/LocusProtocol and
// Services/Gpsd/Library without the bus-facing GpsdLogic (see ../build-target.sh).

/// The input is what a client sends, cut into reads of a size its first byte chooses (so
/// commands split across reads are tried), fed to a hub that serves one device with a fix.
/// Promises: never a trap; every reply line is one JSON object that starts `{"class":"`
/// (what libgps looks for) and JSONSerialization accepts; unparsed input stays bounded.
@_cdecl("LLVMFuzzerTestOneInput")
public func gpsdFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var hub = GpsdFuzzFixture.hub
    _ = hub.connect(1, kind: .gpsd)
    let chunk = Int(bytes.first ?? 0) % 64 + 1
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + chunk)
        for action in hub.receive(1, bytes[index..<end], now: GpsdFuzzFixture.now) {
            switch action {
            case .send(_, let text, _): GpsdFuzzFixture.check(text)
            case .close: return 0
            case .problem(let code, let message): precondition(!code.isEmpty && !message.isEmpty, "a problem without a reason")
            }
        }
        index = end
    }
    return 0
}

enum GpsdFuzzFixture {
    static let now = 1_790_000_000.0

    static let hub: GpsdHub = {
        var hub = GpsdHub(configuration: GpsdConfiguration().with { $0.devices = ["car", "van\"7"]; $0.maximumRequestBytes = 512 })
        let fix = Location(device: "car", source: "fused", lat: 31.2304, lon: 121.4737, hacc: 5, alt: 12, vacc: 3, speed: 1,
                           speedAcc: 0.2, course: 90, mode: "3d")
        _ = hub.apply(.fix(fix, t: now), now: now)
        _ = hub.apply(.satellites(device: "car", used: 9, hdop: 0.9, t: now), now: now)
        return hub
    }()

    static func check(_ text: String) {
        for line in text.components(separatedBy: "\r\n") where !line.isEmpty {
            if line.hasPrefix("$") { continue }  // NMEA while watching it
            precondition(line.hasPrefix("{\"class\":\""), "a reply line libgps cannot classify: \(line)")
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            precondition(object is [String: Any], "a reply line that is not one JSON object: \(line)")
        }
    }
}
