import Foundation
public import LocusGeo
public import LocusProtocol

/// A constant-velocity Kalman filter for one device in a local east–north frame (state:
/// east, north, east speed, north speed). Each fix is a position measurement whose noise
/// comes from its 68 % radius; process noise follows the device's motion activity. Fixes
/// are checked by an `OutlierGate` before they are fused, and fixes that arrive late (out of
/// order, or cached) are fused with a radius grown by their age instead of rewinding time.
public struct DeviceFilter: Sendable {
    /// What happened to one fix.
    public enum Outcome: Sendable, Equatable {
        /// First fix: the filter starts from it.
        case initialized
        case fused
        /// Older than the filter's time but within the window: fused with grown accuracy.
        case fusedLate
        /// Rejected by the gate; the estimate is unchanged.
        case rejectedOutlier
        /// The gate lost trust in the filter: restarted from this fix.
        case reanchored
        /// Older than the out-of-order window allows.
        case tooOld
    }

    public var settings: FilterSettings { didSet { baseProcessNoise = settings.processNoise(for: activity) } }
    public var activity: MotionActivity = .unknown { didSet { baseProcessNoise = settings.processNoise(for: activity) } }
    public private(set) var time: Double = -.infinity
    public private(set) var isInitialized = false
    private var plane = LocalTangentPlane(origin: Coordinate(lat: 0, lon: 0))
    /// State and covariance (row-major 4×4) held inline: a fix touches no heap memory.
    private var x = SIMD4<Double>()
    private var p = SIMD16<Double>()
    /// The process noise of `activity` before any manoeuvre scaling (looked up once per change).
    private var baseProcessNoise: Double
    /// Running mean of the correlated share of measurement variance (per axis, m²).
    private var correlatedVariance = 0.0
    private var correlatedTime = -Double.infinity
    private var gate: OutlierGate
    /// Running mean of the normalised innovation squared (2 when the model fits): a
    /// manoeuvre the constant-velocity model did not foresee raises it, and the process
    /// noise is raised with it until the filter has caught up.
    private var innovationLevel = 2.0

    public init(settings: FilterSettings = FilterSettings()) {
        self.settings = settings
        self.gate = settings.gate
        self.baseProcessNoise = settings.processNoise(for: .unknown)
    }

    /// Fuses a position measured at `t` with per-fix radius `haccMeters` (trust already applied).
    public mutating func update(coordinate: Coordinate, haccMeters: Double, t: Double) -> Outcome {
        let sigma = GaussianRadius.sigma(fromHacc: haccMeters)
        guard isInitialized else {
            start(at: coordinate, sigma: sigma, t: t)
            return .initialized
        }
        var late = false
        var whiteVariance = (1 - settings.correlatedFraction) * sigma * sigma
        if t < time {
            let age = time - t
            guard age <= settings.outOfOrderWindowSeconds else { return .tooOld }
            let growth = age * max(settings.stalenessSpeedMetersPerSecond, hypot(x[2], x[3]))
            whiteVariance += growth * growth
            late = true
        } else {
            predict(to: t)
        }
        let (east, north) = plane.project(coordinate)
        let innovation = (east - x[0], north - x[1])
        let s00 = p[0] + whiteVariance + correlatedVariance
        let s11 = p[5] + whiteVariance + correlatedVariance
        let s01 = p[1]
        let determinant = s00 * s11 - s01 * s01
        guard determinant > 0 else {
            start(at: coordinate, sigma: sigma, t: max(t, time))
            return .reanchored
        }
        let mahalanobis = (s11 * innovation.0 * innovation.0 - 2 * s01 * innovation.0 * innovation.1
            + s00 * innovation.1 * innovation.1) / determinant
        // A late fix says nothing about where the device is now: it may be fused, never re-anchor.
        let verdict = late ? (mahalanobis <= gate.chiSquareThreshold ? .accept : .reject) : gate.judge(mahalanobisSquared: mahalanobis)
        switch verdict {
        case .reject:
            return .rejectedOutlier
        case .reanchor:
            start(at: coordinate, sigma: sigma, t: max(t, time))
            return .reanchored
        case .accept:
            if !late { innovationLevel += settings.innovationSmoothing * (mahalanobis - innovationLevel) }
            correct(innovation: innovation, measurementVariance: whiteVariance)
            blendCorrelated(sigma: sigma, t: t, late: late)
            recenterIfFar()
            return late ? .fusedLate : .fused
        }
    }

