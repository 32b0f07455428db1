import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitMedia
@testable import AnchorKitRendering
@testable import AnchorKitSynthesis

/// Walls found from their foot (``FloorEdgeWalls``) on rendered views of a plain gray wall
/// (200) standing on a plain dark floor (60) 1.5 m below the camera: no texture at all, so no
/// map point could find either. The camera steps toward the wall, 20 cm a view (across its foot).
@Suite("Walls from their foot")
struct FloorEdgeWallsTests {
    static let camera = MarkerScenes.standardCamera()
    /// The wall's plane is z = -3, facing +z; the floor y = -1.5.
    static let wallZ = -3.0, floorY = -1.5

    /// The view from (x, 0, z), pitched 20° down.
    /// With `picture`, a dark picture (gray 70) hangs on the wall, 2 m wide and 0.53 m high, its
    /// foot 0.79 m above the floor (texture rows 45-58 of 80 over the wall's 3 m, columns 40-59 of
    /// 100 over its 10 m).
    static func view(at z: Double, x: Double = 0, picture: Bool = false) throws -> (gray: Image, worldFromCamera: Transform) {
        func plain(_ value: UInt8) throws -> Image {
            try Image.fromPixels([UInt8](repeating: value, count: 100 * 80), width: 100, height: 80, channels: 1)
        }
        var wallPixels = [UInt8](repeating: 200, count: 100 * 80)
        if picture { for row in 45..<59 { for column in 40..<60 { wallPixels[row * 100 + column] = 70 } } }
        let floor = ScenePlane(texture: try plain(60), size: SIMD2(10, 10), pose: { _ in MarkerScenes.lying(at: SIMD3(0, floorY, 0)) })
        let wall = ScenePlane(texture: try Image.fromPixels(wallPixels, width: 100, height: 80, channels: 1), size: SIMD2(10, 3),
                              pose: { _ in MarkerScenes.standing(at: SIMD3(0, 0, wallZ)) })
        let worldFromCamera = Transform(rotation: .rotation(angle: -20 * .pi / 180, axis: SIMD3(1, 0, 0)), translation: SIMD3(x, 0, z))
        var finish = SceneRenderer.Finish()
        finish.readNoise = 0; finish.shotNoise = 0; finish.vignetting = 0
        // The painter's order: the wall hides the floor beyond it.
        let layers = try [floor, wall].map { plane -> SceneRenderer.Layer in
            let projection = try #require(plane.projection(cameraFromPlane: worldFromCamera.inverse * plane.pose(0), camera: camera))
            return SceneRenderer.Layer(texture: plane.texture, homography: projection.homography, gain: 1, polygon: projection.polygon)
        }
        let image = try SceneRenderer(width: camera.width, height: camera.height).render(instants: [layers], background: 90, finish: finish)
        return (try image.converted(toChannels: 1), worldFromCamera)
    }

    /// The floor as a plane anchor, in front of the wall.
    static let floorAnchor = PlaneMap.anchor(
        identifier: "plane/0", alignment: .horizontal, normal: SIMD3(0, 1, 0), origin: SIMD3(0, floorY, -1),
        outline: [SIMD3(-2, floorY, -2.5), SIMD3(2, floorY, -2.5), SIMD3(2, floorY, 1.5), SIMD3(-2, floorY, 1.5)], xAxis: nil)

    /// With the floor known, the third view (the first with two earlier ones 15 cm or more apart
    /// across the foot) finds the wall: facing the camera, its foot within 3 cm of z = -3, rising
    /// from the floor as far as the view shows it: the frame's top rows, 24.2° above the axis,
    /// 4.2° above level, meet it 3.6 m away at 0.26 m above the camera, 1.76 m above the floor.
    @Test func wallFromItsFootOnAKnownFloor() throws {
        var walls = FloorEdgeWalls(parameters: PlaneDetection.Parameters())
        var found: [[PlaneCandidate]] = []
        for z in [1.0, 0.8, 0.6] {
            let view = try Self.view(at: z)
            found.append(try walls.candidates(in: view.gray, worldFromCamera: view.worldFromCamera, camera: Self.camera,
                                              floor: Self.floorAnchor, points: [], knownPlanes: [], metresPerUnit: 1))
        }
        #expect(found[0].isEmpty && found[1].isEmpty)
        let wall = try #require(found[2].first)
        #expect(found[2].count == 1 && wall.alignment == .vertical)
        #expect(length(wall.normal - SIMD3(0, 0, 1)) < 0.02, "normal \(wall.normal)")
        #expect(abs(wall.origin.z - Self.wallZ) < 0.03, "foot at z = \(wall.origin.z)")
        let heights = wall.outline.map(\.y)
        #expect(abs(heights.min()! - Self.floorY) < 1e-9)
        #expect(abs(heights.max()! - Self.floorY - 1.76) < 0.03, "top \(heights.max()! - Self.floorY) m above the floor")
    }

