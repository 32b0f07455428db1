import AnchorKitCV
import Foundation

/// Monocular visual odometry: the camera's pose in a fixed world, frame by frame, from the
/// frames alone (ARKit's world tracking without the IMU).
///
/// - Points are followed by pyramidal Lucas–Kanade flow from frame to frame.
/// - Initialisation: two views with enough parallax, the homography or the essential matrix
///   chosen by their scores (a scene that is mostly one plane favours the homography), the
///   inliers triangulated. The world is the first of the two cameras; its unit is the distance
///   between them (arbitrary) until ``rescale(by:)``.
/// - Tracking: PnP with RANSAC against the map; new keyframes when the map seen thins out; new
///   points triangulated between keyframes; map points that flow lost found again in each new
///   keyframe by their ORB descriptors; local bundle adjustment over the last keyframes, held
///   to the keyframes before them that see the same points.
/// - Relocalisation: when too few map points are followed, ORB features of the frame are
///   matched against the descriptors of map points seen in keyframes, the pose found by PnP and
///   refined as a new keyframe's.
///
/// Internally poses are `opencvCamera_from_world` with the world the origin keyframe's OpenCV
/// camera frame; `locate(_:)` reports `arkitWorld_from_arkitCamera`, with the ARKit world the
/// origin camera's ARKit frame: `F · inverse(cv) · F`, `F = diag(1, -1, -1)`.
public final class VisualOdometry: WorldTracker {
    /// Thresholds of the pipeline.
    public struct Parameters: Sendable {
        /// Points followed at most, and the least distance between them (px).
        public var maximumPoints = 600
        public var minimumSpacing = 12.0
        /// Median flow since the reference frame (px) before a two-view initialisation is tried.
        public var initialisationFlow = 20.0
        /// Least PnP inliers for a pose; at least `normalInliers` for `normal` tracking.
        public var minimumInliers = 20
        public var normalInliers = 60
        /// Reprojection error threshold (px) of PnP, triangulation and bundle adjustment.
        public var reprojectionThreshold = 2.5
        /// A new keyframe when fewer than this share of the last keyframe's map points is
        /// followed, or after `keyframeInterval` frames.
        public var keyframeOverlap = 0.75
        public var keyframeInterval = 12
        /// Keyframes in the local bundle adjustment window.
        public var localWindow = 7
        /// Median frame-to-frame flow (px) above which motion is reported as excessive.
        public var excessiveFlow = 60.0
        /// How many map points one landmark (an anchor corner of known position) counts as.
        public var landmarkWeight = 4
        /// How far (px) from where a lost map point projects into a new keyframe a feature may be
        /// to be that point again, and the most bits their ORB descriptors may differ by.
        public var refindRadius = 8.0
        public var refindDistance = 50
        /// Keyframes the map holds at most. Past this, the keyframe whose points the most other
        /// keyframes see (ORB-SLAM's redundancy) is removed with the points only it saw, so that
        /// memory and the time of every search over the map stay bounded on long videos.
        public var maximumKeyframes = 100
        public init() {}
    }

    private struct Track {
        var position: SIMD2<Float>
        /// The map point this track is the image of.
        var point: Int?
        /// Where the track was in the keyframe (or initialisation reference) it started in.
        var origin: (keyframe: Int, position: SIMD2<Float>)
    }

    private struct Keyframe {
        let frame: Int
        var pose: Transform                     // opencvCamera_from_world
        var observations: [(point: Int, position: SIMD2<Float>)]
        /// Landmarks seen in this keyframe that hold the map (``Landmark/holdsMap``): OpenCV
        /// world axes, ideal pixels. Fixed points of the bundle adjustment.
        var landmarks: [(position: SIMD3<Double>, pixel: SIMD2<Float>)] = []
    }

