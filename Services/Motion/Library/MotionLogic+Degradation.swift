import LocusGeo
import LocusProtocol
import LocusService

/// Degradation: when a device that was moving at a steady rhythm stops reporting, dead-reckoned
/// fixes, then its cached location, then "unavailable" — all timed on the device's own clock.
extension MotionLogic {
    /// The interval good fixes are expected at: their own cadence, stretched by the distance
    /// filter at the last speed and by the provider's low-power rate.
    private func expectedIntervalSeconds(_ track: DeviceTrack) -> Double {
        var expected = track.cadence.intervalSeconds ?? 1
        if let filter = track.steering?.distanceFilterMeters, filter > 0 {
            expected = max(expected, filter / max(track.lastGood?.speedMetersPerSecond ?? 0, 0.5))
        }
        if isLowPower(track) { expected = max(expected, 10) }
        return min(expected, 60)
    }

    /// Whether a fix says its device moves: a moving activity, or a speed clearly above zero.
    func isMoving(_ location: Location, activity: MotionActivity) -> Bool {
        switch activity {
        case .walking, .running, .cycling, .automotive: return true
        case .stationary: return false
        case .unknown:
            guard let speed = location.speed else { return false }
            return speed >= max(configuration.movingSpeedMetersPerSecond, 2 * (location.speedAcc ?? 0))
        }
    }

    /// Whether silence from this device can be an outage: it reported at a steady rhythm and
    /// was moving when its last good fix came. Otherwise its last fix stays its location.
    private func mayDeadReckon(_ track: DeviceTrack) -> Bool {
        track.movingAtLastGood && track.cadence.isEstablished(minimumFixes: configuration.cadenceFixes)
    }

    /// The earliest time (the service's clock) at which `tick` can change `track`: the
    /// conditions of `checkPause` and `degrade`, as times on the device's clock moved to the
    /// service's by its offset (keep them in step with those two). A few ulps early, so rounding
    /// never makes a tick miss one; a device looked at early is simply looked at again next tick.
    func dueTime(_ track: DeviceTrack) -> Double? {
        guard !track.paused else { return nil }
        var due: Double?
        if let since = track.stationarySince { due = since + configuration.pauseAfterSeconds }
        if let good = track.lastGood {
            var next: Double?
            switch track.phase {
            case .tracking:
                if mayDeadReckon(track) {
                    next = max(good.t, track.resumedAt ?? good.t)
                        + (expectedIntervalSeconds(track) + configuration.outageGraceSeconds + track.clock.toleranceSeconds)
                }
            case .deadReckoning(_, let nextT), .cache(let nextT):
                next = nextT
            case .unavailable:
                next = nil
            }
            if let next { due = min(due ?? next, next) }
        }
        // Device time is the service's less the offset: the service's time is the device's plus it.
        return due.map { deviceDue in
            let serviceDue = deviceDue + (track.clock.offsetSeconds ?? 0)
            return serviceDue - 8 * serviceDue.ulp
        }
    }

    /// Degrades a device whose fixes stopped. Every time here is the device's own (its clock's
    /// offset applied to `now`), so a device that is steadily late is not lost, and dead-reckoned
    /// and cached fixes are never stamped later than the device's next real fix can be.
    mutating func degrade(_ track: inout DeviceTrack, device: String, now: Double) -> [Outbound] {
        guard let good = track.lastGood, !track.paused else { return [] }
        var out: [Outbound] = []
        let deviceNow = track.clock.deviceTime(at: now)
        if case .tracking = track.phase {
            guard mayDeadReckon(track) else { return [] }
            let clockStart = max(good.t, track.resumedAt ?? good.t)
            let allowed = expectedIntervalSeconds(track) + configuration.outageGraceSeconds + track.clock.toleranceSeconds
            guard deviceNow - clockStart > allowed else { return [] }
            track.phase = .deadReckoning(DeadReckoner(from: good), nextT: clockStart + configuration.deadReckoningIntervalSeconds)
            counters.add("outages")
            out += steer(&track, device: device, reason: "no good fix for \(Int(deviceNow - good.t)) s: dead reckoning", t: deviceNow)
        }
        if case .deadReckoning(var reckoner, var nextT) = track.phase {
            let profile = configuration.profiles[track.activity] ?? ActivityProfile(maximumSpeedMetersPerSecond: 60, radiusGrowthMetersPerSecond: 4)
            while nextT <= deviceNow {
                reckoner.advance(to: nextT, profile: profile)
                if nextT - good.t > configuration.deadReckoningMaximumSeconds
                    || reckoner.radiusMeters > configuration.deadReckoningMaximumRadiusMeters {
                    track.phase = .cache(nextT: nextT)
                    break
                }
                out.append(deadReckonedFix(reckoner, good: good, device: device, profile: profile))
                counters.add("drFixes")
                nextT += configuration.deadReckoningIntervalSeconds
                track.phase = .deadReckoning(reckoner, nextT: nextT)
            }
        }
        if case .cache(var nextT) = track.phase {
            while nextT <= deviceNow {
                let age = nextT - good.t
                if age > configuration.cacheValiditySeconds {
                    track.phase = .unavailable
                    counters.add("unavailable")
                    let report = ErrorReport(code: "unavailable",
                                             message: "device \(device): no good fix for \(Int(age)) s and the cached location expired",
                                             topic: Topic.locationFused(device))
                    out.append(Outbound(topic: Topic.error(Self.service), body: .error(report), t: nextT))
                    break
                }
                let cached = Location(device: device, source: "cache", lat: good.coordinate.lat, lon: good.coordinate.lon,
                                      hacc: good.haccMeters, alt: good.altitudeMeters, mode: "cache", age: age)
                out.append(Outbound(topic: Topic.locationRaw(device), body: .location(cached), t: nextT))
                counters.add("cacheFixes")
                nextT += configuration.cacheIntervalSeconds
                track.phase = .cache(nextT: nextT)
            }
        }
        return out
    }

    private func deadReckonedFix(_ reckoner: DeadReckoner, good: GoodFix, device: String, profile: ActivityProfile) -> Outbound {
        let speed = reckoner.extrapolates ? reckoner.speedMetersPerSecond.map { min($0, profile.maximumSpeedMetersPerSecond) } : nil
        let location = Location(device: device, source: "dr", lat: reckoner.coordinate.lat, lon: reckoner.coordinate.lon,
                                hacc: reckoner.radiusMeters, alt: good.altitudeMeters, speed: speed,
                                course: reckoner.extrapolates ? reckoner.courseDegrees : nil, mode: "dr")
        return Outbound(topic: Topic.locationRaw(device), body: .location(location), t: reckoner.t)
    }
}
