import Foundation

/// One position report with its time key, from gpsd's `.chk`, `gpsdecode` or our decoder.
struct TimedPosition {
    /// Milliseconds since midnight UTC: the key epochs are matched on.
    var timeOfDayMillis: Int
    /// Whole date as `yyyy-mm-dd` when the source states one.
    var date: String?
    var lat: Double
    var lon: Double
}

/// Reads TPV objects (gpsd JSON, one object per line) with `mode >= 2`, a time and a position.
/// TPVs without `time` cannot be assigned to an epoch and are skipped (gpsd omits the
/// time when it knows no date, e.g. a log of GLL sentences only).
enum GoldenTPV {
    /// Positions of TPVs with mode ≥ 2 but no time: gpsd reports these before it
    /// knows a date (e.g. at GGA, before the cycle's RMC brings the date).
    static func untimedPositions(inJSONLines text: String) -> [TimedPosition] {
        var result: [TimedPosition] = []
        for line in text.split(whereSeparator: \.isNewline) where line.contains("\"TPV\"") && !line.contains("\"time\"") {
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let mode = object["mode"] as? Int, mode >= 2,
                  let lat = (object["lat"] as? NSNumber)?.doubleValue,
                  let lon = (object["lon"] as? NSNumber)?.doubleValue
            else { continue }
            result.append(TimedPosition(timeOfDayMillis: -1, date: nil, lat: lat, lon: lon))
        }
        return result
    }

    static func positions(inJSONLines text: String) -> [TimedPosition] {
        var result: [TimedPosition] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{") && line.contains("\"TPV\"") {
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  object["class"] as? String == "TPV",
                  let mode = object["mode"] as? Int, mode >= 2,
                  let time = object["time"] as? String,
                  let lat = (object["lat"] as? NSNumber)?.doubleValue,
                  let lon = (object["lon"] as? NSNumber)?.doubleValue,
                  let stamp = parseTime(time)
            else { continue }
            result.append(TimedPosition(timeOfDayMillis: stamp.millis, date: stamp.date, lat: lat, lon: lon))
        }
        return result
    }

    /// `2001-06-06T22:53:08.000Z` → (date, ms since midnight).
    static func parseTime(_ text: String) -> (date: String, millis: Int)? {
        let parts = text.split(separator: "T")
        guard parts.count == 2 else { return nil }
        let clock = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "Z"))
        let hms = clock.split(separator: ":")
        guard hms.count == 3, let h = Int(hms[0]), let m = Int(hms[1]), let s = Double(hms[2]) else { return nil }
        let millis = (h * 3600 + m * 60) * 1000 + Int((s * 1000).rounded())
        return (String(parts[0]), millis)
    }
}