    private let camera: CameraIntrinsics
    private let parameters: Parameters
    private var previous: FlowPyramid?
    private var tracks: [Track] = []
    private var points: [SIMD3<Double>] = []            // world, OpenCV axes
    /// The keyframes that observed each point, oldest first (a few may have dropped it since):
    /// the local bundle adjustment finds the keyframes to hold from its points, not by scanning
    /// every keyframe, which would grow with the length of the video.
    private var observers: [[Int]] = []
    private var keyframes: [Keyframe] = []
    /// ORB descriptors of map points seen in keyframes, one per point and keyframe (the point in
    /// `mapDescribed`, the keyframe in `mapDescribedIn`): for relocalisation, and (the latest of
    /// each point, ``describedAt``) for finding lost points.
    private var mapKeypoints: [ak_keypoint] = [], mapDescriptors: [UInt8] = [], mapDescribed: [Int] = []
    private var mapDescribedIn: [Int] = []
    /// Where each described point's descriptor is in `mapDescribed`.
    private var describedAt: [Int: Int] = [:]
    private var relocaliser: FeatureSet?
    /// The initialisation's reference frame (tracks' origins point at keyframe -1 until then).
    private var reference: Int?
    private var pose: Transform?                        // last opencvCamera_from_world
    private var velocity = Transform.identity           // last frame-to-frame motion (cv)
    private var metric = false
    private var lost = false
    public private(set) var originFrame: Int?
    public private(set) var mapRevision = 0

    /// Points for plane detection and raycasts only (``mapPoints``), triangulated between
    /// keyframes when the map is asked for.
    private var densifier = MapDensifier()

    private var poseSolver = PointPoseSolver()
    private var triangulator = Triangulator()
    private var adjuster = BundleAdjuster()

    public init(camera: CameraIntrinsics, parameters: Parameters = Parameters()) {
        self.camera = camera
        self.parameters = parameters
        poseSolver.reprojectionThreshold = parameters.reprojectionThreshold
        triangulator.maxReprojectionError = parameters.reprojectionThreshold
        adjuster.inlierThreshold = parameters.reprojectionThreshold
    }

    package func locate(_ frame: Frame, landmarks: [Landmark]) throws -> CameraLocation {
        let gray = try frame.gray()
        let pyramid = try frame.flowPyramid()
        defer { previous = pyramid }
        let flow = try follow(into: pyramid)

        let state: TrackingState
        do {
            if keyframes.isEmpty {
                if try initialise(frame: frame.index, gray: gray) {
                    state = .normal
                } else {
                    // Initialising needs texture to follow: say what is missing.
                    state = reference == nil ? .limited(Self.isDark(gray) ? .lowLight : .insufficientFeatures) : .limited(.initializing)
                }
            } else {
                state = try track(frame: frame.index, gray: gray, pyramid: pyramid, flow: flow, landmarks: landmarks)
            }
        } catch {
            // A native failure (odd geometry, a degenerate solve) costs this frame, not the run:
            // the map stays as it was, and the next frame finds the camera against it again.
            lost = !keyframes.isEmpty
            state = keyframes.isEmpty ? .limited(.initializing) : .limited(.relocalizing)
        }
        let scale: WorldScale = metric ? .metric : .arbitrary
        guard let pose, !keyframes.isEmpty else {
            return CameraLocation(worldFromCamera: nil, trackingState: state, scale: scale)
        }
        // arkitWorld_from_arkitCamera = F · cvWorld_from_cvCamera · F (F = F⁻¹ = diag(1, -1, -1)).
        let flip = CameraConvention.flip
        return CameraLocation(worldFromCamera: flip * pose.inverse * flip, trackingState: state, scale: scale)
    }

    package var trackedPoints: [TrackedPoint] {
        guard let pose, !lost else { return [] }
        return tracks.compactMap { t in
            guard let id = t.point else { return nil }
            let depth = pose.apply(to: points[id]).z  // OpenCV camera: +z forward
            return TrackedPoint(pixel: SIMD2(Double(t.position.x), Double(t.position.y)), depth: depth)
        }
    }

    public func rescale(by factor: Double) {
        points = points.map { $0 * factor }
        for k in keyframes.indices {
            keyframes[k].pose = keyframes[k].pose.translationScaled(by: factor)
            keyframes[k].landmarks = keyframes[k].landmarks.map { ($0.position * factor, $0.pixel) }
        }
        pose = pose?.translationScaled(by: factor)
        velocity = velocity.translationScaled(by: factor)
        densifier.rescale(by: factor)
        metric = true
        mapRevision += 1
    }

    /// The tracked map's points, then the denser points triangulated between keyframes for the
    /// map's users (`MapDensifier`; found here, on first demand after each keyframe).
    public var mapPoints: [SIMD3<Double>] {
        // A failure of the dense step (a native error on odd input) costs only the extra points.
        try? densifier.densify(camera: camera)
        // ARKit world = F · OpenCV world, F = diag(1, -1, -1) (the world is a camera's frame).
        return mappedPoints.compactMap { $0.map { points[$0] * SIMD3(1, -1, -1) } }
            + densifier.points.map { $0 * SIMD3(1, -1, -1) }
    }

