import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitRendering
@testable import AnchorKitSynthesis

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

    /// The textured floor 1.5 m below the camera (gray 120 ± `contrast`) and a wall standing on
    /// it at `wallDistance` metres (gray 120 ± 60), as planes of a scene.
    static func floorAndWall(floorContrast contrast: Int, wallDistance: Double) throws -> (floor: ScenePlane, wall: ScenePlane) {
        (try noisePlane(size: SIMD2(8, 8), texel: 0.01, mean: 120, contrast: contrast, seed: 1,
                        pose: MarkerScenes.lying(at: SIMD3(0, -1.5, -3))),
         try noisePlane(size: SIMD2(8, 2.5), texel: 0.01, mean: 120, contrast: 60, seed: 3,
                        pose: MarkerScenes.standing(at: SIMD3(0, -0.25, -wallDistance))))
    }

    /// Two cameras at the origin looking `pitch` degrees down, the second moved by `shift`
    /// (metres) and turned 3° left: `world_from_arkitCamera` of each.
    static func twoCameras(pitch: Double, shift: SIMD3<Double>) -> (first: Transform, second: Transform) {
        let down = Matrix3.rotation(angle: -pitch * .pi / 180, axis: SIMD3(1, 0, 0))
        return (Transform(rotation: down, translation: .zero),
                Transform(rotation: .rotation(angle: 3 * .pi / 180, axis: SIMD3(0, 1, 0)) * down, translation: shift))
    }

    @Test func pointsLieOnTheFloorAndTheTableTop() throws {
        // A faint floor, and a strongly textured wall across the back from the floor up: its
        // blocks peak at some height too, and only the slant test keeps them out.
        let (floor, wall) = try Self.floorAndWall(floorContrast: 6, wallDistance: 2.8)
        let table = try Self.noisePlane(size: SIMD2(1.2, 0.8), texel: 0.01, mean: 140, contrast: 50, seed: 2,
                                        pose: MarkerScenes.lying(at: SIMD3(0.2, -0.75, -1.8)))
        // Looking 25° down (the wall fills the top of the image); the second view 15 cm to the
        // right and 5 cm back.
        let (first, second) = Self.twoCameras(pitch: 25, shift: SIMD3(0.15, 0, 0.05))
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

    /// Straight down, the floor right below the camera has no upright plane to compare with
    /// (one through it would pass through the camera): its points are kept, nothing fails.
    @Test func lookingStraightDown() throws {
        let (floor, _) = try Self.floorAndWall(floorContrast: 30, wallDistance: 2.8)
        let (first, second) = Self.twoCameras(pitch: 90, shift: SIMD3(0.15, 0, 0.05))
        var sweep = LevelSweep()
        sweep.gap = 1
        try sweep.add(try Self.view([floor], from: first), camera: Self.camera, metresPerUnit: 1)
        try sweep.add(try Self.view([floor], from: second), camera: Self.camera, metresPerUnit: 1)
        let heights = try #require(Summary(sweep.points.map(\.y)))
        #expect(sweep.points.count >= 200 && abs(heights.median + 1.5) < 0.01)
    }

    @Test func noBaselineNoPoints() throws {
        let (floor, wall) = try Self.floorAndWall(floorContrast: 30, wallDistance: 2.8)
        let view = try Self.view([floor, wall], from: Self.twoCameras(pitch: 25, shift: .zero).first)
        var sweep = LevelSweep()
        sweep.gap = 1
        try sweep.add(view, camera: Self.camera, metresPerUnit: 1)
        try sweep.add(view, camera: Self.camera, metresPerUnit: 1)
        #expect(sweep.points.isEmpty, "a camera that only turns sees every plane alike")
    }
}
