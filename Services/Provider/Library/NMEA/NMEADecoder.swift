/// Turns a stream of NMEA 0183 lines or bytes into one fix per reporting epoch.
///
/// An epoch is the run of sentences carrying one receiver time stamp, plus the
/// untimed ones (GSA, GSV, VTG) among them. Which epochs are reported follows gpsd
/// (`NMEACycleEnders`): once gpsd has learned which sentences end a cycle, an epoch in
/// which none of them arrives is dropped (counted in `incompleteCycles`), at the
/// start of a log, in its middle or at its end alike.
///
/// When a reported epoch is emitted is our own choice: the decoder learns which
/// sentence kind comes last in each cycle (the last one before the time stamp
/// changes, seen twice in a row) and then reports as soon as that sentence arrives
/// instead of waiting a whole cycle. If a sentence with the reported time stamp
/// turns up after that, the guess is dropped and the late data is not reported twice.
///
/// Dates come from RMC or ZDA; a `# Date:` comment (gpsd's log convention) or the
/// `logDate` argument picks the century of two-digit RMC years. Until a date is
/// known, fixes carry `timeOfDay` but `time == nil`.
public struct NMEADecoder: Sendable {
    public private(set) var counters = NMEACounters()
    /// The last thing that went wrong, phrased for an `error.<service>` report.
    public private(set) var lastProblem: String?
    /// Whether the most recent finished epoch had a position (nil before the first).
    public private(set) var hasFix: Bool?
    /// Date from the log header or the caller, used for the century of RMC dates.
    public private(set) var logDate: NMEACivilDate?

    private var current: NMEAEpoch?
    private var days = MidnightRollover()
    private var lastFix: NMEAFix?
    private var lastReportedMillis: Int?
    private var enderKind: NMEASentenceKind?
    private var enderCandidate: NMEASentenceKind?
    private var cycleEnders = NMEACycleEnders()
    private var pending: [UInt8] = []
    private var discardingOverlongLine = false

    public init(logDate: NMEACivilDate? = nil) {
        self.logDate = logDate
    }

    // MARK: Input

    /// Feeds one line (without or with its line ending). Returns fixes completed by it.
    public mutating func feed(line: Substring) -> [NMEAFix] {
        if line.first == "#" {
            if let date = NMEACivilDate(logComment: line) { logDate = date }
            return []
        }
        var fixes: [NMEAFix] = []
        let handled: Void? = line.utf8.withContiguousStorageIfAvailable { buffer in
            process(line: buffer, into: &fixes)
        }
        if handled == nil {
            let bytes = Array(line.utf8)
            bytes.withUnsafeBufferPointer { process(line: $0, into: &fixes) }
        }
        return fixes
    }

