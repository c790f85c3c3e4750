import Foundation

// libFuzzer entry for the phone doors' readers: compiled with Shared/LocusProtocol,
// Shared/LocusNet's HTTP reader and Services/Provider/Library/Phones (see ../build-target.sh).

/// The input is tried twice: as an OwnTracks MQTT payload, and as the bytes of an HTTP
/// request (cut into reads of a size its first byte chooses) whose request, once complete,
/// is read as an OsmAnd / Traccar Client report. Promises: never a trap; a refusal always has
/// a message; every fix that comes out is inside the ranges Locus's `location` allows.
@_cdecl("LLVMFuzzerTestOneInput")
public func phonesFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        if case .fix(let fix) = try OwnTracksReport.read(topic: "owntracks/alice/pixel", payload: bytes, now: PhonesFuzzFixture.now) {
            PhonesFuzzFixture.check(fix)
        }
    } catch {
        PhonesFuzzFixture.check(error)
    }
    var reader = HTTPRequestReader(maximumHeadBytes: 4096, maximumBodyBytes: 16_384)
    let chunk = Int(bytes.first ?? 0) % 64 + 1
    var index = 0
    while index < bytes.count {
        let end = min(bytes.count, index + chunk)
        switch reader.feed(bytes[index..<end]) {
        case .incomplete:
            index = end
        case .refused(let status, let reason):
            precondition((400...499).contains(status) && !reason.isEmpty, "a refusal without a 4xx status and a reason")
            return 0
        case .complete(let request):
            precondition(request.body.count <= 16_384, "a body past the limit")
            do {
                if let fix = try OsmAndReport.read(request, now: PhonesFuzzFixture.now).fix { PhonesFuzzFixture.check(fix) }
            } catch {
                PhonesFuzzFixture.check(error)
            }
            return 0
        }
    }
    return 0
}

enum PhonesFuzzFixture {
    static let now = 1_790_000_000.0

    static func check(_ fix: PhoneFix) {
        precondition(Topic.isValidID(fix.device), "a fix of an invalid device id")
        precondition(fix.t.isFinite && fix.t >= 946_684_800 && fix.t <= now + 86_400, "a fix time out of range: \(fix.t)")
        precondition(abs(fix.lat) <= 90 && abs(fix.lon) <= 180, "a position out of range: \(fix.lat), \(fix.lon)")
        if let hacc = fix.hacc { precondition(hacc > 0 && hacc.isFinite, "an accuracy Locus refuses: \(hacc)") }
        if let speed = fix.speed { precondition(speed >= 0 && speed.isFinite, "a speed Locus refuses: \(speed)") }
        if let course = fix.course { precondition(course >= 0 && course < 360, "a course Locus refuses: \(course)") }
        if let battery = fix.battery { precondition((0...100).contains(battery), "a battery level out of range: \(battery)") }
        var mapping = PhoneMapping()
        mapping.assumedHacc = 50
        mapping.altitude = .ellipsoid
        if let mapped = try? mapping.location(fix) {
            let message = Message(body: .location(mapped), id: "fuzz", t: fix.t, src: "provider/fuzz")
            do { try message.validate() } catch { preconditionFailure("a mapped fix that validation refuses: \(error.message)") }
        }
    }

    static func check(_ error: any Error) {
        guard let refusal = error as? PhoneRefusal else { preconditionFailure("an error that is not a refusal: \(error)") }
        precondition(!refusal.message.isEmpty, "a refusal without a message")
    }
}
