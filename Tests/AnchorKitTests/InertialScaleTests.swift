import Foundation
import Testing
@testable import AnchorKit
import AnchorKitMedia
import AnchorKitSynthesis

/// The metric scale of a map from an inertial log (`InertialScaleEstimator`), on the generator's
/// walk with its simulated phone IMU (noise and biases), and the log's file format.
@Suite("Inertial scale")
struct InertialScaleTests {
    /// room-walk-plain's walk, its poses given in a unit 10 times a metre (as a monocular map's
    /// arbitrary unit), and the log the generator writes for it: the factor found is 10 within 1 %,
    /// from 5 s of walking. (With odometry's poses: Benchmarks/README.md, "Metric scale from an
    /// inertial log".)
    @Test func scaleOfAWalkFromItsLog() throws {
        let scene = try RoomScenes.scene(named: "room-walk-plain", frameCount: 300)
        let samples = InertialSensor().samples(along: scene.path, until: 10, seed: 5)
        var estimator = InertialScaleEstimator(samples: samples)
        var factor: Double?
        var frame = 0
        while factor == nil, frame < 300 {
            let t = Double(frame) / 30
            factor = estimator.add(frame: frame, time: t, mapFromCamera: scene.path.pose(at: t).translationScaled(by: 0.1))
            frame += 1
        }
        let found = try #require(factor, "no scale in 10 s")
        let fit = try #require(estimator.fit)
        print("inertial scale: \(found) at \(Double(frame - 1) / 30) s, |g| \(length(fit.gravity)), bias \(fit.bias)")
        #expect(abs(found / 10 - 1) < 0.01)
        #expect(Double(frame - 1) / 30 < 5.6)
        // Gravity's length is held; the bias is one the generator draws (at most 0.08 per axis).
        #expect(length(fit.bias) < 0.08 * 3.0.squareRoot())
    }

    /// The gyroscope's bias from turns between keyframes 0.4 s apart: the walk's true turns
    /// against the generator's log of it (the bias it drew from the same seed), as the map's
    /// settled keyframes give them.
    @Test func gyroscopeBiasFromKeyframeTurns() throws {
        let scene = try RoomScenes.scene(named: "room-walk-plain", frameCount: 300)
        let sensor = InertialSensor()
        let samples = sensor.samples(along: scene.path, until: 10, seed: 5)
        var random = SplitMix64(seed: 5)
        for _ in 0..<3 { _ = random.nextUnit() }  // the accelerometer's bias
        let drawn = SIMD3((0..<3).map { _ in 2 * random.nextUnit() - 1 }) * sensor.gyroscopeBias
        var gyroscope = GyroscopeRotation(samples: samples)
        var estimator = GyroscopeBiasEstimator()
        let flip = CameraConvention.flip.rotation
        // opencvCamera1_from_opencvCamera0 of the true path: F · (arkitWorld_from_camera1)ᵀ · arkitWorld_from_camera0 · F.
        func visualTurn(_ t0: Double, _ t1: Double) -> Matrix3 {
            flip * scene.path.pose(at: t1).rotation.transposed * scene.path.pose(at: t0).rotation * flip
        }
        for k in 1...20 {
            let t0 = 0.4 * Double(k - 1), t1 = 0.4 * Double(k)
            let turn = try #require(gyroscope.opencvTurn(from: t0, to: t1))
            let added = estimator.add(visualTurn: visualTurn(t0, t1), gyroscopeTurn: turn, bias: gyroscope.bias, interval: t1 - t0)
            gyroscope.bias = try #require(added)
        }
        print("gyroscope bias: \(gyroscope.bias), drawn \(drawn)")
        // Within a tenth of the largest bias the generator draws (0.005 rad/s): the first-order
        // model leaves 2-3e-4 rad/s over turns of 0.1 rad.
        #expect(length(gyroscope.bias - drawn) < 5e-4)
        // A turn off by more than 0.01 rad is not taken.
        #expect(estimator.add(visualTurn: .exp(SIMD3(0, 0.02, 0)), gyroscopeTurn: .identity, bias: .zero, interval: 0.4) == nil)
    }

