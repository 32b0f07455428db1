import Foundation

/// The synthetic marker sequences: named, deterministic scenes of printed markers filmed by a
/// handheld 640x480 camera.
public enum MarkerScenes {
    /// Names of the scenes ``scene(named:frameCount:)`` builds.
    public static let names = ["markers-aruco-table", "markers-apriltag-far", "markers-blur"]

    /// A standard 640x480 camera (fx = fy = 525 px).
    public static func standardCamera(width: Int = 640, height: Int = 480) -> CameraIntrinsics {
        let f = 525.0 * Double(width) / 640
        return try! CameraIntrinsics(width: width, height: height, fx: f, fy: f,
                                     cx: Double(width - 1) / 2, cy: Double(height - 1) / 2)
    }

    /// Builds the named scene; `frameCount` overrides its default length.
    public static func scene(named name: String, frameCount: Int? = nil) throws -> SyntheticScene {
        switch name {
        case "markers-aruco-table": return try arucoTable(frameCount: frameCount ?? 120)
        case "markers-apriltag-far": return try aprilTagFar(frameCount: frameCount ?? 120)
        case "markers-blur": return try blur(frameCount: frameCount ?? 90)
        default: throw MarkerError("unknown scene \"\(name)\" (known: \(names.joined(separator: ", ")))")
        }
    }

    /// A printed marker: the code with a white quiet zone, as a plane of the scene.
    static func markerPlane(_ dictionary: MarkerDictionary, id: Int, size: Double, pose: Transform) throws -> ScenePlane {
        let side = 240, margin = 60
        let texture = try dictionary.image(id: id, side: side, margin: margin)
        let paper = size * Double(side + 2 * margin) / Double(side)
        return ScenePlane(texture: texture, size: SIMD2(paper, paper), pose: { _ in pose },
                          target: .init(identifier: Anchor.markerIdentifier(dictionary: dictionary.name, id: id), kind: .marker, name: String(id),
                                        extent: SIMD2(size, size)))
    }

    /// A horizontal plane facing up: the anchor frame's +y is world +y, +z toward the viewer.
    static func lying(at p: SIMD3<Double>, yaw: Double = 0) -> Transform {
        Transform(rotation: .rotation(angle: yaw, axis: SIMD3(0, 1, 0)), translation: p)
    }

    /// A vertical plane facing +z (a wall seen from +z): +y along world +z, +z down.
    static func standing(at p: SIMD3<Double>, roll: Double = 0) -> Transform {
        let wall = Matrix3(columns: (SIMD3(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, -1, 0)))
        return Transform(rotation: wall * .rotation(angle: roll, axis: SIMD3(0, 1, 0)), translation: p)
    }

    /// Four DICT_4X4_50 markers of 8 cm on a table, an orbiting handheld camera 0.45–0.8 m away
    /// tilting up to ~50°, lighting that drifts by ±30 %, and a card swept over two markers.
    static func arucoTable(frameCount: Int) throws -> SyntheticScene {
        let dictionary = try MarkerDictionary(named: "DICT_4X4_50")
        let table = ScenePlane(texture: try PhotoLibrary.photo("fruits.jpg"), size: SIMD2(1.2, 0.9), pose: { _ in lying(at: .zero) })
        let layout: [(Int, SIMD3<Double>, Double)] = [
            (3, SIMD3(-0.11, 0.001, -0.06), 0.0), (7, SIMD3(0.09, 0.001, -0.07), 0.5),
            (21, SIMD3(-0.06, 0.001, 0.08), -0.8), (42, SIMD3(0.12, 0.001, 0.07), 2.4),
        ]
        let markers = try layout.map { try markerPlane(dictionary, id: $0.0, size: 0.08, pose: lying(at: $0.1, yaw: $0.2)) }
        let duration = Double(frameCount) / 30
        // A card held 25 cm above the table, swept left to right over markers 21 and 42.
        let card = ScenePlane(texture: try PhotoLibrary.photo("HappyFish.jpg"), size: SIMD2(0.11, 0.08), pose: { t in
            let u = (t - 0.45 * duration) / 0.5
            return lying(at: SIMD3(-0.45 + 0.9 * u, 0.25, 0.06), yaw: 0.3)
        })
        let path = CameraPath(seed: 11, eye: { t in
            let a = -0.9 + 1.6 * t / duration, elevation = 0.95 + 0.35 * sin(1.3 * t), r = 0.62 + 0.15 * sin(0.9 * t)
            return SIMD3(r * cos(elevation) * sin(a), r * sin(elevation), r * cos(elevation) * cos(a))
        }, lookAt: { t in SIMD3(0.01 * sin(t), 0, 0.01 * cos(2 * t)) })
        var scene = SyntheticScene(name: "markers-aruco-table", camera: standardCamera(), frameCount: frameCount,
                                   planes: [table] + markers + [card], path: path)
        scene.exposure = { _ in 1.0 / 60 }
        scene.lighting = { t in 1 + 0.3 * sin(2 * .pi * t / duration) }
        scene.markers = [MarkerSet(dictionary: "DICT_4X4_50", size: 0.08)]
        scene.seed = 2
        return scene
    }

