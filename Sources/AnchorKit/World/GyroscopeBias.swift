/// The bias of an inertial log's gyroscope, from the turns the bundle adjustment settled on
/// between consecutive keyframes (VINS-Mono's and ORB-SLAM3's gyroscope calibration, averaged as
/// the walk goes on).
///
/// A keyframe's turn from the one before it, once the adjustment's window has moved past it,
/// against the gyroscope's turn over the same interval: to first order
/// log(visual · gyroscopeᵀ) = F (b - b̂) Δt in OpenCV camera axes, b the bias in the log's (ARKit
/// camera) axes, b̂ the bias already taken off the gyroscope's turn, F = diag(1, -1, -1). The
/// estimate is the sum of F · log(…) + b̂ Δt over the keyframes so far over the sum of their Δt.
struct GyroscopeBiasEstimator {
    /// A turn that differs from the gyroscope's by more than this (radians) is not averaged: the
    /// map's first two keyframes (their turn is the two-view initialisation's, held fixed), a
    /// keyframe relocalised after a gap.
    var largestDisagreement = 0.01
    private var sum = SIMD3<Double>.zero, duration = 0.0

    /// Adds one keyframe's turn from the one before it (`opencvCamera1_from_opencvCamera0`, the
    /// map's) beside the gyroscope's (`opencvCamera1_from_opencvCamera0`, with `bias` taken off)
    /// over `interval` seconds. Returns the bias (rad/s, the log's axes) from every turn so far,
    /// or nil when this one was not taken.
    mutating func add(visualTurn: Matrix3, gyroscopeTurn: Matrix3, bias: SIMD3<Double>, interval: Double) -> SIMD3<Double>? {
        let disagreement = (visualTurn * gyroscopeTurn.transposed).log
        guard interval > 0, length(disagreement) < largestDisagreement else { return nil }
        sum += CameraConvention.flipped(disagreement) + bias * interval
        duration += interval
        return sum / duration
    }
}