    /// Fuses a velocity measured together with the position just fused (a receiver's Doppler
    /// speed and course), east and north in m/s, with a per-axis sigma (trust already applied).
    /// Doppler velocity errors do not follow the position's errors, so the velocity steadies the
    /// track between noisy positions. Call it right after `update` fused the fix at the filter's
    /// time; a velocity far from the prediction (χ² gate) is ignored and `false` returned.
    public mutating func updateVelocity(eastMetersPerSecond: Double, northMetersPerSecond: Double,
                                        sigmaMetersPerSecond: Double) -> Bool {
        guard isInitialized, sigmaMetersPerSecond > 0, eastMetersPerSecond.isFinite, northMetersPerSecond.isFinite else { return false }
        let r = sigmaMetersPerSecond * sigmaMetersPerSecond
        let innovation = (eastMetersPerSecond - x[2], northMetersPerSecond - x[3])
        let s00 = p[10] + r, s11 = p[15] + r, s01 = p[11]
        let determinant = s00 * s11 - s01 * s01
        guard determinant > 0 else { return false }
        let mahalanobis = (s11 * innovation.0 * innovation.0 - 2 * s01 * innovation.0 * innovation.1
            + s00 * innovation.1 * innovation.1) / determinant
        guard mahalanobis <= settings.gate.chiSquareThreshold else { return false }
        correct(innovation: innovation, measurementVariance: r, first: 2)
        return true
    }

    /// The estimate at the filter's own time (no extrapolation).
    public var estimate: FilterEstimate? {
        guard isInitialized else { return nil }
        let coordinate = plane.unproject(east: x[0], north: x[1])
        let positionVariance = (p[0] + p[5]) / 2 + correlatedVariance
        let speed = hypot(x[2], x[3])
        let speedVariance = speed > 0 ? (x[2] * x[2] * p[10] + x[3] * x[3] * p[15] + 2 * x[2] * x[3] * p[11]) / (speed * speed)
            : (p[10] + p[15]) / 2
        let speedSigma = max(speedVariance, 0).squareRoot()
        var course: Double?
        if speed > max(0.5, 2 * speedSigma) {
            var degrees = atan2(x[2], x[3]) * 180 / .pi
            if degrees < 0 { degrees += 360 }
            if degrees >= 360 { degrees -= 360 }
            course = degrees
        }
        return FilterEstimate(coordinate: coordinate, haccMeters: GaussianRadius.hacc(fromSigma: positionVariance.squareRoot()),
                              speedMetersPerSecond: speed, courseDegrees: course, speedAccuracy: speedSigma, t: time)
    }

    // MARK: - Kalman steps

    private mutating func start(at coordinate: Coordinate, sigma: Double, t: Double) {
        plane = LocalTangentPlane(origin: coordinate)
        x = SIMD4()
        let white = (1 - settings.correlatedFraction) * sigma * sigma
        correlatedVariance = settings.correlatedFraction * sigma * sigma
        correlatedTime = t
        innovationLevel = 2
        let speedVariance = 15.0 * 15.0  // unknown velocity: up to motorway speed
        p = SIMD16(white, 0, 0, 0,
                   0, white, 0, 0,
                   0, 0, speedVariance, 0,
                   0, 0, 0, speedVariance)
        time = t
        isInitialized = true
    }

