import AnchorKitCV

/// Plane-to-image homographies (3x3, `dst ~ H src`, pixels in OpenCV's convention).
public enum Homography {
    /// Robust estimators (OpenCV's RANSAC family and USAC variants).
    public enum Method: Sendable, CaseIterable {
        case ransac, lmeds, rho, usacDefault, usacFast, usacAccurate, usacMagsac, leastSquares

        var native: ak_robust_method {
            switch self {
            case .ransac: return AK_ROBUST_RANSAC
            case .lmeds: return AK_ROBUST_LMEDS
            case .rho: return AK_ROBUST_RHO
            case .usacDefault: return AK_ROBUST_USAC_DEFAULT
            case .usacFast: return AK_ROBUST_USAC_FAST
            case .usacAccurate: return AK_ROBUST_USAC_ACCURATE
            case .usacMagsac: return AK_ROBUST_USAC_MAGSAC
            case .leastSquares: return AK_ROBUST_LEAST_SQUARES
            }
        }
    }

    /// A homography with the correspondences it explains.
    public struct Estimate: Sendable {
        public var matrix: Matrix3
        /// One flag per correspondence.
        public var inliers: [Bool]
        public var inlierCount: Int
    }

    /// Estimates the homography mapping `source` to `destination` (at least 4 pairs); nil when
    /// none is found.
    public static func estimate(from source: [SIMD2<Float>], to destination: [SIMD2<Float>], method: Method = .usacMagsac,
                                threshold: Double = 3, maxIterations: Int = 2000, confidence: Double = 0.995) throws -> Estimate? {
        precondition(source.count == destination.count)
        guard source.count >= 4 else { return nil }
        let src = source.flatMap { [$0.x, $0.y] }, dst = destination.flatMap { [$0.x, $0.y] }
        var h = [Double](repeating: 0, count: 9)
        var mask = [UInt8](repeating: 0, count: source.count)
        var inliers: Int32 = 0
        try NativeError.check(ak_find_homography(src, dst, Int32(source.count), method.native, threshold, Int32(maxIterations),
                                                 confidence, &h, &mask, &inliers), "homography")
        guard inliers > 0 else { return nil }
        return Estimate(matrix: Matrix3(rowMajor: h), inliers: mask.map { $0 != 0 }, inlierCount: Int(inliers))
    }

    /// Refines `matrix` (reference px -> image px) by aligning `reference` to `image` with ECC.
    /// Returns the refined matrix and the correlation, or nil when ECC does not converge.
    public static func refine(_ matrix: Matrix3, reference: Image, image: Image, iterations: Int = 30,
                              epsilon: Double = 1e-4) throws -> (matrix: Matrix3, correlation: Double)? {
        var h = matrix.rowMajor
        var correlation = 0.0
        try NativeError.check(ak_refine_homography(reference.handle, image.handle, &h, Int32(iterations), epsilon, &correlation),
                              "homography refinement")
        return correlation < -1 ? nil : (Matrix3(rowMajor: h), correlation)
    }

    /// Normalised cross-correlation between `reference` and the image seen through `matrix`,
    /// and the fraction of the reference that lands inside the image.
    public static func correlation(_ matrix: Matrix3, reference: Image, image: Image) throws -> (correlation: Double, coverage: Double) {
        var c = 0.0, coverage = 0.0
        try NativeError.check(ak_homography_correlation(reference.handle, image.handle, matrix.rowMajor, &c, &coverage), "correlation")
        return (c, coverage)
    }

    /// Maps a point through a homography.
    public static func map(_ h: Matrix3, _ p: SIMD2<Double>) -> SIMD2<Double> {
        let q = h * SIMD3(p.x, p.y, 1)
        return SIMD2(q.x / q.z, q.y / q.z)
    }
}
