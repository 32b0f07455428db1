import Foundation

/// The least-squares ``GeoAlignment`` of a world trajectory to position fixes, compass readings
/// and ground speeds: yaw, scale and the horizontal translation where the camera is now, with
/// odometry's drift along the path since each pair (its yaw turning linearly, its scale a
/// profile: a random walk about a trend, one knot every few metres), by Gauss-Newton on the
/// fixes' horizontal errors, each reading's yaw, each speed's ratio and priors on the scale and
/// the drifts, with Huber weights against outlying fixes (multipath); the height by a weighted
/// mean. Residuals are in units of their stated σ; the covariance grows with the fixes' scatter
/// where it exceeds their stated accuracy.
struct GeoAlignmentFit {
    /// A pair whose weight fades with the camera's path since it was made (odometry drifts).
    protocol Fading {
        /// World units of path since.
        var pathSince: Double { get set }
        /// Widens its σ by `factor`.
        mutating func widen(by factor: Double)
        /// The world was scaled by `factor`: its world units follow (path excepted).
        mutating func rescale(by factor: Double)
    }

    /// A fix paired with where the world tracker had the camera at the fix's time.
    struct Position: Fading {
        /// The camera, world units.
        var world: SIMD3<Double>
        /// The fix, geo world (+x east, +y up, +z south), metres.
        var geoWorld: SIMD3<Double>
        /// The fix's error, metres, 1 σ (inflated by the caller for fixes not independent).
        var horizontalSigma: Double, verticalSigma: Double
        /// How far (world units of path) the camera has gone since: odometry's scale drifts along it.
        var pathSince = 0.0

        mutating func widen(by factor: Double) {
            horizontalSigma *= factor
            verticalSigma *= factor
        }

        mutating func rescale(by factor: Double) { world *= factor }
    }

    /// A compass reading paired with where the world tracker had the camera look.
    struct Heading: Fading {
        /// The view's azimuth in the world (``GeoAlignment/azimuth(of:)``), radians.
        var worldAzimuth: Double
        /// The compass bearing of the view, radians clockwise from true north.
        var bearing: Double
        /// Radians, 1 σ.
        var sigma: Double
        /// World units of path since (odometry's yaw drifts along it).
        var pathSince = 0.0
        /// The yaw this reading alone gives the alignment.
        var yaw: Double { worldAzimuth - bearing }

        mutating func widen(by factor: Double) { sigma *= factor }

        mutating func rescale(by factor: Double) {}
    }

    /// A fix's ground speed (Doppler) paired with how fast the camera moved in the world: the
    /// scale where the camera was.
    struct Speed: Fading {
        /// The camera's horizontal speed, world units per second, and the receiver's, m/s.
        var worldSpeed: Double, speed: Double
        /// σ of the logarithm of their ratio (relative, 1 σ).
        var logSigma: Double
        /// World units of path since (the scale's drift).
        var pathSince = 0.0
        /// The seconds its speeds are means over, back from `pathSince`.
        var span = 1.0
        /// World units of path over the span.
        var worldPath: Double { worldSpeed * span }

        mutating func widen(by factor: Double) { logSigma *= factor }

        mutating func rescale(by factor: Double) { worldSpeed *= factor }
    }

    /// An alignment with its uncertainty.
    struct Result {
        var yaw: Double, scale: Double, translation: SIMD3<Double>
        /// Covariance of (yaw, ln scale, east, south translation, yaw drift, the scale's trend, then
        /// the log-scales of odometry's scale profile): radians, -, metres, radians per world unit
        /// of path, per world unit of path, -.
        var covariance: DenseMatrix
        /// Fixes whose normalised error is within the Huber threshold.
        var inliers: Int
        /// RMS of the fixes' horizontal errors, metres.
        var rms: Double
        /// Whether a prior held the scale (a metric world's), rather than the fixes alone giving it.
        var scaleWasHeld = false

        var yawSigma: Double { covariance[0, 0].squareRoot() }
        var scaleSigma: Double { scale * covariance[1, 1].squareRoot() }

