import Foundation

/// A client of a running gpsd: connects, asks for JSON reports with
/// `?WATCH={"enable":true,"json":true}`, turns TPV reports into locations, and
/// reconnects with `Backoff` when gpsd restarts or the connection drops.
public struct GPSDSource: PositionSource {
    public var host: String
    public var port: Int
    public var sourceName: String
    /// Stop once gpsd closes an established connection instead of reconnecting (tests with
    /// `gpsfake -1`); connecting is still retried until it first succeeds.
    public var exitOnDisconnect: Bool
    /// Week-rollover repair (gpsd repairs most receivers itself; this catches the rest).
    public var rollover: WeekRollover.Policy
    public let plugin = "gpsd"

    public init(host: String = "localhost", port: Int = 2947, sourceName: String = "gnss", exitOnDisconnect: Bool = false,
                rollover: WeekRollover.Policy = .auto) {
        self.host = host
        self.port = port
        self.sourceName = sourceName
        self.exitOnDisconnect = exitOnDisconnect
        self.rollover = rollover
    }

    public func run(_ context: SourceContext) {
        var backoff = Backoff()
        var lastTime = -Double.infinity
        var connectedOnce = false
        var repair = WeekRollover(enabled: rollover.repairs(live: true))
        while !context.stop.isRaised {
            do throws(SourceError) {
                let stream = try StreamOpeners.tcp(host: host, port: port)
                backoff.reset()
                connectedOnce = true
                guard stream.write(Array("?WATCH={\"enable\":true,\"json\":true}\n".utf8)) else {
                    throw SourceError("gpsd at \(host):\(port) closed the connection")
                }
                context.status.set(.waiting, note: "connected to gpsd at \(host):\(port)")
                var lines = LineSplitter()
                var buffer = [UInt8](repeating: 0, count: 16_384)
                reading: while !context.stop.isRaised {
                    switch buffer.withUnsafeMutableBytes({ stream.read(into: $0, timeoutMilliseconds: 200) }) {
                    case .timeout: continue
                    case .end, .failed: break reading
                    case .data(let count):
                        for line in lines.feed(buffer[0..<count]) {
                            handle(line, context: context, lastTime: &lastTime, rollover: &repair)
                        }
                    }
                }
                stream.close()
                if exitOnDisconnect { break }
                if !context.stop.isRaised {
                    context.status.set(.disconnected, note: "gpsd at \(host):\(port) went away; reconnecting")
                    context.problem(code: "sourceLost", "gpsd at \(host):\(port) went away; reconnecting")
                }
            } catch {
                context.status.set(.disconnected, note: error.message)
                if exitOnDisconnect, connectedOnce {
                    context.problem(code: "sourceFailed", error.message)
                    break
                }
                context.problem(code: "sourceUnavailable", "\(error.message); retrying")
            }
            context.stop.sleep(seconds: backoff.nextDelay())
        }
        context.finish()
    }

    private func handle(_ line: String, context: SourceContext, lastTime: inout Double, rollover: inout WeekRollover) {
        switch GPSDReport.parse(line: line, device: context.device, source: sourceName) {
        case let .fix(location, reported):
            let t = context.repairRollover(reported, with: &rollover, now: Date().timeIntervalSince1970)
            // gpsd repeats a TPV for the same epoch when a later sentence completes it; publish the newest time once.
            guard t > lastTime else { return }
            lastTime = t
            context.emit(location, t: t)
        case .noFix: context.status.set(.noFix, note: "gpsd reports no fix")
        case .untimed: context.status.set(.noFix, note: "gpsd reports a position without time")
        case .other, nil: break
        }
    }
}

/// Splits a byte stream into text lines across reads (bounded: over-long lines are dropped).
struct LineSplitter {
    private var pending: [UInt8] = []
    static let maximumLineBytes = 1 << 20

    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == 0x0A {
                if pending.last == 0x0D { pending.removeLast() }
                lines.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
            } else if pending.count < Self.maximumLineBytes {
                pending.append(byte)
            }
        }
        return lines
    }

    mutating func finish() -> String? {
        defer { pending.removeAll() }
        return pending.isEmpty ? nil : String(decoding: pending, as: UTF8.self)
    }
}