    package var mapViews: [MapView] {
        var index = [Int?](repeating: nil, count: points.count), n = 0
        for id in mappedPoints { if let id { index[id] = n; n += 1 } }
        return keyframes.map { k in
            // The camera centre in the OpenCV world is -Rᵀt; ARKit world = F · OpenCV world.
            MapView(centre: k.pose.inverse.translation * SIMD3(1, -1, -1),
                    points: k.observations.compactMap { index[$0.point] })
        }
    }

    /// The map points' indices in the order ``mapPoints`` lists them: those seen from at least
    /// two keyframes (nil for the others).
    private var mappedPoints: [Int?] {
        var views = [UInt8](repeating: 0, count: points.count)
        for k in keyframes { for o in k.observations where views[o.point] < 2 { views[o.point] += 1 } }
        return points.indices.map { views[$0] >= 2 ? $0 : nil }
    }

    /// True when the frame is too dark to track in (mean gray level under 20 of 255).
    static func isDark(_ gray: Image) -> Bool {
        gray.withPixels { first, stride in
            var sum = 0, count = 0
            for y in Swift.stride(from: 0, to: gray.height, by: 8) {
                for x in Swift.stride(from: 0, to: gray.width, by: 8) { sum += Int(first[y * stride + x]); count += 1 }
            }
            return count > 0 && sum < 20 * count
        }
    }

    // MARK: Flow

    /// Moves every track into the new frame; drops the lost ones. Returns the median flow (px).
    private func follow(into pyramid: FlowPyramid) throws -> Double {
        guard let previous, !tracks.isEmpty else { return 0 }
        let moved = try previous.track(tracks.map(\.position), into: pyramid)
        var kept: [Track] = [], flows: [Double] = []
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
    private func addTracks(gray: Image, keyframe: Int) throws {
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
            tracks.append(Track(position: q, point: nil, origin: (keyframe, q)))
        }
    }

    /// A pixel as a distortion-free pinhole camera would have seen it (geometry assumes one).
    private func ideal(_ p: SIMD2<Float>) -> SIMD2<Float> { Self.ideal(p, camera: camera) }

    /// `p` as a distortion-free pinhole `camera` would have seen it.
    static func ideal(_ p: SIMD2<Float>, camera: CameraIntrinsics) -> SIMD2<Float> {
        guard camera.hasDistortion else { return p }
        return SIMD2<Float>(camera.pinholePixel(SIMD2<Double>(p)))
    }

    // MARK: Initialisation

    /// Tries to start the map from the reference frame and this one. True once it has.
    private func initialise(frame: Int, gray: Image) throws -> Bool {
        if let ref = reference, frame - ref > 90 || tracks.count < 80 { reference = nil }
        guard reference != nil else {
            tracks = []
            try addTracks(gray: gray, keyframe: -1)
            if tracks.count >= 100 { reference = frame } else { tracks = [] }
            return false
        }
        let flows = tracks.map { Double(length($0.position - $0.origin.position)) }
        guard let median = Summary(flows)?.median, median >= parameters.initialisationFlow else { return false }
        var initialiser = TwoViewInitialiser()
        initialiser.maxReprojectionError = parameters.reprojectionThreshold
        let result = try initialiser.reconstruct(
            pixels1: tracks.map { ideal($0.origin.position) }, pixels2: tracks.map { ideal($0.position) }, camera: camera)
        guard result.isInitialised else { return false }
        // The world is the reference camera; the second keyframe is one baseline away.
        let second = result.opencvCamera2FromCamera1
        var first = Keyframe(frame: reference!, pose: .identity, observations: [])
        var current = Keyframe(frame: frame, pose: second, observations: [])
        var kept: [Track] = []
        for (i, var track) in tracks.enumerated() {
            guard let x = result.points[i] else { continue }
            let id = points.count
            points.append(x)
            observers.append([0, 1])
            first.observations.append((id, track.origin.position))
            current.observations.append((id, track.position))
            track.point = id
            kept.append(track)
        }
        tracks = kept
        keyframes = [first, current]
        mapRevision += 1
        originFrame = reference
        pose = second
        describeMap(try keyframeFeatures(gray), keyframe: 1)
        try addTracks(gray: gray, keyframe: 1)
        return true
    }

