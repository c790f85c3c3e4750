/// Everything the sentences of one reporting epoch (one receiver time stamp) said.
///
/// Sentences overwrite earlier ones in arrival order, as gpsd's merge does: the
/// last valid position of the epoch is the one reported.
struct NMEAEpoch {
    /// Time stamp of the epoch in milliseconds since midnight; nil until a timed sentence arrives.
    var timeOfDayMillis: Int?
    /// Date carried by an RMC or ZDA of this epoch.
    var date: NMEACivilDate?

    var lat: Double?
    var lon: Double?
    /// A position sentence said there is no fix (status V, quality 0, mode N).
    var sawNoFix = false
    /// A position was read but rejected (null island, out of range).
    var rejectedPosition: String?

    var quality: Int?
    var altMSL: Double?
    var geoidSeparation: Double?
    var speedMetersPerSecond: Double?
    var courseDegrees: Double?
    var sats: Int?
    var hdop: Double?
    var vdop: Double?
    var gsaFixType: Int?
    var gstSigma: (lat: Double, lon: Double)?
    var gstSigmaAlt: Double?
    var gbsSigma: (lat: Double, lon: Double)?
    var gbsSigmaAlt: Double?

    /// Kind of the last sentence merged, used to learn which sentence ends a cycle.
    var lastKind: NMEASentenceKind?
    /// This epoch's time was already reported (a sentence arrived after the learned cycle end).
    var alreadyReported = false
    /// A sentence at which gpsd would report arrived while the epoch held a position
    /// (see `NMEACycleEnders`); epochs without one are not reported.
    var reportable = false
    /// Number of sentences merged.
    var sentenceCount = 0

    var hasPosition: Bool { lat != nil && lon != nil }

    /// Records a position after the range and null-island checks.
    mutating func setPosition(lat: Double, lon: Double) {
        guard (-90...90).contains(lat), (-180...180).contains(lon) else {
            rejectedPosition = "position out of range (\(lat), \(lon))"
            return
        }
        guard !(lat == 0 && lon == 0) else {
            rejectedPosition = "null island (0, 0) position"
            return
        }
        self.lat = lat
        self.lon = lon
    }

    /// Builds the fix, or nil when the epoch holds no valid position.
    func fix(unixDay: Int?) -> NMEAFix? {
        guard let lat, let lon, let millis = timeOfDayMillis else { return nil }
        let timeOfDay = Double(millis) / 1000
        let time = unixDay.map { MidnightRollover.unixTime(day: $0, timeOfDay: timeOfDay) }
        let mode: Int = switch gsaFixType {
        case 2: 2
        case 3: 3
        default: altMSL != nil ? 3 : 2
        }
        var hacc: Double
        var source: String
        if let sigma = gstSigma {
            hacc = NMEAAccuracyModel.radius68(sigmaLatMeters: sigma.lat, sigmaLonMeters: sigma.lon)
            source = "gst"
        } else if let sigma = gbsSigma {
            hacc = NMEAAccuracyModel.radius68(sigmaLatMeters: sigma.lat, sigmaLonMeters: sigma.lon)
            source = "gbs"
        } else if let hdop, hdop > 0 {
            hacc = NMEAAccuracyModel.radius68(hdop: hdop, quality: quality)
            source = "hdop"
        } else {
            hacc = NMEAAccuracyModel.defaultRadiusMeters
            source = "default"
        }
        if !(hacc > 0) || !hacc.isFinite {
            hacc = NMEAAccuracyModel.defaultRadiusMeters
            source = "default"
        }
        let vacc: Double? = gstSigmaAlt ?? gbsSigmaAlt ?? vdop.flatMap { vdop in
            vdop > 0 ? vdop * NMEAAccuracyModel.uereMeters(quality: quality) : nil
        }
        let altHAE: Double? = mode == 3 ? altMSL.map { $0 + (geoidSeparation ?? 0) } : nil
        return NMEAFix(
            time: time, timeOfDay: timeOfDay, lat: lat, lon: lon, mode: mode,
            altHAE: geoidSeparation == nil ? nil : altHAE, altMSL: mode == 3 ? altMSL : nil,
            speed: speedMetersPerSecond, course: courseDegrees, sats: sats, hdop: hdop,
            hacc: hacc, vacc: vacc, haccSource: source, quality: quality)
    }
}
