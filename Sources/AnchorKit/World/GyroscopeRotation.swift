/// The camera's turn between two instants from an inertial log's gyroscope: what carries the
/// pose of visual odometry over frames without enough texture when a log is given.
package struct GyroscopeRotation {
    /// The log, by time.
    private let samples: [InertialSample]
    /// The gyroscope's bias (rad/s, the log's axes), taken off every sample.
    package var bias = SIMD3<Double>.zero

    package init(samples: [InertialSample]) { self.samples = samples.sorted { $0.time < $1.time } }

    /// `camera0_from_camera1` in ARKit camera axes (+x right, +y up, +z back; the log's axes) for
    /// the camera at `start` (0) and `end` (1), seconds: each sample's angular velocity held until
    /// the next sample, integrated as `R(t + dt) = R(t) · exp(ω dt)`. Nil when the log does not
    /// cover the interval.
    package func turn(from start: Double, to end: Double) -> Matrix3? {
        guard end > start, let first = samples.first, let last = samples.last,
              first.time <= start, last.time >= end else { return nil }
        var rotation = Matrix3.identity
        // From the last sample at or before `start` (there is one: the first is).
        var i = samples.partitioningIndex { $0.time > start } - 1
        while i < samples.count, samples[i].time < end {
            let from = max(samples[i].time, start), to = i + 1 < samples.count ? min(samples[i + 1].time, end) : end
            if to > from { rotation = rotation * Matrix3.exp((samples[i].gyroscope - bias) * (to - from)) }
            i += 1
        }
        return rotation
    }

    /// The same turn as `opencvCamera1_from_opencvCamera0` (OpenCV camera axes: +x right, +y
    /// down, +z forward): F · transpose(`arkitCamera0_from_arkitCamera1`) · F, F = diag(1, -1, -1).
    package func opencvTurn(from start: Double, to end: Double) -> Matrix3? {
        guard let turn = turn(from: start, to: end) else { return nil }
        let f = CameraConvention.flip.rotation
        return f * turn.transposed * f
    }
}
