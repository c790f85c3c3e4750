import Foundation

/// NMEA 0183 from a file (or stdin), a serial port, a TCP server or UDP datagrams.
///
/// Files are paced by the fixes' own times (`ReplayPacer`) and end the source at EOF;
/// serial ports and TCP connections are reopened with `Backoff` after an unplug or a
/// dropped connection; UDP listens until stopped. An epoch without a position (status
/// V, quality 0, empty fields) yields no location and sets the status to "no fix".
public struct NMEASource: PositionSource {
    public enum Input: Sendable, Equatable {
        case file(path: String)
        case serial(path: String, baud: Int)
        case tcp(host: String, port: Int)
        case udp(port: Int)
    }

    public var input: Input
    /// The `source` word of published locations (`gnss` unless told, e.g. `gps`).
    public var sourceName: String
    public var date: NMEACivilDate?
    public var pacer: ReplayPacer
    /// Week-rollover repair: by default for live inputs (serial, TCP, UDP), not for files.
    public var rollover: WeekRollover.Policy
    public let plugin = "nmea"

    public init(input: Input, sourceName: String = "gnss", date: NMEACivilDate? = nil, pacer: ReplayPacer = ReplayPacer(),
                rollover: WeekRollover.Policy = .auto) {
        self.input = input
        self.sourceName = sourceName
        self.date = date
        self.pacer = pacer
        self.rollover = rollover
    }

    public func run(_ context: SourceContext) {
        var reader = NMEAStreamReader(context: context, sourceName: sourceName, date: date, pacer: pacer,
                                      rollover: WeekRollover(enabled: rollover.repairs(live: isLive)))
        var backoff = Backoff()
        while !context.stop.isRaised {
            let stream: ByteStream
            do {
                stream = try open()
            } catch {
                context.status.set(.disconnected, note: error.message)
                guard reconnects else {
                    context.problem(code: "sourceFailed", error.message)
                    break
                }
                context.problem(code: "sourceUnavailable", "\(error.message); retrying")
                context.stop.sleep(seconds: backoff.nextDelay())
                continue
            }
            backoff.reset()
            let ending = reader.drain(stream)
            stream.close()
            if !reconnects { break }
            if !context.stop.isRaised {
                context.status.set(.disconnected, note: "\(stream.name): \(ending ?? "input ended"); reopening")
                context.problem(code: "sourceLost", "\(stream.name): \(ending ?? "input ended"); reopening")
                context.stop.sleep(seconds: backoff.nextDelay())
            }
        }
        reader.finish()
        context.finish()
    }

    /// A receiver sending now (serial, TCP, UDP), as opposed to a recorded log.
    var isLive: Bool {
        if case .file = input { return false }
        return true
    }

    /// Serial ports and TCP connections come back; files end, and UDP never closes.
    var reconnects: Bool {
        switch input {
        case .serial, .tcp: true
        case .file, .udp: false
        }
    }

    private func open() throws(SourceError) -> ByteStream {
        switch input {
        case .file(let path): try StreamOpeners.file(path)
        case let .serial(path, baud): try StreamOpeners.serial(path, baud: baud)
        case let .tcp(host, port): try StreamOpeners.tcp(host: host, port: port)
        case .udp(let port): try StreamOpeners.udp(port: port)
        }
    }
}

/// Feeds bytes to one `NMEADecoder` across reconnects and turns its fixes into emitted locations.
struct NMEAStreamReader {
    let context: SourceContext
    let sourceName: String
    var decoder: NMEADecoder
    var dates: NMEADateFallback
    var pacer: ReplayPacer
    var rollover: WeekRollover
    var untimed = 0

    init(context: SourceContext, sourceName: String, date: NMEACivilDate?, pacer: ReplayPacer,
         rollover: WeekRollover = WeekRollover(enabled: false)) {
        self.context = context
        self.sourceName = sourceName
        decoder = NMEADecoder(logDate: date)
        dates = NMEADateFallback(date: date)
        self.pacer = pacer
        self.rollover = rollover
    }

    /// Reads until the stream ends, fails or a stop is requested; returns why it ended.
    mutating func drain(_ stream: ByteStream) -> String? {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !context.stop.isRaised {
            let result = buffer.withUnsafeMutableBytes { stream.read(into: $0, timeoutMilliseconds: 200) }
            switch result {
            case .timeout: continue
            case .end: return nil
            case .failed(let why): return why
            case .data(let count):
                let fixes = buffer.withUnsafeBytes { decoder.feed(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                handle(fixes)
            }
        }
        return nil
    }

    mutating func finish() {
        handle(decoder.finish())
    }

    private mutating func handle(_ fixes: [NMEAFix]) {
        for fix in fixes {
            guard let decoded = dates.time(for: fix) else {
                untimed += 1
                if untimed == 1 {
                    context.problem(code: "noDate", "NMEA fix at \(fix.timeOfDay) s of day has no date (no RMC/ZDA yet); "
                                    + "skipped — pass --date YYYY-MM-DD to date such fixes")
                }
                continue
            }
            let t = context.repairRollover(decoded, with: &rollover, now: Date().timeIntervalSince1970)
            guard var (location, _) = FixMapping.location(timed(fix, t), device: context.device, source: sourceName) else { continue }
            location.device = context.device
            let wait = pacer.delay(forFixTime: t, now: Date().timeIntervalSince1970)
            if wait > 0, !context.stop.sleep(seconds: wait) { return }
            context.emit(location, t: t)
        }
        publishState()
    }

    private func timed(_ fix: NMEAFix, _ t: Double) -> NMEAFix {
        var copy = fix
        copy.time = t
        return copy
    }

    private func publishState() {
        let counters = decoder.counters
        context.status.setCounters([
            "sentences": counters.sentences, "badChecksum": counters.badChecksum, "noFix": counters.noFix,
            "decoded": counters.fixes, "untimed": untimed, "rejected": counters.rejected, "rolloverRepaired": rollover.repaired,
        ])
        if decoder.hasFix == false { context.status.set(.noFix, note: decoder.lastProblem) }
    }
}
