import AnchorKitCV
import AnchorKitSolvers

/// A point triangulated from two posed views, with the evidence for or against it.
package struct TriangulatedPoint: Sendable, Equatable {
    /// Why a point was rejected: the first failing check, in this order.
    public enum Rejection: Sendable, Equatable {
        /// The two rays meet at no finite point (parallel rays, or a ray through both centres).
        case degenerate
        /// The point lies behind either camera.
        case behindCamera
        /// It reprojects farther than ``Triangulator/maxReprojectionError`` from its pixel in
        /// either view.
        case reprojectionError
        /// Its rays are closer than ``Triangulator/minParallax``: its depth is poorly known.
        case lowParallax
    }

    /// World point (the frame the poses map from), or nil when rejected.
    public var position: SIMD3<Double>?
    /// Why the point was rejected, or nil when it was kept.
    public var rejection: Rejection?
    /// The larger of the two reprojection errors, pixels (NaN when degenerate).
    public var reprojectionError: Double
    /// The angle the point subtends between the two camera centres, degrees (for a degenerate
    /// point, the angle between its rays).
    public var parallax: Double
}

/// Triangulates points seen in two posed views: linear (DLT) triangulation, then checks that
/// each point is in front of both cameras, reprojects close to its pixels and is seen under
/// enough parallax for its depth to mean something.
///
/// Conventions are OpenCV's: camera space has +x right, +y down, +z forward; poses are
/// `opencvCamera_from_world`; pixels are undistorted, origin at the top-left pixel's centre.
package struct Triangulator: Sendable {
    /// The settings as the shim takes them, from its defaults (anchorkit_world.h: 2 px, 1°).
    private var native = shimDefaults(ak_triangulation_params(), ak_triangulation_params_default)
    /// Largest reprojection error accepted in each view, pixels.
    public var maxReprojectionError: Double {
        get { native.max_reprojection_error }
        set { native.max_reprojection_error = newValue }
    }
    /// Smallest angle between the two rays, degrees.
    public var minParallax: Double {
        get { native.min_parallax_degrees }
        set { native.min_parallax_degrees = newValue }
    }

    /// The shim's defaults.
    public init() {}

    /// One point per pair of matching pixels (`pixels1[i]` in camera 1, `pixels2[i]` in camera 2),
    /// in the same order.
    ///
    /// - Parameters:
    ///   - pixels1: Undistorted pixels in camera 1.
    ///   - pixels2: Undistorted pixels in camera 2, as many as `pixels1`.
    ///   - opencvCamera1FromWorld: Pose of camera 1 (OpenCV camera convention).
    ///   - opencvCamera2FromWorld: Pose of camera 2 (OpenCV camera convention).
    ///   - camera: Intrinsics of both views; only fx, fy, cx, cy are used.
    /// - Throws: ``NativeError`` (`.invalidArgument`) for arrays of different lengths, non-finite
    ///   pixels or poses that are not rigid.
    public func triangulate(pixels1: [SIMD2<Float>], pixels2: [SIMD2<Float>], opencvCamera1FromWorld: Transform,
                            opencvCamera2FromWorld: Transform, camera: CameraIntrinsics) throws -> [TriangulatedPoint] {
        try WorldArrays.requireSameCount(pixels1.count, pixels2.count, "triangulation")
        let n = pixels1.count
        var cam = ak_pinhole(camera)
        var params = native
        var points = [Double](repeating: .nan, count: 3 * n)
        var errors = [Double](repeating: .nan, count: n)
        var parallax = [Double](repeating: 0, count: n)
        var checks = [UInt8](repeating: 0, count: n)
        var good: Int32 = 0
        try WorldArrays.withFloatPairs(pixels1) { p1 in
            try WorldArrays.withFloatPairs(pixels2) { p2 in
                try NativeError.check(ak_triangulate(&cam, opencvCamera1FromWorld.rowMajor3x4, opencvCamera2FromWorld.rowMajor3x4,
                                                     p1, p2, Int32(n), &params, &points, &errors, &parallax, &checks, &good),
                                      "triangulation")
            }
        }
        return (0..<n).map { i in
            let rejection = Self.rejection(checks[i])
            return TriangulatedPoint(
                position: rejection == nil ? SIMD3(points[3 * i], points[3 * i + 1], points[3 * i + 2]) : nil,
                rejection: rejection, reprojectionError: errors[i], parallax: parallax[i])
        }
    }

    static func rejection(_ check: UInt8) -> TriangulatedPoint.Rejection? {
        switch UInt32(check) {
        case AK_POINT_GOOD.rawValue: return nil
        case AK_POINT_BEHIND.rawValue: return .behindCamera
        case AK_POINT_REPROJECTION.rawValue: return .reprojectionError
        case AK_POINT_LOW_PARALLAX.rawValue: return .lowParallax
        default: return .degenerate
        }
    }
}
