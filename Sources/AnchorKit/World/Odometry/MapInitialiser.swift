/// Starts the map from two views with enough parallax (ORB-SLAM's `Initializer`): the
/// homography or the essential matrix, chosen by their scores (a scene that is mostly one plane
/// favours the homography), the inliers triangulated. The world is the first of the two
/// cameras (OpenCV axes); its unit is the distance between them.
struct MapInitialiser {
    private let camera: CameraIntrinsics
    private let parameters: VisualOdometry.Parameters
    /// The reference frame, the first of the two views (tracks' origins are keyframe -1 until
    /// the map starts).
    private(set) var reference: Int?

    init(camera: CameraIntrinsics, parameters: VisualOdometry.Parameters) {
        self.camera = camera
        self.parameters = parameters
    }

    /// Tries to start `map` (empty) from the reference frame and this one, with the tracker's
    /// tracks. On success the map holds two keyframes, 0 (the reference, the world's origin)
    /// and 1 (this frame), the tracks follow its points, and the pose of this frame is returned.
    mutating func start(_ map: inout OdometryMap, frame: Int, gray: Image, tracker: inout FrameTracker) throws -> Transform? {
        if let ref = reference, frame - ref > 90 || tracker.tracks.count < 80 { reference = nil }
        guard let reference else {
            tracker.tracks = []
            try tracker.addTracks(gray: gray, keyframe: -1)
            if tracker.tracks.count >= 100 { self.reference = frame } else { tracker.tracks = [] }
            return nil
        }
        let tracks = tracker.tracks
        let flows = tracks.map { Double(length($0.position - $0.origin.position)) }
        guard let median = Summary(flows)?.median, median >= parameters.initialisationFlow else { return nil }
        var initialiser = TwoViewInitialiser()
        initialiser.maxReprojectionError = parameters.reprojectionThreshold
        let result = try initialiser.reconstruct(
            pixels1: tracks.map { camera.idealPixel($0.origin.position) }, pixels2: tracks.map { camera.idealPixel($0.position) },
            camera: camera)
        guard result.isInitialised else { return nil }
        // The world is the reference camera; the second keyframe is one baseline away.
        let second = result.opencvCamera2FromCamera1
        var first = OdometryMap.Keyframe(frame: reference, pose: .identity, observations: [])
        var current = OdometryMap.Keyframe(frame: frame, pose: second, observations: [])
        var kept: [PointTrack] = []
        for (i, var track) in tracks.enumerated() {
            guard let x = result.points[i] else { continue }
            let id = map.add(x, observedBy: [0, 1])
            first.observations.append((id, track.origin.position))
            current.observations.append((id, track.position))
            track.point = id
            kept.append(track)
        }
        tracker.tracks = kept
        map.keyframes = [first, current]
        map.revision += 1
        return second
    }

    /// The camera's turn since the reference frame, `opencvCamera_from_opencvReference`, from the
    /// tracks alone, taking the motion as a pure rotation (a tripod, a camera turning in place,
    /// or one that has not yet moved enough for parallax): the rotation that best maps the tracks'
    /// lines of sight in the reference onto theirs now, fitted twice, the second time without the
    /// tracks it explains worst. Nil without a reference or with too few tracks.
    func turnSinceReference(tracks: [PointTrack]) -> Matrix3? {
        guard reference != nil, tracks.count >= Self.leastTracksForTurn else { return nil }
        func sight(_ p: SIMD2<Float>) -> SIMD3<Double> {
            let ideal = camera.idealPixel(p)
            return normalize(SIMD3((Double(ideal.x) - camera.cx) / camera.fx, (Double(ideal.y) - camera.cy) / camera.fy, 1))
        }
        let before = tracks.map { sight($0.origin.position) }, after = tracks.map { sight($0.position) }
        // Each line of sight with its opposite: centred sets, so the fit is a rotation about the centre.
        func fit(_ indices: [Int]) -> Matrix3? {
            let source = indices.flatMap { [before[$0], -before[$0]] }, target = indices.flatMap { [after[$0], -after[$0]] }
            return SimilarityAlignment.fit(source: source, target: target, withScale: false)?.rotation
        }
        guard let first = fit(Array(tracks.indices)) else { return nil }
        let misfit = tracks.indices.map { length(first * before[$0] - after[$0]) }
        guard let median = Summary(misfit)?.median else { return nil }
        let kept = tracks.indices.filter { misfit[$0] <= max(3 * median, 1 / camera.fx) }
        return kept.count >= Self.leastTracksForTurn ? fit(kept) : first
    }

    /// Fewest tracks for a turn from the tracks alone.
    static let leastTracksForTurn = 30
}