    // MARK: Tracking

    private func track(frame: Int, gray: Image, pyramid: FlowPyramid, flow: Double, landmarks: [Landmark]) throws -> TrackingState {
        let mapped = tracks.indices.filter { tracks[$0].point != nil }
        let guess = pose.map { velocity * $0 }
        var solved: (pose: Transform, inliers: [Bool])?
        if !lost && mapped.count >= parameters.minimumInliers {
            // Landmarks (anchor corners, ARKit world axes → OpenCV's by F) join the map points,
            // each counted `landmarkWeight` times: they are few but precise and drift-free.
            var world = mapped.map { points[tracks[$0].point!] }, pixels = mapped.map { ideal(tracks[$0].position) }
            for l in landmarks {
                for _ in 0..<parameters.landmarkWeight {
                    world.append(CameraConvention.flipped(l.position))
                    pixels.append(ideal(SIMD2(Float(l.pixel.x), Float(l.pixel.y))))
                }
            }
            solved = try poseSolver.solve(worldPoints: world, pixels: pixels, camera: camera,
                                          opencvCameraFromWorldGuess: guess)
                .map { ($0.opencvCameraFromWorld, Array($0.inliers.prefix(mapped.count))) }
        }
        guard let solved, solved.inliers.filter({ $0 }).count >= parameters.minimumInliers else {
            lost = true
            guard try relocalise(frame: frame, gray: gray) else { return .limited(.relocalizing) }
            // A keyframe at once: its bundle adjustment refines the pose of the whole-map match
            // (on room-walk-blackout it was 2.9 cm off, 1.6 cm after) and finds the lost points
            // around it again, where tracking from the match alone lost the map again.
            try addKeyframe(frame: frame, gray: gray, pyramid: pyramid, landmarks: landmarks)
            return .normal
        }
        // Outliers are tracks that slid off their point: drop them.
        var drop = Set<Int>()
        for (k, i) in mapped.enumerated() where !solved.inliers[k] { drop.insert(i) }
        tracks = tracks.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
        if let before = pose { velocity = solved.pose * before.inverse }
        pose = solved.pose
        let inliers = solved.inliers.filter { $0 }.count

        let last = keyframes[keyframes.count - 1]
        let followed = tracks.filter { $0.point != nil }.count
        if Double(followed) < parameters.keyframeOverlap * Double(last.observations.count)
            || frame - last.frame >= parameters.keyframeInterval || followed < 2 * parameters.normalInliers {
            try addKeyframe(frame: frame, gray: gray, pyramid: pyramid, landmarks: landmarks)
        }
        if flow > parameters.excessiveFlow { return .limited(.excessiveMotion) }
        return inliers >= parameters.normalInliers ? .normal : .limited(.insufficientFeatures)
    }

    // MARK: Keyframes

    private func addKeyframe(frame: Int, gray: Image, pyramid: FlowPyramid, landmarks: [Landmark]) throws {
        let k = keyframes.count
        var keyframe = Keyframe(frame: frame, pose: pose!, observations: [])
        // Landmarks are in ARKit world axes, the map in OpenCV's (F = diag(1, -1, -1)).
        keyframe.landmarks = landmarks.filter(\.holdsMap).map {
            (CameraConvention.flipped($0.position), ideal(SIMD2(Float($0.pixel.x), Float($0.pixel.y))))
        }
        // New points: tracks that started in an earlier keyframe, triangulated against it.
        var byOrigin: [Int: [Int]] = [:]
        for (i, t) in tracks.enumerated() where t.point == nil && t.origin.keyframe >= 0 && t.origin.keyframe < k {
            byOrigin[t.origin.keyframe, default: []].append(i)
        }
        // In keyframe order: a dictionary's order changes from run to run (hash seeding), and the
        // points' order decides the order of every later sum over them.
        for (origin, members) in byOrigin.sorted(by: { $0.key < $1.key }) {
            let found = try triangulator.triangulate(
                pixels1: members.map { ideal(tracks[$0].origin.position) }, pixels2: members.map { ideal(tracks[$0].position) },
                opencvCamera1FromWorld: keyframes[origin].pose, opencvCamera2FromWorld: keyframe.pose, camera: camera)
            for (m, i) in members.enumerated() {
                guard let x = found[m].position else { continue }
                let id = points.count
                points.append(x)
                observers.append([origin])
                keyframes[origin].observations.append((id, tracks[i].origin.position))
                tracks[i].point = id
            }
        }
        let features = try keyframeFeatures(gray)
        refind(in: features, pose: keyframe.pose, keyframe: k)
        for t in tracks {
            guard let id = t.point else { continue }
            keyframe.observations.append((id, t.position))
            observers[id].append(k)
        }
        keyframes.append(keyframe)
        try adjustLocally()
        mapRevision += 1
        pose = keyframes[k].pose
        densifier.add(.init(keyframe: k, gray: gray, pyramid: pyramid)) { i in
            MapDensifier.View(pose: self.keyframes[i].pose, observations: self.keyframes[i].observations)
        }
        describeMap(features, keyframe: k)
        try addTracks(gray: gray, keyframe: k)
        cullKeyframes()
    }

