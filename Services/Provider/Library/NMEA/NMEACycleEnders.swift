/// Learns which sentence kinds end a receiver's reporting cycle, the way gpsd does,
/// so the decoder reports the same epochs gpsd reports and no others.
///
/// gpsd's rule (its NMEA driver's end-of-cycle detector): whenever a sentence that
/// registers a cycle time (see `NMEASentence.registersCycleTime`) brings a time
/// different from the previous one, the kind of the previous time-registering
/// sentence is tagged as a cycle end; tags are never removed. Until
/// the first tag every sentence that adds a position reports; afterwards an epoch is
/// reported only when a tagged kind arrives while it holds a position. A GLL bringing
/// the new time tags nothing (gpsd treats GLL as a cycle continuer), and a GLL without
/// a time takes over the cycle end from the sentence before it.
///
/// So an epoch in which no learned cycle end arrives — the second cycle of a log when
/// the first cycle ended with a kind the second lacks, or a cycle cut short at the end
/// of a log — is one gpsd never reports, and neither should we.
struct NMEACycleEnders {
    /// The tagged kinds (`NMEASentenceKind.bit`).
    private(set) var kinds: UInt16 = 0
    /// Kind of the last sentence that registered a cycle time (gpsd's `lasttag`).
    private var lastTimedKind: NMEASentenceKind?
    /// Cycle time of that sentence, ms since midnight.
    private var lastTimeMillis: Int?

    /// gpsd treats times closer than this as the same cycle.
    static let sameTimeToleranceMillis = 10

    /// Whether any cycle end has been learned (gpsd's "reliable cycle end").
    var isLearned: Bool { kinds != 0 }

    /// Records one decoded sentence and returns whether gpsd would report at it,
    /// provided the epoch holds a position by then.
    mutating func observe(_ sentence: NMEASentence) -> Bool {
        let kind = sentence.kind
        if let stamp = sentence.cycleTimeMillis {
            let timeChanged = lastTimeMillis.map { abs($0 - stamp) > Self.sameTimeToleranceMillis } ?? true
            if timeChanged, let last = lastTimedKind, kind != .gll {
                kinds |= last.bit
            }
            lastTimeMillis = stamp
            lastTimedKind = kind
            return !isLearned || kinds & kind.bit != 0
        }
        if kind == .gll, sentence.timeOfDayMillis == nil, let last = lastTimedKind {
            kinds &= ~last.bit
            kinds |= kind.bit
            return true
        }
        return !isLearned
    }
}

extension NMEASentence {
    /// The time gpsd takes as this sentence's cycle time, nil when it takes none: GST
    /// never counts, an RMC only with status A and a date, a ZDA only with a date.
    /// (gpsd ignores an invalid RMC's time because some receivers send a bogus one.)
    var cycleTimeMillis: Int? {
        switch kind {
        case .gga, .gns, .gll, .gbs:
            return timeOfDayMillis
        case .rmc:
            guard letter(1) == 0x41, !isBlank(8) else { return nil }
            return timeOfDayMillis
        case .zda:
            guard int(1) != nil, int(2) != nil, int(3) != nil else { return nil }
            return timeOfDayMillis
        case .gsa, .gsv, .gst, .vtg:
            return nil
        }
    }
}
