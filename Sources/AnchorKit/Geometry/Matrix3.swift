import Foundation

/// A 3x3 matrix of `Double`, stored as three columns.
///
/// Used for rotations (orthonormal, determinant +1) and for homographies. The C boundary passes
/// 3x3 matrices in OpenCV's row-major order; convert with ``init(rowMajor:)`` and ``rowMajor``.
public struct Matrix3: Equatable, Sendable {
    /// The columns: `columns.0` is the image of the x axis.
    public var columns: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    /// A matrix from its three columns.
    public init(columns: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) {
        self.columns = columns
    }

    /// A matrix from 9 numbers in row-major order (OpenCV's `cv::Mat` order).
    public init<C: Collection>(rowMajor m: C) where C.Element == Double {
        precondition(m.count == 9, "a 3x3 matrix needs 9 numbers")
        let a = Array(m)
        columns = (SIMD3(a[0], a[3], a[6]), SIMD3(a[1], a[4], a[7]), SIMD3(a[2], a[5], a[8]))
    }

    /// A matrix whose rows are the given vectors.
    public init(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        columns = (SIMD3(r0.x, r1.x, r2.x), SIMD3(r0.y, r1.y, r2.y), SIMD3(r0.z, r1.z, r2.z))
    }

    /// The identity.
    public static let identity = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))

    /// A diagonal matrix.
    public static func diagonal(_ d: SIMD3<Double>) -> Matrix3 {
        Matrix3(rows: SIMD3(d.x, 0, 0), SIMD3(0, d.y, 0), SIMD3(0, 0, d.z))
    }

    /// The 9 numbers in row-major order (OpenCV's order).
    public var rowMajor: [Double] {
        [columns.0.x, columns.1.x, columns.2.x,
         columns.0.y, columns.1.y, columns.2.y,
         columns.0.z, columns.1.z, columns.2.z]
    }

    /// Element at `row`, `column` (0-based).
    public subscript(row: Int, column: Int) -> Double {
        switch column {
        case 0: return columns.0[row]
        case 1: return columns.1[row]
        default: return columns.2[row]
        }
    }

    /// The transpose (the inverse of a rotation).
    public var transposed: Matrix3 { Matrix3(rows: columns.0, columns.1, columns.2) }

    /// The determinant.
    public var determinant: Double {
        let (a, b, c) = columns
        return a.x * (b.y * c.z - c.y * b.z) - b.x * (a.y * c.z - c.y * a.z) + c.x * (a.y * b.z - b.y * a.z)
    }

    /// The trace.
    public var trace: Double { columns.0.x + columns.1.y + columns.2.z }

    /// The matrix-vector product.
    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        m.columns.0 * v.x + m.columns.1 * v.y + m.columns.2 * v.z
    }

    /// The matrix product.
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(columns: (a * b.columns.0, a * b.columns.1, a * b.columns.2))
    }

    public static func == (a: Matrix3, b: Matrix3) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2
    }

    /// The rotation by `angle` radians about the unit `axis` (right-handed, counter-clockwise
    /// when the axis points at the viewer).
    public static func rotation(angle: Double, axis: SIMD3<Double>) -> Matrix3 {
        let u = axis / (axis * axis).sum().squareRoot()
        let c = cos(angle), s = sin(angle), t = 1 - c
        return Matrix3(
            rows: SIMD3(t * u.x * u.x + c, t * u.x * u.y - s * u.z, t * u.x * u.z + s * u.y),
            SIMD3(t * u.x * u.y + s * u.z, t * u.y * u.y + c, t * u.y * u.z - s * u.x),
            SIMD3(t * u.x * u.z - s * u.y, t * u.y * u.z + s * u.x, t * u.z * u.z + c))
    }

    /// The least rotation taking the unit vector `a` to the unit vector `b` (about their cross
    /// product); the identity for parallel vectors, and a half turn about an axis normal to `a`
    /// for opposite ones.
    public static func rotation(from a: SIMD3<Double>, to b: SIMD3<Double>) -> Matrix3 {
        let axis = cross(a, b), angle = atan2(length(axis), dot(a, b))
        guard length(axis) > 1e-12 else {
            if dot(a, b) > 0 { return .identity }
            let normal = abs(a.x) < 0.9 ? cross(a, SIMD3(1, 0, 0)) : cross(a, SIMD3(0, 1, 0))
            return rotation(angle: .pi, axis: normal)
        }
        return rotation(angle: angle, axis: axis)
    }

    /// The angle of this rotation, in radians (0...π). From atan2 of the antisymmetric and
    /// symmetric parts, which stays accurate near 0 and π where acos of the trace does not.
    public var rotationAngle: Double {
        let w = SIMD3(self[2, 1] - self[1, 2], self[0, 2] - self[2, 0], self[1, 0] - self[0, 1])
        return atan2(length(w) / 2, (trace - 1) / 2)
    }

    /// The inverse of a general (e.g. homography) matrix, or nil if it is singular.
    public var inverse: Matrix3? {
        let det = determinant
        guard det.isFinite, abs(det) > 1e-300 else { return nil }
        let (a, b, c) = columns
        let r0 = cross(b, c), r1 = cross(c, a), r2 = cross(a, b)
        return Matrix3(rows: r0 / det, r1 / det, r2 / det)
    }
}


/// The cross product of two 3-vectors.
@inlinable package func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The dot product of two vectors.
@inlinable package func dot<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
    (a * b).sum()
}

/// The Euclidean length of a vector.
@inlinable package func length<V: SIMD>(_ v: V) -> V.Scalar where V.Scalar: FloatingPoint {
    (v * v).sum().squareRoot()
}

/// The vector scaled to unit length.
@inlinable package func normalize<V: SIMD>(_ v: V) -> V where V.Scalar: FloatingPoint {
    v / length(v)
}
