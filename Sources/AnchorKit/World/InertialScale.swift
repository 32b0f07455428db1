/// One sample of a phone's inertial sensors, in ARKit's camera axes (+x right, +y up, the camera
/// looking along -z), the IMU taken to sit at the camera's centre.
public struct InertialSample: Sendable, Equatable {
    /// Seconds of the video (frame f is at f / fps).
    public var time: Double
    /// Specific force, m/s²: what an accelerometer reads, +9.81 along +y when the camera is still
    /// and level.
    public var accelerometer: SIMD3<Double>
    /// Angular velocity, rad/s.
    public var gyroscope: SIMD3<Double>

    public init(time: Double, accelerometer: SIMD3<Double>, gyroscope: SIMD3<Double>) {
        self.time = time; self.accelerometer = accelerometer; self.gyroscope = gyroscope
    }
}

/// The metric scale of a monocular map from an inertial log: the visual-inertial initialisation of
/// VINS-Mono and ORB-SLAM3 in its linear form.
///
/// Over any three frames T seconds apart (T = 0.2, 0.3 and 0.5 s, pooled), the camera's second difference of position is the
/// accelerometer's world acceleration weighted by a triangle: p(t+T) - 2p(t) + p(t-T) =
/// ∫ (T - |τ|) a(t+τ) dτ, with a = R f + g (R: the camera's rotation, which the map has right
/// whatever its scale; f: the specific force read; g: gravity in the map's world). With the map's
/// positions `s` times too small, each triple gives three linear equations in 1/s, the
/// accelerometer's bias b (camera axes) and g: Δ²p = (1/s) ∫ (T - |τ|) R f dτ - K b/s + T² g/s,
/// K = ∫ (T - |τ|) R dτ. Both sides carry noise (the map's positions; the accelerometer and the
/// map's rotations), so the fit weighs each by its variance, estimated from the residuals
/// (``errorsInVariables(_:from:)``). Gravity's direction is left free, so neither the gravity
/// alignment nor a tilt of the map matters; its length is held at 9.80665 m/s², since a camera
/// held level keeps its up axis along gravity, where a bias and gravity's length trade off (the
/// fit took 10.3-10.5 m/s² and a bias of 0.6 m/s² on the tiled room: Benchmarks/README.md, "The
/// gyroscope's turns"). Solved once the walk is long enough, the scale's standard error small
/// enough and the bias one a phone has. The IMU is taken to sit at the camera's centre and to
/// share its clock.
struct InertialScaleEstimator {
    /// Half the span of each triple of frames, seconds: the accelerations are seen through a
    /// triangle this wide, which averages the map's position noise but also the motion (hand
    /// shake of 2-9 Hz is lost beyond ~0.3 s). The odometry's accelerations are off its own scale
    /// by a few per cent, one way at short spans and the other at long ones, so the equations of
    /// several spans are pooled (figures: Benchmarks/README.md, "Metric scale from an inertial log").
    var halfSpans = [0.2, 0.3, 0.5]
    /// Seconds of tracked motion before a scale is given.
    var minimumDuration = 5.0
    /// The scale's relative standard error must be below this.
    var maximumRelativeError = 0.01
    /// The accelerometer's fitted bias (m/s²) must be below this: a fit that needs more explains
    /// the motion by the bias.
    var largestBias = 0.5

    private let samples: [InertialSample]
    /// Frames tracked (map pose, arbitrary scale), by index, with their times.
    private var poses: [Int: (time: Double, pose: Transform)] = [:]
    private var first: Double?
    private var lastTried = -Double.infinity
    /// True once a scale was given.
    private(set) var isDone = false
    /// The last fit, for reports: scale, bias (camera axes, m/s²), gravity (map world, m/s²).
    private(set) var fit: (scale: Double, relativeError: Double, bias: SIMD3<Double>, gravity: SIMD3<Double>)?

    init(samples: [InertialSample]) {
        self.samples = samples.sorted { $0.time < $1.time }
    }

    /// Seconds between refinements once the map is metric, and the least change a refinement makes.
    var refinementInterval = 2.0
    var refinementThreshold = 0.003
    /// The factor applied to the map so far (1 until it is metric).
    private(set) var applied = 1.0

    /// The map was rescaled by `factor` from elsewhere (position fixes made it metric first): the
    /// log's own scale, when it comes, corrects that one.
    mutating func noteRescale(by factor: Double) { applied *= factor }

