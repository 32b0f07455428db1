/// The camera of one processed frame (ARCamera): its pose, tracking state and intrinsics.
public struct CameraState: Equatable, Sendable {
    /// `world_from_camera` in ARKit's camera convention (+y up, looking along -z). The identity
    /// when there is no world tracking (world is each frame's own camera).
    public var transform: Transform
    /// How far ``transform`` can be trusted.
    public var trackingState: TrackingState
    /// The intrinsics of the frame's image (for a decoded stream, those given to the decoder in
    /// `userInfo[.cameraIntrinsics]`).
    public var intrinsics: CameraIntrinsics
    /// Whether world distances are metres (`.metric`) or in an unknown unit (`.arbitrary`:
    /// monocular odometry before any target of known size was seen). Nil without world tracking.
    public var scale: WorldScale?
    /// The stated uncertainty of the camera's position in the world: one standard deviation
    /// along its least certain direction, world units (metres when ``scale`` is `.metric`).
    /// Frame to frame the position does not jump by much more than this (a few times it, as
    /// for any error with this deviation). Nil when none is stated: no world tracking, or no
    /// position yet (a camera that has only turned). The stream's optional
    /// `camera.positionAccuracy`.
    public var positionAccuracy: Double?
    /// On the frame whose world was rescaled (a target of known size, an inertial log or position
    /// fixes gave the metric scale, or refined it): the factor every world length was multiplied
    /// by, about the world's origin. Anchors the session holds move with it; content an engine
    /// placed at world coordinates of its own should be scaled the same way. Nil on every other
    /// frame. The stream's optional `camera.rescaled`.
    public var worldRescale: Double?

    public init(transform: Transform = .identity, trackingState: TrackingState = .normal,
                intrinsics: CameraIntrinsics, scale: WorldScale? = nil, positionAccuracy: Double? = nil,
                worldRescale: Double? = nil) {
        self.transform = transform
        self.trackingState = trackingState
        self.intrinsics = intrinsics
        self.scale = scale
        self.positionAccuracy = positionAccuracy
        self.worldRescale = worldRescale
    }

    /// The view matrix, `camera_from_world` (ARCamera.viewMatrix for landscape-right), column-major.
    public var viewMatrix: Transform { transform.inverse }

    /// The view matrix for a display in `orientation` (`ARCamera.viewMatrix(for:)`):
    /// `display_from_world = displayFromCamera * camera_from_world`, whose +x and +y are the
    /// display's right and up. Pair it with ``projectionMatrix(for:viewportSize:zNear:zFar:)``.
    public func viewMatrix(for orientation: InterfaceOrientation) -> Transform {
        orientation.displayFromCamera * transform.inverse
    }

    /// The projection matrix for a viewport of `viewportSize` points showing this frame in
    /// `orientation` with aspect fill (`ARCamera.projectionMatrix(for:viewportSize:zNear:zFar:)`).
    /// `projection * viewMatrix(for:) * p` is the clip-space position of world point p.
    public func projectionMatrix(for orientation: InterfaceOrientation, viewportSize: SIMD2<Double>,
                                 zNear: Double = 0.001, zFar: Double = 1000) -> Matrix4 {
        intrinsics.projectionMatrix(for: orientation, viewportSize: viewportSize, zNear: zNear, zFar: zFar)
    }

    /// The pixel of this frame's image where world point `worldPoint` appears (OpenCV's pixel
    /// convention, lens distortion applied); nil behind the camera.
    public func project(_ worldPoint: SIMD3<Double>) -> SIMD2<Double>? {
        intrinsics.project(transform.inverse.apply(to: worldPoint))
    }

    /// Where world point `worldPoint` appears in a viewport of `viewportSize` points showing this
    /// frame in `orientation` with aspect fill (`ARCamera.projectPoint(_:orientation:viewportSize:)`):
    /// top-left origin, points. Nil behind the camera.
    public func projectPoint(_ worldPoint: SIMD3<Double>, orientation: InterfaceOrientation, viewportSize: SIMD2<Double>) -> SIMD2<Double>? {
        guard let pixel = project(worldPoint) else { return nil }
        return intrinsics.viewportPoint(ofPixel: pixel, orientation: orientation, viewportSize: viewportSize)
    }

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
