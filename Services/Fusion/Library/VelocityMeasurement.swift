import Foundation
public import LocusProtocol

/// A fix's own velocity (speed and course), as east and north components with one per-axis
/// sigma. Receivers measure velocity from the Doppler shift, independently of the position,
/// and say how good it is (`speedAcc`: gpsd's `eps`, Android's speed accuracy, u-blox `sAcc`).
/// A speed without `speedAcc` may be a difference of positions (GPX, NMEA replays) and would
/// count the position noise twice, so it is not used.
public struct VelocityMeasurement: Sendable, Equatable {
    public var eastMetersPerSecond: Double
    public var northMetersPerSecond: Double
    /// Per-axis one-sigma error, m/s.
    public var sigmaMetersPerSecond: Double

    public init(eastMetersPerSecond: Double, northMetersPerSecond: Double, sigmaMetersPerSecond: Double) {
        self.eastMetersPerSecond = eastMetersPerSecond
        self.northMetersPerSecond = northMetersPerSecond
        self.sigmaMetersPerSecond = sigmaMetersPerSecond
    }

    /// The velocity a fix carries, or nil when it carries none usable. A speed within its
    /// accuracy of zero needs no course (the device is about still); otherwise the course is
    /// needed. A `courseAcc` wider than the speed accuracy implies widens the sigma.
    public init?(_ location: Location) {
        guard let speed = location.speed, let speedAcc = location.speedAcc,
              speed.isFinite, speed >= 0, speedAcc.isFinite, speedAcc > 0 else { return nil }
        if speed <= speedAcc {
            self.init(eastMetersPerSecond: 0, northMetersPerSecond: 0, sigmaMetersPerSecond: (speed * speed + speedAcc * speedAcc).squareRoot())
            return
        }
        guard let course = location.course, course.isFinite else { return nil }
        var sigma = speedAcc
        if let courseAcc = location.courseAcc, courseAcc.isFinite, courseAcc > 0 {
            sigma = max(sigma, speed * min(courseAcc, 180) * .pi / 180)
        }
        let radians = course * .pi / 180
        self.init(eastMetersPerSecond: speed * sin(radians), northMetersPerSecond: speed * cos(radians), sigmaMetersPerSecond: sigma)
    }
}
