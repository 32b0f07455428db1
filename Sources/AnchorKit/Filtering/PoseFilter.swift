/// A constant-velocity Kalman filter on a rigid pose (`camera_from_target`), weighting each
/// measurement by its own uncertainty.
///
/// Why: a small or distant planar target viewed head-on fixes its tilt poorly (a 0.3 px corner
/// error on a 20 px marker moves the tilt by ~20°) while its position in the image and its
/// in-plane rotation stay precise. Weighting each measurement by its covariance (propagated
/// from the corner noise through the projection) smooths exactly the poorly observed
/// directions and follows the well-observed ones without lag.
///
/// State: rotation R and translation t (nominal), angular velocity ω (rad/s, camera frame) and
/// velocity v (m/s); the error state is `[δθ, ω, δt, v]` with `R_true = exp(δθ) R`.
// Not cv::KalmanFilter: it is a linear filter over a vector state, and this one is an
// error-state filter on SO(3) x R³, re-linearised and re-centred on the nominal rotation at
// every step; only its matrix products would be left to it.
public struct PoseFilter: Sendable {
    /// Noise settings.
    public struct Parameters: Sendable, Equatable {
        /// Spectral density of angular acceleration, (rad/s²)² per Hz: how quickly the target's
        /// orientation relative to the camera may change its rate (a handheld camera shakes).
        public var angularAcceleration = 30.0
        /// Spectral density of linear acceleration, (m/s²)² per Hz.
        public var linearAcceleration = 2.0
        /// Measurements further than this squared Mahalanobis distance from the prediction
        /// restart the filter instead of being blended (a jump, a flip, a re-detection).
        public var gate = 200.0
        public init() {}
    }

    public private(set) var pose: Transform
    private var omega = SIMD3<Double>.zero
    private var velocity = SIMD3<Double>.zero
    private var covariance: DenseMatrix
    private var time: Double
    private let parameters: Parameters

    /// Starts from a measurement with its 6x6 covariance (`[δθ, δt]`).
    package init(pose: Transform, covariance: DenseMatrix, time: Double, parameters: Parameters = Parameters()) {
        self.pose = pose
        self.time = time
        self.parameters = parameters
        self.covariance = PoseFilter.initialCovariance(covariance)
    }

    private static func initialCovariance(_ measurement: DenseMatrix) -> DenseMatrix {
        var p = DenseMatrix.identity(12)
        for i in 0..<3 {
            for j in 0..<3 {
                p[i, j] = measurement[i, j]; p[i, 6 + j] = measurement[i, 3 + j]
                p[6 + i, j] = measurement[3 + i, j]; p[6 + i, 6 + j] = measurement[3 + i, 3 + j]
            }
            p[3 + i, 3 + i] = 1.0   // angular velocity unknown: σ = 1 rad/s
            p[9 + i, 9 + i] = 0.25  // velocity unknown: σ = 0.5 m/s
        }
        return p
    }

    /// The pose predicted at `time` (seconds) without changing the filter.
    public func predicted(at time: Double) -> Transform {
        let dt = time - self.time
        return Transform(rotation: (Matrix3.exp(omega * dt) * pose.rotation).orthonormalized,
                         translation: pose.translation + velocity * dt)
    }

    /// The squared Mahalanobis distance of a measurement from the prediction at `time`.
    package func distance(of measurement: Transform, covariance: DenseMatrix, at time: Double) -> Double {
        let (_, p) = propagated(to: time)
        guard let update = KalmanUpdate(covariance: p, measuring: Self.measured, noise: covariance) else { return .infinity }
        return update.distance(of: innovation(measurement, predicted(at: time)))
    }

    /// Predicts to `time` and blends in a measurement (`camera_from_target` and its 6x6
    /// covariance in `[δθ, δt]`, radians and metres). Returns the filtered pose.
    @discardableResult
    package mutating func update(_ measurement: Transform, covariance c: DenseMatrix, at time: Double) -> Transform {
        let (_, p) = propagated(to: time)
        let prior = predicted(at: time)
        let y = innovation(measurement, prior)
        guard let update = KalmanUpdate(covariance: p, measuring: Self.measured, noise: c), update.distance(of: y) <= parameters.gate else {
            self = PoseFilter(pose: measurement, covariance: c, time: time, parameters: parameters)
            return pose
        }
        let (gain, updatedCovariance) = update.gainAndCovariance()
        let v = (gain * y).values
        pose = Transform(rotation: (Matrix3.exp(SIMD3(v[0], v[1], v[2])) * prior.rotation).orthonormalized,
                         translation: prior.translation + SIMD3(v[6], v[7], v[8]))
        omega += SIMD3(v[3], v[4], v[5])
        velocity += SIMD3(v[9], v[10], v[11])
        covariance = updatedCovariance
        self.time = time
        return pose
    }

    /// The covariance propagated to `time` under constant velocity with white acceleration.
    private func propagated(to time: Double) -> (DenseMatrix, DenseMatrix) {
        let dt = max(0, time - self.time)
        var f = DenseMatrix.identity(12)
        var q = DenseMatrix(rows: 12, columns: 12)
        for i in 0..<3 {
            f[i, 3 + i] = dt; f[6 + i, 9 + i] = dt
            for (base, density) in [(0, parameters.angularAcceleration), (6, parameters.linearAcceleration)] {
                q[base + i, base + i] = density * dt * dt * dt / 3
                q[base + i, base + 3 + i] = density * dt * dt / 2
                q[base + 3 + i, base + i] = density * dt * dt / 2
                q[base + 3 + i, base + 3 + i] = density * dt
            }
        }
        return (f, f * covariance * f.transposed + q)
    }

    /// What a measurement sees of the error state `[δθ, ω, δt, v]`: `[δθ, δt]`.
    private static let measured: DenseMatrix = {
        var h = DenseMatrix(rows: 6, columns: 12)
        for i in 0..<3 { h[i, i] = 1; h[3 + i, 6 + i] = 1 }
        return h
    }()

    /// The innovation `[log(R_m R^T), t_m - t]`.
    private func innovation(_ m: Transform, _ prior: Transform) -> DenseMatrix {
        let r = (m.rotation * prior.rotation.transposed).log
        let t = m.translation - prior.translation
        return DenseMatrix(vector: [r.x, r.y, r.z, t.x, t.y, t.z])
    }
}
