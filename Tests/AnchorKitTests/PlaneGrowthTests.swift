import Foundation
import Testing
@testable import AnchorKit

/// Plane growth on two rendered views of a textured wall standing on a textured floor: a small
/// patch of the wall grows over the wall's blocks, never onto the floor, and a plane 30 cm in
/// front of the wall (no surface there) gets almost nothing.
@Suite("Plane growth")
struct PlaneGrowthTests {
    @Test func wallGrowsOverItsOwnBlocksOnly() throws {
        let (floor, wall) = try LevelSweepTests.floorAndWall(floorContrast: 40, wallDistance: 3)
        let (first, second) = LevelSweepTests.twoCameras(pitch: 15, shift: SIMD3(0.2, 0, 0.05))
        let pair = ViewPair(reference: try LevelSweepTests.view([floor, wall], from: second),
                            other: try LevelSweepTests.view([floor, wall], from: first), camera: LevelSweepTests.camera)

        // A 40 cm patch of the wall (normal +z, toward the camera), and the floor it stands on.
        func wallPatch(z: Double) -> Anchor {
            PlaneMap.anchor(identifier: "plane/wall", alignment: "vertical", normal: SIMD3(0, 0, 1), origin: SIMD3(0, -0.5, z),
                            outline: [SIMD3(-0.2, -0.7, z), SIMD3(0.2, -0.7, z), SIMD3(0.2, -0.3, z), SIMD3(-0.2, -0.3, z)], xAxis: nil)
        }
        let floorPlane = PlaneMap.anchor(identifier: "plane/floor", alignment: "horizontal", normal: SIMD3(0, 1, 0),
                                         origin: SIMD3(0, -1.5, -2), outline: [SIMD3(-2, -1.5, -1), SIMD3(2, -1.5, -1),
                                                                               SIMD3(2, -1.5, -3), SIMD3(-2, -1.5, -3)], xAxis: nil)
        let growth = PlaneGrowth()
        let grown = try growth.points(on: wallPatch(z: -3), others: [floorPlane], in: pair, metresPerUnit: 1)
        let ghost = try growth.points(on: wallPatch(z: -2.7), others: [floorPlane], in: pair, metresPerUnit: 1)
        print("plane growth: \(grown.count) points on the wall, \(ghost.count) on a plane 30 cm in front of it")
        // Blocks of 8 px within 30 cm of the patch: a 1 m x 1 m square of the wall, some 500 blocks.
        #expect(grown.count >= 200)
        #expect(grown.allSatisfy { abs($0.z + 3) < 1e-6 && $0.y > -1.5 && abs($0.x) <= 0.5 + 1e-9 })
        #expect(ghost.count * 10 <= grown.count)
    }

    /// A wall whose plane passes through the camera is seen edge-on: no points, no failure.
    @Test func planeThroughTheCameraGivesNothing() throws {
        let (floor, wall) = try LevelSweepTests.floorAndWall(floorContrast: 40, wallDistance: 3)
        let (first, second) = LevelSweepTests.twoCameras(pitch: 15, shift: SIMD3(0.2, 0, 0.05))
        let pair = ViewPair(reference: try LevelSweepTests.view([floor, wall], from: second),
                            other: try LevelSweepTests.view([floor, wall], from: first), camera: LevelSweepTests.camera)
        let edgeOn = PlaneMap.anchor(identifier: "plane/x", alignment: "vertical", normal: SIMD3(1, 0, 0),
                                     origin: SIMD3(0.2, -0.5, -2),
                                     outline: [SIMD3(0.2, -1, -1.5), SIMD3(0.2, -1, -2.5), SIMD3(0.2, 0, -2.5), SIMD3(0.2, 0, -1.5)],
                                     xAxis: nil)
        #expect(try PlaneGrowth().points(on: edgeOn, others: [], in: pair, metresPerUnit: 1).isEmpty)
    }
}
