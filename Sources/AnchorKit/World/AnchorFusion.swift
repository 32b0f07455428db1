/// Keeps world-locked anchors still. A single view places a target precisely across its line of
/// sight but poorly along it: its distance comes from its apparent size, so its depth error
/// grows with distance over size in pixels. Each observation therefore counts with its own
/// uncertainty — small across the viewing ray, larger along it — and the fused position is the
/// weighted least-squares point of all recent observations: seen from several directions, the
/// target is in effect triangulated. The rotation is the mean, on the manifold, of the recent
/// views' rotations that agree with most others (``consensusAngle``): a small target seen
/// obliquely now and then takes the other branch of its two-fold planar pose ambiguity, tens of
/// degrees away, and one such view in a running average turned the placed anchor with it.
///
/// An anchor is ``placed(_:)`` once the fused position is known to ``placementSigma`` along
/// every direction, so that content put on it does not have to move later; from then on it is
/// locked, and its views refine the camera instead (``Landmark``). Views elsewhere than a placed
/// anchor, many in a row, unlock it (it was misplaced or moved) until their own estimate is
/// certain; views in its place but turned (a planar pose ambiguity) are ignored.
struct AnchorFusion {
    /// One observation's uncertainty: across the ray σ = distance · `lateralPixels` / f, along it
    /// σ = distance · `cornerPixels` · √2 / (target size in pixels), at least `minimumSigma`.
    var lateralPixels = 0.5
    var cornerPixels = 1.0
    var minimumSigma = 0.002
    /// A placed anchor's largest standard deviation, metres.
    var placementSigma = 0.02
    /// Set-aside limits once placed, in standard deviations of the observation (and an angle).
    var gateSigmas = 4.0
    var gateAngle = 4.0 * Double.pi / 180
    /// Views whose rotations are within this angle of each other agree (radians): well above a
    /// small target's rotation noise, well below the other branch of its pose ambiguity.
    var consensusAngle = 15.0 * Double.pi / 180
    /// Set-aside observations in a row that unlock a placed anchor (it was misplaced, or the
    /// target moved): it is then re-estimated from the set-aside views alone, which agree with
    /// each other and not with the earlier ones.
    var unlockAfter = 10
    /// Fewest views before an anchor is placed (successive views are correlated: the same
    /// tracker state and nearly the same viewpoint).
    var minimumViews = 10
    /// Observations kept per anchor.
    var memory = 60

    /// One view of a target: its world position and the uncertainty of that position.
    struct Observation {
        /// World position of the target's centre, metres.
        var position: SIMD3<Double>
        /// Unit vector from the camera centre to the target.
        var ray: SIMD3<Double>
        /// Standard deviations across and along the ray, metres.
        var across: Double, along: Double
    }

    private struct State {
        var samples: [Observation]
        /// The samples' rotations (`world_from_anchor`), in the same order.
        var rotations: [Matrix3]
        var rotation: Matrix3
        var rejected: [(Matrix3, Observation)] = []
        var estimate: SIMD3<Double>
        var sigma: Double
        var locked = false
    }
    private var states: [String: State] = [:]

    /// The observation of a target of apparent size `sizePixels` (the square root of its area
    /// in the image) at world pose `worldFromAnchor`, by a camera centred at `cameraPosition`
    /// with focal length `focal` (pixels). `depthSigma` overrides the along-ray uncertainty (a
    /// distance measured by other means, e.g. map points on the target).
    func observation(_ worldFromAnchor: Transform, cameraPosition: SIMD3<Double>, focal: Double, sizePixels: Double,
                     depthSigma: Double? = nil) -> Observation {
        let offset = worldFromAnchor.translation - cameraPosition
        let distance = length(offset)
        let across = max(minimumSigma, distance * lateralPixels / focal)
        let along = max(minimumSigma, depthSigma ?? distance * cornerPixels * 2.0.squareRoot() / max(sizePixels, 1))
        return Observation(position: worldFromAnchor.translation, ray: distance > 1e-9 ? offset / distance : SIMD3(0, 0, 1),
                           across: across, along: max(across, along))
    }