    /// Bundle adjustment of the last keyframes and the points they see, with every keyframe before
    /// them that sees those points and the landmarks that hold the map (both fixed; ORB-SLAM's
    /// fixed keyframes): the map keeps to the map made before, and so does its scale, which two
    /// held poses alone let drift (monocular scale drift), and to the anchors placed.
    private func adjustLocally() throws {
        let window = Array(max(0, keyframes.count - parameters.localWindow)..<keyframes.count)
        var pointIndex: [Int: Int] = [:], ids: [Int] = []
        var observations: [BundleAdjuster.Observation] = []
        for (c, k) in window.enumerated() {
            for o in keyframes[k].observations {
                if pointIndex[o.point] == nil { pointIndex[o.point] = ids.count; ids.append(o.point) }
                observations.append(.init(poseIndex: c, pointIndex: pointIndex[o.point]!, pixel: ideal(o.position)))
            }
        }
        var local = ids.map { points[$0] }
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
        for id in ids { for k in observers[id] where k < window[0] { before.insert(k) } }
        for k in before.sorted() {
            let seen = keyframes[k].observations.compactMap { o in pointIndex[o.point].map { (j: $0, pixel: o.position) } }
            guard !seen.isEmpty else { continue }
            held.insert(poses.count)
            for o in seen { observations.append(.init(poseIndex: poses.count, pointIndex: o.j, pixel: ideal(o.pixel))) }
            poses.append(keyframes[k].pose)
        }
        // The gauge: two held keyframes or more fix position, orientation and scale. Otherwise
        // (the first keyframes), three fixed points or more do with the oldest pose, else the two
        // oldest poses do; the second oldest has drifted with the map as much as the newer ones,
        // and holding it would fight the landmarks.
        let fixedPoses = held.count >= 2 ? held : held.union(fixed.count >= 3 ? [0] : [0, 1])
        let inliers = try adjuster.adjust(opencvCamerasFromWorld: &poses, fixedPoses: fixedPoses,
                                          points: &local, fixedPoints: fixed, observations: observations, camera: camera).inliers
        for (c, k) in window.enumerated() { keyframes[k].pose = poses[c] }
        for (j, id) in ids.enumerated() { points[id] = local[j] }
        // Observations the adjustment could not explain are dropped from the keyframes; a track
        // whose point failed in the newest keyframe lets the point go.
        var n = 0
        var failedInNewest = Set<Int>()
        for (c, k) in window.enumerated() {
            var kept: [(point: Int, position: SIMD2<Float>)] = []
            for o in keyframes[k].observations {
                if inliers[n] { kept.append(o) } else if c == window.count - 1 { failedInNewest.insert(o.point) }
                n += 1
            }
            keyframes[k].observations = kept
        }
        for i in tracks.indices { if let p = tracks[i].point, failedInNewest.contains(p) { tracks[i].point = nil } }
    }

    // MARK: Bounded map

    /// Removes keyframes while the map holds more than `maximumKeyframes`: of those before the
    /// bundle adjustment's window and the keyframe it holds first, the one with the largest
    /// share of points that three other keyframes see (the oldest of equals), then the points no
    /// keyframe sees and no track follows. A camera that films one place for minutes keeps
    /// adding keyframes of it; this keeps the map (and refind, relocalisation, plane finding over
    /// it) bounded, and keeps the keyframes that alone see some part of the place.
    private func cullKeyframes() {
        let removable = keyframes.count - parameters.localWindow - 1
        guard keyframes.count > parameters.maximumKeyframes, removable > 0 else { return }
        var views = [Int32](repeating: 0, count: points.count)
        for k in keyframes { for o in k.observations { views[o.point] += 1 } }
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
        compact(removing: removed, views: views)
    }

