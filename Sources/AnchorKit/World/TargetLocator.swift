import Foundation

/// The camera's world pose from the world-locked targets in view: targets of known size give
/// it, metric, in a single frame, with no parallax and no scene texture needed. Each placed target
/// in view proposes `world_from_camera = world_from_anchor · inverse(camera_from_anchor)` (ARKit
/// conventions); the proposal the most targets agree with is refined on all their corners
/// together, far better conditioned than one small target's four corners (whose tilt they barely
/// fix, and which can flip to the other branch of a planar pose's ambiguity).
struct TargetLocator {
    let camera: CameraIntrinsics
    private let refiner = ViewPoseRefiner()

    init(camera: CameraIntrinsics) { self.camera = camera }

    /// A placed target in view: its corners in the world and in the image, and the
    /// `world_from_camera` it proposes.
    private struct PlacedTarget {
        let observation: TargetObservation
        let corners: [SIMD3<Double>]
        let pixels: [SIMD2<Double>]
        let proposal: Transform
    }

    /// The placed targets among `observations` (`placed` gives a target's fused `world_from_anchor`).
    private static func placedTargets(_ observations: [TargetObservation], placed: (String) -> Transform?) -> [PlacedTarget] {
        observations.compactMap { o in
            guard let corners = o.corners, let worldFromAnchor = placed(o.identifier) else { return nil }
            return PlacedTarget(observation: o,
                                corners: TargetConvention.corners(width: o.extent.x, height: o.extent.y).map { worldFromAnchor.apply(to: $0) },
                                pixels: corners, proposal: worldFromAnchor * o.cameraFromAnchor.inverse)
        }
    }

    /// The squared reprojection errors of `targets`' corners under `worldFromCamera`, summed, and
    /// their count; nil when a corner is behind the camera.
    private func squaredErrors(_ worldFromCamera: Transform, _ targets: [PlacedTarget]) -> (sum: Double, count: Int)? {
        let cameraFromWorld = worldFromCamera.inverse
        var sum = 0.0, count = 0
        for target in targets {
            for (x, pixel) in zip(target.corners, target.pixels) {
                guard let p = camera.project(cameraFromWorld.apply(to: x)) else { return nil }
                let d = p - pixel
                sum += dot(d, d)
                count += 1
            }
        }
        return (sum, count)
    }

    /// `world_from_camera` from the placed targets among `observations` (`placed` gives a target's
    /// fused `world_from_anchor`, nil while it is not placed), or nil when none is in view.
    /// `previous`, the last frame's pose, catches a flip: a camera turns little between frames.
    func locate(_ observations: [TargetObservation], placed: (String) -> Transform?, previous: Transform?) throws -> Transform? {
        let targets = Self.placedTargets(observations, placed: placed)
        guard !targets.isEmpty else { return nil }
        let sizes = targets.map { Self.squareOnSize($0.observation) }
        func rmsError(_ worldFromCamera: Transform, _ chosen: [Int]) -> Double {
            guard let (sum, count) = squaredErrors(worldFromCamera, chosen.map { targets[$0] }) else { return .infinity }
            return (sum / Double(max(1, count))).squareRoot()
        }
        // OpenCV's camera axes for the solver: opencvCamera_from_world = F · inverse(world_from_arkitCamera).
        func refined(from guess: Transform, on chosen: [Int]) throws -> Transform? {
            let sightings = chosen.flatMap { i in
                zip(targets[i].corners, targets[i].pixels).map {
                    ViewPoseRefiner.Sighting(viewIndex: 0, point: $0, pixel: SIMD2<Float>(camera.pinholePixel($1)))
                }
            }
            let estimate = try refiner.refine(CameraConvention.flip * guess.inverse, views: [.identity], sightings: sightings, camera: camera)
            return estimate.behindCount == 0 ? (CameraConvention.flip * estimate.middleFromObject).inverse : nil
        }
        // The proposal that most targets agree with (a target placed wrong, or seen on the wrong
        // branch of its pose ambiguity, agrees with no other), ties to the larger agreeing size;
        // several agreeing targets then refine it on all their corners. One target: its own pose,
        // filtered by its tracker.
        let agreeing = targets.indices.map { p in targets.indices.filter { rmsError(targets[p].proposal, [$0]) <= Self.agreementPixels } }
        let chosen = targets.indices.max { a, b in
            (agreeing[a].count, agreeing[a].map { sizes[$0] }.reduce(0, +))
                < (agreeing[b].count, agreeing[b].map { sizes[$0] }.reduce(0, +))
        }!
        var pose = targets[chosen].proposal
        if agreeing[chosen].count > 1, let joint = try refined(from: pose, on: agreeing[chosen]),
           rmsError(joint, agreeing[chosen]) <= rmsError(pose, agreeing[chosen]) {
            pose = joint
        }
        let all = Array(targets.indices)
        // Unless it flipped to the other branch of a planar pose's ambiguity, which refining from
        // the last pose finds: it explains the corners as well and turns the camera far less.
        guard let previous else { return pose }
        func turn(_ pose: Transform) -> Double { (previous.rotation.transposed * pose.rotation).rotationAngle }
        if turn(pose) > Self.flipAngle, let steadier = try refined(from: previous, on: all),
           rmsError(steadier, all) <= max(1, 1.5 * rmsError(pose, all)), turn(steadier) + Self.flipAngle < turn(pose) {
            return steadier
        }
        return pose
    }

