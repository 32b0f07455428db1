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
    /// Reference images to find and follow (nil: no image tracking).
    public var referenceImages: ReferenceImageSet?
    /// How images are detected and followed.
    public var imageTracking = ImageTracker.Parameters()

    public init(camera: CameraIntrinsics, markers: [MarkerSet] = [], referenceImages: ReferenceImageSet? = nil) {
        self.camera = camera
        self.markers = markers
        self.referenceImages = referenceImages
    }

    /// The configuration a recorded sequence describes (its camera, markers and reference
    /// images, loaded from the sequence folder).
    public init(sequence: RecordedSequence) throws {
        let d = sequence.description
        let images = try d.images.flatMap { $0.isEmpty ? nil : try ReferenceImageSet(targets: $0, folder: sequence.folder) }
        self.init(camera: d.camera, markers: d.markers ?? [], referenceImages: images)
    }
}
