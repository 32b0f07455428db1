/// Where the camera was when a frame was taken, as a world tracker reports it.
package struct CameraLocation: Sendable {
    /// `world_from_camera` (ARKit camera convention), in the tracker's own world: for visual
    /// odometry the first camera's frame, before any gravity alignment. Nil when unknown.
    public var worldFromCamera: Transform?
    /// How far the pose can be trusted, and why not when it cannot.
    public var trackingState: TrackingState
    /// The unit of the pose's translation.
    public var scale: WorldScale

    public init(worldFromCamera: Transform?, trackingState: TrackingState, scale: WorldScale) {
        self.worldFromCamera = worldFromCamera; self.trackingState = trackingState; self.scale = scale
    }
}

/// Follows the camera through a fixed world, one frame at a time, in capture order (ARKit's
/// world tracking).
package protocol WorldTracker: AnyObject {
    /// The work on `frame` that needs no landmarks (following the map's points into it), done
    /// before ``locate(_:landmarks:)`` and beside the target trackers; `locate` does it itself
    /// when it was not done.
    func prepare(_ frame: Frame) throws
    /// The camera's location when `frame` was taken. `landmarks` are points of known position
    /// seen in the frame (the corners of world-locked anchors), which may refine the pose.
    func locate(_ frame: Frame, landmarks: [Landmark]) throws -> CameraLocation
    /// Multiplies every length of the tracker's world by `factor` (the world becomes metric
    /// once a target of known size fixed the unit); later locations are `.metric`.
    func rescale(by factor: Double)
    /// The map points followed in the last located frame: where they are and their depth along
    /// the camera's viewing axis in the tracker's unit (empty for trackers without a map).
    var trackedPoints: [TrackedPoint] { get }
    /// The frame whose camera is the origin and axes of the tracker's world (nil before there
    /// is one, and for trackers whose world is not a camera's).
    var originFrame: Int? { get }
    /// The map's 3D points, seen from at least two keyframes, in the tracker's world (ARKit
    /// axes, before gravity alignment) and current unit; empty for trackers without a map.
    var mapPoints: [SIMD3<Double>] { get }
    /// The keyframes' views of ``mapPoints``: where each keyframe's camera was and which of the
    /// points it saw (empty for trackers without a map). The line from a camera to a point it
    /// saw crossed empty space, which is what plane detection checks its surfaces against.
    var mapViews: [MapView] { get }
    /// Changes whenever ``mapPoints`` may have changed (a keyframe was added, the map was
    /// refined or rescaled), so that users of the map redo their work only then.
    var mapRevision: Int { get }
    /// The time of the tracker's own stages (keyframes), for ``Session/profile``.
    var profile: StageProfile { get }
}

extension WorldTracker {
    package var profile: StageProfile { StageProfile() }
}

/// A keyframe's view of the map: its camera centre (in the tracker's world, ARKit axes, and
/// current unit, like ``WorldTracker/mapPoints``) and the indices into ``WorldTracker/mapPoints`` of
/// the points it saw.
package struct MapView: Sendable {
    public var centre: SIMD3<Double>
    public var points: [Int]

    public init(centre: SIMD3<Double>, points: [Int]) { self.centre = centre; self.points = points }
}

/// A point of known position seen in a frame: a corner of a world-locked marker or image.
package struct Landmark: Sendable {
    /// Position in the tracker's world (ARKit axes: the same frame as ``CameraLocation``'s
    /// poses, before gravity alignment), in the tracker's current unit.
    public var position: SIMD3<Double>
    /// Where the frame shows it, pixels.
    public var pixel: SIMD2<Double>
    /// Whether the tracker may hold its map to this point (a fixed point of its bundle
    /// adjustment) as well as locate the camera with it: for the corners of targets placed to
    /// about a centimetre. A small marker, placed from a few views many times its size away,
    /// can be several centimetres off, and a map held to it would bend.
    public var holdsMap: Bool

    public init(position: SIMD3<Double>, pixel: SIMD2<Double>, holdsMap: Bool = false) {
        self.position = position
        self.pixel = pixel
        self.holdsMap = holdsMap
    }
}

/// A map point seen in a frame: its pixel and its depth along the viewing axis (tracker units).
package struct TrackedPoint: Sendable {
    public var pixel: SIMD2<Double>
    public var depth: Double

    public init(pixel: SIMD2<Double>, depth: Double) { self.pixel = pixel; self.depth = depth }
}

extension WorldTracker {
    package func prepare(_ frame: Frame) throws {}
}
