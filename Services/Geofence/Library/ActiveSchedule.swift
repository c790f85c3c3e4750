import Foundation
public import LocusProtocol

/// A region's `activeHours` ready to ask: is it monitored at fix time t, and in which
/// window? Local time comes from the named zone's offset at t (Foundation's `TimeZone`,
/// from the system's tz database), so windows follow daylight saving time: "08:00" is
/// 08:00 on the wall clock on both sides of a change.
public struct ActiveSchedule: Sendable, Equatable {
    let zone: TimeZone
    /// Per window: days (0 = Monday), start and end in minutes after local midnight.
    let windows: [(days: Set<Int>, start: Int, end: Int)]

    public init(_ hours: ActiveHours) throws(RegionRejection) {
        guard let zone = TimeZone(identifier: hours.timeZone) else {
            throw RegionRejection(.invalidSchedule, "activeHours: unknown time zone \"\(hours.timeZone)\" (an IANA name such as Europe/Berlin)")
        }
        self.zone = zone
        windows = hours.windows.map { window in
            (Set(window.days.compactMap { ActiveWindow.dayNames.firstIndex(of: $0) }),
             ActiveWindow.minutes(window.start) ?? 0, ActiveWindow.minutes(window.end) ?? 0)
        }
    }

    /// The window holding fix time `t`, named by its local start (minutes since the local
    /// epoch: later windows have larger names), or nil when the region is not active.
    public func window(at t: Double) -> Int? {
        let local = t + Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: t)))
        let minute = Int((local / 60).rounded(.down))
        let day = Int((Double(minute) / 1_440).rounded(.down))
        let ofDay = minute - day * 1_440
        let weekday = ((day + 3) % 7 + 7) % 7  // 1 January 1970 was a Thursday
        var found: Int?
        for window in windows {
            if window.start < window.end {
                if window.days.contains(weekday), ofDay >= window.start, ofDay < window.end { found = max(found ?? .min, day * 1_440 + window.start) }
            } else {
                // Past midnight (or all day when start == end).
                if window.days.contains(weekday), ofDay >= window.start { found = max(found ?? .min, day * 1_440 + window.start) }
                if window.days.contains((weekday + 6) % 7), ofDay < window.end { found = max(found ?? .min, (day - 1) * 1_440 + window.start) }
            }
        }
        return found
    }

    public static func == (lhs: ActiveSchedule, rhs: ActiveSchedule) -> Bool {
        lhs.zone == rhs.zone && lhs.windows.elementsEqual(rhs.windows) { $0.days == $1.days && $0.start == $1.start && $0.end == $1.end }
    }
}
