import Foundation

// libFuzzer entry for GPX: compiled with the GPX parser and what it depends on (see
// ../build-target.sh).

/// Parses the input as a GPX file. The parser's promise: any bytes give a document or a
/// `GPXError` with a reason (and a position from line 1, column 1 when it has one), never
/// a trap; every point of a document is a valid position with finite optional fields; and
/// its replay timeline has strictly increasing times and in-range fixes.
@_cdecl("LLVMFuzzerTestOneInput")
public func gpxFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let document: GPXDocument
    do { document = try GPXParser.parse(Data(bytes: data, count: size)) } catch {
        precondition(!error.message.isEmpty && !error.description.isEmpty, "GPX rejected without a reason")
        if let line = error.line { precondition(line >= 1 && (error.column ?? 1) >= 1, "error position before the start") }
        return 0
    }
    let all = document.waypoints + document.routes.flatMap { $0 } + document.tracks.flatMap { $0 }
    for point in all {
        precondition(abs(point.lat) <= 90 && abs(point.lon) <= 180, "point out of range")
        for value in [point.elevation, point.time, point.speed, point.course, point.hdop, point.vdop] {
            if let value { precondition(value.isFinite, "non-finite field in a point") }
        }
    }
    // The replay timeline without interpolation (hz nil): its size is bounded by the points.
    let timeline = GPXTimeline(points: Array(document.path.prefix(2000)), startTime: 1_700_000_000, metersPerSecond: 5)
    var last = -Double.infinity
    for fix in timeline.fixes(device: "fuzz", source: "sim", defaultHaccMeters: 5, hz: nil) {
        precondition(fix.t > last, "timeline times not increasing")
        last = fix.t
        precondition(fix.location.hacc > 0 && fix.location.hacc.isFinite, "fix accuracy not positive and finite")
        if let speed = fix.location.speed { precondition(speed.isFinite && speed >= 0, "bad speed") }
    }
    return 0
}