    /// Drops keyframes `removed` and the points that `views` (keyframes seeing each point, after
    /// the removal) and the tracks leave unseen, and renumbers what refers to either.
    private func compact(removing removed: Set<Int>, views: [Int32]) {
        guard !removed.isEmpty else { return }
        var keyframeIndex = [Int?](repeating: nil, count: keyframes.count), pointIndex = [Int?](repeating: nil, count: points.count)
        var kept = 0
        for k in keyframes.indices where !removed.contains(k) { keyframeIndex[k] = kept; kept += 1 }
        var followed = [Bool](repeating: false, count: points.count)
        for t in tracks { if let p = t.point { followed[p] = true } }
        kept = 0
        for p in points.indices where views[p] > 0 || followed[p] { pointIndex[p] = kept; kept += 1 }

        points = points.indices.compactMap { pointIndex[$0] == nil ? nil : points[$0] }
        observers = observers.indices.compactMap { p in pointIndex[p] == nil ? nil : observers[p].compactMap { keyframeIndex[$0] } }
        keyframes = keyframes.indices.compactMap { k in
            guard keyframeIndex[k] != nil else { return nil }
            var keyframe = keyframes[k]
            keyframe.observations = keyframe.observations.compactMap { o in pointIndex[o.point].map { ($0, o.position) } }
            return keyframe
        }
        // A track that started in a removed keyframe starts in none: it is never triangulated.
        for i in tracks.indices {
            tracks[i].point = tracks[i].point.flatMap { pointIndex[$0] }
            if tracks[i].origin.keyframe >= 0 { tracks[i].origin.keyframe = keyframeIndex[tracks[i].origin.keyframe] ?? -1 }
        }
        var keypoints: [ak_keypoint] = [], descriptors: [UInt8] = [], described: [Int] = [], describedIn: [Int] = []
        describedAt = [:]
        for slot in mapDescribed.indices {
            guard let p = pointIndex[mapDescribed[slot]], let k = keyframeIndex[mapDescribedIn[slot]] else { continue }
            describedAt[p] = described.count   // the last kept slot of a point is its latest view
            keypoints.append(mapKeypoints[slot])
            descriptors.append(contentsOf: mapDescriptors[(32 * slot)..<(32 * slot + 32)])
            described.append(p)
            describedIn.append(k)
        }
        (mapKeypoints, mapDescriptors, mapDescribed, mapDescribedIn) = (keypoints, descriptors, described, describedIn)
        relocaliser = nil
        densifier.renumberKeyframes { keyframeIndex[$0] }
    }

    // MARK: Map descriptors

    /// A keyframe's ORB features: they describe the map points it follows, and find lost ones.
    private func keyframeFeatures(_ gray: Image) throws -> FeatureSet {
        var p = FeatureSet.Parameters()
        p.maximumCount = 800
        return try FeatureSet(image: gray, parameters: p)
    }

    /// Stores the ORB descriptors of the map points followed in keyframe `k` (the keypoint of
    /// `features`, the keyframe's, nearest each track, within 2 px).
    private func describeMap(_ features: FeatureSet, keyframe k: Int) {
        var byCell: [SIMD2<Int32>: Int] = [:]
        for t in tracks { if let id = t.point { byCell[SIMD2(Int32(t.position.x / 2), Int32(t.position.y / 2))] = id } }
        let all = features.descriptors, keypoints = features.keypoints
        for (i, q) in features.points.enumerated() {
            guard let id = byCell[SIMD2(Int32(q.x / 2), Int32(q.y / 2))] else { continue }
            describedAt[id] = mapDescribed.count  // the latest view: nearest the frames to come
            mapKeypoints.append(keypoints[i])
            mapDescriptors.append(contentsOf: all[(32 * i)..<(32 * i + 32)])
            mapDescribed.append(id)
            mapDescribedIn.append(k)
        }
        relocaliser = nil
    }

