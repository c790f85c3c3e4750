/// What the decoder saw, for health reports and for telling a bad cable from a
/// receiver that simply has no fix.
public struct NMEACounters: Sendable, Equatable {
    /// Lines handed to the decoder (comments and blank lines excluded).
    public var lines = 0
    /// Sentences that passed framing and checksum and were decoded.
    public var sentences = 0
    /// Lines whose checksum did not match.
    public var badChecksum = 0
    /// Lines cut short (no `*hh` checksum).
    public var truncated = 0
    /// Lines that were not NMEA (binary, no `$`, bad address).
    public var notNMEA = 0
    /// Lines longer than `NMEASentence.maximumLineBytes`.
    public var tooLong = 0
    /// Proprietary `$P…` sentences skipped.
    public var vendor = 0
    /// Standard sentences we do not decode (RMB, HDT, …) skipped.
    public var unsupported = 0
    /// Decodable sentences with an unreadable field the sentence needs.
    public var malformed = 0
    /// Epochs that ended without a valid position (status V, quality 0, blank).
    public var noFix = 0
    /// Positions rejected: null island, out of range, time going backwards.
    public var rejected = 0
    /// Epochs with a position dropped because no learned cycle-end sentence arrived
    /// in them (gpsd does not report them either; see `NMEACycleEnders`).
    public var incompleteCycles = 0
    /// Fixes produced.
    public var fixes = 0

    public init() {}
}
