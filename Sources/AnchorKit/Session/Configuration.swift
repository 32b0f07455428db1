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
    /// QR codes (and Micro QR, Data Matrix, Aztec codes) to track, by printed size (nil: none).
    public var qrCodes: QRCodeSet?
    /// How codes are read and followed.
    public var qrTracking = QRCodeTracker.Parameters()
    /// Reference images to find and follow (nil: no image tracking).
    public var referenceImages: ReferenceImageSet?
    /// How images are detected and followed.
    public var imageTracking = ImageTracker.Parameters()
    /// How the camera is followed through the world (nil: no world tracking; the world is each
    /// frame's own camera and `camera.transform` is the identity).
    public var worldTracking: WorldTracking?
    /// Gravity per frame index, in that frame's camera space (ARKit convention, m/s^2). With
    /// odometry, the first frame's gravity aligns the world (+y up); without it the world is
    /// the first camera's frame. Reference images lying level are also searched in a top view
    /// from each frame's gravity (``SurfaceView/init(levelSurfacesSeenWith:camera:steepestRay:maximumSide:)``).
    public var gravity: [Int: SIMD3<Double>]?
    /// How the world's axes are set with visual odometry (ARConfiguration.worldAlignment): by
    /// gravity alone (the default), or by gravity and the compass.
    public var worldAlignment = WorldAlignment.gravity
    /// An inertial log recorded with the frames (ARKit camera axes). With visual odometry it makes
    /// the map metric without a target of known size (``InertialSample``; the linear visual-inertial
    /// initialisation, after about 5 s of motion), and its gyroscope holds the odometry's rotations
    /// (``VisualOdometry/Parameters/gyroscopeTurnSigma``).
    public var inertial: [InertialSample]?
    /// How high the camera is held above the floor while filming, metres (typical: 1.3-1.6 m
    /// walking). The fallback for a metric map without a target or an inertial log: with plane
    /// detection of horizontal planes and gravity, once the floor (the lowest horizontal plane) is
    /// found, the map is rescaled so that the camera's mean height above it is this.
    public var cameraHeight: Double?

    /// Still photos: every frame stands alone. Trackers carry nothing between frames (markers
    /// need no confirmation and are not filtered; images are detected afresh) and a frame's update
    /// lists only what it saw. Not with world tracking.
    public var independentFrames = false

    /// Whether each update carries a ``LightEstimate`` (ARConfiguration.isLightEstimationEnabled;
    /// well under 0.1 ms a frame).
    public var estimatesLight = true

    /// Which planes to detect (needs visual odometry: planes are found in its map). Empty: none.
    public var planeDetection: PlaneDetection = []
    /// How planes are found.
    public var planeFinding = PlaneDetection.Parameters()

    /// Position fixes and compass readings recorded beside the frames (times in seconds of the
    /// video), for geo tracking; more can be handed to the session as they come
    /// (``Session/add(_:)-(LocationFix)``). Needs world tracking.
    public var location: LocationLog?
    /// Places given by coordinate, reported as `geo` anchors once the world is localised.
    public var geoAnchors: [GeoAnchor] = []
    /// How the world is placed on the Earth.
    public var geoTracking = GeoTracker.Parameters()

    /// How the world's axes are set (ARConfiguration.WorldAlignment). Either way the origin is
    /// odometry's origin camera (the first it located) and units are metres once the world is
    /// metric; ARKit's `.camera` is not offered (without world tracking the world is each frame's
    /// camera anyway).
    public enum WorldAlignment: String, Sendable, CaseIterable {
        /// +y up (against ``Configuration/gravity`` at odometry's origin frame), -z where the
        /// origin camera looks, made level, +x to its right (ARKit's `.gravity`). Without gravity
        /// the world is the origin camera's own frame.
        case gravity
        /// +y up, +x east, +z south (-z true north): ARKit's `.gravityAndHeading`, and the geo
        /// world's axes (``GeoAlignment``), so a localised world needs no turn to the geo world.
        /// Gravity at odometry's origin frame sets up; the compass reading nearest in time to that
        /// frame (``Configuration/location``'s or one handed to ``Session/add(_:)-(HeadingReading)``,
        /// at most 1 s away) sets the turn about it. Needs visual odometry, gravity and geo
        /// tracking (``Session/init(configuration:)`` throws otherwise; recorded poses are used
        /// as they are). Where no reading lies near the origin frame the world is set as by
        /// `.gravity` (``Session/isMissingWorldHeading``).
        case gravityAndHeading
    }

    /// Where camera poses come from.
    public enum WorldTracking: Sendable {
        /// Monocular visual odometry on the frames.
        case visualOdometry(VisualOdometry.Parameters)
        /// Recorded `world_from_camera` per frame index (`PoseFile` in AnchorKitMedia); no odometry runs.
        case externalPoses([Int: Transform])
    }

    public init(camera: CameraIntrinsics, markers: [MarkerSet] = [], referenceImages: ReferenceImageSet? = nil) {
        self.camera = camera
        self.markers = markers
        self.referenceImages = referenceImages
    }
}
