import Foundation
import Testing
@testable import AnchorKit

/// The level sweep on two rendered views of a known scene: a faintly textured floor 1.5 m below
/// the camera, a table top 0.75 m below it and a wall behind. The sweep's homographies (world and
/// ARKit camera conventions, pixel rays) are right when its points land on the two true heights,
/// and its slant test when none come from the wall.
@Suite("Level sweep")
struct LevelSweepTests {
    static let camera = MarkerScenes.standardCamera()

    /// A plane of `size` metres with random texels of `texel` metres, gray `mean` ± `contrast`.
    static func noisePlane(size: SIMD2<Double>, texel: Double, mean: Int, contrast: Int, seed: UInt64,
                           pose: Transform) throws -> ScenePlane {
        let w = Int(size.x / texel), h = Int(size.y / texel)
        var random = SplitMix64(seed: seed)
        let pixels = (0..<(w * h)).map { _ in UInt8(mean - contrast + Int(random.next() % UInt64(2 * contrast + 1))) }
        let texture = try Image.fromPixels(pixels, width: w, height: h, channels: 1)
        return ScenePlane(texture: texture, size: size, pose: { _ in pose })
    }

    /// The gray view of `planes` (painted in order) from `worldFromCamera` (ARKit camera).
    static func view(_ planes: [ScenePlane], from worldFromCamera: Transform) throws -> LevelSweep.View {
        let renderer = try SceneRenderer(width: camera.width, height: camera.height)
        let layers = try planes.map { plane in
            let projection = try #require(plane.projection(cameraFromPlane: worldFromCamera.inverse * plane.pose(0), camera: camera))
            return SceneRenderer.Layer(texture: plane.texture, homography: projection.homography, gain: 1,
                                       polygon: projection.polygon)
        }
        let image = try renderer.render(instants: [layers], background: 90, finish: RoomSceneTests.exact)
        return LevelSweep.View(image: try image.converted(toChannels: 1), transform: worldFromCamera)
    }

    @Test func pointsLieOnTheFloorAndTheTableTop() throws {
        let floor = try Self.noisePlane(size: SIMD2(8, 8), texel: 0.01, mean: 120, contrast: 6, seed: 1,
                                        pose: MarkerScenes.lying(at: SIMD3(0, -1.5, -3)))
        let table = try Self.noisePlane(size: SIMD2(1.2, 0.8), texel: 0.01, mean: 140, contrast: 50, seed: 2,
                                        pose: MarkerScenes.lying(at: SIMD3(0.2, -0.75, -1.8)))
        // A strongly textured wall across the back, from the floor up: its blocks peak at some
        // height too, and only the slant test keeps them out.
        let wall = try Self.noisePlane(size: SIMD2(8, 2.5), texel: 0.01, mean: 120, contrast: 60, seed: 3,
                                       pose: MarkerScenes.standing(at: SIMD3(0, -0.25, -2.8)))
        // Looking 25° down (the wall fills the top of the image); the second view 15 cm to the
        // right, 5 cm back, turned 3° left.
        let down = Matrix3.rotation(angle: -25 * .pi / 180, axis: SIMD3(1, 0, 0))
        let first = Transform(rotation: down, translation: .zero)
        let second = Transform(rotation: .rotation(angle: 3 * .pi / 180, axis: SIMD3(0, 1, 0)) * down,
                               translation: SIMD3(0.15, 0, 0.05))
        var sweep = LevelSweep()
        sweep.gap = 1
        try sweep.add(try Self.view([floor, wall, table], from: first), camera: Self.camera, metresPerUnit: 1)
        #expect(sweep.points.isEmpty, "one view: nothing to compare with")
        try sweep.add(try Self.view([floor, wall, table], from: second), camera: Self.camera, metresPerUnit: 1)
        #expect(sweep.recentCount == sweep.points.count)

        let heights = sweep.points.map(\.y)
        let onFloor = heights.filter { abs($0 + 1.5) < 0.1 }, onTable = heights.filter { abs($0 + 0.75) < 0.1 }
        let floorError = try #require(Summary(onFloor.map { $0 + 1.5 })), tableError = try #require(Summary(onTable.map { $0 + 0.75 }))
        print("level sweep: \(heights.count) points, floor \(onFloor.count) (median error \(100 * floorError.median) cm),"
              + " table \(onTable.count) (median error \(100 * tableError.median) cm)")
        // Blocks of 16 px: the faint floor fills most of the lower image, the table about 60 blocks.
        #expect(onFloor.count >= 200 && onTable.count >= 30)
        #expect(abs(floorError.median) < 0.01 && abs(tableError.median) < 0.01)
        #expect(Double(onFloor.count + onTable.count) >= 0.95 * Double(heights.count), "points off both surfaces")
    }

    @Test func noBaselineNoPoints() throws {
        let floor = try Self.noisePlane(size: SIMD2(8, 8), texel: 0.01, mean: 120, contrast: 30, seed: 1,
                                        pose: MarkerScenes.lying(at: SIMD3(0, -1.5, -3)))
        let pose = Transform(rotation: .rotation(angle: -40 * .pi / 180, axis: SIMD3(1, 0, 0)), translation: .zero)
        let view = try Self.view([floor], from: pose)
        var sweep = LevelSweep()
        sweep.gap = 1
        try sweep.add(view, camera: Self.camera, metresPerUnit: 1)
        try sweep.add(view, camera: Self.camera, metresPerUnit: 1)
        #expect(sweep.points.isEmpty, "a camera that only turns sees every plane alike")
    }
}
