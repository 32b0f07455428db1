/// Grows and refines the map around each new keyframe (ORB-SLAM's `LocalMapping`): new points
/// triangulated against earlier keyframes, lost map points found again by their descriptors,
/// a local bundle adjustment, and keyframes culled to keep the map bounded. Also queues the
/// keyframe for the denser points of plane detection (``MapDensifier``).
///
/// Conventions are the map's (``OdometryMap``): OpenCV axes, poses `opencvCamera_from_world`.
struct LocalMapper {
    private let camera: CameraIntrinsics
    private let parameters: VisualOdometry.Parameters
    private var triangulator = Triangulator()
    private var adjuster = BundleAdjuster()
    /// Points for plane detection and raycasts only, triangulated between keyframes when the
    /// map is asked for.
    var densifier = MapDensifier()
    /// An inertial log's gyroscope, its bias refined from the adjusted keyframes: the turn it
    /// measured between consecutive keyframes holds the adjustment's rotations, since a far scene
    /// lets a sideways step pass for a turn (Benchmarks/README.md, "The gyroscope's turns").
    var gyroscope: GyroscopeRotation?

    init(camera: CameraIntrinsics, parameters: VisualOdometry.Parameters) {
        self.camera = camera
        self.parameters = parameters
        triangulator.maxReprojectionError = parameters.reprojectionThreshold
        adjuster.inlierThreshold = parameters.reprojectionThreshold
    }

    /// Adds this frame, at the tracker's pose, as keyframe `map.keyframes.count`: triangulates
    /// the tracks that started in earlier keyframes, finds lost map points again, adjusts the
    /// local map and describes the points it follows. Returns the keyframe's adjusted pose.
    mutating func insertKeyframe(frame: Int, time: Double, gray: Image, pyramid: FlowPyramid, landmarks: [MapLandmark],
                                 into map: inout OdometryMap, tracker: inout FrameTracker) throws -> Transform {
        let k = map.keyframes.count
        var keyframe = OdometryMap.Keyframe(frame: frame, pose: tracker.pose!, observations: [])
        keyframe.time = time
        keyframe.landmarks = landmarks.filter(\.holdsMap).map { ($0.position, $0.pixel) }
        // New points: tracks that started in an earlier keyframe, triangulated against it.
        var byOrigin: [Int: [Int]] = [:]
        for (i, t) in tracker.tracks.enumerated() where t.point == nil && t.origin.keyframe >= 0 && t.origin.keyframe < k {
            byOrigin[t.origin.keyframe, default: []].append(i)
        }
        // In keyframe order: a dictionary's order changes from run to run (hash seeding), and the
        // points' order decides the order of every later sum over them.
        for (origin, members) in byOrigin.sorted(by: { $0.key < $1.key }) {
            let found = try triangulator.triangulate(
                pixels1: members.map { camera.idealPixel(tracker.tracks[$0].origin.position) },
                pixels2: members.map { camera.idealPixel(tracker.tracks[$0].position) },
                opencvCamera1FromWorld: map.keyframes[origin].pose, opencvCamera2FromWorld: keyframe.pose, camera: camera)
            for (m, i) in members.enumerated() {
                guard let x = found[m].position else { continue }
                let id = map.add(x, observedBy: [origin])
                map.keyframes[origin].observations.append((id, tracker.tracks[i].origin.position))
                tracker.tracks[i].point = id
            }
        }
        let features = try OdometryMap.Keyframe.features(of: gray)
        tracker.tracks += refind(in: features, pose: keyframe.pose, keyframe: k, map: map, tracks: tracker.tracks)
        for t in tracker.tracks {
            guard let id = t.point else { continue }
            keyframe.observations.append((id, t.position))
            map.observers[id].append(k)
        }
        map.keyframes.append(keyframe)
        try adjustLocally(&map, tracks: &tracker.tracks)
        map.revision += 1
        densifier.add(.init(keyframe: k, gray: gray, pyramid: pyramid)) { i in
            MapDensifier.View(pose: map.keyframes[i].pose, observations: map.keyframes[i].observations)
        }
        map.descriptors.describe(features, keyframe: k, tracks: tracker.tracks)
        return map.keyframes[k].pose
    }

