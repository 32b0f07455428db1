import AnchorKitCV
import AnchorKitSolvers

/// Refines one rigid transform from points seen through it by fixed cameras: a camera's pose
/// from points of a known map (one view, the identity), or an object's pose in a map from several
/// views of it whose camera poses are known. Levenberg-Marquardt on SE(3) with a Huber kernel.
///
/// Conventions are OpenCV's: views are `opencvCamera_from_middle` (camera space +x right, +y
/// down, +z forward); the refined transform is `middle_from_object`; pixels are undistorted,
/// origin at the top-left pixel's centre.
package struct ViewPoseRefiner: Sendable {
    /// One object point seen by one view.
    public struct Sighting: Sendable, Equatable {
        /// Index of the view that sees it.
        public var viewIndex: Int
        /// The point in the object frame (metres).
        public var point: SIMD3<Double>
        /// Its undistorted pixel.
        public var pixel: SIMD2<Float>

        public init(viewIndex: Int, point: SIMD3<Double>, pixel: SIMD2<Float>) {
            self.viewIndex = viewIndex
            self.point = point
            self.pixel = pixel
        }
    }

    /// The refined transform and how well it explains the sightings.
    public struct Estimate: Sendable {
        /// `middle_from_object`.
        public var middleFromObject: Transform
        /// RMS reprojection error of the sightings in front of their camera, pixels.
        public var rmsError: Double
        /// Sightings behind their camera (not in the error).
        public var behindCount: Int
    }

    /// The settings as the shim takes them, from its defaults (anchorkit_world.h: 10 steps, 2 px).
    private var native = shimDefaults(ak_view_pose_params(), ak_view_pose_params_default)
    /// Steps tried at most (accepted or not).
    public var maxIterations: Int {
        get { Int(native.max_iterations) }
        set { native.max_iterations = Int32(clamping: newValue) }
    }
    /// Residuals larger than this weigh linearly instead of quadratically, pixels.
    public var huberThreshold: Double {
        get { native.huber_threshold }
        set { native.huber_threshold = newValue }
    }

    /// The shim's defaults.
    public init() {}

    /// `middleFromObject` refined, starting from `guess`, so that each sighting's point projects
    /// onto its pixel through its view.
    ///
    /// - Parameters:
    ///   - guess: The starting `middle_from_object`.
    ///   - views: `opencvCamera_from_middle` of each view.
    ///   - sightings: The points and their pixels.
    ///   - camera: The camera's intrinsics (all views share them); only fx, fy, cx, cy are used.
    /// - Throws: ``NativeError`` (`.invalidArgument`) for a view index out of range, non-finite
    ///   values, or transforms that are not rigid.
    public func refine(_ guess: Transform, views: [Transform], sightings: [Sighting],
                       camera: CameraIntrinsics) throws -> Estimate {
        var cam = ak_pinhole(camera)
        var params = native
        var result = ak_view_pose_result()
        var pose = guess.rowMajor3x4
        let viewNumbers = views.flatMap(\.rowMajor3x4)
        let viewOf = sightings.map { Int32(clamping: $0.viewIndex) }
        let points = WorldArrays.triples(sightings.map(\.point))
        try WorldArrays.withFloatPairs(sightings.map(\.pixel)) { px in
            try NativeError.check(ak_refine_view_pose(&cam, viewNumbers, Int32(clamping: views.count), viewOf, points, px,
                                                      Int32(clamping: sightings.count), &params, &pose, &result),
                                  "view pose refinement")
        }
        return Estimate(middleFromObject: Transform(rowMajor3x4: pose), rmsError: result.final_rms,
                        behindCount: Int(result.behind))
    }
    /// Refines an object's pose `middle_from_object` together with the views that saw it
    /// (`opencvCamera_from_middle`, in place): the object's points (`sightings`, object frame)
    /// and the fixed points of the middle frame each view sees (`fixedSightings`, middle frame,
    /// at least one: they fix the frame) reproject onto their pixels. The object's pose and the
    /// views are unchanged when no step lowers the cost; `rmsError` is over `sightings`.
    /// - Throws: ``NativeError`` (`.invalidArgument`) for no fixed sighting, a view index out of
    ///   range, non-finite values, or transforms that are not rigid.
    public func refine(_ guess: Transform, adjusting views: inout [Transform], sightings: [Sighting], fixedSightings: [Sighting],
                       camera: CameraIntrinsics) throws -> Estimate {
        var cam = ak_pinhole(camera)
        var params = native
        params.max_iterations = Int32(clamping: max(maxIterations, Self.jointIterations))
        var result = ak_view_pose_result()
        var pose = guess.rowMajor3x4
        var viewNumbers = views.flatMap(\.rowMajor3x4)
        let objectViews = sightings.map { Int32(clamping: $0.viewIndex) }, fixedViews = fixedSightings.map { Int32(clamping: $0.viewIndex) }
        let objectPoints = WorldArrays.triples(sightings.map(\.point)), fixedPoints = WorldArrays.triples(fixedSightings.map(\.point))
        try WorldArrays.withFloatPairs(sightings.map(\.pixel)) { objectPixels in
            try WorldArrays.withFloatPairs(fixedSightings.map(\.pixel)) { fixedPixels in
                try NativeError.check(ak_adjust_object_and_views(&cam, &viewNumbers, Int32(clamping: views.count), &pose,
                                                                 fixedViews, fixedPoints, fixedPixels, Int32(clamping: fixedSightings.count),
                                                                 objectViews, objectPoints, objectPixels, Int32(clamping: sightings.count),
                                                                 &params, &result),
                                      "object and view adjustment")
            }
        }
        viewNumbers.withUnsafeBufferPointer { buffer in
            for v in views.indices { views[v] = Transform(rowMajor3x4: buffer, at: 12 * v) }
        }
        return Estimate(middleFromObject: Transform(rowMajor3x4: pose), rmsError: result.final_rms,
                        behindCount: Int(result.behind))
    }

    /// Steps tried at least by the joint refinement: its views start far from each other's
    /// optimum.
    static let jointIterations = 30
}