    /// One standard deviation of the centre of a camera at `worldFromCamera` located on the
    /// placed targets among `observations` (those whose corners it explains within
    /// ``agreementPixels``), metres: their corners' noise (`sighting`)
    /// through the projection, and the placement uncertainty of the best placed of them (0 for
    /// the target that founded the world), added in quadrature. Nil when none agrees.
    func positionSigma(of worldFromCamera: Transform, observations: [TargetObservation], fusion: AnchorFusion) -> Double? {
        guard let seen = sighting(of: worldFromCamera, observations: observations, fusion: fusion),
              let sigma = PoseUncertainty.positionSigma(of: worldFromCamera, worldPoints: seen.points, camera: camera,
                                                        pixelSigma: seen.pixelSigma) else { return nil }
        return (sigma * sigma + seen.placement * seen.placement).squareRoot()
    }

    /// The covariance of a camera at `worldFromCamera` located on the placed targets among
    /// `observations`, whether or not they agree with it
    /// (``PoseUncertainty/worldCovariance(of:worldPoints:camera:pixelCovariances:)``: each corner's
    /// noise as its tracker states it, or the pose's RMS error on its target where larger, held
    /// loosely along a blur the tracker modelled and as sharply as ever across it), and the centre
    /// of their corners (world, metres). Nil without a placed target in view.
    func sightedCovariance(of worldFromCamera: Transform, observations: [TargetObservation],
                           fusion: AnchorFusion) -> (covariance: DenseMatrix, centre: SIMD3<Double>)? {
        guard let seen = sighting(of: worldFromCamera, observations: observations, fusion: fusion, agreement: .infinity),
              let covariance = PoseUncertainty.worldCovariance(of: worldFromCamera, worldPoints: seen.points, camera: camera,
                                                              pixelCovariances: seen.pixelCovariances) else { return nil }
        return (covariance, seen.points.reduce(.zero, +) / Double(seen.points.count))
    }

    /// The corners (world) of the placed targets among `observations` that a camera at
    /// `worldFromCamera` explains within `agreement` px RMS, their noise (the larger of what their
    /// trackers state, ``defaultCornerSigma`` where they state none, and the pose's RMS error on
    /// them; px: pooled over the targets, and as each corner's 2x2 covariance, px²), and the
    /// placement uncertainty of the best placed of them (metres). Nil when none agrees or a
    /// corner is behind the camera.
    private func sighting(of worldFromCamera: Transform, observations: [TargetObservation], fusion: AnchorFusion,
                          agreement: Double = agreementPixels)
        -> (points: [SIMD3<Double>], pixelSigma: Double, pixelCovariances: [PixelCovariance], placement: Double)? {
        var points: [SIMD3<Double>] = [], covariances: [PixelCovariance] = [], squares = 0.0, stated = 0.0, placement = Double.infinity, used = 0
        for target in Self.placedTargets(observations, placed: fusion.placed) {
            guard let sigma = fusion.placementSigma(of: target.observation.identifier) else { continue }
            guard let (sum, count) = squaredErrors(worldFromCamera, [target]) else { return nil }
            let rms = (sum / Double(count)).squareRoot()
            guard rms <= agreement else { continue }
            points += target.corners
            squares += sum
            let o = target.observation, along = max(o.cornerSigma ?? Self.defaultCornerSigma, rms)
            // Through a modelled blur the corners are held loosely along it, as sharply as ever across.
            let noise = o.cornerBlur.map { PixelCovariance.elongated(along: $0, alongSigma: along, acrossSigma: max(o.sharpCornerSigma ?? along, rms)) }
                ?? .diagonal(along * along)
            covariances += Array(repeating: noise, count: target.corners.count)
            stated += o.cornerSigma ?? Self.defaultCornerSigma
            placement = min(placement, sigma)
            used += 1
        }
        guard used > 0 else { return nil }
        return (points, max(stated / Double(used), (squares / Double(points.count)).squareRoot()), covariances, placement)
    }

    /// Corner noise of a target whose tracker states none, pixels (one standard deviation).
    static let defaultCornerSigma = 0.5

    /// A turn from the last frame's camera that may be a flip, and how much less the steadier pose
    /// must turn to be taken instead, radians: a flip to the other branch of a planar pose's
    /// ambiguity turns the camera by tens of degrees.
    static let flipAngle = 15 * Double.pi / 180
    /// Largest RMS reprojection error of a target's corners, pixels, under a pose it agrees with.
    static let agreementPixels = 3.0

    /// How well the placed targets among `observations` fix the camera: their apparent sizes as
    /// seen square on (the square root of each one's area in the image times the cosine of its
    /// obliquity), summed, pixels.
    static func support(of observations: [TargetObservation], placed: (String) -> Transform?) -> Double {
        observations.filter { placed($0.identifier) != nil }.map(squareOnSize).reduce(0, +)
    }

    /// A target's apparent size as seen square on: the square root of its area in the image times
    /// the cosine of its obliquity, pixels (0 without corners).
    static func squareOnSize(_ o: TargetObservation) -> Double {
        guard let corners = o.corners else { return 0 }
        return ConvexPolygon.area(corners).squareRoot() * cos(ScaleEstimator.obliquity(of: o))
    }

    /// The observation that founds a world where there is none yet: the target in view whose pose
    /// is the most certain, the largest as seen square on (its apparent size, the square root of
    /// its area in the image, times the cosine of its obliquity), if that is at least
    /// `minimumPixels`.
    static func founder(among observations: [TargetObservation], minimumPixels: Double) -> TargetObservation? {
        guard let best = observations.max(by: { squareOnSize($0) < squareOnSize($1) }), squareOnSize(best) >= minimumPixels else { return nil }
        return best
    }
}