    private mutating func predict(to t: Double) {
        let dt = t - time
        guard dt > 0 else { return }
        time = t
        x[0] += dt * x[2]
        x[1] += dt * x[3]
        // P = F P Fᵀ with F = [[I, dt I], [0, I]], done in place.
        for row in 0..<4 {  // P ← F P: rows 0,1 gain dt × rows 2,3
            if row < 2 { for column in 0..<4 { p[row * 4 + column] += dt * p[(row + 2) * 4 + column] } }
        }
        for row in 0..<4 {  // P ← P Fᵀ: columns 0,1 gain dt × columns 2,3
            p[row * 4 + 0] += dt * p[row * 4 + 2]
            p[row * 4 + 1] += dt * p[row * 4 + 3]
        }
        let q = baseProcessNoise * min(settings.maximumManeuverScale, max(1, innovationLevel / 2))
        let qPosition = q * dt * dt * dt / 3, qCross = q * dt * dt / 2, qSpeed = q * dt
        p[0] += qPosition; p[5] += qPosition
        p[2] += qCross; p[8] += qCross; p[7] += qCross; p[13] += qCross
        p[10] += qSpeed; p[15] += qSpeed
        if activity == .stationary { holdStill() }
    }

    /// A device its motion sensors call stationary does not move: velocity is zero, known
    /// well, so fixes average instead of steering a drift (a zero-velocity update).
    private mutating func holdStill() {
        x[2] = 0
        x[3] = 0
        for index in 0..<4 {
            for velocity in 2..<4 where index != velocity {
                p[index * 4 + velocity] = 0
                p[velocity * 4 + index] = 0
            }
        }
        p[10] = 0.01
        p[15] = 0.01
    }

    /// One Kalman correction with a 2-D measurement of state components `first` and `first + 1`
    /// (0: position, 2: velocity), each with variance `r`.
    private mutating func correct(innovation: (Double, Double), measurementVariance r: Double, first: Int = 0) {
        let a0 = first, a1 = first + 1
        let s00 = p[a0 * 4 + a0] + r, s11 = p[a1 * 4 + a1] + r, s01 = p[a0 * 4 + a1]
        let determinant = s00 * s11 - s01 * s01
        let i00 = s11 / determinant, i11 = s00 / determinant, i01 = -s01 / determinant
        // K = P Hᵀ S⁻¹ (4×2); P Hᵀ is columns a0 and a1 of P.
        var k = SIMD8<Double>()
        for row in 0..<4 {
            let a = p[row * 4 + a0], b = p[row * 4 + a1]
            k[row * 2] = a * i00 + b * i01
            k[row * 2 + 1] = a * i01 + b * i11
        }
        for row in 0..<4 { x[row] += k[row * 2] * innovation.0 + k[row * 2 + 1] * innovation.1 }
        // P ← P − K H P, where H P is rows a0 and a1 of P.
        var measuredRows = SIMD8<Double>()
        for index in 0..<8 { measuredRows[index] = p[a0 * 4 + index] }
        for row in 0..<4 {
            for column in 0..<4 {
                p[row * 4 + column] -= k[row * 2] * measuredRows[column] + k[row * 2 + 1] * measuredRows[4 + column]
            }
        }
        for row in 0..<4 {  // keep P symmetric against rounding
            for column in (row + 1)..<4 {
                let mean = (p[row * 4 + column] + p[column * 4 + row]) / 2
                p[row * 4 + column] = mean
                p[column * 4 + row] = mean
            }
        }
    }

    /// The correlated share follows the recent fixes' quality with a time constant, so a
    /// switch from network fixes to GPS lowers the published radius gradually, not at once.
    private mutating func blendCorrelated(sigma: Double, t: Double, late: Bool) {
        guard !late else { return }
        // Blended as precision, so one poor fix that barely moved the estimate barely moves this either.
        let target = settings.correlatedFraction * sigma * sigma
        let elapsed = max(0, t - correlatedTime)
        let weight = min(1, elapsed / max(1, settings.correlatedTimeConstantSeconds))
        let precision = 1 / correlatedVariance + weight * (1 / target - 1 / correlatedVariance)
        correlatedVariance = 1 / precision
        correlatedTime = t
    }

    private mutating func recenterIfFar() {
        guard hypot(x[0], x[1]) > settings.recenterDistanceMeters else { return }
        plane = LocalTangentPlane(origin: plane.unproject(east: x[0], north: x[1]))
        x[0] = 0
        x[1] = 0
    }
}
