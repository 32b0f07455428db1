/// The covariance of a pose estimated from points seen in one image.
package enum PoseUncertainty {
    /// The 6x6 covariance of `camera_from_target` in `[δθ, δt]` (left rotation perturbation
    /// `exp(δθ) R` in the camera frame, radians; translation in metres), for corners measured
    /// with isotropic noise `pixelSigma` (px): `σ² (JᵀJ)⁻¹`, J the Jacobian of the projected
    /// corners (`points` in the target frame, metres) with respect to the pose.
    public static func covariance(of pose: Transform, points: [SIMD3<Double>], camera: CameraIntrinsics,
                                  pixelSigma: Double) -> DenseMatrix? {
        covariance(points: points, camera: camera, pixelSigma: pixelSigma) { k, d in
            k < 3 ? Transform(rotation: Matrix3.exp(d) * pose.rotation, translation: pose.translation)
                  : Transform(rotation: pose.rotation, translation: pose.translation + d)
        }
    }

    /// One standard deviation of the camera's centre along its least certain direction, metres
    /// (the square root of the largest eigenvalue of its 3x3 covariance), for a camera at
    /// `worldFromCamera` (ARKit conventions) that sees `worldPoints` at pixels measured with
    /// isotropic noise `pixelSigma` (px); nil when a point is behind the camera or the points
    /// do not fix the pose.
    public static func positionSigma(of worldFromCamera: Transform, worldPoints: [SIMD3<Double>], camera: CameraIntrinsics,
                                     pixelSigma: Double) -> Double? {
        guard let c = worldCovariance(of: worldFromCamera, worldPoints: worldPoints, camera: camera, pixelSigma: pixelSigma) else {
            return nil
        }
        let position = (3..<6).map { r in (3..<6).map { c[r, $0] } }
        guard let largest = SymmetricEigen(position).values.last, largest.isFinite else { return nil }
        return max(0, largest).squareRoot()
    }

    /// The 6x6 covariance of a camera at `worldFromCamera` (ARKit conventions) that sees
    /// `worldPoints` at pixels measured with isotropic noise `pixelSigma` (px), in the world
    /// frame: `[δθ, δc]`, the rotation perturbed as `exp(δθ) R` about the camera's centre
    /// (radians), the centre as `c + δc` (metres). Nil when a point is behind the camera or the
    /// points do not fix the pose.
    public static func worldCovariance(of worldFromCamera: Transform, worldPoints: [SIMD3<Double>], camera: CameraIntrinsics,
                                       pixelSigma: Double) -> DenseMatrix? {
        covariance(points: worldPoints, camera: camera, pixelSigma: pixelSigma, perturbed: worldPerturbation(worldFromCamera))
    }

    /// ``worldCovariance(of:worldPoints:camera:pixelSigma:)`` for pixels each measured with its
    /// own 2x2 covariance (px²): `(Jᵀ W J)⁻¹`, W the inverses of `pixelCovariances`.
    package static func worldCovariance(of worldFromCamera: Transform, worldPoints: [SIMD3<Double>], camera: CameraIntrinsics,
                                        pixelCovariances: [PixelCovariance]) -> DenseMatrix? {
        covariance(points: worldPoints, camera: camera, pixelCovariances: pixelCovariances, perturbed: worldPerturbation(worldFromCamera))
    }

    /// `camera_from_world` of a camera at `worldFromCamera` perturbed in the world frame: k < 3
    /// the rotation as `exp(d) R` about the centre, else the centre by `d`.
    private static func worldPerturbation(_ worldFromCamera: Transform) -> (Int, SIMD3<Double>) -> Transform {
        { k, d in
            let moved = k < 3 ? Transform(rotation: Matrix3.exp(d) * worldFromCamera.rotation, translation: worldFromCamera.translation)
                              : Transform(rotation: worldFromCamera.rotation, translation: worldFromCamera.translation + d)
            return moved.inverse
        }
    }

    /// `σ² (JᵀJ)⁻¹`, σ = `pixelSigma` (px): the covariance below for unit noise (W = I), scaled.
    private static func covariance(points: [SIMD3<Double>], camera: CameraIntrinsics, pixelSigma: Double,
                                   perturbed: (Int, SIMD3<Double>) -> Transform) -> DenseMatrix? {
        guard var c = covariance(points: points, camera: camera, pixelCovariances: Array(repeating: .diagonal(1), count: points.count),
                                 perturbed: perturbed) else { return nil }
        c.values = c.values.map { $0 * pixelSigma * pixelSigma }
        return c
    }

    /// `(Jᵀ W J)⁻¹`, J the Jacobian of the projected `points` with respect to the six
    /// perturbations `perturbed(k, d)` gives (`camera_from_points`; k < 3 rotation, else
    /// translation, `d` the k-th axis times a step), W the inverses of the points' pixel
    /// covariances.
    private static func covariance(points: [SIMD3<Double>], camera: CameraIntrinsics, pixelCovariances: [PixelCovariance],
                                   perturbed: (Int, SIMD3<Double>) -> Transform) -> DenseMatrix? {
        guard pixelCovariances.count == points.count, let j = jacobian(points: points, camera: camera, perturbed: perturbed) else {
            return nil
        }
        var weighted = j
        for (i, noise) in pixelCovariances.enumerated() {
            guard let w = noise.inverse else { return nil }
            for k in 0..<6 {
                weighted[2 * i, k] = w.a * j[2 * i, k] + w.b * j[2 * i + 1, k]
                weighted[2 * i + 1, k] = w.b * j[2 * i, k] + w.d * j[2 * i + 1, k]
            }
        }
        return (j.transposed * weighted).inverse
    }

    /// J, the Jacobian of the projected `points` (two rows each: x, y) with respect to the six
    /// perturbations `perturbed(k, d)` gives, by forward differences; nil when a point is behind
    /// the camera.
    private static func jacobian(points: [SIMD3<Double>], camera: CameraIntrinsics,
                                 perturbed: (Int, SIMD3<Double>) -> Transform) -> DenseMatrix? {
        let h = 1e-6
        func project(_ t: Transform) -> [Double]? {
            var out: [Double] = []
            for p in points {
                guard let q = camera.project(t.apply(to: p)) else { return nil }
                out += [q.x, q.y]
            }
            return out
        }
        guard let base = project(perturbed(0, .zero)) else { return nil }
        var j = DenseMatrix(rows: base.count, columns: 6)
        for k in 0..<6 {
            var d = SIMD3<Double>.zero
            d[k % 3] = h
            guard let p = project(perturbed(k, d)) else { return nil }
            for r in 0..<base.count { j[r, k] = (p[r] - base[r]) / h }
        }
        return j
    }
}

