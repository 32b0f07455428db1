/// The Kalman filter's measurement update, for the filters that write their state their own way
/// (a pose on the rotation manifold, a camera centre and velocity): with the state's covariance
/// `P`, a measurement `z = H x + noise` of covariance `R` and the innovation `y = z - H x̂`, the
/// state moves by `K y` and its covariance becomes `P - K H P`, with `K = P Hᵀ S⁻¹` and
/// `S = H P Hᵀ + R` (the innovation's covariance).
package struct KalmanUpdate {
    /// `S⁻¹`: the squared Mahalanobis distance of an innovation `y` is `yᵀ S⁻¹ y`.
    package let innovationCovarianceInverse: DenseMatrix
    private let p: DenseMatrix, h: DenseMatrix, ht: DenseMatrix

    /// Nil when `S` cannot be inverted. Only `S⁻¹` is computed here: a gate needs no more.
    package init?(covariance p: DenseMatrix, measuring h: DenseMatrix, noise r: DenseMatrix) {
        let ht = h.transposed
        guard let sInverse = (h * p * ht + r).inverse else { return nil }
        innovationCovarianceInverse = sInverse
        self.p = p; self.h = h; self.ht = ht
    }

    /// The squared Mahalanobis distance `yᵀ S⁻¹ y` of innovation `y` (a column).
    package func distance(of y: DenseMatrix) -> Double { (y.transposed * innovationCovarianceInverse * y)[0, 0] }

    /// `K` (state rows by measurement rows) and `P - K H P`.
    package func gainAndCovariance() -> (gain: DenseMatrix, covariance: DenseMatrix) {
        let gain = p * ht * innovationCovarianceInverse
        return (gain, p - gain * h * p)
    }
}
