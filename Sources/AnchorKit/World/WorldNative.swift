import AnchorKitCV
import AnchorKitSolvers

// Conversions shared by the world-geometry wrappers: the shim takes whole arrays of plain
// numbers, so every call packs its inputs once here instead of crossing the boundary per point.

extension ak_pinhole {
    /// The focal lengths and principal point of `camera`. Its distortion is dropped on purpose:
    /// the world primitives take pixels that are already undistorted.
    init(_ camera: CameraIntrinsics) {
        self.init(fx: camera.fx, fy: camera.fy, cx: camera.cx, cy: camera.cy)
    }
}

extension Transform {
    /// The shim's pose layout: the 3x4 matrix [R | t] in row-major order.
    var rowMajor3x4: [Double] {
        let r = rotation.rowMajor, t = translation
        return [r[0], r[1], r[2], t.x, r[3], r[4], r[5], t.y, r[6], r[7], r[8], t.z]
    }

    /// A transform from the shim's pose layout (12 numbers starting at `start`).
    init(rowMajor3x4 m: UnsafeBufferPointer<Double>, at start: Int = 0) {
        let a = start
        self.init(rotation: Matrix3(rowMajor: [m[a], m[a + 1], m[a + 2], m[a + 4], m[a + 5], m[a + 6],
                                               m[a + 8], m[a + 9], m[a + 10]]),
                  translation: SIMD3(m[a + 3], m[a + 7], m[a + 11]))
    }

    /// A transform from the shim's pose layout.
    init(rowMajor3x4 m: [Double]) {
        self = m.withUnsafeBufferPointer { Transform(rowMajor3x4: $0) }
    }
}

enum WorldArrays {
    /// x, y pairs without a copy: `SIMD2<Float>` is two packed floats. The pointer may be nil
    /// for an empty array (the shim accepts NULL with a count of 0).
    @discardableResult
    static func withFloatPairs<R>(_ pixels: [SIMD2<Float>], _ body: (UnsafePointer<Float>?) throws -> R) rethrows -> R {
        try pixels.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: Float.self) { try body($0.baseAddress) }
        }
    }

    /// x, y, z triples (a copy: `SIMD3<Double>` is padded to four doubles).
    static func triples(_ points: [SIMD3<Double>]) -> [Double] {
        var out = [Double]()
        out.reserveCapacity(3 * points.count)
        for p in points { out.append(p.x); out.append(p.y); out.append(p.z) }
        return out
    }

    /// Throws the same kind of error the shim reports for bad arguments.
    static func requireSameCount(_ a: Int, _ b: Int, _ what: String) throws {
        guard a == b else {
            throw NativeError(kind: .invalidArgument, message: "\(what): counts differ (\(a) and \(b))")
        }
    }
}