        /// The horizontal σ (metres, the larger axis's, from the fit alone) of where the fit puts
        /// world point `p`.
        func horizontalSigma(at p: SIMD3<Double>) -> Double {
            let j = GeoAlignmentFit.jacobian(yaw: yaw, scale: scale, world: SIMD2(p.x, p.z))
            let n = covariance.columns
            var jm = DenseMatrix(rows: 2, columns: n)
            for (column, (x, y)) in [(j.0.x, j.0.y), (j.1.x, j.1.y), (1, 0), (0, 1)].enumerated() {
                jm[0, column] = x
                jm[1, column] = y
            }
            let c = jm * covariance * jm.transposed
            let (a, b, d) = (c[0, 0], c[0, 1], c[1, 1])
            return ((a + d) / 2 + (((a - d) / 2) * ((a - d) / 2) + b * b).squareRoot()).squareRoot()
        }
    }

    /// Normalised errors beyond this are down-weighted (Huber).
    var huber = 2.0
    var iterations = 10
    /// Where the camera is now (world), about which odometry's drift is fitted. Nil: no drift.
    var current: SIMD3<Double>?
    /// Odometry's scale along the path, relative to the scale where the camera is: piecewise linear
    /// in the path back from it, with a knot every `knotSpacing` world units.
    var knotSpacing: Double
    /// How far odometry's scale wanders: each knot's log-scale is a random walk from the one before
    /// it, σ `scaleWalkSigma` · √`knotSpacing` (per √world unit of path).
    var scaleWalkSigma: Double
    /// The prior σ of the profile's trend: the mean change of the log-scale per world unit of path.
    var driftSigma: Double
    /// The prior σ of odometry's yaw drift, radians per world unit of path: a pair `pathSince` back
    /// saw the world turned by yaw + yawDrift · pathSince.
    var yawDriftSigma: Double

    /// A fit with the odometry priors of `parameters` (world units taken as metres), drifting
    /// about `current`.
    init(_ parameters: GeoTracker.Parameters = GeoTracker.Parameters(), current: SIMD3<Double>? = nil) {
        self.current = current
        knotSpacing = parameters.scaleKnotSpacing
        scaleWalkSigma = parameters.scaleWalkSigma
        driftSigma = parameters.scaleDriftSigma
        yawDriftSigma = parameters.yawDriftSigma
    }

    /// The fit of `positions` and `headings`, with `scalePrior` (value, σ of its logarithm) on the
    /// scale, or free where nil; nil when they do not fix the yaw (under two fixes and no reading,
    /// or fixes that do not spread and no reading).
    func fit(positions: [Position], headings: [Heading], speeds: [Speed] = [], scalePrior: (value: Double, logSigma: Double)?) -> Result? {
        guard !positions.isEmpty else { return nil }
        var starts: [(Double, Double)] = []  // (yaw, scale)
        let weights = positions.map { 1 / ($0.horizontalSigma * $0.horizontalSigma) }
        if positions.count >= 2,
           let similarity = Similarity2D.fit(from: positions.map { SIMD2($0.world.x, $0.world.z) },
                                             to: positions.map { SIMD2($0.geoWorld.x, $0.geoWorld.z) }, weights: weights) {
            // k = scale e^(-i yaw): Ry(yaw) turns (x, z) clockwise seen as x + iz.
            starts.append((-atan2(similarity.k.y, similarity.k.x), scalePrior?.value ?? length(similarity.k)))
        }
        if !headings.isEmpty {
            let s = headings.reduce(SIMD2<Double>.zero) { $0 + SIMD2(cos($1.yaw), sin($1.yaw)) / ($1.sigma * $1.sigma) }
            starts.append((atan2(s.y, s.x), scalePrior?.value ?? starts.first?.1 ?? 1))
        }
        let solutions = starts.compactMap { solve(positions, headings, speeds, scalePrior, from: $0) }
        guard var best = solutions.min(by: { $0.cost < $1.cost }) else { return nil }
        // Heights: the world's height scaled, plus the weighted mean offset of the fixes.
        var height = 0.0, heightWeight = 0.0
        for p in positions {
            let w = 1 / (p.verticalSigma * p.verticalSigma)
            height += w * (p.geoWorld.y - best.result.scale * p.world.y)
            heightWeight += w
        }
        best.result.translation.y = height / heightWeight
        // Without a reading, a fit through fixes that barely spread has an ill-determined yaw.
        guard headings.count > 0 || best.result.yawSigma < .pi / 4 else { return nil }
        return best.result
    }