    /// Without a floor plane, the views' edges give the floor's height: from the seventh view
    /// (six pairs agree), a level candidate within 3 cm of y = -1.5, and the wall with it.
    @Test func floorHeightFromTheEdges() throws {
        var walls = FloorEdgeWalls(parameters: PlaneDetection.Parameters())
        var last: [PlaneCandidate] = []
        for z in stride(from: 1.4, through: 0.19, by: -0.2) {
            let view = try Self.view(at: z)
            last = try walls.candidates(in: view.gray, worldFromCamera: view.worldFromCamera, camera: Self.camera,
                                        floor: nil, points: [], knownPlanes: [], metresPerUnit: 1)
        }
        let floor = try #require(last.first { $0.alignment == .horizontal })
        #expect(abs(floor.origin.y - Self.floorY) < 0.03, "floor at y = \(floor.origin.y)")
        let wall = try #require(last.first { $0.alignment == .vertical })
        #expect(abs(wall.origin.z - Self.wallZ) < 0.05, "foot at z = \(wall.origin.z)")
    }

    /// A row of map points where something stands on the floor (12 points along 1.2 m, 2 m in
    /// front of the wall: a box's foot, the plain floor around it giving none) counts as four of
    /// the five pairs of views the floor's height needs: with it, the third view gives the floor
    /// and the wall (the first with a pair of views agreeing on the foot's height, and two
    /// earlier views 15 cm or more across it). The same row 30 cm above the floor (a shelf's
    /// foot) agrees with no pair: the floor comes from the edges alone, as without the row. Nor
    /// does a row along a picture's foot, 0.71 m below the camera, though the picture's edge
    /// agrees with it: no hand-held camera is that low over a floor.
    @Test func floorHeightSoonerFromARowOfPointsThingsStandOn() throws {
        func firstFloor(row: [SIMD3<Double>], picture: Bool = false) throws -> (view: Int, height: Double) {
            var walls = FloorEdgeWalls(parameters: PlaneDetection.Parameters())
            for (i, z) in stride(from: 1.4, through: 0.19, by: -0.2).enumerated() {
                let view = try Self.view(at: z, picture: picture)
                let found = try walls.candidates(in: view.gray, worldFromCamera: view.worldFromCamera, camera: Self.camera,
                                                 floor: nil, points: row, knownPlanes: [], metresPerUnit: 1)
                if let floor = found.first(where: { $0.alignment == .horizontal }) { return (i + 1, floor.origin.y) }
            }
            return (0, .nan)
        }
        func row(at y: Double, z: Double) -> [SIMD3<Double>] { (0..<12).map { SIMD3(-0.6 + 0.11 * Double($0), y, z) } }
        let edgesAlone = try firstFloor(row: [])
        let onTheFloor = try firstFloor(row: row(at: Self.floorY, z: Self.wallZ + 2))
        let raised = try firstFloor(row: row(at: Self.floorY + 0.3, z: Self.wallZ + 2))
        let pictureAlone = try firstFloor(row: [], picture: true)
        let picture = try firstFloor(row: row(at: Self.floorY + 0.7875, z: Self.wallZ), picture: true)
        #expect(edgesAlone.view >= 6 && onTheFloor.view == 3 && raised.view == edgesAlone.view,
                "the floor from view \(edgesAlone.view) by the edges alone, \(onTheFloor.view) with the row, \(raised.view) with it raised")
        #expect(picture.view == pictureAlone.view, "with a picture, the floor from view \(pictureAlone.view), \(picture.view) with a row along its foot")
        for found in [edgesAlone, onTheFloor, raised, pictureAlone, picture] {
            #expect(abs(found.height - Self.floorY) < 0.03, "floor at y = \(found.height)")
        }
    }

    /// Walking along the wall (20 cm a view, none across its foot), the views lay the foot on
    /// one line whatever its height: no wall, until the floor's points are seen up to the foot
    /// (four, 10-20 cm in front of it, along 2.4 m of it): then the third view finds it.
    @Test func footAlongTheWalkGroundedByTheFloorsPoints() throws {
        let near: [SIMD3<Double>] = (0..<4).map { i -> SIMD3<Double> in
            let x: Double = -1.2 + 0.8 * Double(i), ahead: Double = 0.1 + 0.05 * Double(i % 3)
            return SIMD3(x, Self.floorY, Self.wallZ + ahead)
        }
        for points: [SIMD3<Double>] in [[], near] {
            var walls = FloorEdgeWalls(parameters: PlaneDetection.Parameters())
            var found: [[PlaneCandidate]] = []
            for x in [0.0, 0.2, 0.4] {
                let view = try Self.view(at: 1.0, x: x)
                found.append(try walls.candidates(in: view.gray, worldFromCamera: view.worldFromCamera, camera: Self.camera,
                                                  floor: Self.floorAnchor, points: points, knownPlanes: [], metresPerUnit: 1))
            }
            #expect(found[0].isEmpty && found[1].isEmpty)
            if points.isEmpty {
                #expect(found[2].isEmpty, "\(found[2].count) candidates without the floor's points")
            } else {
                let wall = try #require(found[2].first)
                #expect(found[2].count == 1 && length(wall.normal - SIMD3(0, 0, 1)) < 0.02, "normal \(wall.normal)")
                #expect(abs(wall.origin.z - Self.wallZ) < 0.03, "foot at z = \(wall.origin.z)")
            }
        }
    }

    /// Walking along the wall and a little toward it, with the floor known and none of its points:
    /// the plain floor is seen from the foot down to the frame's bottom edge, which grounds the
    /// foot once the views that lay it on one line are 7.5 cm apart across it (half
    /// `edgeBaseline`): 4 cm a view finds the wall at the third view, 2 cm a view (4 cm in all)
    /// finds nothing.
    @Test func footSeenDownToTheFrameGroundedFromHalfTheBaseline() throws {
        for (step, finds) in [(0.04, true), (0.02, false)] {
            var walls = FloorEdgeWalls(parameters: PlaneDetection.Parameters())
            var found: [[PlaneCandidate]] = []
            for i in 0..<3 {
                let view = try Self.view(at: 1.0 - step * Double(i), x: 0.2 * Double(i))
                found.append(try walls.candidates(in: view.gray, worldFromCamera: view.worldFromCamera, camera: Self.camera,
                                                  floor: Self.floorAnchor, points: [], knownPlanes: [], metresPerUnit: 1))
            }
            #expect(found[0].isEmpty && found[1].isEmpty)
            if finds {
                let wall = try #require(found[2].first, "\(step) m a view: no wall")
                #expect(found[2].count == 1 && length(wall.normal - SIMD3(0, 0, 1)) < 0.02, "normal \(wall.normal)")
                #expect(abs(wall.origin.z - Self.wallZ) < 0.03, "foot at z = \(wall.origin.z)")
            } else {
                #expect(found[2].isEmpty, "\(step) m a view: \(found[2].count) candidates")
            }
        }
    }

    /// The floor's points do not ground an edge above the floor: walking along the wall with the
    /// floor taken 30 cm too high (a low table's top, as in edgeOffTheFloorIsNoWall), the foot
    /// laid on it lands 0.8 m short of the wall, inside that "floor" (it reaches to 2.5 m, the
    /// laid foot at 2.2 m); with that level's points 10-20 cm in front of the laid foot, the floor
    /// found beyond it still rules it out.
    @Test func floorPointsDoNotGroundAnEdgeAboveTheFloor() throws {
        let high = Self.floorY + 0.3
        let table = PlaneMap.anchor(
            identifier: "plane/0", alignment: .horizontal, normal: SIMD3(0, 1, 0), origin: SIMD3(0, high, -1),
            outline: [SIMD3(-2, high, -2.5), SIMD3(2, high, -2.5), SIMD3(2, high, 1.5), SIMD3(-2, high, 1.5)], xAxis: nil)
        let laidFootZ = 1.0 - 4.0 * 1.2 / 1.5
        let near: [SIMD3<Double>] = (0..<4).map { i -> SIMD3<Double> in
            let x: Double = -1.2 + 0.8 * Double(i), ahead: Double = 0.1 + 0.05 * Double(i % 3)
            return SIMD3(x, high, laidFootZ + ahead)
        }
        var walls = FloorEdgeWalls(parameters: PlaneDetection.Parameters())
        for x in [0.0, 0.2, 0.4] {
            let view = try Self.view(at: 1.0, x: x)
            let found = try walls.candidates(in: view.gray, worldFromCamera: view.worldFromCamera, camera: Self.camera,
                                             floor: table, points: near, knownPlanes: [], metresPerUnit: 1)
            #expect(found.isEmpty, "view at x = \(x): \(found.count) candidates")
        }
    }

    /// An edge that is not on the floor is no wall's foot: with the floor taken 30 cm too high (a
    /// low table's top), the foot laid on it moves with the camera by a fifth of each step (the
    /// plane is 1.2 m below the camera, the edge 1.5 m), 4 cm a view; of the two earlier views a
    /// wall needs, one is 40 cm back and puts it 8 cm off (the tolerance is 5 cm).
    @Test func edgeOffTheFloorIsNoWall() throws {
        var walls = FloorEdgeWalls(parameters: PlaneDetection.Parameters())
        let high = Self.floorY + 0.3
        let table = PlaneMap.anchor(
            identifier: "plane/0", alignment: .horizontal, normal: SIMD3(0, 1, 0), origin: SIMD3(0, high, -1),
            outline: [SIMD3(-2, high, -2.5), SIMD3(2, high, -2.5), SIMD3(2, high, 1.5), SIMD3(-2, high, 1.5)], xAxis: nil)
        for z in [1.0, 0.8, 0.6, 0.4, 0.2] {
            let view = try Self.view(at: z)
            let found = try walls.candidates(in: view.gray, worldFromCamera: view.worldFromCamera, camera: Self.camera,
                                             floor: table, points: [], knownPlanes: [], metresPerUnit: 1)
            #expect(found.isEmpty, "view at z = \(z): \(found.count) candidates")
        }
    }
}
