import Foundation

/// Replays a GPX track, route or waypoint list (see `GPXTimeline` for times and
/// interpolation), paced by `ReplayPacer` (`--speed`, `--rate max`), once or in a loop.
/// Locations keep the file's times; each loop is shifted by the track's duration plus one step.
public struct GPXSource: PositionSource {
    public var path: String
    public var pacer: ReplayPacer
    public var loop: Bool
    public var hz: Double?
    public var metersPerSecond: Double
    public var startTime: Double?
    public var defaultHaccMeters: Double
    public var sourceName: String
    public let plugin = "gpx"

    public init(path: String, pacer: ReplayPacer = ReplayPacer(), loop: Bool = false, hz: Double? = nil,
                metersPerSecond: Double = 1.4, startTime: Double? = nil, defaultHaccMeters: Double = 5, sourceName: String = "gps") {
        self.path = path
        self.pacer = pacer
        self.loop = loop
        self.hz = hz
        self.metersPerSecond = metersPerSecond
        self.startTime = startTime
        self.defaultHaccMeters = defaultHaccMeters
        self.sourceName = sourceName
    }

    public func run(_ context: SourceContext) {
        defer { context.finish() }
        let document: GPXDocument
        do {
            document = try GPXParser.parse(contentsOf: path)
        } catch {
            context.problem(code: "badInput", "\(path): \(error.description)")
            return
        }
        let start = startTime ?? document.time ?? Date().timeIntervalSince1970
        let timeline = GPXTimeline(points: document.path, startTime: start, metersPerSecond: metersPerSecond)
        guard !timeline.points.isEmpty else {
            context.problem(code: "badInput", "\(path): no track, route or waypoint to replay")
            return
        }
        if timeline.droppedPoints > 0 {
            context.problem(code: "badInput", "\(path): \(timeline.droppedPoints) point(s) whose time does not increase were skipped")
        }
        context.status.setCounters(["points": timeline.points.count, "droppedPoints": timeline.droppedPoints])
        var pacer = pacer
        let period = timeline.duration + (hz.map { 1 / $0 } ?? 1)
        var pass = 0.0
        repeat {
            let fixes = timeline.fixes(device: context.device, source: sourceName, defaultHaccMeters: defaultHaccMeters,
                                       hz: hz, offset: pass * period)
            for fix in fixes {
                let wait = pacer.delay(forFixTime: fix.t, now: Date().timeIntervalSince1970)
                if wait > 0, !context.stop.sleep(seconds: wait) { return }
                if context.stop.isRaised { return }
                context.emit(fix.location, t: fix.t)
            }
            pass += 1
        } while loop && !context.stop.isRaised
    }
}