    /// Map points that flow lost (they left the view or were hidden) and that project into the
    /// new keyframe near a feature with their descriptor, as new tracks: the keyframe then
    /// observes the map made before rather than only points triangulated since; without this,
    /// each stretch of the walk has its own points and the scale drifts from stretch to stretch
    /// (as ORB-SLAM searches its local map; here every described point is a candidate, and those
    /// outside the view are skipped by their projection).
    private func refind(in features: FeatureSet, pose: Transform, keyframe k: Int, map: OdometryMap,
                        tracks: [PointTrack]) -> [PointTrack] {
        let described = map.descriptors
        guard !described.isEmpty, !features.points.isEmpty else { return [] }
        let radius = Float(parameters.refindRadius), cell = radius
        var grid: [SIMD2<Int32>: [Int]] = [:]
        for (i, q) in features.points.enumerated() { grid[SIMD2(Int32(q.x / cell), Int32(q.y / cell)), default: []].append(i) }
        var tracked = Set<Int>()
        for t in tracks { if let id = t.point { tracked.insert(id) } }
        let found = features.descriptors
        let w = Float(camera.width), h = Float(camera.height)
        var best: [Int: (slot: Int, distance: Int)] = [:]   // feature → the described point nearest it
        for (slot, id) in described.point.enumerated() where described.latest[id] == slot && !tracked.contains(id) {
            guard let pixel = camera.project(opencvCameraPoint: pose.apply(to: map.points[id])) else { continue }
            let u = Float(pixel.x), v = Float(pixel.y)
            guard u >= 0, u < w, v >= 0, v < h else { continue }
            var first = Int.max, second = Int.max, match = -1
            let cu = Int32(u / cell), cv = Int32(v / cell)
            for gy in (cv - 1)...(cv + 1) {
                for gx in (cu - 1)...(cu + 1) {
                    for i in grid[SIMD2(gx, gy)] ?? [] where length(features.points[i] - SIMD2(u, v)) <= radius {
                        let d = described.distance(slot: slot, to: found, i)
                        if d < first { second = first; first = d; match = i } else if d < second { second = d }
                    }
                }
            }
            guard match >= 0, first <= parameters.refindDistance, Double(first) < 0.8 * Double(second) else { continue }
            if let other = best[match], other.distance <= first { continue }
            best[match] = (slot, first)
        }
        return best.sorted(by: { $0.key < $1.key }).map { i, m in
            let q = features.points[i]
            return PointTrack(position: q, point: described.point[m.slot], origin: (k, q))
        }
    }

    /// Bundle adjustment of the last keyframes and the points they see, with every keyframe before
    /// them that sees those points and the landmarks that hold the map (both fixed; ORB-SLAM's
    /// fixed keyframes): the map keeps to the map made before, and so does its scale, which two
    /// held poses alone let drift (monocular scale drift), and to the anchors placed.
    private mutating func adjustLocally(_ map: inout OdometryMap, tracks: inout [PointTrack]) throws {
        let keyframes = map.keyframes
        let window = Array(max(0, keyframes.count - parameters.localWindow)..<keyframes.count)
        var pointIndex: [Int: Int] = [:], ids: [Int] = []
        var observations: [BundleAdjuster.Observation] = []
        for (c, k) in window.enumerated() {
            for o in keyframes[k].observations {
                if pointIndex[o.point] == nil { pointIndex[o.point] = ids.count; ids.append(o.point) }
                observations.append(.init(poseIndex: c, pointIndex: pointIndex[o.point]!, pixel: camera.idealPixel(o.position)))
            }
        }
        var local = ids.map { map.points[$0] }
        // Landmarks follow the map points (the loop below walks the map observations by index):
        // fixed points, each observation counted `landmarkWeight` times as in tracking.
        var fixed = Set<Int>(), landmarkIndex: [SIMD3<Double>: Int] = [:]
        for (c, k) in window.enumerated() {
            for l in keyframes[k].landmarks {
                let j = landmarkIndex[l.position] ?? local.count
                if j == local.count { landmarkIndex[l.position] = j; local.append(l.position); fixed.insert(j) }
                for _ in 0..<parameters.landmarkWeight { observations.append(.init(poseIndex: c, pointIndex: j, pixel: l.pixel)) }
            }
        }
        // Held keyframes come last, after the landmarks, so that the loop below (which prunes
        // the window's observations) walks the window's alone.
        var poses = window.map { keyframes[$0].pose }
        var held = Set<Int>(), before = Set<Int>()
        var slot: [Int: Int] = [:]   // keyframe → its pose's index
        for (c, k) in window.enumerated() { slot[k] = c }
        for id in ids { for k in map.observers[id] where k < window[0] { before.insert(k) } }
        for k in before.sorted() {
            let seen = keyframes[k].observations.compactMap { o in pointIndex[o.point].map { (j: $0, pixel: o.position) } }
            guard !seen.isEmpty else { continue }
            held.insert(poses.count)
            slot[k] = poses.count
            for o in seen { observations.append(.init(poseIndex: poses.count, pointIndex: o.j, pixel: camera.idealPixel(o.pixel))) }
            poses.append(keyframes[k].pose)
        }
        // The gauge: two held keyframes or more fix position, orientation and scale. Otherwise
        // (the first keyframes), three fixed points or more do with the oldest pose, else the two
        // oldest poses do; the second oldest has drifted with the map as much as the newer ones,
        // and holding it would fight the landmarks.
        let fixedPoses = held.count >= 2 ? held : held.union(fixed.count >= 3 ? [0] : [0, 1])
        let turns = gyroscope.map { gyroscopeTurns(of: keyframes, at: slot, gyroscope: $0) } ?? []
        let inliers = try adjuster.adjust(opencvCamerasFromWorld: &poses, fixedPoses: fixedPoses, points: &local,
                                          fixedPoints: fixed, observations: observations, turns: turns, camera: camera).inliers
        for (c, k) in window.enumerated() { map.keyframes[k].pose = poses[c] }
        if !turns.isEmpty { settle(map.keyframes, at: window[0]) }
        for (j, id) in ids.enumerated() { map.points[id] = local[j] }
        // Observations the adjustment could not explain are dropped from the keyframes; a track
        // whose point failed in the newest keyframe lets the point go.
        var n = 0
        var failedInNewest = Set<Int>()
        for (c, k) in window.enumerated() {
            var kept: [(point: Int, position: SIMD2<Float>)] = []
            for o in map.keyframes[k].observations {
                if inliers[n] { kept.append(o) } else if c == window.count - 1 { failedInNewest.insert(o.point) }
                n += 1
            }
            map.keyframes[k].observations = kept
        }
        for i in tracks.indices { if let p = tracks[i].point, failedInNewest.contains(p) { tracks[i].point = nil } }
    }