    /// `v` (a world (x, z)) turned by `angle` about +y as the alignment's yaw turns it.
    static func turned(_ v: SIMD2<Double>, by angle: Double) -> SIMD2<Double> {
        let c = cos(angle), s = sin(angle)
        return SIMD2(c * v.x + s * v.y, -s * v.x + c * v.y)
    }

    /// d(position)/d(yaw) and d(position)/d(ln scale) of the horizontal model
    /// scale · R(yaw) · (x, z) + t.
    static func jacobian(yaw: Double, scale: Double, world w: SIMD2<Double>) -> (SIMD2<Double>, SIMD2<Double>) {
        let c = cos(yaw), s = sin(yaw)
        return (scale * SIMD2(-s * w.x + c * w.y, -c * w.x - s * w.y), scale * SIMD2(c * w.x + s * w.y, -s * w.x + c * w.y))
    }

    /// Odometry's scale along the path back from the camera: knots every `length` world units
    /// holding v_k = e^ℓ_k (v_0 = 1 where the camera is), linear between them.
    private struct ScaleProfile {
        let length: Double
        var logs: [Double]  // ℓ_1 … ℓ_K

        /// The integral of the scale from the camera to `p` units of path back, as weights on the
        /// knots' values: ∫₀ᵖ g = Σ_k w_k v_k (k = 0 … K; past the last knot, its value).
        func integralWeights(to p: Double) -> [(knot: Int, weight: Double)] {
            var weights: [(knot: Int, weight: Double)] = []
            var k = 0
            while Double(k) * length < p {
                let a = min(length, p - Double(k) * length)
                if k >= logs.count {
                    weights.append((logs.count, p - Double(k) * length))
                    break
                }
                weights.append((k, a - a * a / (2 * length)))
                weights.append((k + 1, a * a / (2 * length)))
                k += 1
            }
            return weights
        }

        func value(_ knot: Int) -> Double { knot == 0 ? 1 : exp(logs[knot - 1]) }

        /// ∫ g from `a` to `b` units back and its derivatives by the knots' logs (ℓ_1 … ℓ_K).
        func integral(from a: Double, to b: Double) -> (value: Double, byLog: [(knot: Int, derivative: Double)]) {
            var total = 0.0, byLog = [Double](repeating: 0, count: logs.count + 1), last = 0
            for (sign, end) in [(1.0, b), (-1.0, a)] where end > 0 {
                for (knot, weight) in integralWeights(to: end) {
                    let term = sign * weight * value(knot)
                    total += term
                    byLog[knot] += term
                    last = max(last, knot)
                }
            }
            return (total, last == 0 ? [] : (1...last).map { ($0, byLog[$0]) })
        }
    }

    /// A row of the normal equations: the prediction's derivatives by the parameters that move it.
    private typealias Row = [(index: Int, value: Double)]