    /// Still: no motion, no scale (the fit is not trusted without acceleration to see).
    @Test func noScaleWithoutMotion() throws {
        let still = CameraPath(seed: 1, eye: { _ in SIMD3(0, 1.5, 0) }, lookAt: { _ in SIMD3(0, 1.5, -1) })
        var quiet = InertialSensor()
        quiet.accelerometerNoise = 0.018
        var estimator = InertialScaleEstimator(samples: quiet.samples(along: still, until: 8, seed: 2))
        var still2 = still
        still2.shakePosition = 0
        still2.shakeRotation = 0
        for frame in 0..<240 {
            let t = Double(frame) / 30
            #expect(estimator.add(frame: frame, time: t, mapFromCamera: still2.pose(at: t)) == nil)
        }
    }

    /// A camera height needs the floor: horizontal plane detection on odometry, and gravity.
    @Test func cameraHeightNeedsTheFloor() throws {
        let camera = try CameraIntrinsics(width: 640, height: 480, fx: 525, fy: 525, cx: 319.5, cy: 239.5)
        var configuration = Configuration(camera: camera)
        configuration.worldTracking = .visualOdometry(VisualOdometry.Parameters())
        configuration.cameraHeight = 1.5
        #expect { try Session(configuration: configuration) } throws: { "\($0)".contains("horizontal plane detection and gravity") }
        configuration.planeDetection = [.horizontal]
        configuration.gravity = [0: SIMD3(0, -9.81, 0)]
        _ = try Session(configuration: configuration)
        configuration.cameraHeight = -1
        #expect(throws: InputError.self) { try Session(configuration: configuration) }
    }

    /// The file round-trips; a log without its header, or in axes other than the camera's, is a
    /// one-line error naming the line.
    @Test func logFileRoundTripsAndRefusesBadLogs() throws {
        let folder = TemporaryFolder("imu")
        let samples = [InertialSample(time: 0, accelerometer: SIMD3(0.1, 9.8, -0.2), gyroscope: SIMD3(0.01, 0, -0.02)),
                       InertialSample(time: 0.005, accelerometer: SIMD3(0.2, 9.7, -0.1), gyroscope: SIMD3(0, 0.01, 0))]
        let path = folder.file("imu.jsonl")
        let lines = try InertialLog.lines(header: .init(rate: 200), samples: samples)
        try Data(lines.map { $0 + [0x0A] }.joined()).write(to: URL(fileURLWithPath: path))
        #expect(try InertialLog.read(contentsOf: path) == samples)
        let bad: [(String, String)] = [
            (#"{"time": 0, "accelerometer": [0, 9.8, 0], "gyroscope": [0, 0, 0]}"#, "no header"),
            (#"{"frame": "device"}"#, "only \"camera\""),
            ("{\"frame\": \"camera\"}\n{\"time\": 1, \"accelerometer\": [0, 9.8, 0], \"gyroscope\": [0, 0, 0]}\n{\"time\": 0.5, \"accelerometer\": [0, 9.8, 0], \"gyroscope\": [0, 0, 0]}", "does not come after"),
        ]
        for (text, mention) in bad {
            try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            #expect { try InertialLog.read(contentsOf: path) } throws: { "\($0)".contains(mention) }
        }
    }

    /// The gyroscope's turn between two instants: 0.3 rad/s about the camera's +y (a pan to the
    /// left, ARKit axes) at 200 Hz, from 0.1 s to 0.6 s, is 0.15 rad about +y, with the partial
    /// sample intervals at either end counted; an interval the log does not cover has no turn.
    @Test func gyroscopeTurnBetweenTwoInstants() throws {
        let samples = (0...200).map { InertialSample(time: Double($0) / 200 + 0.002, accelerometer: SIMD3(0, 9.81, 0),
                                                     gyroscope: SIMD3(0, 0.3, 0)) }
        let gyroscope = GyroscopeRotation(samples: samples.reversed())
        let turn = try #require(gyroscope.turn(from: 0.1, to: 0.6))
        let expected = Matrix3.rotation(angle: 0.15, axis: SIMD3(0, 1, 0))
        #expect((turn.transposed * expected).rotationAngle < 1e-9)
        // camera0_from_camera1: a point ahead of camera 1 (-z) is to the left of camera 0 (-x).
        #expect((turn * SIMD3(0, 0, -1)).x < -0.1)
        #expect(gyroscope.turn(from: 0, to: 0.5) == nil)
        #expect(gyroscope.turn(from: 0.9, to: 1.1) == nil)
    }
}
