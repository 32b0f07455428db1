/// A world founded on the first target of known size seen before odometry has a map (issue 29):
/// the camera comes from the placed targets in view (``TargetLocator``), metric and `normal` from
/// that frame, with no parallax and no scene texture needed; a target placed in it is adjusted
/// with the cameras that saw it (``TargetPlacement``); odometry joins once it is metric; the
/// motion carries the camera over a few frames where neither locates it. Every camera states its
/// position accuracy (``PositionAccuracy``).
///
/// Frames (ARKit conventions): the session's world is the founding frame's camera, upright by its
/// gravity; `alignment` is `sessionWorld_from_odometryWorld`, found where odometry joins.
struct TargetWorld {
    /// Least apparent size of a target that founds the world, as seen square on
    /// (``TargetLocator/squareOnSize(_:)``), pixels: a smaller one's pose is too uncertain to
    /// stand the world on.
    static let founderPixels = 16.0
    /// Least summed apparent size of the placed targets in view (``TargetLocator/support(of:placed:)``,
    /// pixels) for them rather than odometry to give the camera when both can.
    static let decisiveTargetPixels = 200.0
    /// One standard deviation of the direction of the gravity given with a frame, radians: a
    /// phone's gravity (accelerometer and gyroscope fused) is good to about a degree while it
    /// shakes. A camera located on targets is levelled by it
    /// (``GravityAlignment/levelled(_:covariance:gravity:gravitySigma:)``).
    static let gravitySigma = 1.0 * Double.pi / 180

    /// True once a target founded the world.
    private(set) var isFounded = false
    /// True when the founded world's +y is against gravity (gravity was known where its axes were
    /// fixed): the gravity given with a frame then levels the camera.
    private var isUpright = false
    private let locator: TargetLocator
    private var motion = ConstantVelocity()
    private var smoother = OrbitSmoother()
    private var accuracy = PositionAccuracy()
    private var placement: TargetPlacement

    init(camera: CameraIntrinsics) {
        locator = TargetLocator(camera: camera)
        placement = TargetPlacement(camera: camera)
    }

    /// Adjusts target `identifier`, just placed in `fusion`, with the cameras of its recent located
    /// views (``TargetPlacement``), where the adjustment explains its corners. The target that
    /// founded the world is where it is by definition.
    func adjustPlacement(of identifier: String, fusion: inout AnchorFusion) throws {
        guard isFounded, let initial = fusion.placed(identifier),
              let adjusted = try placement.adjusted(identifier, initial: initial, placed: { [fusion] in
                  $0 == identifier ? nil : fusion.placed($0)
              }) else { return }
        fusion.move(identifier, to: adjusted)
    }

    /// Founds the world on the best target among `observations`, if one is worth it, with this
    /// frame's camera at `worldFromCamera` (`isUpright`: the world's +y is against gravity): the
    /// target is placed in `fusion` at once, and placed targets stay placed (the camera comes from
    /// them: a view that disagrees with one is the camera's error more than the target's move).
    /// True when the world was founded now.
    mutating func found(on observations: [TargetObservation], worldFromCamera: Transform, isUpright: Bool,
                        fusion: inout AnchorFusion) -> Bool {
        guard !isFounded, let founder = TargetLocator.founder(among: observations, minimumPixels: Self.founderPixels) else { return false }
        fusion.found(founder.identifier, at: worldFromCamera * founder.cameraFromAnchor)
        fusion.unlockAfter = .max
        isFounded = true
        self.isUpright = isUpright
        return true
    }