    /// The gyroscope's turn between each two consecutive keyframes the adjustment holds (`slot`:
    /// keyframe → its pose), within `gyroscopeBiasStability` times the interval.
    private func gyroscopeTurns(of keyframes: [OdometryMap.Keyframe], at slot: [Int: Int],
                                gyroscope: GyroscopeRotation) -> [BundleAdjuster.Turn] {
        slot.keys.sorted().compactMap { k in
            guard let a = slot[k], let b = slot[k + 1], let t0 = keyframes[k].time, let t1 = keyframes[k + 1].time,
                  let turn = gyroscope.opencvTurn(from: t0, to: t1) else { return nil }
            return .init(from: a, to: b, opencvCameraToFromOpencvCameraFrom: turn,
                         sigma: max(parameters.gyroscopeBiasStability * (t1 - t0), Self.leastTurnSigma))
        }
    }
    /// The gyroscope's noise over a keyframe interval (radians), under which no turn is trusted.
    private static let leastTurnSigma = 1e-4

    /// Keyframe `k`'s turn from the one before, settled now that the adjustment's window starts
    /// at it, refines the gyroscope's bias.
    private mutating func settle(_ keyframes: [OdometryMap.Keyframe], at k: Int) {
        // Not a turn from the initialisation's two keyframes: the two-view geometry's, held fixed.
        guard k >= 3, keyframes[k].frame > lastSettledFrame, var gyroscope, let t0 = keyframes[k - 1].time,
              let t1 = keyframes[k].time, let turn = gyroscope.opencvTurn(from: t0, to: t1) else { return }
        lastSettledFrame = keyframes[k].frame
        let visual = keyframes[k].pose.rotation * keyframes[k - 1].pose.rotation.transposed
        guard let bias = biasEstimator.add(visualTurn: visual, gyroscopeTurn: turn, bias: gyroscope.bias, interval: t1 - t0)
        else { return }
        gyroscope.bias = bias
        self.gyroscope = gyroscope
    }
    /// The frame of the last keyframe ``settle(_:at:)`` took.
    private var lastSettledFrame = -1
    private var biasEstimator = GyroscopeBiasEstimator()

    /// Removes keyframes while the map holds more than `maximumKeyframes`: of those before the
    /// bundle adjustment's window and the keyframe it holds first, the one with the largest
    /// share of points that three other keyframes see (the oldest of equals), then the points no
    /// keyframe sees and no track follows. A camera that films one place for minutes keeps
    /// adding keyframes of it; this keeps the map (and refind, relocalisation, plane finding over
    /// it) bounded, and keeps the keyframes that alone see some part of the place.
    mutating func cullKeyframes(of map: inout OdometryMap, tracker: inout FrameTracker) {
        let keyframes = map.keyframes
        let removable = keyframes.count - parameters.localWindow - 1
        guard keyframes.count > parameters.maximumKeyframes, removable > 0 else { return }
        var views = map.viewCounts
        var removed = Set<Int>()
        while keyframes.count - removed.count > parameters.maximumKeyframes {
            var best: (keyframe: Int, share: Double)?
            for k in 0..<removable where !removed.contains(k) {
                let observations = keyframes[k].observations
                let shared = observations.reduce(0) { $0 + (views[$1.point] > 3 ? 1 : 0) }   // itself and 3 more
                let share = observations.isEmpty ? 1 : Double(shared) / Double(observations.count)
                if best == nil || share > best!.share { best = (k, share) }
            }
            guard let best else { break }
            removed.insert(best.keyframe)
            for o in keyframes[best.keyframe].observations { views[o.point] -= 1 }
        }
        guard !removed.isEmpty else { return }
        var followed = [Bool](repeating: false, count: map.points.count)
        for t in tracker.tracks { if let p = t.point { followed[p] = true } }
        let index = map.compact(removing: removed, views: views, followed: followed)
        tracker.renumber(points: index.points, keyframes: index.keyframes)
        densifier.renumberKeyframes { index.keyframes[$0] }
    }
}