    /// Adds a tracked frame (`map_from_camera`, ARKit camera convention, in the map's current unit).
    /// Returns a factor to rescale the map by: the first time the scale is known, then whenever the
    /// growing walk moves it by more than ``refinementThreshold`` (refinements every
    /// ``refinementInterval`` seconds).
    mutating func add(frame: Int, time: Double, mapFromCamera: Transform) -> Double? {
        // Stored in the map's first unit, whatever was applied since.
        poses[frame] = (time, mapFromCamera.translationScaled(by: 1 / applied))
        if first == nil { first = time }
        let interval = isDone ? refinementInterval : 0.5  // a fit costs a few milliseconds
        guard time - first! >= minimumDuration, time - lastTried >= interval else { return nil }
        lastTried = time
        guard let solved = solve(), solved.relativeError <= maximumRelativeError,
              length(solved.bias) <= largestBias, solved.scale > 0 else { return nil }
        fit = solved
        let factor = solved.scale / applied
        guard !isDone || abs(factor - 1) > refinementThreshold else { return nil }
        isDone = true
        applied = solved.scale
        return factor
    }

    static let standardGravity = 9.80665

    /// The least-squares fit over every triple of tracked frames so far (see the type's
    /// documentation); nil without enough of them.
    func solve() -> (scale: Double, relativeError: Double, bias: SIMD3<Double>, gravity: SIMD3<Double>)? {
        let frames = poses.keys.sorted()
        guard frames.count >= 3, let lastFrame = frames.last, let firstFrame = frames.first else { return nil }
        var track = Track()
        for f in frames {
            track.times.append(poses[f]!.time)
            track.rotations.append(poses[f]!.pose.rotation)
            track.indices.append(f)
        }
        // Frames per half span, from the frame rate the times give.
        let rate = Double(lastFrame - firstFrame) / max(1e-9, poses[lastFrame]!.time - poses[firstFrame]!.time)
        // Per triple and axis: Δ²p, ∫ (T - |τ|) R f dτ, the row of K, and T².
        var equations: [Equation] = []
        for halfSpan in halfSpans {
            let k = max(1, Int((halfSpan * rate).rounded()))
            for i in frames {
                guard let before = poses[i - k], let centre = poses[i], let after = poses[i + k] else { continue }
                let t = centre.time, span = after.time - t
                guard abs((t - before.time) - span) < 1e-6, span > 0 else { continue }
                guard let (weighted, kernel) = integrals(around: t, halfSpan: span, track: track) else { continue }
                let d = after.pose.translation - 2 * centre.pose.translation + before.pose.translation
                for axis in 0..<3 {
                    equations.append((d[axis], weighted[axis], SIMD3(kernel[3 * axis], kernel[3 * axis + 1], kernel[3 * axis + 2]),
                                      span * span, axis))
                }
            }
        }
        guard equations.count >= 30 else { return nil }
        // Both sides carry noise: the map's positions (Δ²p) and the rotated forces (the
        // accelerometer's noise, and the map's rotation errors times gravity). Least squares with
        // either as the regressor biases the scale toward the other; their geometric mean starts
        // the fit that weighs both (errorsInVariables).
        // Forward, x = [s, b (3), g (3)]: s Δ²p + K b - T² g = ∫ (T - |τ|) R f dτ.
        let forward = Self.leastSquares(count: equations.count, unknowns: 7) { i, row in
            let e = equations[i]
            (row[0], row[1], row[2], row[3]) = (e.d, e.kernel.x, e.kernel.y, e.kernel.z)
            (row[4], row[5], row[6]) = (0, 0, 0)
            row[4 + e.axis] = -e.spanSquared
            return (e.force, 1)
        }
        // Reverse, x = [1/s, b/s (3), g/s (3)]: Δ²p = (1/s) ∫ (T - |τ|) R f dτ - K b/s + T² g/s.
        let reverse = Self.leastSquares(count: equations.count, unknowns: 7) { i, row in
            let e = equations[i]
            (row[0], row[1], row[2], row[3]) = (e.force, -e.kernel.x, -e.kernel.y, -e.kernel.z)
            (row[4], row[5], row[6]) = (0, 0, 0)
            row[4 + e.axis] = e.spanSquared
            return (e.d, 1)
        }
        guard let forward, let reverse, forward[0] > 0, reverse[0] > 0 else { return nil }
        return Self.errorsInVariables(equations, from: (forward[0] / reverse[0]).squareRoot())
    }

    /// One equation of ``solve()``, per triple and axis: Δ²p, ∫ (T - |τ|) R f dτ, the row of K, T².
    private typealias Equation = (d: Double, force: Double, kernel: SIMD3<Double>, spanSquared: Double, axis: Int)

