/// A corner followed by optical flow from frame to frame, and the map point it is the image of.
struct PointTrack {
    /// Where the corner is in the last frame, pixels as the frame shows them.
    var position: SIMD2<Float>
    /// The map point this track is the image of.
    var point: Int?
    /// Where the track was in the keyframe it started in (-1: the initialisation's reference
    /// frame, or no keyframe).
    var origin: (keyframe: Int, position: SIMD2<Float>)
}

/// A landmark as the odometry uses it: OpenCV world axes, ideal pixels (``Landmark`` converted
/// once, at ``VisualOdometry``'s boundary).
struct MapLandmark {
    var position: SIMD3<Double>
    var pixel: SIMD2<Float>
    var holdsMap: Bool
}

/// Follows the camera from frame to frame (ORB-SLAM's `Tracking`): corners followed by
/// pyramidal Lucas–Kanade flow, the pose found by PnP with RANSAC against their map points.
///
/// Conventions are the map's (``OdometryMap``): poses `opencvCamera_from_world`.
struct FrameTracker {
    private let camera: CameraIntrinsics
    private let parameters: VisualOdometry.Parameters
    var tracks: [PointTrack] = []
    /// The last frame's `opencvCamera_from_world`.
    var pose: Transform?
    /// The last frame-to-frame motion (`opencvCamera2_from_opencvCamera1`).
    var velocity = Transform.identity
    /// The camera centres of the last frames located (at most `stepFrames`), world axes: their
    /// mean step carries a coasting camera. Half a second of them: a walking camera bobs up and
    /// down at about 2 Hz, and the last frame's step alone carries the bob's speed at that moment
    /// (4 cm off after 10 frames on the brick room's covered lens).
    private var centres: [SIMD3<Double>] = []
    private let stepFrames = 15
    /// True while the camera is not found against the map (relocalisation is needed).
    var lost = false
    /// Frames in a row whose pose the motion model gave alone (``coast(upTo:turn:)``).
    private var coasted = 0
    private var previous: FlowPyramid?
    private var poseSolver = PointPoseSolver()

    init(camera: CameraIntrinsics, parameters: VisualOdometry.Parameters) {
        self.camera = camera
        self.parameters = parameters
        poseSolver.reprojectionThreshold = parameters.reprojectionThreshold
        poseSolver.rotationPriorSigma = parameters.gyroscopeTurnSigma
    }

    /// Moves every track into the new frame; drops the lost ones. Returns the median flow (px).
    mutating func follow(into pyramid: FlowPyramid) throws -> Double {
        defer { previous = pyramid }
        guard let previous, !tracks.isEmpty else { return 0 }
        let moved = try previous.track(tracks.map(\.position), into: pyramid)
        var kept: [PointTrack] = [], flows: [Double] = []
        let w = Float(camera.width), h = Float(camera.height)
        for (track, p) in zip(tracks, moved) {
            guard let p, p.x >= 0, p.y >= 0, p.x <= w - 1, p.y <= h - 1 else { continue }
            flows.append(Double(length(p - track.position)))
            var t = track
            t.position = p
            kept.append(t)
        }
        tracks = kept
        return Summary(flows)?.median ?? 0
    }

    /// New tracks on corners away from the existing ones, starting in keyframe `keyframe`.
    mutating func addTracks(gray: Image, keyframe: Int) throws {
        guard tracks.count < parameters.maximumPoints else { return }
        var p = FeatureSet.Parameters()
        p.maximumCount = parameters.maximumPoints
        p.fastThreshold = 10
        p.gridColumns = 8; p.gridRows = 6
        let found = try FeatureSet(image: gray, parameters: p)
        let cell = Float(parameters.minimumSpacing)
        var occupied = Set<SIMD2<Int32>>()
        func key(_ q: SIMD2<Float>) -> SIMD2<Int32> { SIMD2(Int32(q.x / cell), Int32(q.y / cell)) }
        for t in tracks { occupied.insert(key(t.position)) }
        for q in found.points where tracks.count < parameters.maximumPoints {
            guard occupied.insert(key(q)).inserted else { continue }
            tracks.append(PointTrack(position: q, point: nil, origin: (keyframe, q)))
        }
    }

