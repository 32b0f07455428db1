/// What a ``Session`` tracks and how (ARConfiguration).
public struct Configuration: Sendable {
    /// The intrinsics of the frames that will be processed.
    public var camera: CameraIntrinsics
    /// Printed marker families to track (empty: no marker tracking).
    public var markers: [MarkerSet]
    /// ArUco detector parameters.
    public var markerDetection = MarkerDetectionParameters()
    /// How the marker tracker resolves pose ambiguities.
    public var markerTracking = MarkerTracker.Parameters()

    public init(camera: CameraIntrinsics, markers: [MarkerSet] = []) {
        self.camera = camera
        self.markers = markers
    }

    /// The configuration a recorded sequence describes (its camera and targets).
    public init(sequence: SequenceDescription) {
        self.init(camera: sequence.camera, markers: sequence.markers ?? [])
    }
}
