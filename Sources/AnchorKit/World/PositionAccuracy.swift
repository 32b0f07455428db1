/// The camera's stated position uncertainty (``CameraState/positionAccuracy``) between fixes:
/// what a frame located on its own states (targets of known size through their corners' noise),
/// grown by odometry's drift over the path travelled since, or by the acceleration a carried
/// camera's constant velocity leaves out.
struct PositionAccuracy {
    /// Odometry's drift, as a share of the path it travels: a bound on the drift measured on the
    /// room walks (Benchmarks/README.md).
    static let odometryDriftShare = 0.02
    /// Acceleration a handheld camera may have that a constant-velocity carry leaves out, m/s²
    /// (world units per s² in a world of arbitrary scale).
    static let handheldAcceleration = 3.0

    private var last: (sigma: Double, position: SIMD3<Double>, time: Double)?
    /// Path travelled under odometry since the last fix, and the sigma at that fix.
    private var pathSinceFix = 0.0, sigmaAtFix = 0.0

    /// A frame located on its own with position sigma `sigma`: the stated accuracy restarts there.
    mutating func fix(_ sigma: Double, at position: SIMD3<Double>, time: Double) -> Double {
        last = (sigma, position, time)
        pathSinceFix = 0
        sigmaAtFix = sigma
        return sigma
    }

    /// A frame located by odometry at `position`: the last fix's sigma grown by the drift over the
    /// path since; with no frame located before, the path from the world's origin (odometry's own
    /// world starts there, at sigma 0).
    mutating func odometry(at position: SIMD3<Double>, time: Double) -> Double {
        pathSinceFix += length(position - (last?.position ?? .zero))
        let sigma = sigmaAtFix + Self.odometryDriftShare * pathSinceFix
        last = (sigma, position, time)
        return sigma
    }

    /// A frame carried at constant velocity to `time` (seconds) from the last located one: its
    /// sigma grown by half the unmodelled acceleration times the time squared. Nil before any.
    func carried(to time: Double) -> Double? {
        guard let last else { return nil }
        let t = max(0, time - last.time)
        return last.sigma + 0.5 * Self.handheldAcceleration * t * t
    }

    /// The same in a world scaled by `factor` (odometry's arbitrary unit made metres).
    mutating func rescale(by factor: Double) {
        last = last.map { ($0.sigma * factor, $0.position * factor, $0.time) }
        pathSinceFix *= factor
        sigmaAtFix *= factor
    }

    /// Forgets everything: the camera was lost.
    mutating func reset() { self = PositionAccuracy() }
}