    /// Finds this frame's pose against the map points the tracks follow and `landmarks` (each
    /// counted `landmarkWeight` times: they are few but precise and drift-free), starting from
    /// the last pose moved by the last motion. On success the tracks that slid off their point
    /// are dropped and the pose becomes the last; returns the inliers among the tracked points,
    /// or nil when too few were found (the camera is lost). A pose from fewer inliers that agrees
    /// with the motion is kept for ``hold()``. `turn` (the gyroscope's, `opencvCamera1_from_opencvCamera0`)
    /// holds the rotation near the last frame's turned by it.
    mutating func locate(against map: OdometryMap, landmarks: [MapLandmark], turn: Matrix3? = nil) throws -> Int? {
        weak = nil
        let mapped = tracks.indices.filter { tracks[$0].point != nil }
        let guess = pose.map { velocity * $0 }
        let prior = turn.flatMap { t in pose.map { t * $0.rotation } }
        guard !lost, mapped.count >= parameters.holdingInliers else {
            lost = true
            return nil
        }
        var world = mapped.map { map.points[tracks[$0].point!] }, pixels = mapped.map { camera.idealPixel(tracks[$0].position) }
        for l in landmarks {
            for _ in 0..<parameters.landmarkWeight {
                world.append(l.position)
                pixels.append(l.pixel)
            }
        }
        let found = try poseSolver.solve(worldPoints: world, pixels: pixels, camera: camera, opencvCameraFromWorldGuess: guess,
                                         opencvCameraFromWorldRotationPrior: prior)
            .map { Located(pose: $0.opencvCameraFromWorld, tracks: mapped, inliers: Array($0.inliers.prefix(mapped.count))) }
        guard let found, found.inlierCount >= parameters.minimumInliers else {
            if let found, found.inlierCount >= parameters.holdingInliers,
               agrees(found.pose, with: guess, at: zip(mapped, found.inliers).filter(\.1).map { map.points[tracks[$0.0].point!] }) {
                weak = found
            }
            lost = true
            return nil
        }
        accept(found)
        return found.inlierCount
    }

    /// A pose found by PnP: the tracks it used (indices into `tracks`) and which were inliers.
    private struct Located {
        var pose: Transform
        var tracks: [Int]
        var inliers: [Bool]
        var inlierCount: Int { inliers.filter { $0 }.count }
    }
    /// The last ``locate(against:landmarks:)``'s pose from too few inliers, when it agreed with
    /// the motion.
    private var weak: Located?

    /// Takes the pose ``locate(against:landmarks:)`` found from too few inliers but in agreement
    /// with the motion (a plain wall in view), when it found one. True when it did.
    mutating func hold() -> Bool {
        guard let weak else { return false }
        self.weak = nil
        accept(weak)
        return true
    }

    private mutating func accept(_ located: Located) {
        // Outliers are tracks that slid off their point: drop them.
        var drop = Set<Int>()
        for (k, i) in located.tracks.enumerated() where !located.inliers[k] { drop.insert(i) }
        tracks = tracks.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
        if let before = pose { velocity = located.pose * before.inverse }
        centres.append(located.pose.inverse.translation)
        if centres.count > stepFrames { centres.removeFirst() }
        pose = located.pose
        coasted = 0
        lost = false
    }

    /// True when `pose` moves `points` by at most `holdingDeviation` px (median) from where
    /// `guess` projects them.
    private func agrees(_ pose: Transform, with guess: Transform?, at points: [SIMD3<Double>]) -> Bool {
        guard let guess else { return false }
        let deviations = points.compactMap { x -> Double? in
            guard let a = camera.project(opencvCameraPoint: pose.apply(to: x)),
                  let b = camera.project(opencvCameraPoint: guess.apply(to: x)) else { return nil }
            return length(a - b)
        }
        guard let median = Summary(deviations)?.median else { return false }
        return median <= parameters.holdingDeviation
    }

    /// Moves the pose on by the last motion when fewer than `limit` frames in a row were: the
    /// camera centre by its mean step over the last frames located, in the world (a hand-held
    /// camera keeps its path while it turns), the orientation by `turn` (the gyroscope's
    /// `opencvCamera1_from_opencvCamera0`) or else by the last turn. The tracks stay, to be
    /// tried again on the next frame. False when the limit is reached (the camera is lost).
    mutating func coast(upTo limit: Int, turn: Matrix3? = nil) -> Bool {
        guard coasted < limit, let pose else { return false }
        let step = centres.count < 2 ? .zero : (centres[centres.count - 1] - centres[0]) / Double(centres.count - 1)
        // The camera centre of `opencvCamera_from_world` is -Rᵀt, its inverse's translation.
        let rotation = (turn ?? velocity.rotation) * pose.rotation, centre = pose.inverse.translation + step
        self.pose = Transform(rotation: rotation, translation: -(rotation * centre))
        coasted += 1
        lost = false
        return true
    }

    /// Starts again from a pose found against the whole map and the tracks of its matches.
    mutating func resume(at pose: Transform, tracks: [PointTrack]) {
        self.tracks = tracks
        self.pose = pose
        velocity = .identity
        centres = []
        lost = false
        coasted = 0
    }

    /// Multiplies every length by `factor` (the world became metric).
    mutating func rescale(by factor: Double) {
        pose = pose?.translationScaled(by: factor)
        velocity = velocity.translationScaled(by: factor)
        centres = centres.map { $0 * factor }
    }

    /// Follows the map's renumbering (`points`, `keyframes`: new numbers, nil once removed). A
    /// track that started in a removed keyframe starts in none: it is never triangulated.
    mutating func renumber(points pointIndex: [Int?], keyframes keyframeIndex: [Int?]) {
        for i in tracks.indices {
            tracks[i].point = tracks[i].point.flatMap { pointIndex[$0] }
            if tracks[i].origin.keyframe >= 0 { tracks[i].origin.keyframe = keyframeIndex[tracks[i].origin.keyframe] ?? -1 }
        }
    }
}
