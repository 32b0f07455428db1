import Foundation
import AnchorKit
import AnchorKitMedia
import AnchorKitRendering
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
    /// Solid boxes (furniture), painted after `planes`, back to front from the camera at each
    /// instant (``paintOrder(eye:)``): they must stand in front of every plane of `planes`, as
    /// furniture in a room stands in front of its floor, walls and posters.
    public var boxes: [SceneBox] = []
    /// The camera's motion.
    public var path: CameraPath
    /// Exposure time at time t, seconds (motion blur integrates the motion over it).
    public var exposure: (Double) -> Double = { _ in 1.0 / 120 }
    /// Instants averaged per exposure.
    public var instantsPerExposure = 5
    /// Global brightness at time t (scene lighting), a factor on pixel values.
    public var lighting: (Double) -> Double = { _ in 1 }
    /// The light's colour temperature at time t, kelvin, for a camera balanced for daylight
    /// (6504 K: no cast); nil: daylight throughout.
    public var illuminant: ((Double) -> Double)?
    /// Sensor noise and vignetting (gain and seed are set per frame).
    public var sensor = SceneRenderer.Finish()
    /// Gray level where no plane is seen.
    public var background = 90.0
    /// The marker sets to list in sequence.json.
    public var markers: [MarkerSet] = []
    /// An inertial log to write beside the frames (`imu.jsonl`); nil: none.
    public var inertialSensor: InertialSensor?
    /// Where the scene is on the Earth, its places given by coordinate and the location log to
    /// write (`location.jsonl`); nil: nowhere.
    public var georeference: SceneGeoreference?
    /// The QR codes to list in sequence.json (each payload once, with its size).
    public var qrCodes: [SequenceDescription.QRCodeTarget] = []
    /// Reference images that are listed in sequence.json but not in the scene (distractors).
    public var distractors: [(name: String, image: Image, physicalWidth: Double)] = []
    /// Seed of all randomness (noise, shake).
    public var seed: UInt64 = 1

    public init(name: String, camera: CameraIntrinsics, frameCount: Int, planes: [ScenePlane], path: CameraPath) {
        self.name = name; self.camera = camera; self.frameCount = frameCount; self.planes = planes; self.path = path
    }
}

/// A phone's inertial sensors as the generator simulates them, at the camera's centre, in its axes:
/// white noise and a constant bias per axis (seeded), typical of phone MEMS parts (an accelerometer
/// of ~180 µg/√Hz, a gyroscope of ~0.007 °/s/√Hz at 200 Hz).
public struct InertialSensor: Sendable {
    /// Samples per second.
    public var rate = 200.0
    /// Standard deviation of each sample's noise: m/s² and rad/s.
    public var accelerometerNoise = 0.018, gyroscopeNoise = 0.0012
    /// The largest bias per axis (drawn uniformly within ±): m/s² and rad/s.
    public var accelerometerBias = 0.08, gyroscopeBias = 0.005
    public init() {}

    /// What the sensors read along `path` from time 0 to `end` (seconds, inclusive): the path's
    /// specific force and angular velocity in the camera's axes (central differences of the
    /// continuous path, 1 ms apart; scene +y is up), plus white noise and a constant bias per axis
    /// drawn from `seed`.
    public func samples(along path: CameraPath, until end: Double, seed: UInt64) -> [InertialSample] {
        var rng = SplitMix64(seed: seed)
        func uniform() -> Double { 2 * rng.nextUnit() - 1 }
        func gaussian() -> Double { rng.nextGaussian() }
        let accelerometerBias = SIMD3(uniform(), uniform(), uniform()) * self.accelerometerBias
        let gyroscopeBias = SIMD3(uniform(), uniform(), uniform()) * self.gyroscopeBias
        let h = 1e-3
        var samples: [InertialSample] = []
        var k = 0
        while Double(k) / rate <= end + 1e-9 {
            let t = Double(k) / rate
            let before = path.pose(at: t - h), now = path.pose(at: t), after = path.pose(at: t + h)
            let acceleration = (after.translation - 2 * now.translation + before.translation) / (h * h)
            // Specific force: what an accelerometer reads, a - g.
            let force = now.rotation.transposed * (acceleration - SIMD3(0, -SequenceSynthesizer.gravity, 0))
            let turn = (before.rotation.transposed * after.rotation).log / (2 * h)
            let a = SIMD3(gaussian(), gaussian(), gaussian()) * accelerometerNoise
            let g = SIMD3(gaussian(), gaussian(), gaussian()) * gyroscopeNoise
            samples.append(InertialSample(time: t, accelerometer: force + accelerometerBias + a, gyroscope: turn + gyroscopeBias + g))
            k += 1
        }
        return samples
    }
}

