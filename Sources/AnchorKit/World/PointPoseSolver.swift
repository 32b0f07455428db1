import AnchorKitCV
import AnchorKitSolvers

/// Estimates a camera's pose from known world points and their pixels (PnP) with RANSAC, then
/// refines it by Levenberg-Marquardt on the inliers, re-selecting the inliers with the refined
/// pose until they settle.
///
/// Conventions are OpenCV's: the pose is `opencvCamera_from_world` (camera space +x right, +y
/// down, +z forward); pixels are undistorted, origin at the top-left pixel's centre. World
/// units are the caller's (metres, or baselines of a monocular map).
package struct PointPoseSolver: Sendable {
    /// The solver run on the RANSAC inliers (RANSAC's own samples always use EPnP).
    public enum Method: Sendable, Equatable {
        /// EPnP: fast, linear in the number of points.
        case epnp
        /// SQPnP: globally optimal for the algebraic cost, slower.
        case sqpnp
    }

    /// A camera pose explained by a set of inliers.
    public struct Estimate: Sendable {
        /// `opencvCamera_from_world`.
        public var opencvCameraFromWorld: Transform
        /// One flag per correspondence: its reprojection error under the pose is within
        /// ``PointPoseSolver/reprojectionThreshold`` and it lies in front of the camera.
        public var inliers: [Bool]
        /// Number of true ``inliers``.
        public var inlierCount: Int
        /// RMS reprojection error of the inliers, pixels.
        public var rmsError: Double
    }

    /// The settings as the shim takes them, from its defaults (anchorkit_world.h: EPnP, 2 px,
    /// confidence 0.999, 300 iterations, 10 inliers).
    private var native = shimDefaults(ak_pnp_params(), ak_pnp_params_default)
    /// Solver run on the inliers.
    public var method: Method {
        get { native.method == AK_PNP_SQPNP ? .sqpnp : .epnp }
        set { native.method = newValue == .sqpnp ? AK_PNP_SQPNP : AK_PNP_EPNP }
    }
    /// Inlier test: largest reprojection error, pixels.
    public var reprojectionThreshold: Double {
        get { native.reprojection_threshold }
        set { native.reprojection_threshold = newValue }
    }
    /// RANSAC confidence, 0...1.
    public var ransacConfidence: Double {
        get { native.confidence }
        set { native.confidence = newValue }
    }
    /// RANSAC iterations at most.
    public var ransacIterations: Int {
        get { Int(native.max_iterations) }
        set { native.max_iterations = Int32(clamping: newValue) }
    }
    /// How far (radians) the rotation may stray from a rotation prior as much as a point may
    /// stray by one pixel.
    public var rotationPriorSigma: Double {
        get { native.rotation_prior_sigma }
        set { native.rotation_prior_sigma = newValue }
    }
    /// Fewest inliers for a pose.
    public var minInlierCount: Int {
        get { Int(native.min_inliers) }
        set { native.min_inliers = Int32(clamping: newValue) }
    }

    /// The shim's defaults.
    public init() {}

    /// The camera pose that projects `worldPoints[i]` onto `pixels[i]` for most `i`, or nil when
    /// no pose has ``minInlierCount`` inliers (too few points, degenerate points, too many
    /// outliers): a result, not an error.
    ///
    /// - Parameters:
    ///   - worldPoints: Points in the world frame.
    ///   - pixels: Their undistorted pixels, as many as `worldPoints`.
    ///   - camera: The camera's intrinsics; only fx, fy, cx, cy are used.
    ///   - opencvCameraFromWorldGuess: A prior pose (e.g. from a motion model): RANSAC's final
    ///     solve then starts from it (OpenCV's iterative solver with an extrinsic guess).
    ///   - opencvCameraFromWorldRotationPrior: A rotation known from elsewhere (a gyroscope's turn
    ///     from the last pose): the refinement also weighs the pose's departure from it
    ///     (``rotationPriorSigma``), which keeps a far scene's sideways motion from being taken
    ///     for a turn.
    /// - Throws: ``NativeError`` (`.invalidArgument`) for arrays of different lengths,
    ///   non-finite values, a guess that is not rigid or out-of-range settings.
    public func solve(worldPoints: [SIMD3<Double>], pixels: [SIMD2<Float>], camera: CameraIntrinsics,
                      opencvCameraFromWorldGuess: Transform? = nil,
                      opencvCameraFromWorldRotationPrior: Matrix3? = nil) throws -> Estimate? {
        try WorldArrays.requireSameCount(worldPoints.count, pixels.count, "PnP")
        let n = pixels.count
        var cam = ak_pinhole(camera)
        var params = native
        var result = ak_pnp_result()
        var flags = [UInt8](repeating: 0, count: n)
        let points = WorldArrays.triples(worldPoints)
        let guess = opencvCameraFromWorldGuess?.rowMajor3x4
        let prior = opencvCameraFromWorldRotationPrior?.rowMajor
        try WorldArrays.withFloatPairs(pixels) { px in
            try NativeError.check(withOptionalPointer(guess) { g in
                withOptionalPointer(prior) { ak_solve_pnp(&cam, points, px, Int32(n), g, $0, &params, &result, &flags) }
            }, "PnP")
        }
        guard result.found != 0 else { return nil }
        let pose = withUnsafeBytes(of: result.camera_from_world) { Transform(rowMajor3x4: $0.bindMemory(to: Double.self)) }
        return Estimate(opencvCameraFromWorld: pose, inliers: flags.map { $0 != 0 }, inlierCount: Int(result.inlier_count),
                        rmsError: result.rms_error)
    }
}

/// Calls `body` with a pointer to `array`'s elements, or with nil when there is no array.
func withOptionalPointer<R>(_ array: [Double]?, _ body: (UnsafePointer<Double>?) throws -> R) rethrows -> R {
    guard let array else { return try body(nil) }
    return try array.withUnsafeBufferPointer { try body($0.baseAddress) }
}
