import AnchorKitCV

/// A small dense matrix of `Double` (row-major), for filters and least squares with a handful
/// of unknowns. Not meant for large problems.
package struct DenseMatrix: Equatable, Sendable {
    public let rows: Int, columns: Int
    public var values: [Double]

    public init(rows: Int, columns: Int, values: [Double]? = nil) {
        self.rows = rows; self.columns = columns
        self.values = values ?? Array(repeating: 0, count: rows * columns)
        precondition(self.values.count == rows * columns)
    }

    /// The n x n identity, optionally scaled.
    public static func identity(_ n: Int, scale: Double = 1) -> DenseMatrix {
        var m = DenseMatrix(rows: n, columns: n)
        for i in 0..<n { m[i, i] = scale }
        return m
    }

    public subscript(r: Int, c: Int) -> Double {
        get { values[r * columns + c] }
        set { values[r * columns + c] = newValue }
    }

    public var transposed: DenseMatrix {
        var t = DenseMatrix(rows: columns, columns: rows)
        for r in 0..<rows { for c in 0..<columns { t[c, r] = self[r, c] } }
        return t
    }

    public static func * (a: DenseMatrix, b: DenseMatrix) -> DenseMatrix {
        precondition(a.columns == b.rows)
        var m = DenseMatrix(rows: a.rows, columns: b.columns)
        for i in 0..<a.rows {
            for k in 0..<a.columns {
                let x = a[i, k]
                if x == 0 { continue }
                for j in 0..<b.columns { m.values[i * b.columns + j] += x * b.values[k * b.columns + j] }
            }
        }
        return m
    }

    public static func + (a: DenseMatrix, b: DenseMatrix) -> DenseMatrix {
        DenseMatrix(rows: a.rows, columns: a.columns, values: zip(a.values, b.values).map { $0 + $1 })
    }

    public static func - (a: DenseMatrix, b: DenseMatrix) -> DenseMatrix {
        DenseMatrix(rows: a.rows, columns: a.columns, values: zip(a.values, b.values).map { $0 - $1 })
    }

    /// The inverse (Eigen's LU with full pivoting, through the shim); nil if singular.
    public var inverse: DenseMatrix? {
        precondition(rows == columns)
        var inverse = DenseMatrix(rows: rows, columns: rows), invertible: Int32 = 0
        guard ak_invert(values, Int32(rows), &inverse.values, &invertible) == AK_OK, invertible != 0 else { return nil }
        return inverse
    }

    /// A column vector.
    public init(vector: [Double]) { self.init(rows: vector.count, columns: 1, values: vector) }
}
