import Foundation
import AnchorKit

/// The synthetic marker sequences: named, deterministic scenes of printed markers filmed by a
/// handheld 640x480 camera.
public enum MarkerScenes {
    /// Names of the scenes ``scene(named:frameCount:)`` builds.
    public static let names = ["markers-aruco-table", "markers-apriltag-far", "markers-blur", "markers-far-walk", "markers-blur-walk",
                               "markers-plain-walls", "markers-room-light"]

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
        case "markers-far-walk": return try farWalk(frameCount: frameCount ?? 180)
        case "markers-blur-walk": return try blurWalk(frameCount: frameCount ?? 180)
        case "markers-plain-walls": return try plainWalls(frameCount: frameCount ?? 180)
        case "markers-room-light": return try roomLight(frameCount: frameCount ?? 180)
        default: throw MarkerError("unknown scene \"\(name)\" (known: \(names.joined(separator: ", ")))")
        }
    }

    /// A printed marker: the code with a white quiet zone, as a plane of the scene. `instance`
    /// numbers the physical markers printing the same id (0 for the first; see
    /// ``Anchor/markerIdentifier(dictionary:id:instance:)``).
    static func markerPlane(_ dictionary: MarkerDictionary, id: Int, size: Double, pose: Transform,
                            instance: Int = 0) throws -> ScenePlane {
        let side = 240, margin = 60
        let texture = try dictionary.image(id: id, side: side, margin: margin)
        let paper = size * Double(side + 2 * margin) / Double(side)
        return ScenePlane(texture: texture, size: SIMD2(paper, paper), pose: { _ in pose },
                          target: .init(identifier: Anchor.markerIdentifier(dictionary: dictionary.name, id: id, instance: instance),
                                        kind: .marker, name: String(id), instance: instance == 0 ? nil : instance,
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

// MARK: Walks

extension MarkerScenes {
    /// How the hand holding a phone moves while its owner walks and films, on top of the planned
    /// path and ``CameraPath``'s hand shake: the body's bob and sway at the step rhythm, the
    /// phone's pitch, yaw and roll swinging with it, and a slow wandering of the aim (nobody holds
    /// a target exactly in the middle of the frame). Angles in radians, lengths in metres.
    struct Gait {
        /// Steps per second (the bob's and the pitch's frequency; sway, yaw and roll follow the
        /// stride, half of it).
        var stepFrequency = 1.8
        /// Vertical bob and lateral sway amplitudes, metres.
        var bob = 0.012, sway = 0.01
        /// Pitch (with each step), yaw and roll (with each stride) amplitudes, radians. With the
        /// defaults, the walks' planned turning and the hand's shake, the camera turns at
        /// ~0.25 rad/s RMS, what a phone's gyroscope reads in a slow walk.
        var pitch = 1.1 * Double.pi / 180, yaw = 1.4 * Double.pi / 180, roll = 1.0 * Double.pi / 180
        /// Amplitude of the slow aim error (0.2–0.6 Hz), radians.
        var wander = 1.5 * Double.pi / 180
    }

    /// A handheld walk: the eye along the Catmull–Rom spline through `eyes`, aimed at the spline
    /// through `aims` (both evenly spaced over `duration` seconds), with `gait` on top.
    static func handheldWalk(seed: UInt64, eyes: [SIMD3<Double>], aims: [SIMD3<Double>], duration: Double,
                             gait: Gait) -> CameraPath {
        precondition(eyes.count >= 2 && aims.count >= 2)
        var random = SplitMix64(seed: seed ^ 0x7761_6C6B)
        let phase = (0..<10).map { _ in random.nextUnit() * 2 * .pi }
        let step = 2 * .pi * gait.stepFrequency, stride = .pi * gait.stepFrequency
        let up = SIMD3<Double>(0, 1, 0)
        func along(_ points: [SIMD3<Double>], _ t: Double) -> SIMD3<Double> {
            RoomScenes.catmullRom(points, at: t / duration * Double(points.count - 1))
        }
        let eye = { (t: Double) -> SIMD3<Double> in
            // Sway is across the direction of walking (horizontal).
            let heading = along(eyes, t + 0.05) - along(eyes, t - 0.05)
            let across = cross(heading, up)
            let side = length(across) > 1e-6 ? normalize(across) : SIMD3(1, 0, 0)
            return along(eyes, t) + up * (gait.bob * sin(step * t + phase[0])) + side * (gait.sway * sin(stride * t + phase[1]))
        }
        var path = CameraPath(seed: seed, eye: eye, lookAt: { t in
            let e = eye(t)
            let forward = normalize(along(aims, t) - e)
            let yaw = gait.yaw * sin(stride * t + phase[2])
                + gait.wander * (0.6 * sin(2 * .pi * 0.31 * t + phase[3]) + 0.4 * sin(2 * .pi * 0.53 * t + phase[4]))
            let pitch = gait.pitch * sin(step * t + phase[5])
                + gait.wander * (0.5 * sin(2 * .pi * 0.23 * t + phase[6]) + 0.3 * sin(2 * .pi * 0.47 * t + phase[7]))
            let right = normalize(cross(forward, up))
            let turned = Matrix3.rotation(angle: yaw, axis: up) * (Matrix3.rotation(angle: pitch, axis: right) * forward)
            return e + turned
        })
        path.roll = { t in gait.roll * sin(stride * t + phase[8]) }
        return path
    }

    /// The room of ``RoomScenes`` (6 x 5 x 2.6 m, textured floor, walls and ceiling, with its
    /// table, bench and cabinet) as a setting for markers: its surfaces are not listed in ground
    /// truth (these are marker sequences), `markers` get the shading of the wall they hang on, and
    /// `tableDecals` lie on the table.
    static func room(markers: [ScenePlane], tableDecals: [ScenePlane] = []) throws -> (planes: [ScenePlane], boxes: [SceneBox]) {
        var planes = try RoomScenes.shell()
        var boxes = try RoomScenes.furniture(tableDecals: tableDecals)
        for i in planes.indices { planes[i].surface = nil }
        for b in boxes.indices { for f in boxes[b].faces.indices { boxes[b].faces[f].surface = nil } }
        return (planes + shaded(markers), boxes)
    }

    /// `markers` lit as the room's surfaces are: each shaded by the way its face turns
    /// (``RoomScenes/shade(_:)``).
    static func shaded(_ markers: [ScenePlane]) -> [ScenePlane] {
        markers.map { marker in
            var m = marker
            let normal = m.pose(0).rotation.columns.1
            m.gain = { _ in RoomScenes.shade(normal) }
            return m
        }
    }

    /// An upright sheet on a wall facing `normal`, centred at `centre`, turned by `roll` radians
    /// in the wall's plane (sheets are never taped perfectly straight).
    static func onWall(facing normal: SIMD3<Double>, at centre: SIMD3<Double>, roll: Double) -> Transform {
        let upright = SceneBox.upright(facing: normal, at: centre)
        return Transform(rotation: upright.rotation * .rotation(angle: roll, axis: SIMD3(0, 1, 0)), translation: upright.translation)
    }

    /// Someone walks down the room toward its back wall, filming a group of AprilTag 36h11 tags
    /// taped to the wall above the table, off to the right of the walk: five 10 cm tags, three
    /// printing id 3 and two printing id 8, and one 16 cm tag, id 14 (ids listed in
    /// sequence.json, one set per size). The eye, 1.45–1.5 m high, goes from 4.8 m to 2 m from
    /// the tags at a slow walking pace (3.4 m in 6 s, ``Gait``) while they turn from ~20° to
    /// ~60° off the line of sight. Office light: 1/60 s shutter.
    ///
    /// Measured on the 180 frames' expected observations (`Scripts/marker-truth-stats.py`): mean
    /// side 10–27 px, median 16 px (10 cm tags: 10–25 px, 83 % within 10–20 px, 19 % at most
    /// 12 px); view angle 19–64°, median 33°, 12 % beyond 50°; blur (the fastest corner's path
    /// during the exposure) median 1.6 px, 90 % under 2.4 px, at most 3.1 px.
    static func farWalk(frameCount: Int) throws -> SyntheticScene {
        let dictionary = try MarkerDictionary(named: "DICT_APRILTAG_36h11")
        let wall = SIMD3<Double>(0, 0, 1), z = -RoomScenes.size.z / 2 + 0.002
        // (id, instance, size, x, y, roll): two rows on the back wall, above the table.
        let layout: [(Int, Int, Double, Double, Double, Double)] = [
            (3, 0, 0.10, 0.55, 1.55, 0.03), (8, 0, 0.10, 0.85, 1.56, -0.02), (3, 1, 0.10, 1.15, 1.54, 0.05),
            (8, 1, 0.10, 0.55, 1.25, -0.04), (3, 2, 0.10, 0.86, 1.24, 0.01), (14, 0, 0.16, 1.25, 1.22, -0.03),
        ]
        let markers = try layout.map { id, instance, size, x, y, roll in
            try markerPlane(dictionary, id: id, size: size, pose: onWall(facing: wall, at: SIMD3(x, y, z), roll: roll), instance: instance)
        }
        let duration = Double(frameCount) / 30
        let path = handheldWalk(seed: 51, eyes: [
            SIMD3(-1.0, 1.50, 1.9), SIMD3(-0.92, 1.49, 0.8), SIMD3(-0.84, 1.47, -0.4), SIMD3(-0.78, 1.45, -1.5),
        ], aims: [
            SIMD3(0.75, 1.40, -2.5), SIMD3(0.9, 1.38, -2.5), SIMD3(0.95, 1.40, -2.5), SIMD3(0.9, 1.37, -2.5),
        ], duration: duration, gait: Gait())
        let (planes, boxes) = try room(markers: markers)
        var scene = SyntheticScene(name: "markers-far-walk", camera: standardCamera(), frameCount: frameCount,
                                   planes: planes, path: path)
        scene.boxes = boxes
        scene.exposure = { _ in 1.0 / 60 }
        scene.instantsPerExposure = 7
        scene.lighting = { _ in 0.85 }
        scene.sensor.readNoise = 2.5
        scene.sensor.shotNoise = 0.4
        scene.markers = [MarkerSet(dictionary: dictionary.name, size: 0.10, ids: [3, 8]),
                         MarkerSet(dictionary: dictionary.name, size: 0.16, ids: [14])]
        scene.seed = 5
        return scene
    }

    /// Someone walks slowly along the room's left wall in dim light, filming a row of 10 cm
    /// DICT_4X4_50 markers taped to it (three printing id 5, two printing id 9, one each of 17
    /// and 30; ids not listed, as when only the dictionary is known), turning the phone to keep
    /// the row in view, ~1.5 m off the wall (2.1 m in 6 s, ``Gait``). A 1/30 s shutter (the
    /// longest of 30 frames/s video) and the noise of dim light.
    ///
    /// Measured on the 180 frames' expected observations: mean side 11–47 px, median 27 px
    /// (28 % within 10–20 px); view angle 1–66°, median 39°, 31 % beyond 50°; blur (the
    /// fastest corner's path during the exposure) median 3.3 px, 90 % under 5.2 px, at most
    /// 9.9 px.
    static func blurWalk(frameCount: Int) throws -> SyntheticScene {
        let dictionary = try MarkerDictionary(named: "DICT_4X4_50")
        let wall = SIMD3<Double>(1, 0, 0), x = -RoomScenes.size.x / 2 + 0.002
        // (id, instance, z, y, roll): a row along the wall, above the bench.
        let layout: [(Int, Int, Double, Double, Double)] = [
            (5, 0, 1.2, 1.40, 0.02), (9, 0, 0.85, 1.20, -0.04), (5, 1, 0.5, 1.45, 0.03), (17, 0, 0.15, 1.10, -0.01),
            (5, 2, -0.2, 1.35, 0.05), (9, 1, -0.55, 1.15, -0.03), (30, 0, -0.9, 1.40, 0.02),
        ]
        let markers = try layout.map { id, instance, z, y, roll in
            try markerPlane(dictionary, id: id, size: 0.10, pose: onWall(facing: wall, at: SIMD3(x, y, z), roll: roll), instance: instance)
        }
        let duration = Double(frameCount) / 30
        let path = handheldWalk(seed: 52, eyes: [
            SIMD3(-1.55, 1.50, 2.3), SIMD3(-1.6, 1.48, 1.6), SIMD3(-1.55, 1.47, 0.9), SIMD3(-1.4, 1.46, 0.2),
        ], aims: [
            SIMD3(-3.0, 1.30, 0.5), SIMD3(-3.0, 1.28, 0.4), SIMD3(-3.0, 1.30, 0.3), SIMD3(-3.0, 1.28, 0.3),
        ], duration: duration, gait: Gait())
        let (planes, boxes) = try room(markers: markers)
        var scene = SyntheticScene(name: "markers-blur-walk", camera: standardCamera(), frameCount: frameCount,
                                   planes: planes, path: path)
        scene.boxes = boxes
        scene.exposure = { _ in 1.0 / 30 }
        scene.instantsPerExposure = 11
        scene.lighting = { _ in 0.6 }
        scene.sensor.readNoise = 3.0
        scene.sensor.shotNoise = 0.45
        scene.markers = [MarkerSet(dictionary: dictionary.name, size: 0.10)]
        scene.seed = 6
        return scene
    }
}
