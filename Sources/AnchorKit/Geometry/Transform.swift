import Foundation

/// A 4x4 rigid transform (rotation and translation), `A_from_B`: it maps points in frame B
/// into frame A.
///
/// Storage and serialisation are **column-major** (the order of `simd_float4x4` columns and of
/// OpenGL): ``columnMajor`` lists 16 numbers with the translation at indices 12, 13, 14.
/// Units are metres. Compose with `*`: `a_from_c = a_from_b * b_from_c`.
public struct Transform: Equatable, Sendable {
    /// The four columns; `columns.3` holds the translation and 1.
    public var columns: (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)

    /// A transform from its four columns.
    public init(columns: (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)) {
        self.columns = columns
    }

    /// A transform from a rotation and a translation (metres): `x' = R x + t`.
    public init(rotation r: Matrix3, translation t: SIMD3<Double>) {
        columns = (SIMD4(r.columns.0, 0), SIMD4(r.columns.1, 0), SIMD4(r.columns.2, 0), SIMD4(t, 1))
    }

    /// A pure translation (metres).
    public init(translation t: SIMD3<Double>) {
        self.init(rotation: .identity, translation: t)
    }

    /// A transform from 16 numbers in column-major order, as in the anchor stream.
    /// Throws unless there are 16 finite numbers whose last row is (0, 0, 0, 1) and whose
    /// upper-left 3x3 block is a rotation (orthonormal within 1e-3, determinant +1).
    public init(columnMajor m: [Double]) throws {
        guard let general = Matrix4(columnMajor: m) else { throw TransformError.wrongCount(m.count) }
        guard m.allSatisfy(\.isFinite) else { throw TransformError.notFinite }
        columns = general.columns
        let lastRow = SIMD4(m[3], m[7], m[11], m[15])
        guard length(lastRow - SIMD4(0, 0, 0, 1)) < 1e-6 else { throw TransformError.notRigid }
        let r = rotation
        let gram = r.transposed * r
        let off = [gram[0, 0] - 1, gram[1, 1] - 1, gram[2, 2] - 1, gram[0, 1], gram[0, 2], gram[1, 2]]
        guard off.allSatisfy({ abs($0) < 1e-3 }), r.determinant > 0 else { throw TransformError.notRigid }
    }

    /// The identity.
    public static let identity = Transform(rotation: .identity, translation: .zero)

    /// The 16 numbers in column-major order (translation at indices 12, 13, 14).
    public var columnMajor: [Double] { matrix.columnMajor }

    /// The rotation part (upper-left 3x3).
    public var rotation: Matrix3 {
        Matrix3(columns: (xyz(columns.0), xyz(columns.1), xyz(columns.2)))
    }

    /// The translation part, metres: where B's origin lies in A.
    public var translation: SIMD3<Double> {
        get { xyz(columns.3) }
        set { columns.3 = SIMD4(newValue, 1) }
    }

    /// The inverse, `B_from_A`, using rigidity: `[R t]^-1 = [R^T, -R^T t]`.
    public var inverse: Transform {
        let rt = rotation.transposed
        return Transform(rotation: rt, translation: -(rt * translation))
    }

    /// Composition: `(a_from_b * b_from_c)` maps C into A.
    public static func * (a: Transform, b: Transform) -> Transform {
        Transform(rotation: a.rotation * b.rotation, translation: a.rotation * b.translation + a.translation)
    }

    /// The same transform between frames of a world whose lengths were all multiplied by
    /// `factor` about A's (or B's) origin: the rotation stays, the translation scales. How a
    /// monocular map's poses follow when the map is made metric.
    public func translationScaled(by factor: Double) -> Transform {
        Transform(rotation: rotation, translation: translation * factor)
    }

    /// Maps a point of B into A.
    public func apply(to point: SIMD3<Double>) -> SIMD3<Double> {
        rotation * point + translation
    }

    public static func == (a: Transform, b: Transform) -> Bool {
        a.columnMajor == b.columnMajor
    }

    /// True when rotations differ by at most `angle` radians and translations by `distance` metres.
    public func isClose(to other: Transform, angle: Double = 1e-7, distance: Double = 1e-9) -> Bool {
        (rotation.transposed * other.rotation).rotationAngle <= angle
            && length(translation - other.translation) <= distance
    }
}

/// Why 16 numbers are not a rigid transform.
public enum TransformError: Error, CustomStringConvertible {
    case wrongCount(Int)
    case notFinite
    case notRigid

    public var description: String {
        switch self {
        case .wrongCount(let n): return "a transform needs 16 numbers, got \(n)"
        case .notFinite: return "a transform contains NaN or infinity"
        case .notRigid: return "a transform is not rigid (rotation not orthonormal or last row not 0 0 0 1)"
        }
    }
}

@inline(__always) private func xyz(_ v: SIMD4<Double>) -> SIMD3<Double> { SIMD3(v.x, v.y, v.z) }
