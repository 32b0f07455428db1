import AnchorKitCV
import AnchorKitSolvers

/// The outcome of a two-view initialisation: the relative pose of the two cameras and the
/// points triangulated from their matches, or the reason there is none.
///
/// Everything is in OpenCV's camera convention (+x right, +y down, +z forward) and in units of
/// the baseline: monocular views fix the scene only up to scale, so the translation between
/// the cameras has length 1. Convert poses with ``CameraConvention`` for ARKit's convention.
package struct TwoViewReconstruction: Sendable {
    /// The two-view relation the pose was recovered from.
    public enum Model: Sendable, Equatable {
        /// A homography: the scene is (close to) a plane, or far away compared to the baseline.
        case homography
        /// An essential matrix: a general 3D scene.
        case essentialMatrix
    }

    /// Why the views could not be initialised. None is an error: each asks for other frames.
    public enum Failure: Sendable, Equatable {
        /// Too few matches, model inliers or well-triangulated points.
        case tooFewPoints
        /// The median inlier is seen under less parallax than required: the camera mostly
        /// rotated, or moved too little for the scene's depth.
        case tooLittleParallax
        /// Several relative poses explain the inliers about equally well (or none explains most
        /// of them): picking one would be a guess.
        case ambiguous
    }

    /// The model the pose comes from; nil when the views were not initialised.
    public var model: Model?
    /// Why the views were not initialised; nil on success.
    public var failure: Failure?
    /// `opencvCamera2_from_opencvCamera1`, translation of unit length (identity on failure).
    public var opencvCamera2FromCamera1: Transform
    /// One flag per match: an inlier of the chosen model (all false on failure).
    public var inliers: [Bool]
    /// One entry per match: the point in camera 1's OpenCV frame, in baselines, or nil for
    /// outliers and points rejected by the triangulation checks (behind a camera, reprojection
    /// error, parallax under ``TwoViewInitialiser/minPointParallax``).
    public var points: [SIMD3<Double>?]
    /// ORB-SLAM's `R_H = S_H / (S_H + S_F)`, 0...1: how much better the homography explains
    /// the matches than the fundamental matrix (0 when neither could be estimated).
    public var homographyScoreRatio: Double
    /// Median parallax of the inliers consistent with the best pose, degrees (set on failure
    /// too, when a pose was tried).
    public var medianParallax: Double
    /// Number of inliers of the chosen model (or of the model tried).
    public var inlierCount: Int
    /// Number of non-nil ``points``.
    public var triangulatedCount: Int

    /// True when a pose and points were recovered.
    public var isInitialised: Bool { model != nil }
}

