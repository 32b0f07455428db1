/// A 2D similarity (rotation, uniform scale and translation) of image points, pixels:
/// q = centre' + k (p - centre), with k = scale e^(i angle) acting on (x, y) as a complex number.
struct Similarity2D {
    /// Centroid of the source points, and where it maps to.
    var from: SIMD2<Double>, to: SIMD2<Double>
    /// k's real and imaginary parts: scale cos(angle), scale sin(angle).
    var k: SIMD2<Double>

    /// The least-squares similarity from `source` to `destination` (same count, at least two
    /// points), each pair weighted by `weights` (all 1 where nil); nil when the source points all
    /// coincide.
    static func fit(from source: [SIMD2<Double>], to destination: [SIMD2<Double>], weights: [Double]? = nil) -> Similarity2D? {
        guard source.count == destination.count, source.count >= 2, weights.map({ $0.count == source.count }) ?? true else { return nil }
        let weights = weights ?? [Double](repeating: 1, count: source.count)
        let total = weights.reduce(0, +)
        guard total > 0 else { return nil }
        let cp = zip(source, weights).reduce(SIMD2<Double>.zero) { $0 + $1.0 * $1.1 } / total
        let cq = zip(destination, weights).reduce(SIMD2<Double>.zero) { $0 + $1.0 * $1.1 } / total
        // k = sum(a w conj(z)) / sum(a |z|^2) for centred z = p - cp, w = q - cq and weights a.
        var numerator = SIMD2<Double>.zero, norm = 0.0
        for ((p, q), a) in zip(zip(source, destination), weights) {
            let z = p - cp, w = q - cq
            numerator += a * SIMD2(w.x * z.x + w.y * z.y, w.y * z.x - w.x * z.y)
            norm += a * (z.x * z.x + z.y * z.y)
        }
        guard norm > 0 else { return nil }
        return Similarity2D(from: cp, to: cq, k: numerator / norm)
    }

    /// Where `p` maps to.
    func apply(_ p: SIMD2<Double>) -> SIMD2<Double> {
        let z = p - from
        return to + SIMD2(k.x * z.x - k.y * z.y, k.y * z.x + k.x * z.y)
    }
}
