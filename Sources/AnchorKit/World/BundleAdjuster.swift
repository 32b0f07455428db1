import AnchorKitCV
import AnchorKitSolvers

/// Local bundle adjustment: refines camera poses and world points together so that the points
/// reproject onto their observed pixels, with a Huber kernel that lets outliers pull only
/// linearly, then (``rejectsOutliers``) again without the observations that still miss.
///
/// Levenberg-Marquardt with the Schur complement on the points and a dense solve of the reduced
/// camera system: sized for sliding windows (up to ~15 free poses and a few thousand points
/// solve in milliseconds; at most 128 free poses). Poses are updated on SE(3).
///
/// Conventions are OpenCV's: poses are `opencvCamera_from_world` (camera space +x right, +y
/// down, +z forward); pixels are undistorted, origin at the top-left pixel's centre.
///
/// The gauge: a monocular reconstruction can move, rotate and scale freely, so at least one pose
/// (or point) must be fixed. With a single fixed pose the scale stays free and only the damping
/// keeps it near its start; fix two poses (or three points) to pin it.
package struct BundleAdjuster: Sendable {
    /// One pixel observation of a point by a camera.
    public struct Observation: Sendable, Equatable {
        /// Index of the observing pose.
        public var poseIndex: Int
        /// Index of the observed point.
        public var pointIndex: Int
        /// Undistorted pixel, OpenCV's convention.
        public var pixel: SIMD2<Float>

        /// An observation of point `pointIndex` at `pixel` by pose `poseIndex`.
        public init(poseIndex: Int, pointIndex: Int, pixel: SIMD2<Float>) {
            self.poseIndex = poseIndex
            self.pointIndex = pointIndex
            self.pixel = pixel
        }
    }

    /// A turn between two of the poses known from elsewhere (a gyroscope): the adjustment also
    /// weighs the poses' turn against it.
    public struct Turn: Sendable, Equatable {
        /// The poses (indices into the adjusted poses).
        public var from: Int, to: Int
        /// `opencvCameraTo_from_opencvCameraFrom`'s rotation.
        public var opencvCameraToFromOpencvCameraFrom: Matrix3
        /// How far (radians) the poses' turn may stray from it as much as a point may stray by one
        /// pixel.
        public var sigma: Double

        public init(from: Int, to: Int, opencvCameraToFromOpencvCameraFrom: Matrix3, sigma: Double) {
            self.from = from
            self.to = to
            self.opencvCameraToFromOpencvCameraFrom = opencvCameraToFromOpencvCameraFrom
            self.sigma = sigma
        }
    }

    /// What an adjustment achieved.
    public struct Report: Sendable {
        /// Levenberg-Marquardt steps tried, both stages.
        public var iterations: Int
        /// Steps that lowered the robust cost (the others only raised the damping).
        public var acceptedIterations: Int
        /// RMS reprojection error before, pixels, over the observations in front of their
        /// camera (outliers included).
        public var initialRMSError: Double
        /// RMS reprojection error after, pixels, over the same kind of observations: outliers
        /// keep it above the noise level, see ``inlierRMSError``.
        public var finalRMSError: Double
        /// RMS reprojection error after, pixels, over the inliers only.
        public var inlierRMSError: Double
        /// One flag per observation: in front of its camera with an error under
        /// ``BundleAdjuster/inlierThreshold`` after the last step (an observation dropped by the
        /// second stage counts again if the final estimate explains it).
        public var inliers: [Bool]
        /// Number of true ``inliers``.
        public var inlierCount: Int
    }

    /// The settings as the shim takes them, from its defaults (anchorkit_world.h: 20 steps, Huber
    /// and inlier thresholds √5.991 ≈ 2.45 px, ORB-SLAM's for 1 px noise; outliers rejected).
    private var native = shimDefaults(ak_bundle_params(), ak_bundle_params_default)
    /// Steps tried at most (accepted or not) in each stage.
    public var maxIterations: Int {
        get { Int(native.max_iterations) }
        set { native.max_iterations = Int32(clamping: newValue) }
    }
    /// Residuals larger than this weigh linearly instead of quadratically, pixels.
    public var huberThreshold: Double {
        get { native.huber_threshold }
        set { native.huber_threshold = newValue }
    }
    /// Largest error of an inlier, pixels.
    public var inlierThreshold: Double {
        get { native.inlier_threshold }
        set { native.inlier_threshold = newValue }
    }
    /// Whether a second stage runs without the observations the first left above
    /// ``inlierThreshold`` (ORB-SLAM's local BA): the Huber kernel bounds an outlier's pull but
    /// does not remove it.
    public var rejectsOutliers: Bool {
        get { native.reject_outliers != 0 }
        set { native.reject_outliers = newValue ? 1 : 0 }
    }

    /// The shim's defaults.
    public init() {}

    /// Refines `opencvCamerasFromWorld` and `points` in place, except those listed as fixed.
    ///
    /// - Parameters:
    ///   - opencvCamerasFromWorld: Poses `opencvCamera_from_world`, one per camera.
    ///   - fixedPoses: Indices of poses kept constant (the gauge; at least one, or a fixed point).
    ///   - points: World points.
    ///   - fixedPoints: Indices of points kept constant.
    ///   - observations: The pixels each pose saw of each point.
    ///   - turns: Turns between poses known from elsewhere (a gyroscope's), weighed beside the
    ///     pixels.
    ///   - camera: The camera's intrinsics, shared by all poses; only fx, fy, cx, cy are used.
    /// - Throws: ``NativeError`` (`.invalidArgument`) when nothing is fixed, an index is out of
    ///   range, a value is not finite or a pose is not rigid; the inputs are then unchanged.
    @discardableResult
    public func adjust(opencvCamerasFromWorld: inout [Transform], fixedPoses: Set<Int>, points: inout [SIMD3<Double>],
                       fixedPoints: Set<Int> = [], observations: [Observation], turns: [Turn] = [],
                       camera: CameraIntrinsics) throws -> Report {
        let poseCount = opencvCamerasFromWorld.count, pointCount = points.count
        if let bad = fixedPoses.first(where: { !(0..<poseCount).contains($0) }) {
            throw NativeError(kind: .invalidArgument, message: "bundle adjustment: fixed pose \(bad) is not in 0..<\(poseCount)")
        }
        if let bad = fixedPoints.first(where: { !(0..<pointCount).contains($0) }) {
            throw NativeError(kind: .invalidArgument, message: "bundle adjustment: fixed point \(bad) is not in 0..<\(pointCount)")
        }
        var cam = ak_pinhole(camera)
        var params = native
        var poses = [Double]()
        poses.reserveCapacity(12 * poseCount)
        for pose in opencvCamerasFromWorld { poses += pose.rowMajor3x4 }
        let poseFixed = (0..<poseCount).map { fixedPoses.contains($0) ? UInt8(1) : 0 }
        let pointFixed = (0..<pointCount).map { fixedPoints.contains($0) ? UInt8(1) : 0 }
        var coordinates = WorldArrays.triples(points)
        // Out-of-range indices saturate into values the shim rejects with a clear message.
        let native = observations.map {
            ak_observation(camera: Int32(clamping: $0.poseIndex), point: Int32(clamping: $0.pointIndex),
                           x: $0.pixel.x, y: $0.pixel.y)
        }
        let links = turns.map { t in
            let r = t.opencvCameraToFromOpencvCameraFrom.rowMajor
            return ak_rotation_link(from: Int32(clamping: t.from), to: Int32(clamping: t.to),
                                    turn: (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]), sigma: t.sigma)
        }
        var result = ak_bundle_result()
        var flags = [UInt8](repeating: 0, count: observations.count)
        try NativeError.check(ak_bundle_adjust(&cam, &poses, poseFixed, Int32(poseCount), &coordinates, pointFixed,
                                               Int32(pointCount), native, Int32(observations.count), links,
                                               Int32(links.count), &params, &result, &flags), "bundle adjustment")
        poses.withUnsafeBufferPointer { buffer in
            for c in 0..<poseCount where !fixedPoses.contains(c) {
                opencvCamerasFromWorld[c] = Transform(rowMajor3x4: buffer, at: 12 * c)
            }
        }
        for i in 0..<pointCount where !fixedPoints.contains(i) {
            points[i] = SIMD3(coordinates[3 * i], coordinates[3 * i + 1], coordinates[3 * i + 2])
        }
        return Report(iterations: Int(result.iterations), acceptedIterations: Int(result.accepted),
                      initialRMSError: result.initial_rms, finalRMSError: result.final_rms,
                      inlierRMSError: result.inlier_rms, inliers: flags.map { $0 != 0 },
                      inlierCount: Int(result.inlier_count))
    }
}