    private func solve(_ positions: [Position], _ headings: [Heading], _ speeds: [Speed], _ scalePrior: (value: Double, logSigma: Double)?,
                       from start: (Double, Double)) -> (result: Result, cost: Double)? {
        // Parameters: yaw, ln scale, east and south translation, yaw drift, the scale's trend, then
        // the log-scale of each knot of odometry's scale profile.
        var yaw = start.0, logScale = log(max(start.1, 1e-9)), yawDrift = 0.0, drift = 0.0
        let farthest = current == nil ? 0 : (positions.map(\.pathSince) + speeds.map { $0.pathSince + $0.worldPath }).max() ?? 0
        var profile = ScaleProfile(length: knotSpacing, logs: Array(repeating: 0, count: Int((farthest / knotSpacing).rounded(.up))))
        let pivot = current.map { SIMD2($0.x, $0.z) } ?? .zero
        // A fix's offset from the camera as odometry has it, turned by the mean yaw drift since.
        func offset(_ p: Position) -> SIMD2<Double> {
            Self.turned(SIMD2(p.world.x, p.world.z) - pivot, by: yawDrift * p.pathSince / 2)
        }
        // The mean scale over the path since, relative to the camera's: the chord walked at it.
        func meanScale(_ p: Position) -> (value: Double, byLog: [(knot: Int, derivative: Double)]) {
            guard p.pathSince > 0 else { return (1, []) }
            let (integral, byLog) = profile.integral(from: 0, to: p.pathSince)
            return (integral / p.pathSince, byLog.map { ($0.knot, $0.derivative / p.pathSince) })
        }
        // Where the fit puts a fix (without the translation), and what that is made of: the mean
        // scale since, the offset as odometry has it, and that offset walked at the mean scale.
        func model(_ p: Position) -> (mean: (value: Double, byLog: [(knot: Int, derivative: Double)]), offset: SIMD2<Double>,
                                      undrifted: SIMD2<Double>, predicted: SIMD2<Double>) {
            let mean = meanScale(p), drifted = offset(p), undrifted = pivot + mean.value * drifted
            return (mean, drifted, undrifted, exp(logScale) * Self.turned(undrifted, by: yaw))
        }
        // A speed sees the mean scale over its interval.
        func intervalScale(_ v: Speed) -> (value: Double, byLog: [(knot: Int, derivative: Double)]) {
            guard v.worldPath > 0 else { return (1, []) }
            let (integral, byLog) = profile.integral(from: v.pathSince, to: v.pathSince + v.worldPath)
            return (max(1e-3, integral / v.worldPath), byLog.map { ($0.knot, $0.derivative / integral) })
        }
        // The residuals of a reading's (or course's) yaw, radians, and of a speed's log-ratio.
        func turnResidual(_ h: Heading) -> Double { remainder(h.yaw - yaw - yawDrift * h.pathSince, 2 * .pi) }
        func speedResidual(_ v: Speed, _ interval: (value: Double, byLog: [(knot: Int, derivative: Double)])) -> Double {
            log(v.speed / v.worldSpeed) - logScale - log(interval.value)
        }
        // The start's translation: the weighted mean that best fits the start's yaw and scale.
        var t = SIMD2<Double>.zero, total = 0.0
        for p in positions {
            let w = 1 / (p.horizontalSigma * p.horizontalSigma)
            t += w * (SIMD2(p.geoWorld.x, p.geoWorld.z) - model(p).predicted)
            total += w
        }
        t /= total
        // The column of knot k's log-scale (k = 1 … K).
        func column(_ knot: Int) -> Int { 5 + knot }
        let n = column(profile.logs.count) + 1
        let walkWeight = 1 / (scaleWalkSigma * scaleWalkSigma * knotSpacing)
        var normal = DenseMatrix(rows: n, columns: n)
        for _ in 0..<iterations {
            normal = DenseMatrix(rows: n, columns: n)
            var gradient = [Double](repeating: 0, count: n)
            func add(_ row: Row, _ residual: Double, _ weight: Double) {
                for (a, x) in row {
                    gradient[a] += weight * x * residual
                    for (b, y) in row { normal[a, b] += weight * x * y }
                }
            }
            for p in positions {
                let (mean, drifted, undrifted, predicted) = model(p)
                let r = SIMD2(p.geoWorld.x, p.geoWorld.z) - (predicted + t)
                let normalised = length(r) / p.horizontalSigma
                let robust = normalised <= huber ? 1 : huber / normalised
                let (dYaw, dScale) = Self.jacobian(yaw: yaw, scale: exp(logScale), world: undrifted)
                // By the yaw drift and the profile: the scaled, turned offset from the camera (its
                // turn's and its scale's derivatives) times the mean turn and the mean scale's change.
                let (dTurn, dStretch) = Self.jacobian(yaw: yaw, scale: exp(logScale), world: drifted)
                let dYawDrift = (current == nil ? 0 : p.pathSince / 2) * mean.value * dTurn
                let w = robust / (p.horizontalSigma * p.horizontalSigma)
                for axis in 0..<2 {
                    var row: Row = [(0, dYaw[axis]), (1, dScale[axis]), (2 + axis, 1), (4, dYawDrift[axis])]
                    row += mean.byLog.map { (column($0.knot), $0.derivative * dStretch[axis]) }
                    add(row, r[axis], w)
                }
            }
            for h in headings {
                add([(0, 1), (4, h.pathSince)], turnResidual(h), 1 / (h.sigma * h.sigma))
            }
            for v in speeds {
                let interval = intervalScale(v)
                add([(1, 1)] + interval.byLog.map { (column($0.knot), $0.derivative) }, speedResidual(v, interval), 1 / (v.logSigma * v.logSigma))
            }
            if let prior = scalePrior {
                add([(1, 1)], log(prior.value) - logScale, 1 / (prior.logSigma * prior.logSigma))
            } else if positions.count < 3 && speeds.isEmpty {
                add([(1, 1)], 0 - logScale, 1)  // two fixes cannot tell scale from noise: keep it near 1
            }
            // The profile wanders from the camera's scale (ℓ_0 = 0) knot by knot about a trend:
            // ℓ_k - ℓ_(k-1) = -drift · knotSpacing.
            for k in profile.logs.indices {
                let before = k == 0 ? 0 : profile.logs[k - 1]
                add((k == 0 ? [(column(1), 1)] : [(column(k + 1), 1), (column(k), -1)]) + [(5, knotSpacing)],
                    before - profile.logs[k] - drift * knotSpacing, walkWeight)
            }
            add([(5, 1)], -drift, current == nil ? 1 : 1 / (driftSigma * driftSigma))
            // Without a camera to drift about, the yaw drift stays 0 (its row is the identity's).
            add([(4, 1)], -yawDrift, current == nil ? 1 : 1 / (yawDriftSigma * yawDriftSigma))
            // Levenberg's damping keeps a step through a weakly held yaw bounded.
            var damped = normal
            for a in 0..<n { damped[a, a] += 1e-9 + 1e-6 * normal[a, a] }
            guard let inverse = damped.inverse else { return nil }
            let step = inverse * DenseMatrix(vector: gradient)
            yaw += step[0, 0]
            logScale += step[1, 0]
            t += SIMD2(step[2, 0], step[3, 0])
            yawDrift += step[4, 0]
            drift += step[5, 0]
            for k in profile.logs.indices { profile.logs[k] += step[column(k + 1), 0] }
            if abs(step[0, 0]) < 1e-9 && abs(step[1, 0]) < 1e-9 && length(SIMD2(step[2, 0], step[3, 0])) < 1e-6 { break }
        }
        guard var covariance = normal.inverse else { return nil }
        var cost = 0.0, squares = 0.0, inliers = 0
        for p in positions {
            let r = SIMD2(p.geoWorld.x, p.geoWorld.z) - (model(p).predicted + t), n = length(r) / p.horizontalSigma
            cost += n <= huber ? n * n : 2 * huber * n - huber * huber
            squares += dot(r, r)
            if n <= huber { inliers += 1 }
        }
        // Fixes scattered more than their stated accuracy says (a receiver that overstates it):
        // the uncertainty grows by their a-posteriori variance factor (never shrinks below the
        // stated one). Readings are left out of it: correlated, their σ is inflated on purpose.
        let redundancy = 2 * positions.count - 4
        if redundancy >= 4 {
            let factor = cost / Double(redundancy)
            if factor > 1 { covariance.values = covariance.values.map { $0 * factor } }
        }
        for h in headings { cost += pow(turnResidual(h) / h.sigma, 2) }
        for v in speeds { cost += pow(speedResidual(v, intervalScale(v)) / v.logSigma, 2) }
        let result = Result(yaw: remainder(yaw, 2 * .pi), scale: exp(logScale), translation: SIMD3(t.x, 0, t.y),
                            covariance: covariance, inliers: inliers, rms: (squares / Double(positions.count)).squareRoot(),
                            scaleWasHeld: scalePrior != nil)
        return (result, cost)
    }
}
