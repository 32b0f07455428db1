/// Where the camera was when a frame was taken, as a world tracker reports it.
public struct CameraLocation: Sendable {
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
public protocol WorldTracker: AnyObject {
    /// The camera's location when `frame` was taken.
    func locate(_ frame: Frame) throws -> CameraLocation
    /// Multiplies every length of the tracker's world by `factor` (the world becomes metric
    /// once a target of known size fixed the unit); later locations are `.metric`.
    func rescale(by factor: Double)
    /// The frame whose camera is the origin and axes of the tracker's world (nil before there
    /// is one, and for trackers whose world is not a camera's).
    var originFrame: Int? { get }
}
