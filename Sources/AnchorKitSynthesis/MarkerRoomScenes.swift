import Foundation
import AnchorKit

/// Marker scenes for world tracking that stands on its targets (issue 29): markers where little
/// else in view can be followed, and markers under changing light.
extension MarkerScenes {
    /// Someone walks into a bare room with plain painted walls and a carpet (``RoomScenes``'
    /// painted finish, no furniture), filming six 18 cm DICT_4X4_50 markers taped to the back
    /// wall, the left wall and the floor (ids 1–6, listed), 1.3 to 3.4 m away, turning from the
    /// back wall toward the left one, two or more markers in view (2.5 m in 6 s, ``Gait``).
    /// Besides the markers the walls show only a door frame, a picture frame and a switch: too
    /// little for odometry on its own.
    static func plainWalls(frameCount: Int) throws -> SyntheticScene {
        let dictionary = try MarkerDictionary(named: "DICT_4X4_50")
        let back = -RoomScenes.size.z / 2 + 0.002, left = -RoomScenes.size.x / 2 + 0.002
        let poses: [Transform] = [
            onWall(facing: SIMD3(0, 0, 1), at: SIMD3(-1.2, 1.40, back), roll: 0.02),
            onWall(facing: SIMD3(0, 0, 1), at: SIMD3(0.5, 1.20, back), roll: -0.03),
            onWall(facing: SIMD3(0, 0, 1), at: SIMD3(1.5, 1.50, back), roll: 0.01),
            onWall(facing: SIMD3(1, 0, 0), at: SIMD3(left, 1.30, -2.2), roll: -0.02),
            lying(at: SIMD3(-0.2, 0.001, -1.3), yaw: 0.3),
            lying(at: SIMD3(0.8, 0.001, -0.6), yaw: -0.5),
        ]
        let markers = try poses.enumerated().map { k, pose in try markerPlane(dictionary, id: k + 1, size: 0.18, pose: pose) }
        let duration = Double(frameCount) / 30
        let path = handheldWalk(seed: 61, eyes: [
            SIMD3(0.6, 1.50, 0.9), SIMD3(0.2, 1.48, 0.4), SIMD3(-0.5, 1.47, -0.3), SIMD3(-1.1, 1.45, -0.8),
        ], aims: [
            SIMD3(0.4, 0.9, -2.5), SIMD3(0.0, 0.8, -2.3), SIMD3(-1.0, 0.9, -2.4), SIMD3(-2.2, 1.1, -2.4),
        ], duration: duration, gait: Gait())
        var scene = SyntheticScene(name: "markers-plain-walls", camera: standardCamera(), frameCount: frameCount,
                                   planes: try RoomScenes.finishedShell(.painted) + shaded(markers), path: path)
        scene.exposure = { _ in 1.0 / 60 }
        scene.instantsPerExposure = 5
        scene.sensor.readNoise = 2.0
        scene.sensor.shotNoise = 0.3
        scene.markers = [MarkerSet(dictionary: dictionary.name, size: 0.18, ids: Array(1...6))]
        scene.seed = 7
        return scene
    }

    /// Four 15 cm AprilTag 36h11 tags in the textured room of ``RoomScenes``, two on the back wall
    /// above the table and two lying on it (ids 0–3), filmed on a walk toward the table (3.3 m in
    /// 6 s, ``Gait``) while the light is dimmed to x0.5 and raised to x1.5 (factors on pixel values).
    static func roomLight(frameCount: Int) throws -> SyntheticScene {
        let dictionary = try MarkerDictionary(named: "DICT_APRILTAG_36h11")
        let back = -RoomScenes.size.z / 2 + 0.002, top = 0.751
        let wallTags = try [(0, SIMD3(0.8, 1.30, back), 0.02), (1, SIMD3(1.7, 1.35, back), -0.03)].map { id, centre, roll in
            try markerPlane(dictionary, id: id, size: 0.15, pose: onWall(facing: SIMD3(0, 0, 1), at: centre, roll: roll))
        }
        let onTable = try [(2, SIMD3(1.05, top, -1.0), 0.4), (3, SIMD3(1.55, top, -1.35), -0.7)].map { id, centre, yaw in
            try markerPlane(dictionary, id: id, size: 0.15, pose: lying(at: centre, yaw: yaw))
        }
        let duration = Double(frameCount) / 30
        let path = handheldWalk(seed: 62, eyes: [
            SIMD3(-0.4, 1.50, 1.6), SIMD3(0.1, 1.49, 0.9), SIMD3(0.6, 1.50, 0.3), SIMD3(1.1, 1.47, -0.1),
        ], aims: [
            SIMD3(1.2, 0.9, -1.8), SIMD3(1.3, 0.85, -1.7), SIMD3(1.3, 0.8, -1.6), SIMD3(1.4, 0.8, -1.6),
        ], duration: duration, gait: Gait())
        let (planes, boxes) = try room(markers: wallTags, tableDecals: onTable)
        var scene = SyntheticScene(name: "markers-room-light", camera: standardCamera(), frameCount: frameCount,
                                   planes: planes, path: path)
        scene.boxes = boxes
        scene.exposure = { _ in 1.0 / 60 }
        scene.instantsPerExposure = 5
        scene.lighting = { (t: Double) -> Double in 1 - 0.5 * sin(2 * .pi * t / duration) }
        scene.sensor.readNoise = 2.0
        scene.sensor.shotNoise = 0.3
        scene.markers = [MarkerSet(dictionary: dictionary.name, size: 0.15, ids: [0, 1, 2, 3])]
        scene.seed = 8
        return scene
    }
}