    /// The camera of `frame` (at `time`, seconds) in this world: from targets that fix it well,
    /// else from odometry tracking normally once it joined (through `alignment`, set here where
    /// both first see the camera with odometry metric), else from any placed target in view, else
    /// from odometry in any state once joined, else carried by the motion for a few frames
    /// (`limited(insufficientFeatures)`, or the odometry's `lowLight` / `excessiveMotion`), else
    /// `limited(relocalizing)`. Each states its position accuracy (``PositionAccuracy``). A camera
    /// located on targets is levelled by `gravity` (measured with the frame, m/s² in the camera,
    /// pointing down) in a world founded upright, and its centre smoothed over frames
    /// (``OrbitSmoother``).
    mutating func camera(of frame: Int, at time: Double, observations: [TargetObservation], gravity: SIMD3<Double>?,
                         odometry location: CameraLocation, alignment: inout Transform?, fusion: AnchorFusion,
                         intrinsics: CameraIntrinsics) throws -> CameraState {
        var fromTargets = try locator.locate(observations, placed: fusion.placed, previous: motion.pose(at: frame - 1))
        if let located = fromTargets, let sighted = locator.sightedCovariance(of: located, observations: observations, fusion: fusion) {
            var pose = located, covariance = sighted.covariance
            if let gravity, isUpright,
               let levelled = GravityAlignment.levelled(pose, covariance: covariance, gravity: gravity, gravitySigma: Self.gravitySigma) {
                (pose, covariance) = levelled
            }
            fromTargets = smoother.update(pose, covariance: covariance, looking: sighted.centre, frame: frame, time: time)
        } else {
            smoother.reset()
        }
        if alignment == nil, let pose = location.worldFromCamera, location.trackingState == .normal, location.scale == .metric,
           let fromTargets {
            alignment = fromTargets * pose.inverse
        }
        let fromOdometry = alignment.flatMap { a in location.worldFromCamera.map { a * $0 } }
        let decisive = TargetLocator.support(of: observations, placed: fusion.placed) >= Self.decisiveTargetPixels
        let state: TrackingState, pose: Transform, sigma: Double
        if let fromTargets, decisive || fromOdometry == nil || location.trackingState != .normal {
            (pose, state) = (fromTargets, .normal)
            // A pose refined from the last one (a flip caught) may leave every target's corners
            // over the agreement limit: its accuracy is then grown from the last, as a step of
            // odometry would be.
            sigma = locator.positionSigma(of: pose, observations: observations, fusion: fusion)
                .map { accuracy.fix($0, at: pose.translation, time: time) }
                ?? accuracy.odometry(at: pose.translation, time: time)
        } else if let fromOdometry {
            (pose, state) = (fromOdometry, location.trackingState)
            sigma = accuracy.odometry(at: pose.translation, time: time)
        } else if let carried = motion.carry(to: frame) {
            let reason = location.trackingState.reason
            let state: TrackingState = .limited(reason == .lowLight || reason == .excessiveMotion ? reason! : .insufficientFeatures)
            return CameraState(transform: carried, trackingState: state, intrinsics: intrinsics, scale: .metric,
                               positionAccuracy: accuracy.carried(to: time))
        } else {
            accuracy.reset()
            return CameraState(transform: .identity, trackingState: .limited(.relocalizing), intrinsics: intrinsics, scale: .metric)
        }
        motion.record(pose, frame: frame)
        placement.record(.init(worldFromCamera: pose, observations: observations))
        return CameraState(transform: pose, trackingState: state, intrinsics: intrinsics, scale: .metric, positionAccuracy: sigma)
    }
}

/// Carries a camera over the few frames in which nothing locates it, at the velocity it last had:
/// the centre by its mean step over the last located frames, the orientation by the last turn.
struct ConstantVelocity {
    /// Frames in a row the pose is carried before the camera is reported lost.
    var limit = 15
    /// Located frames whose mean step carries the centre.
    var window = 10
    private var poses: [(frame: Int, pose: Transform)] = []
    private var carried = 0

    /// The pose recorded or carried for `frame`, if any.
    func pose(at frame: Int) -> Transform? { poses.last.flatMap { $0.frame == frame ? $0.pose : nil } }

    /// Records the camera's pose in a located frame.
    mutating func record(_ pose: Transform, frame: Int) {
        if let last = poses.last, last.frame >= frame { poses.removeAll() }
        poses.append((frame, pose))
        if poses.count > window { poses.removeFirst() }
        carried = 0
    }

    /// The pose carried on to `frame` (after the last recorded or carried frame), or nil when the
    /// limit is reached or no frame was located.
    mutating func carry(to frame: Int) -> Transform? {
        guard carried < limit, let first = poses.first, let last = poses.last, frame > last.frame else { return nil }
        let frames = Double(frame - last.frame)
        // One located frame alone has no motion to carry: the camera is held where it was.
        let step = poses.count < 2 ? .zero : (last.pose.translation - first.pose.translation) / Double(last.frame - first.frame)
        let previous = poses[max(0, poses.count - 2)]
        let turn = poses.count < 2 ? .zero : (previous.pose.rotation.transposed * last.pose.rotation).log / Double(last.frame - previous.frame)
        let rotation = (last.pose.rotation * Matrix3.exp(turn * frames)).orthonormalized
        let carriedPose = Transform(rotation: rotation, translation: last.pose.translation + step * frames)
        carried += 1
        poses.append((frame, carriedPose))
        poses.removeFirst()
        return carriedPose
    }
}
