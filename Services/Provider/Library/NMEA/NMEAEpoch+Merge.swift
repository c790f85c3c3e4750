/// How each supported sentence contributes to an epoch. Field numbers follow
/// NMEA 0183 4.11 (and gpsd's reading of older dialects).
extension NMEASentence {
    /// The time stamp a sentence carries (ms since midnight), nil for untimed ones
    /// (GSA, GSV, VTG) or a blank time.
    var timeOfDayMillis: Int? {
        switch kind {
        case .gga, .rmc, .gns, .gst, .gbs, .zda: timeOfDayMillis(0)
        case .gll: timeOfDayMillis(4)
        case .gsa, .gsv, .vtg: nil
        }
    }
}

extension NMEAEpoch {
    static let metersPerSecondPerKnot = 1852.0 / 3600.0

    /// Merges one sentence. Returns a description of a required field that could not
    /// be read (the sentence is then counted as malformed), nil when all went well.
    mutating func merge(_ s: NMEASentence, logDate: NMEACivilDate?) -> String? {
        sentenceCount += 1
        lastKind = s.kind
        switch s.kind {
        case .gga: return mergeGGA(s)
        case .rmc: return mergeRMC(s, logDate: logDate)
        case .gll: return mergeGLL(s)
        case .gns: return mergeGNS(s)
        case .gsa: return mergeGSA(s)
        case .gsv: return nil
        case .gst: return mergeGST(s)
        case .gbs: return mergeGBS(s)
        case .vtg: return mergeVTG(s)
        case .zda: return mergeZDA(s)
        }
    }

    /// Reads lat/lon at `index`…`index+3`; reports whether the fields were readable.
    private mutating func readPosition(_ s: NMEASentence, at index: Int) -> Bool {
        guard let lat = s.coordinate(index, hemisphere: index + 1, positive: 0x4E, negative: 0x53),
              let lon = s.coordinate(index + 2, hemisphere: index + 3, positive: 0x45, negative: 0x57)
        else { return false }
        setPosition(lat: lat, lon: lon)
        return true
    }

    private mutating func mergeGGA(_ s: NMEASentence) -> String? {
        let quality = s.int(5) ?? 0
        // Quality 0, or a "fix" from zero satellites (seen on Hemisphere receivers), is no fix.
        guard quality != 0, s.int(6) != 0 else { sawNoFix = true; return nil }
        guard readPosition(s, at: 1) else {
            sawNoFix = true
            return s.isBlank(1) ? nil : "GGA position"
        }
        self.quality = quality
        if let count = s.int(6) { sats = count }
        if let value = s.double(7) { hdop = value }
        if let value = s.double(8) { altMSL = value }
        if let value = s.double(10) { geoidSeparation = value }
        return nil
    }

    private mutating func mergeRMC(_ s: NMEASentence, logDate: NMEACivilDate?) -> String? {
        // Status V, or FAA mode N (NMEA 2.3+), means no fix whatever the fields say;
        // the date of such a sentence comes from an unset clock as often as not.
        guard s.letter(1) == 0x41, s.letter(11) != 0x4E else { sawNoFix = true; return nil }
        if let d = s.int(8), d > 0 {
            let day = d / 10000, month = d / 100 % 100, yy = d % 100
            date = NMEACivilDate(year: NMEACivilDate.fullYear(twoDigit: yy, near: logDate), month: month, day: day)
        }
        guard readPosition(s, at: 2) else {
            sawNoFix = true
            return "RMC position"
        }
        if let knots = s.double(6) { speedMetersPerSecond = knots * Self.metersPerSecondPerKnot }
        if let track = s.double(7) { courseDegrees = track }
        return nil
    }

    private mutating func mergeGLL(_ s: NMEASentence) -> String? {
        // Status is field 5 (NMEA 2.0+); very old receivers omit it.
        if let status = s.letter(5), status != 0x41 { sawNoFix = true; return nil }
        if s.letter(6) == 0x4E { sawNoFix = true; return nil }
        guard readPosition(s, at: 0) else {
            sawNoFix = true
            return s.isBlank(0) ? nil : "GLL position"
        }
        return nil
    }

    private mutating func mergeGNS(_ s: NMEASentence) -> String? {
        // Mode indicator: one letter per constellation; all N means no fix.
        let r = s.fieldCount > 5 ? s.range(5) : 0..<0
        let anyFix = r.contains { s.body[$0] != 0x4E }
        guard anyFix, s.int(6) != 0 else { sawNoFix = true; return nil }
        guard readPosition(s, at: 1) else {
            sawNoFix = true
            return s.isBlank(1) ? nil : "GNS position"
        }
        if let count = s.int(6) { sats = count }
        if let value = s.double(7) { hdop = value }
        if let value = s.double(8) { altMSL = value }
        if let value = s.double(9) { geoidSeparation = value }
        return nil
    }

    private mutating func mergeGSA(_ s: NMEASentence) -> String? {
        guard let fixType = s.int(1) else { return "GSA fix type" }
        gsaFixType = fixType
        if let value = s.double(15), hdop == nil { hdop = value }
        if let value = s.double(16) { vdop = value }
        return nil
    }

    private mutating func mergeGST(_ s: NMEASentence) -> String? {
        guard let sigmaLat = s.double(5), let sigmaLon = s.double(6) else { return nil }
        guard sigmaLat >= 0, sigmaLon >= 0, sigmaLat < 1e6, sigmaLon < 1e6 else { return "GST sigma" }
        gstSigma = (sigmaLat, sigmaLon)
        if let sigmaAlt = s.double(7), sigmaAlt >= 0, sigmaAlt < 1e6 { gstSigmaAlt = sigmaAlt }
        return nil
    }

    private mutating func mergeGBS(_ s: NMEASentence) -> String? {
        guard let errLat = s.double(1), let errLon = s.double(2) else { return nil }
        guard errLat >= 0, errLon >= 0, errLat < 1e6, errLon < 1e6 else { return "GBS error" }
        gbsSigma = (errLat, errLon)
        if let errAlt = s.double(3), errAlt >= 0, errAlt < 1e6 { gbsSigmaAlt = errAlt }
        return nil
    }

    private mutating func mergeVTG(_ s: NMEASentence) -> String? {
        if s.letter(1) == 0x54 || s.letter(3) == 0x4D || s.fieldCount >= 8 {
            // NMEA 2.x: course,T,course,M,knots,N,km/h,K[,mode]
            if s.letter(8) == 0x4E { return nil }
            if let track = s.double(0) { courseDegrees = track }
            if let kmh = s.double(6) {
                speedMetersPerSecond = kmh / 3.6
            } else if let knots = s.double(4) {
                speedMetersPerSecond = knots * Self.metersPerSecondPerKnot
            }
        } else {
            // NMEA 1.5: course true, course magnetic, knots, km/h
            if let track = s.double(0) { courseDegrees = track }
            if let knots = s.double(2) { speedMetersPerSecond = knots * Self.metersPerSecondPerKnot }
        }
        return nil
    }

    private mutating func mergeZDA(_ s: NMEASentence) -> String? {
        guard let day = s.int(1), let month = s.int(2), let year = s.int(3) else {
            return s.isBlank(1) ? nil : "ZDA date"
        }
        guard let parsed = NMEACivilDate(year: year, month: month, day: day) else { return "ZDA date" }
        date = parsed
        return nil
    }
}
