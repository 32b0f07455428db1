/// Smooths the centre of a camera located on targets over frames with a constant-velocity Kalman
/// filter, and turns the camera with its centre about the targets it sees (issue 29). A blurred
/// frame's targets fix the camera's orbit about them loosely (along the blur) and its direction
/// to them well: the filter takes the centre from the motion where the frame's covariance is
/// loose, from the frame where it is tight; the turn keeps the targets where the frame saw them.
///
/// Frames: the world's (metres, seconds); the pose covariance is
/// ``PoseUncertainty/worldCovariance(of:worldPoints:camera:pixelCovariances:)``'s `[δθ, δc]`.
struct OrbitSmoother {
    /// The camera's acceleration the filter allows, m/s² (one standard deviation of a white-noise
    /// acceleration): above the rendered cameras' (about 1 RMS, peaks to 5), where 1 lagged their
    /// sharpest turns (Benchmarks/README.md, world start, step 4).
    var acceleration = 3.0
    /// The speed the filter assumes before it has seen two frames, m/s (one standard deviation).
    var initialSpeed = 1.0
    private var state: [Double] = []                       // [c, v]: centre (m), velocity (m/s)
    private var covariance = DenseMatrix(rows: 6, columns: 6)
    private var last: (frame: Int, time: Double)?

    /// Forgets the motion: the next located frame starts the filter again.
    mutating func reset() {
        state = []
        last = nil
    }

    /// `pose` (`world_from_camera`, with its 6x6 `covariance`) with its centre filtered and the
    /// camera turned with it about `target` (world): the centre of the targets' corners.
    mutating func update(_ pose: Transform, covariance poseCovariance: DenseMatrix, looking target: SIMD3<Double>, frame: Int,
                         time: Double) -> Transform {
        var noise = DenseMatrix(rows: 3, columns: 3)
        for i in 0..<3 { for j in 0..<3 { noise[i, j] = poseCovariance[3 + i, 3 + j] } }
        let measured = pose.translation
        // The filter starts again unless this frame follows the last one it saw (the world resets it
        // at every frame without a located camera).
        guard state.count == 6, let last, frame == last.frame + 1, time > last.time else {
            state = [measured.x, measured.y, measured.z, 0, 0, 0]
            covariance = DenseMatrix(rows: 6, columns: 6)
            for i in 0..<3 {
                for j in 0..<3 { covariance[i, j] = noise[i, j] }
                covariance[3 + i, 3 + i] = initialSpeed * initialSpeed
            }
            self.last = (frame, time)
            return pose
        }
        // Constant velocity over dt, white-noise acceleration (per axis [[dt⁴/4, dt³/2], [dt³/2, dt²]] a²).
        let dt = time - last.time, a2 = acceleration * acceleration
        var f = DenseMatrix.identity(6), q = DenseMatrix(rows: 6, columns: 6), h = DenseMatrix(rows: 3, columns: 6)
        for i in 0..<3 {
            f[i, 3 + i] = dt
            q[i, i] = a2 * dt * dt * dt * dt / 4
            q[i, 3 + i] = a2 * dt * dt * dt / 2
            q[3 + i, i] = q[i, 3 + i]
            q[3 + i, 3 + i] = a2 * dt * dt
            h[i, i] = 1
        }
        let predicted = f * DenseMatrix(vector: state), p = f * covariance * f.transposed + q
        let innovation = DenseMatrix(vector: [measured.x, measured.y, measured.z]) - h * predicted
        guard let update = KalmanUpdate(covariance: p, measuring: h, noise: noise) else {
            reset()
            return pose
        }
        let (gain, updatedCovariance) = update.gainAndCovariance()
        let updated = predicted + gain * innovation
        guard updated.values.allSatisfy(\.isFinite) else {
            reset()
            return pose
        }
        state = updated.values
        covariance = updatedCovariance
        self.last = (frame, time)
        let centre = SIMD3(state[0], state[1], state[2])
        let before = target - measured, after = target - centre
        guard length(before) > 1e-6, length(after) > 1e-6 else { return Transform(rotation: pose.rotation, translation: centre) }
        return Transform(rotation: (Matrix3.rotation(from: normalize(before), to: normalize(after)) * pose.rotation).orthonormalized,
                         translation: centre)
    }
}
