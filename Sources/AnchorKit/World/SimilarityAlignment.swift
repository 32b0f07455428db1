import Foundation

/// The similarity (or rigid) transform that best maps one point set onto another in the least-
/// squares sense: `target ≈ scale · R · source + t` (Horn 1987, closed form with unit quaternions).
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
        let n = Double(source.count)
        let ms = source.reduce(.zero, +) / n, mt = target.reduce(.zero, +) / n
        var s = [[Double]](repeating: [0, 0, 0], count: 3)  // cross-covariance Σ a bᵀ
        var sourceSpread = 0.0, targetSpread = 0.0
        for (p, q) in zip(source, target) {
            let a = p - ms, b = q - mt
            sourceSpread += dot(a, a); targetSpread += dot(b, b)
            for i in 0..<3 { for j in 0..<3 { s[i][j] += a[i] * b[j] } }
        }
        guard sourceSpread > 1e-18 else { return nil }
        // Horn's symmetric 4x4 matrix: its top eigenvector is the rotation's unit quaternion.
        let (xx, xy, xz) = (s[0][0], s[0][1], s[0][2])
        let (yx, yy, yz) = (s[1][0], s[1][1], s[1][2])
        let (zx, zy, zz) = (s[2][0], s[2][1], s[2][2])
        let m: [[Double]] = [
            [xx + yy + zz, yz - zy, zx - xz, xy - yx],
            [yz - zy, xx - yy - zz, xy + yx, zx + xz],
            [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
            [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
        ]
        let q = SymmetricEigen(m).vectors.last!
        let r = Matrix3(quaternion: SIMD4(q[1], q[2], q[3], q[0]))
        // Scale from the rotated cross-covariance: Σ bᵀ R a / Σ |a|².
        var scale = 1.0
        if withScale {
            var num = 0.0
            for (p, q) in zip(source, target) { num += dot(q - mt, r * (p - ms)) }
            scale = num / sourceSpread
        }
        return SimilarityAlignment(scale: scale, rotation: r, translation: mt - scale * (r * ms))
    }
}

extension Matrix3 {
    /// The rotation of a unit quaternion (x, y, z, w), w the scalar part.
    public init(quaternion q: SIMD4<Double>) {
        let n = q / length(q)
        let (x, y, z, w) = (n.x, n.y, n.z, n.w)
        self.init(rows: SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
                  SIMD3(2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
                  SIMD3(2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)))
    }
}
