/// Camera poses recorded by another system (`PoseFile` in AnchorKitMedia): no odometry is run. The poses are
/// taken to be metric and already in the world the user wants (a phone's AR session exports
/// gravity-aligned ones).
public final class ExternalPoseTracker: WorldTracker {
    private let poses: [Int: Transform]
    private var last: Transform?

    /// `poses`: `world_from_camera` by frame index.
    public init(poses: [Int: Transform]) { self.poses = poses }

    /// The recorded pose (landmarks are not needed). A frame missing from the file is
    /// `notAvailable` (its transform is the last known one, as ARKit keeps it).
    package func locate(_ frame: Frame, landmarks: [Landmark]) throws -> CameraLocation {
        guard let pose = poses[frame.index] else {
            return CameraLocation(worldFromCamera: last, trackingState: .notAvailable, scale: .metric)
        }
        last = pose
        return CameraLocation(worldFromCamera: pose, trackingState: .normal, scale: .metric)
    }

    /// Recorded poses are metric already.
    public func rescale(by factor: Double) {}

    /// No map.
    package var trackedPoints: [TrackedPoint] { [] }

    /// The recorded world is not a camera's.
    public var originFrame: Int? { nil }

    /// No map.
    public var mapPoints: [SIMD3<Double>] { [] }
    package var mapViews: [MapView] { [] }
    public var mapRevision: Int { 0 }
}
