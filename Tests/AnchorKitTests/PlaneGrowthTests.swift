import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitSynthesis

/// Plane growth on two rendered views of a textured wall standing on a textured floor: a small
/// patch of the wall grows over the wall's blocks, beyond the blocks next to it but never onto
/// the floor, and a plane 30 cm in front of the wall (no surface there) gets almost nothing.
@Suite("Plane growth")
struct PlaneGrowthTests {
    /// Two views of `scene` from cameras 15° down, the newer 20 cm right and 5 cm back, turned 3°.
    static func pair(of scene: [ScenePlane]) throws -> ViewPair {
        let (first, second) = LevelSweepTests.twoCameras(pitch: 15, shift: SIMD3(0.2, 0, 0.05))
        return ViewPair(reference: try LevelSweepTests.view(scene, from: second),
                        other: try LevelSweepTests.view(scene, from: first), camera: LevelSweepTests.camera)
    }

    @Test func wallGrowsOverItsOwnBlocksOnly() throws {
        let (floor, wall) = try LevelSweepTests.floorAndWall(floorContrast: 40, wallDistance: 3)
        let pair = try Self.pair(of: [floor, wall])

        // A 40 cm patch of the wall (normal +z, toward the camera), and the floor it stands on.
        func wallPatch(z: Double) -> Anchor {
            PlaneMap.anchor(identifier: "plane/wall", alignment: .vertical, normal: SIMD3(0, 0, 1), origin: SIMD3(0, -0.5, z),
                            outline: [SIMD3(-0.2, -0.7, z), SIMD3(0.2, -0.7, z), SIMD3(0.2, -0.3, z), SIMD3(-0.2, -0.3, z)], xAxis: nil)
        }
        let floorPlane = PlaneMap.anchor(identifier: "plane/floor", alignment: .horizontal, normal: SIMD3(0, 1, 0),
                                         origin: SIMD3(0, -1.5, -2), outline: [SIMD3(-2, -1.5, -1), SIMD3(2, -1.5, -1),
                                                                               SIMD3(2, -1.5, -3), SIMD3(-2, -1.5, -3)], xAxis: nil)
        let growth = PlaneGrowth()
        let grown = try growth.points(on: wallPatch(z: -3), others: [floorPlane], in: pair, metresPerUnit: 1)
        let ghost = try growth.points(on: wallPatch(z: -2.7), others: [floorPlane], in: pair, metresPerUnit: 1)
        print("plane growth: \(grown.count) points on the wall, \(ghost.count) on a plane 30 cm in front of it")
        // The growth starts within `reach` (30 cm) of the patch and spreads over the wall's
        // connected blocks up to `spread` (1 m) from it: down to the floor, never onto it (a
        // block whose centre is within 1 cm of the wall's foot still shows mostly wall).
        let reach = 0.2 + growth.spread + 1e-9
        #expect(grown.count >= 1000)
        #expect(grown.allSatisfy { abs($0.z + 3) < 1e-6 && $0.y > -1.51 && abs($0.x) <= reach })
        #expect(grown.contains { abs($0.x) > 0.2 + growth.reach })
        #expect(ghost.count * 20 <= grown.count)
    }

    /// A plain wall with a textured panel 60 cm wide and, 12 cm beside it, a textured square of
    /// 4 cm (under a block; within ``PlaneGrowth/reach`` of the panel's plane): the plane takes
    /// the panel, but not the lone square, which would stretch its hull across the plain wall.
    @Test func aLoneMatchingBlockIsNotTaken() throws {
        let (floor, _) = try LevelSweepTests.floorAndWall(floorContrast: 40, wallDistance: 3)
        func wallPiece(width: Double, height: Double, contrast: Int, seed: UInt64, at centre: SIMD3<Double>) throws -> ScenePlane {
            try LevelSweepTests.noisePlane(size: SIMD2(width, height), texel: 0.01, mean: 120, contrast: contrast, seed: seed,
                                           pose: MarkerScenes.standing(at: centre))
        }
        let scene = [floor, try wallPiece(width: 8, height: 2.5, contrast: 0, seed: 3, at: SIMD3(0, -0.25, -3)),
                     try wallPiece(width: 0.6, height: 0.6, contrast: 60, seed: 5, at: SIMD3(0, -0.5, -3)),
                     try wallPiece(width: 0.04, height: 0.04, contrast: 60, seed: 7, at: SIMD3(0.44, -0.5, -3))]
        let pair = try Self.pair(of: scene)
        let patch = PlaneMap.anchor(identifier: "plane/panel", alignment: .vertical, normal: SIMD3(0, 0, 1), origin: SIMD3(0, -0.5, -3),
                                    outline: [SIMD3(-0.2, -0.7, -3), SIMD3(0.2, -0.7, -3), SIMD3(0.2, -0.3, -3), SIMD3(-0.2, -0.3, -3)],
                                    xAxis: nil)
        let grown = try PlaneGrowth().points(on: patch, others: [], in: pair, metresPerUnit: 1)
        print("plane growth: \(grown.count) points on the panel, farthest at x = \(grown.map(\.x).max() ?? 0) m")
        #expect(grown.count >= 100)
        #expect(grown.allSatisfy { $0.x < 0.36 })
    }

    /// A wall whose plane passes through the camera is seen edge-on: no points, no failure.
    @Test func planeThroughTheCameraGivesNothing() throws {
        let (floor, wall) = try LevelSweepTests.floorAndWall(floorContrast: 40, wallDistance: 3)
        let pair = try Self.pair(of: [floor, wall])
        let edgeOn = PlaneMap.anchor(identifier: "plane/x", alignment: .vertical, normal: SIMD3(1, 0, 0),
                                     origin: SIMD3(0.2, -0.5, -2),
                                     outline: [SIMD3(0.2, -1, -1.5), SIMD3(0.2, -1, -2.5), SIMD3(0.2, 0, -2.5), SIMD3(0.2, 0, -1.5)],
                                     xAxis: nil)
        #expect(try PlaneGrowth().points(on: edgeOn, others: [], in: pair, metresPerUnit: 1).isEmpty)
    }
}
