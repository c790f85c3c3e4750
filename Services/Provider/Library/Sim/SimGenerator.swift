import Foundation
public import LocusGeo
public import LocusProtocol

/// The simulator's pure core: walks the route in simulated time and produces GNSS (and
/// optional Wi-Fi and cell) fixes with the configured errors. Each stream draws from its
/// own seeded generator, so adding Wi-Fi does not change the GNSS noise.
///
/// Error model, per axis in the local east/north plane: white noise with sigma
/// hacc / 1.5096 (so `hacc` is a true 68% radius), plus the Ornstein–Uhlenbeck bias,
/// plus, with probability `outlierRate`, a jump of 0.5–1.5 × `outlierMeters` in a random
/// direction. Reported `hacc` is the claimed accuracy, as a receiver would report it: it
/// does not include the bias or the outlier. During a cold start the claimed and the
/// actual accuracy shrink geometrically from `coldHaccMeters` to `haccMeters`.
public struct SimGenerator: Sendable {
    public struct Fix: Sendable, Equatable {
        public var t: Double
        public var location: Location
        /// The true position, for tests and plots.
        public var truth: Coordinate
        public var isOutlier: Bool
    }

    public let configuration: SimConfiguration
    private var gnssNoise: GaussianNoise
    private var wifiNoise: GaussianNoise
    private var cellNoise: GaussianNoise
    private var biasEast: OrnsteinUhlenbeck
    private var biasNorth: OrnsteinUhlenbeck
    private var nextGNSS = 0
    private var nextWifi = 0
    private var nextCell = 0
    private var lastBiasOffset = 0.0

    public init(_ configuration: SimConfiguration) {
        self.configuration = configuration
        let seed = configuration.seed
        gnssNoise = GaussianNoise(seed: seed)
        wifiNoise = GaussianNoise(seed: seed ^ 0x5749_4649_0000_0001)
        cellNoise = GaussianNoise(seed: seed ^ 0x4345_4C4C_0000_0002)
        var biasNoise = GaussianNoise(seed: seed ^ 0x4249_4153_0000_0003)
        biasEast = OrnsteinUhlenbeck(sigmaMeters: configuration.biasSigmaMeters, tauSeconds: configuration.biasTauSeconds, noise: &biasNoise)
        biasNorth = OrnsteinUhlenbeck(sigmaMeters: configuration.biasSigmaMeters, tauSeconds: configuration.biasTauSeconds, noise: &biasNoise)
        biasNoiseState = biasNoise
    }

    private var biasNoiseState: GaussianNoise

    /// Simulated seconds after which the run ends (infinite for a loop without a duration).
    public var endOffset: Double {
        configuration.durationSeconds ?? (configuration.loop ? .infinity : configuration.route.duration)
    }

    /// The next fix in time order, nil at the end. Ties go GNSS, Wi-Fi, cell.
    public mutating func next() -> Fix? {
        while true {
            var candidates: [(offset: Double, stream: Int)] = [(Double(nextGNSS) / configuration.hz, 0)]
            if let wifi = configuration.wifi, wifi.hz > 0 { candidates.append((Double(nextWifi) / wifi.hz, 1)) }
            if let cell = configuration.cell, cell.hz > 0 { candidates.append((Double(nextCell) / cell.hz, 2)) }
            guard let chosen = candidates.min(by: { $0.offset < $1.offset || ($0.offset == $1.offset && $0.stream < $1.stream) }),
                  chosen.offset <= endOffset + 1e-9 else { return nil }
            switch chosen.stream {
            case 0:
                nextGNSS += 1
                if let fix = gnss(at: chosen.offset) { return fix }
            case 1:
                nextWifi += 1
                return secondary(at: chosen.offset, source: "wifi", hacc: configuration.wifi!.haccMeters, noise: &wifiNoise)
            default:
                nextCell += 1
                return secondary(at: chosen.offset, source: "cell", hacc: configuration.cell!.haccMeters, noise: &cellNoise)
            }
        }
    }

    /// Claimed 68% accuracy of a GNSS fix at `offset` seconds (cold-start convergence).
    public func claimedHacc(at offset: Double) -> Double {
        let cold = configuration.coldStartSeconds
        guard cold > 0, offset < cold, configuration.coldHaccMeters > configuration.haccMeters else { return configuration.haccMeters }
        let ratio = configuration.haccMeters / configuration.coldHaccMeters
        return configuration.coldHaccMeters * pow(ratio, offset / cold)
    }

    private func routeOffset(_ offset: Double) -> Double {
        let duration = configuration.route.duration
        guard configuration.loop, duration > 0 else { return offset }
        return offset.truncatingRemainder(dividingBy: duration)
    }

    private mutating func gnss(at offset: Double) -> Fix? {
        let east = biasEast.step(seconds: offset - lastBiasOffset, noise: &biasNoiseState)
        let north = biasNorth.step(seconds: offset - lastBiasOffset, noise: &biasNoiseState)
        lastBiasOffset = offset
        let hacc = claimedHacc(at: offset)
        let sigma = hacc / NMEAAccuracyModel.radius68PerSigma
        var dx = east + sigma * gnssNoise.standard()
        var dy = north + sigma * gnssNoise.standard()
        let outlier = gnssNoise.uniform() < configuration.outlierRate
        let direction = gnssNoise.uniform() * 2 * .pi
        let scale = 0.5 + gnssNoise.uniform()
        if outlier {
            dx += configuration.outlierMeters * scale * sin(direction)
            dy += configuration.outlierMeters * scale * cos(direction)
        }
        // Noise is drawn even inside an outage so that outages do not shift later noise.
        let routeTime = routeOffset(offset)
        if configuration.outages.contains(where: { $0.contains(offset) }) { return nil }
        let state = configuration.route.state(at: routeTime)
        let measured = LocalTangentPlane(origin: state.coordinate).unproject(east: dx, north: dy)
        let location = Location(device: "", source: configuration.gnssSourceName, lat: measured.lat, lon: measured.lon, hacc: hacc,
                                alt: state.elevation, speed: state.speed, course: state.course,
                                mode: state.elevation == nil ? "2d" : "3d")
        return Fix(t: configuration.startTime + offset, location: location, truth: state.coordinate, isOutlier: outlier)
    }

    private func secondary(at offset: Double, source: String, hacc: Double, noise: inout GaussianNoise) -> Fix {
        let state = configuration.route.state(at: routeOffset(offset))
        let sigma = hacc / NMEAAccuracyModel.radius68PerSigma
        let measured = LocalTangentPlane(origin: state.coordinate).unproject(east: sigma * noise.standard(), north: sigma * noise.standard())
        let location = Location(device: "", source: source, lat: measured.lat, lon: measured.lon, hacc: hacc, mode: "approx")
        return Fix(t: configuration.startTime + offset, location: location, truth: state.coordinate, isOutlier: false)
    }
}
