/// The covariance of a planar target's pose estimated from its corners.
package enum PoseUncertainty {
    /// The 6x6 covariance of `camera_from_target` in `[δθ, δt]` (left rotation perturbation
    /// `exp(δθ) R` in the camera frame, radians; translation in metres), for corners measured
    /// with isotropic noise `pixelSigma` (px): `σ² (JᵀJ)⁻¹`, J the Jacobian of the projected
    /// corners (`points` in the target frame, metres) with respect to the pose.
    public static func covariance(of pose: Transform, points: [SIMD3<Double>], camera: CameraIntrinsics,
                                  pixelSigma: Double) -> DenseMatrix? {
        let h = 1e-6
        func project(_ t: Transform) -> [Double]? {
            var out: [Double] = []
            for p in points {
                guard let q = camera.project(t.apply(to: p)) else { return nil }
                out += [q.x, q.y]
            }
            return out
        }
        guard let base = project(pose) else { return nil }
        var j = DenseMatrix(rows: base.count, columns: 6)
        for k in 0..<6 {
            var d = SIMD3<Double>.zero
            d[k % 3] = h
            let moved = k < 3
                ? Transform(rotation: Matrix3.exp(d) * pose.rotation, translation: pose.translation)
                : Transform(rotation: pose.rotation, translation: pose.translation + d)
            guard let p = project(moved) else { return nil }
            for r in 0..<base.count { j[r, k] = (p[r] - base[r]) / h }
        }
        guard var c = (j.transposed * j).inverse else { return nil }
        c.values = c.values.map { $0 * pixelSigma * pixelSigma }
        return c
    }
}