    /// Map points that flow lost (they left the view or were hidden) and that project into the
    /// new keyframe near a feature with their descriptor become tracks again, so the keyframe
    /// observes the map made before rather than only points triangulated since: without this,
    /// each stretch of the walk has its own points and the scale drifts from stretch to stretch
    /// (as ORB-SLAM searches its local map; here every described point is a candidate, and those
    /// outside the view are skipped by their projection).
    private func refind(in features: FeatureSet, pose: Transform, keyframe k: Int) {
        guard !mapDescribed.isEmpty, !features.points.isEmpty else { return }
        let radius = Float(parameters.refindRadius), cell = radius
        var grid: [SIMD2<Int32>: [Int]] = [:]
        for (i, q) in features.points.enumerated() { grid[SIMD2(Int32(q.x / cell), Int32(q.y / cell)), default: []].append(i) }
        var tracked = Set<Int>()
        for t in tracks { if let id = t.point { tracked.insert(id) } }
        let found = features.descriptors
        let w = Float(camera.width), h = Float(camera.height)
        var best: [Int: (slot: Int, distance: Int)] = [:]   // feature → the described point nearest it
        for (slot, id) in mapDescribed.enumerated() where describedAt[id] == slot && !tracked.contains(id) {
            // Map points are in OpenCV axes, `project` takes ARKit camera space (F = diag(1, -1, -1))
            // and gives pixels as the frames show them, as the features are.
            guard let pixel = camera.project(CameraConvention.flipped(pose.apply(to: points[id]))) else { continue }
            let u = Float(pixel.x), v = Float(pixel.y)
            guard u >= 0, u < w, v >= 0, v < h else { continue }
            var first = Int.max, second = Int.max, match = -1
            let cu = Int32(u / cell), cv = Int32(v / cell)
            for gy in (cv - 1)...(cv + 1) {
                for gx in (cu - 1)...(cu + 1) {
                    for i in grid[SIMD2(gx, gy)] ?? [] where length(features.points[i] - SIMD2(u, v)) <= radius {
                        let d = Self.hamming(mapDescriptors, 32 * slot, found, 32 * i)
                        if d < first { second = first; first = d; match = i } else if d < second { second = d }
                    }
                }
            }
            guard match >= 0, first <= parameters.refindDistance, Double(first) < 0.8 * Double(second) else { continue }
            if let other = best[match], other.distance <= first { continue }
            best[match] = (slot, first)
        }
        for (i, m) in best.sorted(by: { $0.key < $1.key }) {
            let q = features.points[i]
            tracks.append(Track(position: q, point: mapDescribed[m.slot], origin: (k, q)))
        }
    }

    /// Bits that differ between two 32-byte ORB descriptors.
    private static func hamming(_ a: [UInt8], _ i: Int, _ b: [UInt8], _ j: Int) -> Int {
        var d = 0
        for n in 0..<32 { d += (a[i + n] ^ b[j + n]).nonzeroBitCount }
        return d
    }

    // MARK: Relocalisation

    /// Finds the camera against the whole map by ORB matching and PnP; on success the matched
    /// points become tracks again.
    private func relocalise(frame: Int, gray: Image) throws -> Bool {
        guard !mapDescribed.isEmpty else { return false }
        if relocaliser == nil { relocaliser = try FeatureSet(keypoints: mapKeypoints, descriptors: mapDescriptors) }
        var p = FeatureSet.Parameters()
        p.maximumCount = 1000
        let features = try FeatureSet(image: gray, parameters: p)
        let matches = try features.match(against: relocaliser!).filter { $0.isDistinctive(ratio: 0.8) }
        guard matches.count >= parameters.minimumInliers else { return false }
        guard let solved = try poseSolver.solve(
            worldPoints: matches.map { points[mapDescribed[$0.train]] }, pixels: matches.map { ideal(features.points[$0.query]) },
            camera: camera),
            solved.inlierCount >= 2 * parameters.minimumInliers else { return false }
        // Origin keyframe -1: no keyframe holds these positions, so a track whose point is let go
        // is never triangulated against one.
        tracks = zip(matches, solved.inliers).filter(\.1).map { m, _ in
            Track(position: features.points[m.query], point: mapDescribed[m.train], origin: (-1, features.points[m.query]))
        }
        pose = solved.opencvCameraFromWorld
        velocity = .identity
        lost = false
        return true
    }
}
