/// Finds the unit of a monocular odometry's world from targets of known size.
///
/// A marker or image pose is metric: the camera centre in the target's frame,
/// `inverse(camera_from_anchor).translation`, is in metres. The odometry gives the same centre
/// in its own unit. Over frames where one target is seen from several places, the similarity
/// that maps the odometry's centres onto the target's has the unit as its scale.
struct ScaleEstimator {
    /// Observations of one target needed, and how far apart the camera centres must spread
    /// (metres, RMS about their mean) before the scale is trusted.
    var minimumSamples = 12
    var minimumSpread = 0.15
    /// Largest RMS residual of the fit, metres, for the scale to be accepted.
    var maximumResidual = 0.03
    private var samples: [String: [(target: SIMD3<Double>, tracker: SIMD3<Double>)]] = [:]
    private var done = false

    /// Adds this frame's observations (metric `camera_from_anchor`) with the tracker's
    /// `trackerWorld_from_camera`. Returns the factor that makes the tracker's world metric the
    /// first time it is known, nil otherwise.
    mutating func add(_ observations: [TargetObservation], trackerWorldFromCamera pose: Transform) -> Double? {
        guard !done else { return nil }
        for o in observations {
            let centre = o.cameraFromAnchor.inverse.translation
            samples[o.identifier, default: []].append((centre, pose.translation))
            guard let list = samples[o.identifier], list.count >= minimumSamples else { continue }
            let targets = list.map(\.target)
            let mean = targets.reduce(.zero, +) / Double(targets.count)
            let spread = (targets.map { dot($0 - mean, $0 - mean) }.reduce(0, +) / Double(targets.count)).squareRoot()
            guard spread >= minimumSpread,
                  let fit = SimilarityAlignment.fit(source: list.map(\.tracker), target: targets, withScale: true),
                  fit.scale > 0 else { continue }
            let residual = (zip(list, targets).map { s, t in
                let d = fit.apply(to: s.tracker) - t
                return dot(d, d)
            }.reduce(0, +) / Double(list.count)).squareRoot()
            if residual <= maximumResidual {
                done = true
                return fit.scale
            }
        }
        return nil
    }
}