/// A pixel's noise covariance, the symmetric 2x2 matrix `[[a, b], [b, d]]` (px², image x right
/// and y down).
package struct PixelCovariance: Sendable {
    package var a, b, d: Double
    package init(a: Double, b: Double, d: Double) { (self.a, self.b, self.d) = (a, b, d) }
    /// The same `variance` (px²) in every direction.
    package static func diagonal(_ variance: Double) -> PixelCovariance { PixelCovariance(a: variance, b: 0, d: variance) }
    /// The covariance of a pixel measured with `alongSigma` along `direction` (any length) and
    /// `acrossSigma` across it (px; one standard deviation each).
    package static func elongated(along direction: SIMD2<Double>, alongSigma: Double, acrossSigma: Double) -> PixelCovariance {
        let u = normalize(direction), extra = alongSigma * alongSigma - acrossSigma * acrossSigma
        return PixelCovariance(a: acrossSigma * acrossSigma + extra * u.x * u.x, b: extra * u.x * u.y,
                       d: acrossSigma * acrossSigma + extra * u.y * u.y)
    }
    package var inverse: PixelCovariance? {
        let det = a * d - b * b
        guard det > 0, det.isFinite else { return nil }
        return PixelCovariance(a: d / det, b: -b / det, d: a / det)
    }
}
