/// Everything needed to render a synthetic recorded sequence with exact ground truth.
public struct SyntheticScene {
    /// The sequence's name (sequence.json's `name`).
    public var name: String
    /// The (distortion-free) camera.
    public var camera: CameraIntrinsics
    public var framesPerSecond = 30.0
    public var frameCount: Int
    /// Planes painted in order: background first, occluders last.
    public var planes: [ScenePlane]
    /// The camera's motion.
    public var path: CameraPath
    /// Exposure time at time t, seconds (motion blur integrates the motion over it).
    public var exposure: (Double) -> Double = { _ in 1.0 / 120 }
    /// Instants averaged per exposure.
    public var instantsPerExposure = 5
    /// Global brightness at time t (scene lighting).
    public var lighting: (Double) -> Double = { _ in 1 }
    /// Sensor noise and vignetting (gain and seed are set per frame).
    public var sensor = SceneRenderer.Finish()
    /// Gray level where no plane is seen.
    public var background = 90.0
    /// The marker sets to list in sequence.json.
    public var markers: [MarkerSet] = []
    /// Reference images that are listed in sequence.json but not in the scene (distractors).
    public var distractors: [(name: String, image: Image, physicalWidth: Double)] = []
    /// Seed of all randomness (noise, shake).
    public var seed: UInt64 = 1

    public init(name: String, camera: CameraIntrinsics, frameCount: Int, planes: [ScenePlane], path: CameraPath) {
        self.name = name; self.camera = camera; self.frameCount = frameCount; self.planes = planes; self.path = path
    }
}