    /// Feeds raw bytes from a serial port, socket or file; lines may span calls.
    /// A line longer than `NMEASentence.maximumLineBytes` is dropped (and counted)
    /// without buffering it, so a 10 MB line costs no memory.
    public mutating func feed(bytes: UnsafeRawBufferPointer) -> [NMEAFix] {
        var fixes: [NMEAFix] = []
        let all = bytes.bindMemory(to: UInt8.self)
        let count = all.count
        var start = 0
        while start < count {
            let end = NMEAByteScan.lineEnd(in: all, from: start)
            if !discardingOverlongLine, pending.count + (end - start) > NMEASentence.maximumLineBytes {
                counters.tooLong += 1
                lastProblem = NMEAParseError.tooLong(byteCount: NMEASentence.maximumLineBytes + 1).description
                pending.removeAll(keepingCapacity: true)
                discardingOverlongLine = true
            }
            guard end < count else {
                if !discardingOverlongLine { pending.append(contentsOf: UnsafeBufferPointer(rebasing: all[start..<count])) }
                break
            }
            if !discardingOverlongLine {
                if pending.isEmpty {
                    if end > start { process(line: UnsafeBufferPointer(rebasing: all[start..<end]), into: &fixes) }
                } else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: all[start..<end]))
                    pending.withUnsafeBufferPointer { process(line: $0, into: &fixes) }
                    pending.removeAll(keepingCapacity: true)
                }
            }
            discardingOverlongLine = false
            start = end + 1
        }
        return fixes
    }

    /// Ends the stream: reports the last epoch, which no later time stamp will close,
    /// when gpsd would have reported it (a learned cycle end arrived in it).
    public mutating func finish() -> [NMEAFix] {
        var fixes: [NMEAFix] = []
        if !discardingOverlongLine, !pending.isEmpty {
            let line = pending
            pending.removeAll()
            line.withUnsafeBufferPointer { process(line: $0, into: &fixes) }
        }
        discardingOverlongLine = false
        closeCurrent(into: &fixes)
        return fixes
    }

    // MARK: Lines and sentences

    private mutating func process(line: UnsafeBufferPointer<UInt8>, into fixes: inout [NMEAFix]) {
        guard let first = line.first(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        if first == 0x23 {  // "#": a log comment
            let text = String(decoding: line, as: UTF8.self)
            if let date = NMEACivilDate(logComment: Substring(text)) { logDate = date }
            return
        }
        counters.lines += 1
        var line = line
        if let restart = Self.restartIndex(in: line) {
            // A sentence cut short by the next one's "$" on the same line: the cut one
            // is lost, the next one is whole (gpsd's lexer restarts at every "$" too).
            record(.truncated("a new sentence starts inside this one"))
            line = UnsafeBufferPointer(rebasing: line[restart...])
        }
        let sentence: NMEASentence
        do {
            sentence = try NMEASentence.parse(bytes: line)
        } catch {
            record(error)
            return
        }
        counters.sentences += 1
        handle(sentence, into: &fixes)
    }

    /// Index of the last "$" when an earlier "$" precedes it, i.e. where the last of
    /// several sentences run together on one line starts; nil for an ordinary line.
    private static func restartIndex(in line: UnsafeBufferPointer<UInt8>) -> Int? {
        var first: Int?
        var last: Int?
        NMEAByteScan.forEach(0x24, in: line) { index in
            if first == nil { first = index }
            last = index
        }
        guard let first, let last, first < last else { return nil }
        return last
    }

    private mutating func record(_ error: NMEAParseError) {
        switch error {
        case .badChecksum: counters.badChecksum += 1
        case .truncated: counters.truncated += 1
        case .notNMEA: counters.notNMEA += 1
        case .tooLong: counters.tooLong += 1
        case .vendor: counters.vendor += 1; return
        case .unsupported: counters.unsupported += 1; return
        case .invalidField: counters.malformed += 1
        }
        lastProblem = error.description
    }

    private mutating func handle(_ sentence: NMEASentence, into fixes: inout [NMEAFix]) {
        let stamp = sentence.timeOfDayMillis
        let reportsHere = cycleEnders.observe(sentence)
        if let stamp {
            if let epochStamp = current?.timeOfDayMillis, epochStamp != stamp {
                learnCycleEnd(from: current?.lastKind)
                closeCurrent(into: &fixes)
            }
            if current?.timeOfDayMillis == nil, stamp == lastReportedMillis {
                // Data for an epoch already reported: the learned cycle end was wrong.
                enderKind = nil
                enderCandidate = nil
                if current == nil { current = NMEAEpoch() }
                current?.alreadyReported = true
            }
        }
        if current == nil { current = NMEAEpoch() }
        if current?.timeOfDayMillis == nil, let stamp { current?.timeOfDayMillis = stamp }
        if let problem = current?.merge(sentence, logDate: logDate) {
            counters.malformed += 1
            lastProblem = NMEAParseError.invalidField(problem).description
        }
        if reportsHere, current?.hasPosition == true { current?.reportable = true }
        if sentence.kind == enderKind, current?.timeOfDayMillis != nil, current?.reportable == true {
            closeCurrent(into: &fixes)
        }
    }

    /// The last sentence before a time stamp change is the cycle end when the same
    /// kind does it twice running. Multi-sentence groups (GSV, GSA) cannot be enders:
    /// their first part would end the cycle too early.
    private mutating func learnCycleEnd(from kind: NMEASentenceKind?) {
        guard let kind, kind != .gsv, kind != .gsa else { return }
        if kind == enderCandidate { enderKind = kind }
        enderCandidate = kind
    }

    // MARK: Epoch end

    private mutating func closeCurrent(into fixes: inout [NMEAFix]) {
        guard let epoch = current else { return }
        current = nil
        guard let stamp = epoch.timeOfDayMillis else { return }
        advanceDate(epoch: epoch, stamp: stamp)
        guard !epoch.alreadyReported else { return }
        guard epoch.reportable || !epoch.hasPosition else {
            // gpsd learned its cycle ends and none of them arrived in this epoch.
            counters.incompleteCycles += 1
            return
        }
        lastReportedMillis = stamp
        guard let fix = epoch.fix(unixDay: days.day) else {
            hasFix = false
            if let why = epoch.rejectedPosition {
                counters.rejected += 1
                lastProblem = "rejected: \(why)"
            } else if epoch.sawNoFix || epoch.hasPosition == false {
                counters.noFix += 1
                lastProblem = "no fix"
            }
            return
        }
        if let problem = timeProblem(fix) {
            counters.rejected += 1
            lastProblem = "rejected: \(problem)"
            return
        }
        hasFix = true
        lastFix = fix
        counters.fixes += 1
        fixes.append(fix)
    }

    /// Keeps the UTC day in step: a date sentence sets it, otherwise `MidnightRollover` moves it on.
    private mutating func advanceDate(epoch: NMEAEpoch, stamp: Int) {
        days.follow(millis: stamp, date: epoch.date?.daysSinceEpoch)
    }

    /// Fix times must move forward; a receiver replaying old data or a log spliced
    /// out of order would otherwise move the device back in time.
    private func timeProblem(_ fix: NMEAFix) -> String? {
        guard let last = lastFix else { return nil }
        if let now = fix.time, let before = last.time {
            return now > before ? nil : "time went backwards from \(before) to \(now)"
        }
        if fix.timeOfDay > last.timeOfDay || MidnightRollover.crossesMidnight(fromSeconds: last.timeOfDay, toSeconds: fix.timeOfDay) {
            return nil
        }
        return "time of day went backwards from \(last.timeOfDay) to \(fix.timeOfDay)"
    }
}
