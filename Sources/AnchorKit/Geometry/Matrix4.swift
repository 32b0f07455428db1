/// A general 4x4 matrix, column-major: projections, and model matrices that scale content.
/// ``Transform`` is the rigid case (``Transform/matrix`` converts).
///
/// `columns.0` is the first column, the order of `simd_float4x4(columns:)` and of OpenGL; an
/// engine takes ``floatColumns`` (`simd_float4x4(columns: m.floatColumns)` on Apple platforms).
public struct Matrix4: Equatable, Sendable {
    /// The four columns.
    public var columns: (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)

    /// A matrix from its four columns.
    public init(columns: (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)) {
        self.columns = columns
    }

    /// A matrix from 16 numbers in column-major order (each group of four is one column).
    /// Nil unless there are 16.
    public init?(columnMajor m: [Double]) {
        guard m.count == 16 else { return nil }
        columns = (SIMD4(m[0], m[1], m[2], m[3]), SIMD4(m[4], m[5], m[6], m[7]),
                   SIMD4(m[8], m[9], m[10], m[11]), SIMD4(m[12], m[13], m[14], m[15]))
    }

    /// A scaling by `scale` along x, y and z.
    public init(scale: SIMD3<Double>) {
        columns = (SIMD4(scale.x, 0, 0, 0), SIMD4(0, scale.y, 0, 0), SIMD4(0, 0, scale.z, 0), SIMD4(0, 0, 0, 1))
    }

    /// The identity.
    public static let identity = Matrix4(scale: SIMD3(1, 1, 1))

    /// The 16 numbers in column-major order.
    public var columnMajor: [Double] {
        [columns.0.x, columns.0.y, columns.0.z, columns.0.w,
         columns.1.x, columns.1.y, columns.1.z, columns.1.w,
         columns.2.x, columns.2.y, columns.2.z, columns.2.w,
         columns.3.x, columns.3.y, columns.3.z, columns.3.w]
    }

    /// The columns as `Float`, in `simd_float4x4(columns:)` order.
    public var floatColumns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        (SIMD4<Float>(columns.0), SIMD4<Float>(columns.1), SIMD4<Float>(columns.2), SIMD4<Float>(columns.3))
    }

    /// `m * v` for a column vector `v` (homogeneous coordinates).
    public static func * (m: Matrix4, v: SIMD4<Double>) -> SIMD4<Double> {
        m.columns.0 * v.x + m.columns.1 * v.y + m.columns.2 * v.z + m.columns.3 * v.w
    }

    /// The product `a * b` (b applied first).
    public static func * (a: Matrix4, b: Matrix4) -> Matrix4 {
        Matrix4(columns: (a * b.columns.0, a * b.columns.1, a * b.columns.2, a * b.columns.3))
    }

    public static func == (a: Matrix4, b: Matrix4) -> Bool {
        a.columnMajor == b.columnMajor
    }
}

extension Transform {
    /// This transform as a general matrix.
    public var matrix: Matrix4 { Matrix4(columns: columns) }

    /// The columns as `Float`, in `simd_float4x4(columns:)` order.
    public var floatColumns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) { matrix.floatColumns }

    /// The model matrix of content placed at this transform and scaled by `scale` along its own
    /// axes: `world_from_content = self * S(scale)`, so content of unit size becomes `scale`
    /// metres along the anchor's x, y and z.
    public func modelMatrix(scale: SIMD3<Double>) -> Matrix4 {
        matrix * Matrix4(scale: scale)
    }
}
