import AnchorKitCV
import Foundation

extension Matrix3 {
    /// The rotation `exp([v]x)`: by `|v|` radians about `v` (the exponential map of SO(3);
    /// OpenCV's Rodrigues). NaN for a non-finite `v`.
    public static func exp(_ v: SIMD3<Double>) -> Matrix3 {
        var r = [Double](repeating: .nan, count: 9)
        if ak_rotation_from_vector([v.x, v.y, v.z], &r) != AK_OK { r = [Double](repeating: .nan, count: 9) }
        return Matrix3(rowMajor: r)
    }

    /// The rotation vector of this rotation (the logarithm map of SO(3)): axis times angle,
    /// angle in 0...π.
    // Not OpenCV's Rodrigues: it returns zero for any rotation under about 1e-5 rad (its
    // small-angle branch), which would erase the small corrections filters average.
    public var log: SIMD3<Double> {
        let angle = rotationAngle
        let w = SIMD3(self[2, 1] - self[1, 2], self[0, 2] - self[2, 0], self[1, 0] - self[0, 1])
        if angle < 1e-9 { return w / 2 }
        if angle > .pi - 1e-6 {
            // Near π the antisymmetric part vanishes: take the axis from the symmetric part.
            let d = SIMD3(self[0, 0], self[1, 1], self[2, 2])
            var axis = SIMD3((max(0, (d.x + 1) / 2)).squareRoot(), (max(0, (d.y + 1) / 2)).squareRoot(), (max(0, (d.z + 1) / 2)).squareRoot())
            if self[0, 1] + self[1, 0] < 0 { axis.y = -axis.y }
            if self[0, 2] + self[2, 0] < 0 { axis.z = -axis.z }
            return normalize(axis) * angle
        }
        return w * (angle / (2 * sin(angle)))
    }

    /// The nearest rotation (re-orthonormalised by Gram–Schmidt), to remove rounding drift.
    public var orthonormalized: Matrix3 {
        let x = normalize(columns.0)
        let y = normalize(columns.1 - x * dot(x, columns.1))
        return Matrix3(columns: (x, y, cross(x, y)))
    }
}
