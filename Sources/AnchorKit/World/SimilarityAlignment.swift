import AnchorKitCV

/// The similarity (or rigid) transform that best maps one point set onto another in the least-
/// squares sense: `target ≈ scale · R · source + t` (Umeyama 1991, closed form).
///
/// Trajectory benchmarks align an estimated trajectory to the ground truth this way before
/// measuring the absolute trajectory error: with a similarity where the estimate's scale is
/// arbitrary (monocular odometry), with a rigid transform where it is metric.
package struct SimilarityAlignment: Equatable, Sendable {
    /// Scale factor (1 for a rigid alignment).
    public var scale: Double
    /// Rotation and translation (metres of the target set): `target ≈ scale · R · source + t`.
    public var rotation: Matrix3
    public var translation: SIMD3<Double>

    /// Maps a source point into the target's frame.
    public func apply(to p: SIMD3<Double>) -> SIMD3<Double> { scale * (rotation * p) + translation }

    /// Maps a source pose `source_from_X` to `target_from_X` (the translation is scaled, the
    /// rotation is not).
    public func apply(to pose: Transform) -> Transform {
        Transform(rotation: rotation * pose.rotation, translation: apply(to: pose.translation))
    }

    /// The alignment of `source` onto `target` (paired by index). `withScale` false fixes the
    /// scale at 1. Nil when there are fewer than 3 pairs or the source has no extent (all
    /// points equal), where no rotation is determined.
    public static func fit(source: [SIMD3<Double>], target: [SIMD3<Double>], withScale: Bool) -> SimilarityAlignment? {
        guard source.count == target.count, source.count >= 3 else { return nil }
        let mean = source.reduce(.zero, +) / Double(source.count)
        let sourceSpread = source.reduce(0.0) { $0 + dot($1 - mean, $1 - mean) }
        guard sourceSpread > 1e-18 else { return nil }
        // Umeyama's closed form (Eigen's umeyama, through the shim).
        var scale = 1.0, rotation = [Double](repeating: 0, count: 9), translation = [Double](repeating: 0, count: 3)
        let status = ak_similarity_fit(source.flatMap { [$0.x, $0.y, $0.z] }, target.flatMap { [$0.x, $0.y, $0.z] },
                                       Int32(source.count), withScale ? 1 : 0, &scale, &rotation, &translation)
        guard status == AK_OK else { return nil }   // a non-finite coordinate
        return SimilarityAlignment(scale: scale, rotation: Matrix3(rowMajor: rotation),
                                   translation: SIMD3(translation[0], translation[1], translation[2]))
    }
}