    /// The fused `world_from_anchor` once placed (nil before), after adding an observation.
    mutating func fuse(_ identifier: String, rotation: Matrix3, _ o: Observation) -> Transform? {
        guard var s = states[identifier] else {
            let sigma = o.along
            states[identifier] = State(samples: [o], rotations: [rotation], rotation: rotation, estimate: o.position, sigma: sigma)
            return placed(identifier)
        }
        let d = o.position - s.estimate
        let along = dot(d, o.ray), across = length(d - o.ray * along)
        let displaced = across > gateSigmas * max(o.across, s.sigma) || abs(along) > gateSigmas * max(o.along, s.sigma)
        let turned = (s.rotation.transposed * rotation).rotationAngle > gateAngle
        // A view in the right place but turned is most likely the other branch of a planar
        // target's two-fold pose ambiguity (a small target seen obliquely): it is set aside
        // without counting towards unlocking, which only a target seen elsewhere does.
        if s.locked && turned && !displaced { return placed(identifier) }
        if s.locked && displaced {
            s.rejected.append((rotation, o))
            if s.rejected.count >= unlockAfter {
                s.samples = s.rejected.map(\.1)
                s.rotations = s.rejected.map(\.0)
                s.rotation = consensus(of: s.rotations)
                s.rejected = []
                (s.estimate, s.sigma) = Self.solve(s.samples)
                s.locked = false
            }
            states[identifier] = s
            return placed(identifier)
        }
        s.rejected = []
        // Once placed the anchor is locked: later views refine the camera (as landmarks), not it.
        if s.locked {
            states[identifier] = s
            return placed(identifier)
        }
        s.samples.append(o)
        s.rotations.append(rotation)
        if s.samples.count > memory {
            s.samples.removeFirst()
            s.rotations.removeFirst()
        }
        s.rotation = consensus(of: s.rotations)
        (s.estimate, s.sigma) = Self.solve(s.samples)
        s.locked = s.sigma <= placementSigma && s.samples.count >= minimumViews
        states[identifier] = s
        return placed(identifier)
    }

    /// Places the target that founds the world at `worldFromAnchor` at once, locked: the world is
    /// defined by where it is, so its single view is exact by definition.
    mutating func found(_ identifier: String, at worldFromAnchor: Transform) {
        states[identifier] = State(samples: [], rotations: [], rotation: worldFromAnchor.rotation,
                                   estimate: worldFromAnchor.translation, sigma: 0, locked: true)
    }

    /// Moves a placed anchor to `worldFromAnchor` (a better estimate of where it was placed),
    /// keeping its uncertainty.
    mutating func move(_ identifier: String, to worldFromAnchor: Transform) {
        guard var s = states[identifier], s.locked else { return }
        s.rotation = worldFromAnchor.rotation
        s.estimate = worldFromAnchor.translation
        states[identifier] = s
    }

    /// The mean rotation of the largest set of `rotations` within ``consensusAngle`` of one of them
    /// (the first such one on a tie): that one's neighbours averaged in its tangent space.
    private func consensus(of rotations: [Matrix3]) -> Matrix3 {
        var best = 0, bestCount = 0
        for (i, r) in rotations.enumerated() {
            let count = rotations.reduce(0) { $0 + ((r.transposed * $1).rotationAngle <= consensusAngle ? 1 : 0) }
            if count > bestCount { (best, bestCount) = (i, count) }
        }
        let centre = rotations[best]
        var sum = SIMD3<Double>.zero
        for r in rotations {
            let turn = centre.transposed * r
            if turn.rotationAngle <= consensusAngle { sum += turn.log }
        }
        return (centre * Matrix3.exp(sum / Double(bestCount))).orthonormalized
    }

    /// The fused `world_from_anchor` of a placed anchor, or nil.
    func placed(_ identifier: String) -> Transform? {
        guard let s = states[identifier], s.locked else { return nil }
        return Transform(rotation: s.rotation, translation: s.estimate)
    }

    /// One standard deviation of a placed anchor's position along its least certain direction,
    /// metres (0 for the anchor that founded the world), or nil when it is not placed.
    func placementSigma(of identifier: String) -> Double? {
        guard let s = states[identifier], s.locked else { return nil }
        return s.sigma
    }

    /// The information-weighted mean of the observations and the largest standard deviation of
    /// that mean (the square root of its covariance's largest eigenvalue, bounded by the trace).
    private static func solve(_ samples: [Observation]) -> (SIMD3<Double>, Double) {
        var rows = [SIMD3<Double>](repeating: .zero, count: 3), b = SIMD3<Double>.zero
        for o in samples {
            // Information: (1/σ_across²)(I − u uᵀ) + (1/σ_along²) u uᵀ.
            let wa = 1 / (o.across * o.across), wl = 1 / (o.along * o.along), u = o.ray
            for r in 0..<3 {
                var row = (wl - wa) * u[r] * u
                row[r] += wa
                rows[r] += row
                b[r] += dot(row, o.position)
            }
        }
        guard let covariance = Matrix3(rows: rows[0], rows[1], rows[2]).inverse else { return (samples.last!.position, .infinity) }
        let trace = covariance[0, 0] + covariance[1, 1] + covariance[2, 2]
        return (covariance * b, max(0, trace).squareRoot())
    }
}
