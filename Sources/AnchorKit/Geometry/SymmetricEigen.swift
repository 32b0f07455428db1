/// Eigen-decomposition of a small symmetric matrix by cyclic Jacobi rotations (exact to
/// rounding for the 3x3 scatter matrices of point sets and the 4x4 matrices of Horn's method).
package struct SymmetricEigen {
    /// Eigenvalues in increasing order.
    let values: [Double]
    /// Unit eigenvectors, `vectors[i]` belonging to `values[i]`.
    let vectors: [[Double]]

    /// Decomposes the symmetric n x n matrix `a` (rows).
    init(_ a: [[Double]]) {
        let n = a.count
        var m = a
        var v = (0..<n).map { i in (0..<n).map { $0 == i ? 1.0 : 0.0 } }
        for _ in 0..<50 {
            var off = 0.0
            for p in 0..<n { for q in (p + 1)..<n { off += m[p][q] * m[p][q] } }
            if off < 1e-30 { break }
            for p in 0..<n {
                for q in (p + 1)..<n where abs(m[p][q]) > 1e-300 {
                    // The rotation in the (p, q) plane that zeroes m[p][q].
                    let theta = (m[q][q] - m[p][p]) / (2 * m[p][q])
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot(), s = t * c
                    for k in 0..<n {  // columns p, q of m·J
                        let mkp = m[k][p], mkq = m[k][q]
                        m[k][p] = c * mkp - s * mkq; m[k][q] = s * mkp + c * mkq
                    }
                    for k in 0..<n {  // rows p, q of Jᵀ·m
                        let mpk = m[p][k], mqk = m[q][k]
                        m[p][k] = c * mpk - s * mqk; m[q][k] = s * mpk + c * mqk
                    }
                    for k in 0..<n {
                        let vkp = v[k][p], vkq = v[k][q]
                        v[k][p] = c * vkp - s * vkq; v[k][q] = s * vkp + c * vkq
                    }
                }
            }
        }
        let order = (0..<n).sorted { m[$0][$0] < m[$1][$1] }
        values = order.map { m[$0][$0] }
        vectors = order.map { j in (0..<n).map { v[$0][j] } }
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
