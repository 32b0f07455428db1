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
    /// True while the camera is not found against the map (relocalisation is needed).
    var lost = false
    private var previous: FlowPyramid?
    private var poseSolver = PointPoseSolver()

    init(camera: CameraIntrinsics, parameters: VisualOdometry.Parameters) {
        self.camera = camera
        self.parameters = parameters
        poseSolver.reprojectionThreshold = parameters.reprojectionThreshold
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
    /// or nil when too few were found (the camera is lost).
    mutating func locate(against map: OdometryMap, landmarks: [MapLandmark]) throws -> Int? {
        let mapped = tracks.indices.filter { tracks[$0].point != nil }
        let guess = pose.map { velocity * $0 }
        var solved: (pose: Transform, inliers: [Bool])?
        if !lost && mapped.count >= parameters.minimumInliers {
            var world = mapped.map { map.points[tracks[$0].point!] }, pixels = mapped.map { camera.idealPixel(tracks[$0].position) }
            for l in landmarks {
                for _ in 0..<parameters.landmarkWeight {
                    world.append(l.position)
                    pixels.append(l.pixel)
                }
            }
            solved = try poseSolver.solve(worldPoints: world, pixels: pixels, camera: camera,
                                          opencvCameraFromWorldGuess: guess)
                .map { ($0.opencvCameraFromWorld, Array($0.inliers.prefix(mapped.count))) }
        }
        guard let solved, solved.inliers.filter({ $0 }).count >= parameters.minimumInliers else {
            lost = true
            return nil
        }
        // Outliers are tracks that slid off their point: drop them.
        var drop = Set<Int>()
        for (k, i) in mapped.enumerated() where !solved.inliers[k] { drop.insert(i) }
        tracks = tracks.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
        if let before = pose { velocity = solved.pose * before.inverse }
        pose = solved.pose
        return solved.inliers.filter { $0 }.count
    }

    /// Starts again from a pose found against the whole map and the tracks of its matches.
    mutating func resume(at pose: Transform, tracks: [PointTrack]) {
        self.tracks = tracks
        self.pose = pose
        velocity = .identity
        lost = false
    }

    /// Multiplies every length by `factor` (the world became metric).
    mutating func rescale(by factor: Double) {
        pose = pose?.translationScaled(by: factor)
        velocity = velocity.translationScaled(by: factor)
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