    /// AprilTag 36h11 tags of 6 and 10 cm on a wall: the camera approaches from 1.6 m to 0.35 m
    /// and swings sideways, so the small tags are only ~20 px wide at the start.
    static func aprilTagFar(frameCount: Int) throws -> SyntheticScene {
        let dictionary = try MarkerDictionary(named: "DICT_APRILTAG_36h11")
        let wall = ScenePlane(texture: try PhotoLibrary.photo("building.jpg"), size: SIMD2(2.4, 1.8),
                              pose: { _ in standing(at: SIMD3(0, 1.3, 0)) })
        let small = try [(0, SIMD3(-0.09, 1.36, 0.001)), (5, SIMD3(0.08, 1.38, 0.001)), (12, SIMD3(-0.02, 1.24, 0.001))]
            .map { try markerPlane(dictionary, id: $0.0, size: 0.06, pose: standing(at: $0.1)) }
        let big = try markerPlane(dictionary, id: 20, size: 0.10, pose: standing(at: SIMD3(0.14, 1.22, 0.001), roll: 0.3))
        let duration = Double(frameCount) / 30
        let path = CameraPath(seed: 23, eye: { t in
            let u = Ease.smooth(t / duration)
            let d = 1.6 - 1.25 * u
            return SIMD3(0.35 * sin(1.1 * t) * d / 1.6, 1.35 + 0.12 * sin(0.7 * t), d)
        }, lookAt: { t in SIMD3(0.02 * sin(t), 1.3, 0) })
        var scene = SyntheticScene(name: "markers-apriltag-far", camera: standardCamera(), frameCount: frameCount,
                                   planes: [wall] + small + [big], path: path)
        scene.exposure = { _ in 1.0 / 60 }
        scene.lighting = { t in 0.85 + 0.15 * cos(t) }
        scene.markers = [MarkerSet(dictionary: "DICT_APRILTAG_36h11", size: 0.06, ids: [0, 5, 12]),
                         MarkerSet(dictionary: "DICT_APRILTAG_36h11", size: 0.10, ids: [20])]
        scene.seed = 3
        return scene
    }

    /// Two DICT_6X6_250 markers of 10 cm filmed in dim light with a slow shutter (1/30 s) while
    /// the camera pans quickly: strong motion blur and noise.
    static func blur(frameCount: Int) throws -> SyntheticScene {
        let dictionary = try MarkerDictionary(named: "DICT_6X6_250")
        let table = ScenePlane(texture: try PhotoLibrary.photo("stuff.jpg"), size: SIMD2(1.0, 0.75), pose: { _ in lying(at: .zero) })
        let markers = try [(1, SIMD3(-0.08, 0.001, 0.0), 0.2), (2, SIMD3(0.09, 0.001, 0.02), -0.4)]
            .map { try markerPlane(dictionary, id: $0.0, size: 0.10, pose: lying(at: $0.1, yaw: $0.2)) }
        let path = CameraPath(seed: 37, eye: { t in
            SIMD3(0.14 * sin(3.0 * t), 0.55 + 0.05 * sin(1.7 * t), 0.3 + 0.06 * cos(2.0 * t))
        }, lookAt: { t in SIMD3(0.09 * sin(3.0 * t + 0.6), 0, 0.01) })
        var scene = SyntheticScene(name: "markers-blur", camera: standardCamera(), frameCount: frameCount,
                                   planes: [table] + markers, path: path)
        scene.exposure = { _ in 1.0 / 30 }
        scene.instantsPerExposure = 9
        scene.lighting = { _ in 0.55 }
        scene.sensor.readNoise = 3.5
        scene.sensor.shotNoise = 0.5
        scene.markers = [MarkerSet(dictionary: "DICT_6X6_250", size: 0.10)]
        scene.seed = 4
        return scene
    }
}
