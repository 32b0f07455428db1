/// The pose history of one planar target (a marker, a reference image), robust to the planar
/// two-fold ambiguity.
///
/// A small target seen nearly head-on has two poses that explain its corners almost equally
/// well, and a single frame cannot tell them apart; choosing one and following it lets an early
/// wrong choice persist for as long as the view stays ambiguous, and a single noisy frame can
/// look decisive. So the track keeps one ``PoseFilter`` per hypothesis (a branch) and scores
/// each branch by how well its measurements explain the corners over recent frames
/// (`Σ residual² / σ²`, decaying by a factor per frame); the better branch is reported, and the
/// worse is dropped once the evidence against it is overwhelming.
struct PlanarPoseTrack {
    /// One pose hypothesis followed over time.
    struct Branch {
        var filter: PoseFilter
        /// Accumulated evidence against this branch (lower is better).
        var cost: Double
    }

    /// A frame's pose hypothesis with its RMS reprojection error (px) and covariance.
    typealias Measurement = (pose: Transform, error: Double, covariance: DenseMatrix)

    private(set) var branches: [Branch]
    private(set) var lastFrame: Int
    private let settings: PoseFilter.Parameters
    /// Older evidence counts less: a factor per frame.
    private let decay = 0.9
    /// A branch whose cost exceeds the other's by this much is dropped (a likelihood ratio of
    /// e^-15: no later frame is going to revive it).
    private let pruneMargin = 30.0

    /// Starts a track from a frame's hypotheses (best first); `prior[i]` is extra cost for
    /// hypothesis i (e.g. disagreement with other markers in view).
    init(_ measurements: [Measurement], prior: [Double], sigma: Double, time: Double, frame: Int,
         settings: PoseFilter.Parameters) {
        lastFrame = frame
        self.settings = settings
        branches = measurements.enumerated().map { i, m in
            Branch(filter: PoseFilter(pose: m.pose, covariance: m.covariance, time: time, parameters: settings),
                   cost: Self.evidence(m, sigma) + (prior.indices.contains(i) ? prior[i] : 0))
        }
        prune()
    }

    /// The measurements of a frame's pose hypotheses (best first): each with the covariance of
    /// its pose given `targetPoints` (anchor frame, metres) seen with corner noise `sigma` (px,
    /// or the hypothesis's own reprojection error if larger). Hypotheses whose covariance cannot
    /// be computed (a point behind the camera) are left out.
    static func measurements(of hypotheses: [PoseHypothesis], targetPoints: [SIMD3<Double>], camera: CameraIntrinsics,
                             sigma: Double) -> [Measurement] {
        hypotheses.compactMap { h in
            PoseUncertainty.covariance(of: h.cameraFromAnchor, points: targetPoints, camera: camera,
                                       pixelSigma: max(sigma, h.reprojectionError))
                .map { (h.cameraFromAnchor, h.reprojectionError, $0) }
        }
    }

    /// `track` continued with this frame's measurements, or a new track when there is none or
    /// it was last updated more than `memoryFrames` frames ago.
    static func advancing(_ track: PlanarPoseTrack?, with measurements: [Measurement], prior: [Double] = [], sigma: Double,
                          time: Double, frame: Int, memoryFrames: Int, settings: PoseFilter.Parameters) -> PlanarPoseTrack {
        if var track, frame - track.lastFrame <= memoryFrames {
            _ = track.update(measurements, sigma: sigma, time: time, frame: frame)
            return track
        }
        return PlanarPoseTrack(measurements, prior: prior, sigma: sigma, time: time, frame: frame, settings: settings)
    }

    /// The pose to report: the best branch's filtered pose.
    var pose: Transform { branches.min { $0.cost < $1.cost }!.filter.pose }

    /// Adds one frame's hypotheses (best first) and returns the pose to report.
    @discardableResult
    mutating func update(_ measurements: [Measurement], sigma: Double, time: Double, frame: Int) -> Transform {
        lastFrame = frame
        func d(_ b: Int, _ m: Int) -> Double {
            branches[b].filter.distance(of: measurements[m].pose, covariance: measurements[m].covariance, at: time)
        }
        // Each branch takes the hypothesis it predicts better; two branches never share one.
        var assignment: [Int]
        if branches.count == 2 && measurements.count == 2 {
            assignment = d(0, 1) + d(1, 0) < d(0, 0) + d(1, 1) ? [1, 0] : [0, 1]
        } else {
            assignment = branches.indices.map { b in measurements.indices.min { d(b, $0) < d(b, $1) }! }
        }
        for b in branches.indices {
            let m = measurements[assignment[b]]
            branches[b].filter.update(m.pose, covariance: m.covariance, at: time)
            branches[b].cost = decay * branches[b].cost + Self.evidence(m, sigma)
        }
        // A hypothesis no branch follows starts one: a lone branch that drifted onto the
        // wrong solution (their errors are alike for a moment) is then outscored by it.
        if branches.count == 1, measurements.count == 2 {
            let m = measurements[1 - assignment[0]]
            branches.append(Branch(filter: PoseFilter(pose: m.pose, covariance: m.covariance, time: time, parameters: settings),
                                   cost: Self.evidence(m, sigma)))
        }
        prune()
        return pose
    }

    /// Drops a branch that the evidence has ruled out.
    private mutating func prune() {
        guard branches.count == 2 else { return }
        if branches[0].cost > branches[1].cost + pruneMargin { branches.removeFirst() }
        else if branches[1].cost > branches[0].cost + pruneMargin { branches.removeLast() }
    }

    /// Evidence against a hypothesis: its squared corner residuals over the corner variance
    /// (8 residuals, RMS error `error`).
    private static func evidence(_ m: Measurement, _ sigma: Double) -> Double {
        8 * m.error * m.error / (sigma * sigma)
    }
}