/// Initialises a monocular map from two views, as ORB-SLAM does: a homography and an essential
/// matrix are estimated from the same matches with RANSAC, each is scored by its symmetric
/// transfer error with truncated chi-square scores, and the homography is chosen when
/// `S_H / (S_H + S_F)` exceeds ``homographyRatioThreshold``. The chosen model is decomposed into
/// its candidate poses and the one under which most inliers triangulate in front of both cameras
/// wins, provided no other comes close.
///
/// Pixels must be undistorted (the camera's distortion coefficients are ignored); they follow
/// OpenCV's convention (origin at the top-left pixel's centre, x right, y down).
package struct TwoViewInitialiser: Sendable {
    /// The settings as the shim takes them, from its defaults (anchorkit_world.h: sigma 1 px,
    /// homography ratio 0.45, confidence 0.999, 2000 iterations, 2 px, median parallax 1°, point
    /// parallax 0.5°, 50 points, ambiguity ratio 0.9, refined).
    private var native = shimDefaults(ak_two_view_params(), ak_two_view_params_default)
    /// The pixel noise the chi-square tests assume (sigma), pixels.
    public var pixelNoise: Double {
        get { native.sigma }
        set { native.sigma = newValue }
    }
    /// The homography wins when `S_H / (S_H + S_F)` exceeds this (ORB-SLAM's 0.45).
    public var homographyRatioThreshold: Double {
        get { native.homography_ratio }
        set { native.homography_ratio = newValue }
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
    /// Largest reprojection error of a triangulated point in each view, pixels.
    public var maxReprojectionError: Double {
        get { native.max_reprojection_error }
        set { native.max_reprojection_error = newValue }
    }
    /// Smallest median parallax of the inliers, degrees.
    public var minMedianParallax: Double {
        get { native.min_parallax_degrees }
        set { native.min_parallax_degrees = newValue }
    }
    /// Smallest parallax of a returned point, degrees: depths seen under less are unreliable.
    public var minPointParallax: Double {
        get { native.min_point_parallax_degrees }
        set { native.min_point_parallax_degrees = newValue }
    }
    /// Fewest well-triangulated points for a success.
    public var minTriangulatedCount: Int {
        get { Int(native.min_triangulated) }
        set { native.min_triangulated = Int32(clamping: newValue) }
    }
    /// The runner-up pose must explain at most this fraction of the points the best one
    /// explains, or the result is ambiguous. 0.9 by default, laxer than ORB-SLAM's 0.75: a plane
    /// seen while moving sideways leaves a second homography pose with some 70-80 % of the
    /// points in front, yet every point it puts behind a camera (with parallax over 0.36°,
    /// far above the noise) contradicts it.
    public var ambiguityRatio: Double {
        get { native.ambiguity_ratio }
        set { native.ambiguity_ratio = newValue }
    }
    /// Whether the chosen pose and points are bundle-adjusted on the inliers before the final
    /// triangulation (the RANSAC models come from minimal samples).
    public var refinesPose: Bool {
        get { native.refine != 0 }
        set { native.refine = newValue ? 1 : 0 }
    }

    /// The shim's defaults.
    public init() {}

    /// Reconstructs the relative pose and the scene from matches between two frames of one
    /// camera. Degenerate geometry is a result (``TwoViewReconstruction/failure``), not an error.
    ///
    /// - Parameters:
    ///   - pixels1: Undistorted pixels of the matches in frame 1.
    ///   - pixels2: Undistorted pixels of the same matches in frame 2, in the same order.
    ///   - camera: The camera's intrinsics; only fx, fy, cx, cy are used.
    /// - Throws: ``NativeError`` (`.invalidArgument`) for arrays of different lengths, non-finite
    ///   pixels or out-of-range settings.
    public func reconstruct(pixels1: [SIMD2<Float>], pixels2: [SIMD2<Float>],
                            camera: CameraIntrinsics) throws -> TwoViewReconstruction {
        try WorldArrays.requireSameCount(pixels1.count, pixels2.count, "two-view initialisation")
        let n = pixels1.count
        var cam = ak_pinhole(camera)
        var params = native
        var result = ak_two_view_result()
        var flags = [UInt8](repeating: 0, count: n)
        var points = [Double](repeating: .nan, count: 3 * n)
        try WorldArrays.withFloatPairs(pixels1) { p1 in
            try WorldArrays.withFloatPairs(pixels2) { p2 in
                try NativeError.check(ak_two_view_initialise(&cam, p1, p2, Int32(n), &params, &result, &flags, &points),
                                      "two-view initialisation")
            }
        }
        let rotation = withUnsafeBytes(of: result.rotation) { Matrix3(rowMajor: $0.bindMemory(to: Double.self)) }
        let t = result.translation
        let model: TwoViewReconstruction.Model?
        switch result.model {
        case AK_TWO_VIEW_HOMOGRAPHY: model = .homography
        case AK_TWO_VIEW_ESSENTIAL: model = .essentialMatrix
        default: model = nil
        }
        let failure: TwoViewReconstruction.Failure?
        switch result.failure {
        case AK_TWO_VIEW_SUCCESS: failure = nil
        case AK_TWO_VIEW_LOW_PARALLAX: failure = .tooLittleParallax
        case AK_TWO_VIEW_AMBIGUOUS: failure = .ambiguous
        default: failure = .tooFewPoints
        }
        return TwoViewReconstruction(
            model: model, failure: failure,
            opencvCamera2FromCamera1: Transform(rotation: rotation, translation: SIMD3(t.0, t.1, t.2)),
            inliers: flags.map { $0 != 0 },
            points: (0..<n).map { i in
                let p = SIMD3(points[3 * i], points[3 * i + 1], points[3 * i + 2])
                return p.x.isNaN ? nil : p
            },
            homographyScoreRatio: result.homography_score_ratio,
            medianParallax: result.median_parallax_degrees,
            inlierCount: Int(result.inlier_count), triangulatedCount: Int(result.triangulated_count))
    }
}