    /// The scale that weighs both sides' noise (Deming's regression: the maximum-likelihood line
    /// when both carry Gaussian noise). The forward residual s Δ²p + K b - T² g - ∫ (T - |τ|) R f dτ
    /// of an equation has the variance s² σ² (the map's position noise through Δ²p: the same at
    /// every span) + c T³ (white accelerometer noise under the triangle grows as T³); both terms
    /// are fitted to the squared residuals at `start`. The scale minimises the squares weighted by
    /// those variances, b and g refitted for each s (a bracket of ±30 % around `start`, then a
    /// golden-section search); its standard error is from the cost's curvature there (its
    /// errors beside the geometric mean's: Benchmarks/README.md, "Metric scale from an inertial
    /// log").
    private static func errorsInVariables(_ equations: [Equation], from start: Double)
        -> (scale: Double, relativeError: Double, bias: SIMD3<Double>, gravity: SIMD3<Double>)? {
        func residual(_ e: Equation, _ s: Double, _ x: [Double]) -> Double {
            e.force - s * e.d - (x[0] * e.kernel.x + x[1] * e.kernel.y + x[2] * e.kernel.z) + x[3 + e.axis] * e.spanSquared
        }
        // b and g for scale s and the weighted squares (weights nil: unweighted).
        func fitted(_ s: Double, weights: [Double]?) -> (x: [Double], cost: Double)? {
            guard var x = leastSquares(count: equations.count, unknowns: 6, { i, row in
                let e = equations[i]
                (row[0], row[1], row[2], row[3], row[4], row[5]) = (e.kernel.x, e.kernel.y, e.kernel.z, 0, 0, 0)
                row[3 + e.axis] = -e.spanSquared
                return (e.force - s * e.d, weights?[i] ?? 1)
            }) else { return nil }
            // Gravity's length held (VINS-Mono's gravity refinement): its direction on the
            // sphere's tangent plane, three times.
            for _ in 0..<3 {
                let g0 = normalize(SIMD3(x[3], x[4], x[5])) * standardGravity
                let helper = abs(g0.x) < 0.9 * standardGravity ? SIMD3<Double>(1, 0, 0) : SIMD3<Double>(0, 1, 0)
                let u = normalize(cross(g0, helper)), v = cross(normalize(g0), u)
                guard let y = leastSquares(count: equations.count, unknowns: 5, { i, row in
                    let e = equations[i]
                    (row[0], row[1], row[2], row[3], row[4]) = (e.kernel.x, e.kernel.y, e.kernel.z,
                                                                -e.spanSquared * u[e.axis], -e.spanSquared * v[e.axis])
                    return (e.force - s * e.d + e.spanSquared * g0[e.axis], weights?[i] ?? 1)
                }) else { return nil }
                let g = normalize(g0 + u * y[3] + v * y[4]) * standardGravity
                x = [y[0], y[1], y[2], g.x, g.y, g.z]
            }
            var cost = 0.0
            for (i, e) in equations.enumerated() {
                let r = residual(e, s, x)
                cost += (weights?[i] ?? 1) * r * r
            }
            return (x, cost)
        }
        // The noise model from the residuals at the start: r² ~ a + c T³ (a = s² σ² at s = start).
        guard let plain = fitted(start, weights: nil) else { return nil }
        let residuals = equations.map { residual($0, start, plain.x) }
        let cubes = equations.map { $0.spanSquared * $0.spanSquared.squareRoot() }  // T³
        guard let noise = leastSquares(count: equations.count, unknowns: 2, { i, row in
            (row[0], row[1]) = (1, cubes[i])
            return (residuals[i] * residuals[i], 1)
        }) else { return nil }
        let least = 1e-12 * max(1e-300, residuals.reduce(0) { $0 + $1 * $1 } / Double(residuals.count))
        let positionTerm = max(least, noise[0]), forceTerm = max(least, noise[1])
        func weights(_ s: Double) -> [Double] {
            let position = positionTerm * (s / start) * (s / start)
            return cubes.map { 1 / (forceTerm * $0 + position) }
        }
        func cost(_ s: Double) -> Double { fitted(s, weights: weights(s))?.cost ?? .infinity }
        // A coarse scan, then golden-section search in the best bracket.
        let steps = 60
        let grid = (0...steps).map { start * (0.7 + 0.6 * Double($0) / Double(steps)) }
        let costs = grid.map(cost)
        guard let best = costs.indices.min(by: { costs[$0] < costs[$1] }), costs[best].isFinite else { return nil }
        var lo = grid[max(0, best - 1)], hi = grid[min(steps, best + 1)]
        let ratio = (5.0.squareRoot() - 1) / 2
        var a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo)
        var costA = cost(a), costB = cost(b)
        for _ in 0..<40 {
            if costA < costB {
                hi = b; b = a; costB = costA
                a = hi - ratio * (hi - lo); costA = cost(a)
            } else {
                lo = a; a = b; costA = costB
                b = lo + ratio * (hi - lo); costB = cost(b)
            }
        }
        let scale = (lo + hi) / 2
        guard let final = fitted(scale, weights: weights(scale)) else { return nil }
        let h = 1e-3 * scale, curvature = (cost(scale + h) - 2 * final.cost + cost(scale - h)) / (h * h)
        let dof = Double(max(1, equations.count - 7))
        guard curvature > 0 else { return nil }
        let standardError = (2 * (final.cost / dof) / curvature).squareRoot()
        return (scale, standardError / scale, SIMD3(final.x[0], final.x[1], final.x[2]), SIMD3(final.x[3], final.x[4], final.x[5]))
    }

    /// The weighted least-squares solution over `count` rows of `unknowns` coefficients: `row(i, &r)`
    /// sets every one of row i's coefficients in `r` (one buffer, reused) and returns its value and
    /// weight. The normal equations are
    /// summed in place (a solve fits some hundred times over every equation); nil when singular.
    private static func leastSquares(count: Int, unknowns n: Int,
                                     _ row: (Int, inout [Double]) -> (value: Double, weight: Double)) -> [Double]? {
        var normal = DenseMatrix(rows: n, columns: n), rhs = [Double](repeating: 0, count: n)
        var r = [Double](repeating: 0, count: n)
        for i in 0..<count {
            let (value, w) = row(i, &r)
            for a in 0..<n where r[a] != 0 {
                rhs[a] += w * r[a] * value
                for b in 0..<n where r[b] != 0 { normal[a, b] += w * r[a] * r[b] }
            }
        }
        guard let inverse = normal.inverse else { return nil }
        var x = [Double](repeating: 0, count: n)
        for a in 0..<n { for b in 0..<n { x[a] += inverse[a, b] * rhs[b] } }
        return x
    }

    /// The tracked frames in order: times and rotations, for ``integrals(around:halfSpan:track:)``.
    private struct Track {
        var times: [Double] = [], rotations: [Matrix3] = [], indices: [Int] = []

        /// The rotation at `time`: between the two tracked frames around it (consecutive
        /// indices), interpolated on the geodesic; nil outside them or across a gap.
        func rotation(at time: Double) -> Matrix3? {
            let lo = times.partitioningIndex { $0 >= time }
            guard lo < times.count else { return nil }
            if times[lo] == time { return rotations[lo] }
            guard lo > 0, indices[lo - 1] == indices[lo] - 1 else { return nil }
            let u = (time - times[lo - 1]) / (times[lo] - times[lo - 1])
            let a = rotations[lo - 1], b = rotations[lo]
            return a * Matrix3.exp(u * (a.transposed * b).log)
        }
    }

    /// ∫ (T - |τ|) R f dτ and ∫ (T - |τ|) R dτ (row-major) over the log within T of `time`
    /// (trapezoids between samples, clipped at ±T); nil when the log or the track does not cover it.
    private func integrals(around time: Double, halfSpan T: Double, track: Track) -> (SIMD3<Double>, [Double])? {
        let lower = time - T, upper = time + T
        guard let firstSample = samples.first, let lastSample = samples.last, firstSample.time <= lower, lastSample.time >= upper
        else { return nil }
        var i = samples.partitioningIndex { $0.time >= lower }
        if i > 0 { i -= 1 }
        var weighted = SIMD3<Double>.zero
        var kernel = [Double](repeating: 0, count: 9)
        var previous: (u: Double, rf: SIMD3<Double>, r: [Double])?
        while i < samples.count {
            let s = samples[i]
            let u = min(max(s.time, lower), upper)
            guard let rotation = track.rotation(at: u) else { return nil }
            let w = T - abs(u - time)
            let current = (u: u, rf: w * (rotation * s.accelerometer), r: rotation.rowMajor.map { $0 * w })
            if let p = previous, current.u > p.u {
                let dt = current.u - p.u
                weighted += 0.5 * dt * (p.rf + current.rf)
                for j in 0..<9 { kernel[j] += 0.5 * dt * (p.r[j] + current.r[j]) }
            }
            previous = current
            if s.time >= upper { break }
            i += 1
        }
        return (weighted, kernel)
    }
}
