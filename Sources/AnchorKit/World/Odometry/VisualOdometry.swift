import AnchorKitCV
import Foundation

/// Monocular visual odometry: the camera's pose in a fixed world, frame by frame, from the
/// frames alone (ARKit's world tracking without the IMU). Its parts are laid out as ORB-SLAM's:
///
/// - `OdometryMap`: points, keyframes, their observations and the points' ORB descriptors.
/// - `MapInitialiser`: two views with enough parallax, the homography or the essential matrix
///   chosen by their scores, the inliers triangulated. The world is the first of the two
///   cameras; its unit is the distance between them (arbitrary) until ``rescale(by:)``.
/// - `FrameTracker`: points followed by pyramidal Lucas–Kanade flow from frame to frame, the
///   pose by PnP with RANSAC against the map.
/// - `LocalMapper`: a new keyframe when the map seen thins out; new points triangulated
///   between keyframes; map points that flow lost found again by their ORB descriptors; local
///   bundle adjustment over the last keyframes, held to the keyframes before them that see the
///   same points; keyframes culled to keep the map bounded.
/// - `Relocaliser`: when too few map points are followed, the frame's ORB features matched
///   against the map's descriptors, the pose found by PnP and refined as a new keyframe's.
///
/// The parts work in OpenCV's axes: poses `opencvCamera_from_world`, with the world the origin
/// keyframe's OpenCV camera frame. This type alone converts, at its boundary (see "The axis
/// boundary"): `locate(_:)` reports `arkitWorld_from_arkitCamera`, with the ARKit world the
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
        /// Fewer inliers than `minimumInliers` but at least `holdingInliers` (a plain wall in
        /// view) still give a pose, `limited(insufficientFeatures)`, when it moves its points by
        /// at most `holdingDeviation` px (median) from where the motion model puts them: few
        /// points alone can fit a wrong pose, few points that agree with the motion do not.
        public var holdingInliers = 10
        public var holdingDeviation = 12.0
        /// Frames the pose is predicted by the motion model alone when no pose is found, before
        /// tracking is reported lost (`relocalizing`).
        public var coastingFrames = 15
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
        /// With an inertial log: how far (radians) a frame's rotation may stray from the last
        /// frame's turned by the gyroscope, as far as a point may stray by one pixel. A far scene
        /// lets a sideways step pass for a turn; the gyroscope tells them apart.
        public var gyroscopeTurnSigma = 0.0003
        /// With an inertial log: how far (rad/s) the gyroscope's turn between two keyframes may
        /// stray from the map's, times their interval: what is left of its bias once estimated.
        public var gyroscopeBiasStability = 0.001
        public init() {}
    }

    private let camera: CameraIntrinsics
    private let parameters: Parameters
    private var map = OdometryMap()
    private var initialiser: MapInitialiser
    private var tracker: FrameTracker
    private var mapper: LocalMapper
    private var relocaliser: Relocaliser
    private var metric = false
    /// An inertial log's gyroscope: its turn from frame to frame holds each frame's rotation, and
    /// from keyframe to keyframe the map's (``Parameters/gyroscopeTurnSigma``,
    /// ``Parameters/gyroscopeBiasStability``); it carries the frames whose pose the motion carries
    /// (too little texture), where without it the last frame-to-frame turn is repeated. Its bias
    /// is refined from the map as the walk goes on.
    package var gyroscope: GyroscopeRotation? {
        get { mapper.gyroscope }
        set { mapper.gyroscope = newValue }
    }
    /// The time of the last frame located, seconds.
    private var lastTime: Double?
    public private(set) var originFrame: Int?
    /// Before the map starts: the initialisation's reference frame, its camera's turn from the
    /// world's (`opencvReference_from_opencvWorld`; the world is the first reference's camera),
    /// and the latest frame's turn (`opencvCamera_from_opencvWorld`) the tracks showed.
    private var referenceFrame: Int?
    /// When the reference frame was taken (seconds).
    private var referenceTime: Double?
    private var referenceFromWorld = Matrix3.identity
    private var turn: Matrix3?
    public var mapRevision: Int { map.revision }
    package private(set) var profile = StageProfile()

    public init(camera: CameraIntrinsics, parameters: Parameters = Parameters()) {
        self.camera = camera
        self.parameters = parameters
        initialiser = MapInitialiser(camera: camera, parameters: parameters)
        tracker = FrameTracker(camera: camera, parameters: parameters)
        mapper = LocalMapper(camera: camera, parameters: parameters)
        relocaliser = Relocaliser(camera: camera, parameters: parameters)
    }

    /// Follows the tracked points into `frame` (the pyramidal flow): it needs no landmarks, so
    /// the session runs it beside the target trackers.
    package func prepare(_ frame: Frame) throws {
        let following = StageProfile.now()
        let flow = try tracker.follow(into: try frame.flowPyramid())
        profile.add(.worldFlow, since: following)
        followed = (frame.index, flow)
    }
    /// The frame whose flow ``prepare(_:)`` measured, and the flow.
    private var followed: (frame: Int, flow: Double)?

    package func locate(_ frame: Frame, landmarks: [Landmark]) throws -> CameraLocation {
        let gray = try frame.gray()
        if followed?.frame != frame.index { try prepare(frame) }
        let flow = followed!.flow
        followed = nil
        let pyramid = try frame.flowPyramid()
        let landmarks = landmarks.map { opencvLandmark($0) }

        let state: TrackingState
        do {
            if map.keyframes.isEmpty {
                if try start(frame: frame.index, time: frame.time, gray: gray) {
                    state = .normal
                } else {
                    // Initialising needs texture to follow: say what is missing.
                    state = initialiser.reference == nil
                        ? .limited(Self.isDark(gray) ? .lowLight : .insufficientFeatures) : .limited(.initializing)
                }
            } else {
                state = try track(frame: frame.index, time: frame.time, gray: gray, pyramid: pyramid, flow: flow, landmarks: landmarks)
            }
        } catch {
            // A native failure (odd geometry, a degenerate solve) costs this frame, not the run:
            // the map stays as it was, and the next frame finds the camera against it again.
            tracker.lost = !map.keyframes.isEmpty
            state = map.keyframes.isEmpty ? .limited(.initializing) : .limited(.relocalizing)
        }
        lastTime = frame.time
        let scale: WorldScale = metric ? .metric : .arbitrary
        guard let pose = tracker.pose, !map.keyframes.isEmpty else {
            // Before the map, a camera that turned keeps its orientation, at the origin.
            let turned = turn.map { arkitWorldFromCamera(Transform(rotation: $0, translation: .zero)) }
            return CameraLocation(worldFromCamera: turned, trackingState: state, scale: scale)
        }
        return CameraLocation(worldFromCamera: arkitWorldFromCamera(pose), trackingState: state, scale: scale)
    }

    package var trackedPoints: [TrackedPoint] {
        guard let pose = tracker.pose, !tracker.lost else { return [] }
        return tracker.tracks.compactMap { t in
            guard let id = t.point else { return nil }
            let depth = pose.apply(to: map.points[id]).z  // OpenCV camera: +z forward
            return TrackedPoint(pixel: SIMD2(Double(t.position.x), Double(t.position.y)), depth: depth)
        }
    }

    public func rescale(by factor: Double) {
        map.rescale(by: factor)
        tracker.rescale(by: factor)
        mapper.densifier.rescale(by: factor)
        metric = true
    }

    /// The tracked map's points, then the denser points triangulated between keyframes for the
    /// map's users (`MapDensifier`; found here, on first demand after each keyframe).
    public var mapPoints: [SIMD3<Double>] {
        // A failure of the dense step (a native error on odd input) costs only the extra points.
        try? mapper.densifier.densify(camera: camera)
        return map.pointsSeenTwice.compactMap { $0.map { arkitWorldPoint(map.points[$0]) } }
            + mapper.densifier.points.map { arkitWorldPoint($0) }
    }

    package var mapViews: [MapView] {
        var index = [Int?](repeating: nil, count: map.points.count), n = 0
        for id in map.pointsSeenTwice { if let id { index[id] = n; n += 1 } }
        return map.keyframes.map { k in
            // The camera centre in the OpenCV world is -Rᵀt.
            MapView(centre: arkitWorldPoint(k.pose.inverse.translation), points: k.observations.compactMap { index[$0.point] })
        }
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

    // MARK: The axis boundary

    // The map is in OpenCV's axes (the world is the origin keyframe's OpenCV camera); ARKit's
    // world is the origin camera's ARKit frame. Both differ by F = diag(1, -1, -1) = F⁻¹, on
    // camera and world alike; these four are the only places the odometry changes axes.

    /// `arkitWorld_from_arkitCamera` = F · `inverse(opencvCamera_from_world)` · F.
    private func arkitWorldFromCamera(_ opencvCameraFromWorld: Transform) -> Transform {
        CameraConvention.flip * opencvCameraFromWorld.inverse * CameraConvention.flip
    }

    /// The gyroscope's turn from the last frame to `time` as `opencvCamera1_from_opencvCamera0`.
    private func gyroscopeTurn(to time: Double) -> Matrix3? {
        guard let lastTime else { return nil }
        return gyroscope?.opencvTurn(from: lastTime, to: time)
    }

    /// A map point in ARKit world axes: F · p.
    private func arkitWorldPoint(_ opencvWorldPoint: SIMD3<Double>) -> SIMD3<Double> {
        CameraConvention.flipped(opencvWorldPoint)
    }

    /// A landmark in the map's axes (F · position) with its ideal pixel.
    private func opencvLandmark(_ landmark: Landmark) -> MapLandmark {
        MapLandmark(position: CameraConvention.flipped(landmark.position),
                    pixel: camera.idealPixel(SIMD2(Float(landmark.pixel.x), Float(landmark.pixel.y))),
                    holdsMap: landmark.holdsMap)
    }

    // MARK: The pipeline

    /// Tries to start the map. True once it has.
    private func start(frame: Int, time: Double, gray: Image) throws -> Bool {
        // Without parallax yet, the camera's turn still shows: measured on the tracks followed
        // into this frame, before a new reference may replace them.
        turn = initialiser.turnSinceReference(tracks: tracker.tracks).map { $0 * referenceFromWorld } ?? turn
        let started = try initialiser.start(&map, frame: frame, gray: gray, tracker: &tracker)
        if let reference = initialiser.reference, reference != referenceFrame {
            // A new reference (this frame): the world stays the first one's camera, the new one
            // turned from it as this frame's turn shows (none before the first).
            if originFrame == nil { originFrame = reference }
            referenceFromWorld = referenceFrame == nil ? .identity : turn ?? referenceFromWorld
            referenceFrame = reference
            referenceTime = reference == frame ? time : nil
            turn = referenceFromWorld
        }
        guard let pose = started else { return false }
        turn = nil
        map.keyframes[0].time = referenceTime
        map.keyframes[1].time = time
        // The map starts in the reference camera's axes: turned into the world's.
        if referenceFromWorld != .identity { map.rotate(by: referenceFromWorld.transposed) }
        tracker.pose = pose * Transform(rotation: referenceFromWorld, translation: .zero)
        map.descriptors.describe(try OdometryMap.Keyframe.features(of: gray), keyframe: 1, tracks: tracker.tracks)
        try tracker.addTracks(gray: gray, keyframe: 1)
        return true
    }

    private func track(frame: Int, time: Double, gray: Image, pyramid: FlowPyramid, flow: Double,
                       landmarks: [MapLandmark]) throws -> TrackingState {
        let locating = StageProfile.now()
        let measuredTurn = gyroscopeTurn(to: time)  // the gyroscope's, for the pose and for coasting
        let located = try tracker.locate(against: map, landmarks: landmarks, turn: measuredTurn)
        profile.add(.worldPose, since: locating)
        guard let inliers = located else {
            let relocalising = StageProfile.now()
            let relocalised = try relocaliser.relocalise(gray: gray, in: map)
            profile.add(.worldPose, since: relocalising)
            guard let found = relocalised else {
                // Too little texture for a pose from the whole map (a plain wall, a blur): the
                // few points followed, if they agree with the motion, else the motion alone for a
                // few frames, while the map points still followed may come back.
                if tracker.hold() {
                    try addKeyframeIfNeeded(frame: frame, time: time, gray: gray, pyramid: pyramid, landmarks: landmarks)
                    return .limited(.insufficientFeatures)
                }
                return tracker.coast(upTo: parameters.coastingFrames, turn: measuredTurn)
                    ? .limited(Self.isDark(gray) ? .lowLight : .insufficientFeatures) : .limited(.relocalizing)
            }
            tracker.resume(at: found.pose, tracks: found.tracks)
            // A keyframe at once: its bundle adjustment refines the pose of the whole-map match
            // (on room-walk-blackout it was 2.9 cm off, 1.6 cm after) and finds the lost points
            // around it again, where tracking from the match alone lost the map again.
            try addKeyframe(frame: frame, time: time, gray: gray, pyramid: pyramid, landmarks: landmarks)
            return .normal
        }
        try addKeyframeIfNeeded(frame: frame, time: time, gray: gray, pyramid: pyramid, landmarks: landmarks)
        if flow > parameters.excessiveFlow { return .limited(.excessiveMotion) }
        return inliers >= parameters.normalInliers ? .normal : .limited(.insufficientFeatures)
    }

    /// A keyframe when the map points followed thin out or the last keyframe is old.
    private func addKeyframeIfNeeded(frame: Int, time: Double, gray: Image, pyramid: FlowPyramid, landmarks: [MapLandmark]) throws {
        let last = map.keyframes[map.keyframes.count - 1]
        let followed = tracker.tracks.filter { $0.point != nil }.count
        if Double(followed) < parameters.keyframeOverlap * Double(last.observations.count)
            || frame - last.frame >= parameters.keyframeInterval || followed < 2 * parameters.normalInliers {
            try addKeyframe(frame: frame, time: time, gray: gray, pyramid: pyramid, landmarks: landmarks)
        }
    }

    private func addKeyframe(frame: Int, time: Double, gray: Image, pyramid: FlowPyramid, landmarks: [MapLandmark]) throws {
        let start = StageProfile.now()
        defer { profile.add(.keyframes, since: start) }
        let k = map.keyframes.count
        tracker.pose = try mapper.insertKeyframe(frame: frame, time: time, gray: gray, pyramid: pyramid, landmarks: landmarks,
                                                 into: &map, tracker: &tracker)
        try tracker.addTracks(gray: gray, keyframe: k)
        mapper.cullKeyframes(of: &map, tracker: &tracker)
    }
}
