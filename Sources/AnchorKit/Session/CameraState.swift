/// The camera of one processed frame (ARCamera): its pose, tracking state and intrinsics.
public struct CameraState: Equatable, Sendable {
    /// `world_from_camera` in ARKit's camera convention (+y up, looking along -z). The identity
    /// when there is no world tracking (world is each frame's own camera).
    public var transform: Transform
    /// How far ``transform`` can be trusted.
    public var trackingState: TrackingState
    /// The intrinsics of the frame's image.
    public var intrinsics: CameraIntrinsics?
    /// Whether world distances are metres (`.metric`) or in an unknown unit (`.arbitrary`:
    /// monocular odometry before any target of known size was seen). Nil without world tracking.
    public var scale: WorldScale?

    public init(transform: Transform = .identity, trackingState: TrackingState = .normal,
                intrinsics: CameraIntrinsics? = nil, scale: WorldScale? = nil) {
        self.transform = transform
        self.trackingState = trackingState
        self.intrinsics = intrinsics
        self.scale = scale
    }

    /// The view matrix, `camera_from_world` (ARCamera.viewMatrix for landscape-right), column-major.
    public var viewMatrix: Transform { transform.inverse }

    /// The pose of a world-space transform relative to this camera:
    /// `camera_from_x = inverse(world_from_camera) * world_from_x`.
    public func cameraFrom(_ worldFromX: Transform) -> Transform { transform.inverse * worldFromX }
}

/// The unit of world distances (the anchor stream's optional `camera.scale`).
public enum WorldScale: String, Codable, Sendable {
    /// Metres: the world was scaled by a target of known size, or came with metric poses.
    case metric
    /// Some unknown unit, fixed for the whole stream (monocular odometry alone).
    case arbitrary
}
