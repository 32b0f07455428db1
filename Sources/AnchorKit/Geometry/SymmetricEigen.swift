import AnchorKitCV

/// Eigen-decomposition of a small symmetric matrix (Eigen's `SelfAdjointEigenSolver`, through
/// the shim): the 3x3 scatter matrices of point sets.
package struct SymmetricEigen {
    /// Eigenvalues in increasing order.
    let values: [Double]
    /// Unit eigenvectors, `vectors[i]` belonging to `values[i]`.
    let vectors: [[Double]]

    /// Decomposes the symmetric n x n matrix `a` (rows, 1 ≤ n ≤ 16). A matrix with a non-finite
    /// element gives NaN values and vectors.
    init(_ a: [[Double]]) {
        let n = a.count
        var values = [Double](repeating: .nan, count: n), vectors = [Double](repeating: .nan, count: n * n)
        if ak_symmetric_eigen(a.flatMap { $0 }, Int32(n), &values, &vectors) != AK_OK {
            values = [Double](repeating: .nan, count: n); vectors = [Double](repeating: .nan, count: n * n)
        }
        self.values = values
        self.vectors = (0..<n).map { Array(vectors[($0 * n)..<($0 * n + n)]) }
    }

    /// The centroid of `points` and the eigenvalues and unit eigenvectors of their covariance,
    /// smallest first (for points near a plane, the first vector is its normal).
    package static func of(_ points: [SIMD3<Double>]) -> (centroid: SIMD3<Double>, values: [Double], vectors: [SIMD3<Double>]) {
        let n = Double(max(points.count, 1))
        let c = points.reduce(SIMD3<Double>.zero, +) / n
        var s = [[Double]](repeating: [0, 0, 0], count: 3)
        for p in points {
            let d = p - c
            for r in 0..<3 { for k in 0..<3 { s[r][k] += d[r] * d[k] / n } }
        }
        let e = SymmetricEigen(s)
        return (c, e.values, e.vectors.map { SIMD3($0[0], $0[1], $0[2]) })
    }
}