extension SyntheticScene {
    /// The daylight a camera balanced for it shows without a cast, kelvin.
    public static let daylightKelvin = 6504.0
    /// The frame's colour cast at time `t` on pixel values (R, G, B): the light's linear colour
    /// against daylight's, at equal luminance, through the display gamma.
    func tint(at t: Double) -> SIMD3<Double> {
        guard let kelvin = illuminant?(t) else { return SIMD3(1, 1, 1) }
        let cast = LightEstimate.planckianRGB(kelvin: kelvin) / LightEstimate.planckianRGB(kelvin: Self.daylightKelvin)
        let linear = cast / dot(LightEstimate.luminanceWeights, cast)
        let gamma = LightEstimate.displayGamma
        return SIMD3(pow(linear.x, 1 / gamma), pow(linear.y, 1 / gamma), pow(linear.z, 1 / gamma))
    }

    /// The true light of the frame at time `t`: intensity 1000 at the scene's base lighting, times the
    /// light reaching the sensor (``lighting`` and the sensor's gain, factors on pixel values, hence
    /// the gamma), and the illuminant's temperature.
    func light(at t: Double) -> LightEstimate {
        LightEstimate(ambientIntensity: 1000 * pow(lighting(t) * sensor.gain, LightEstimate.displayGamma),
                      ambientColorTemperature: illuminant?(t) ?? Self.daylightKelvin)
    }
    /// Every plane of the scene: `planes`, then each box's faces and decals. Ground truth lists
    /// targets and surfaces in this order; ``paintOrder(eye:)`` indexes it.
    public var allPlanes: [ScenePlane] {
        planes + boxes.flatMap { $0.faces + $0.decals }
    }

    /// The planes painted for a camera at `eye` (world, metres), as indices into ``allPlanes``,
    /// back to front: `planes` in their order, then the boxes from the farthest, each with the
    /// faces it turns to the camera, followed by its decals when its top is among them.
    /// Without boxes this is simply every plane in order.
    public func paintOrder(eye: SIMD3<Double>) -> [Int] {
        var order = Array(planes.indices)
        guard !boxes.isEmpty else { return order }
        var first: [Int] = []  // index of each box's first face in allPlanes
        var next = planes.count
        for box in boxes {
            first.append(next)
            next += box.faces.count + box.decals.count
        }
        // Start from the farthest centre and fix pairs that a separating plane orders the other
        // way (a few boxes: a bubble sort is plenty).
        var boxOrder = boxes.indices.sorted { a, b in
            let da = length((boxes[a].minimum + boxes[a].maximum) / 2 - eye)
            let db = length((boxes[b].minimum + boxes[b].maximum) / 2 - eye)
            return da != db ? da > db : a < b
        }
        for _ in boxOrder.indices {
            for k in boxOrder.indices.dropLast() where boxes[boxOrder[k]].isInFront(of: boxes[boxOrder[k + 1]], eye: eye) == true {
                boxOrder.swapAt(k, k + 1)
            }
        }
        for b in boxOrder {
            let seen = boxes[b].facesSeen(from: eye)
            order += seen.map { first[b] + $0 }
            if seen.contains(0) {  // the top: its decals lie on it
                order += boxes[b].decals.indices.map { first[b] + boxes[b].faces.count + $0 }
            }
        }
        return order
    }
}
