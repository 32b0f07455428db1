import Foundation
import Testing
@testable import AnchorKit

/// The room scenes: planes that extend behind the camera (near-plane clipping in the renderer),
/// the painter's order of furniture, and the committed room-walk sequence's ground truth checked
/// against its own frames.
@Suite("Room scenes")
struct RoomSceneTests {
    static let camera = MarkerScenes.standardCamera()

    /// A renderer's finish without noise or vignetting: pixels are exactly what was painted.
    static var exact: SceneRenderer.Finish {
        var finish = SceneRenderer.Finish()
        finish.readNoise = 0
        finish.shotNoise = 0
        finish.vignetting = 0
        return finish
    }

    /// A 10 m x 25 m floor of 1 m checker squares (gray 40 and 200, 1 cm texels), centred 7.5 m
    /// ahead of the scene origin so that it runs from 5 m behind to 20 m in front of a camera
    /// at the origin: texel (u, v) lies at x = (u + 0.5) / 100 - 5, z = (v + 0.5) / 100 - 20.
    static func checkerFloor(height: Double) throws -> ScenePlane {
        let (w, h) = (1000, 2500)
        var pixels = [UInt8](repeating: 0, count: w * h)
        for v in 0..<h { for u in 0..<w { pixels[v * w + u] = (u / 100 + v / 100) % 2 == 0 ? 40 : 200 } }
        let texture = try Image.fromPixels(pixels, width: w, height: h, channels: 1)
        return ScenePlane(texture: texture, size: SIMD2(10, 25), pose: { _ in MarkerScenes.lying(at: SIMD3(0, -height, -7.5)) })
    }

    /// The checker value the floor shows at world point (x, z), or nil within `margin` metres of
    /// a square's edge.
    static func checker(x: Double, z: Double, margin: Double) -> UInt8? {
        let a = x + 5, b = z + 20
        let da = a - a.rounded(), db = b - b.rounded()
        guard abs(da) > margin, abs(db) > margin else { return nil }
        return (Int(floor(a)) + Int(floor(b))) % 2 == 0 ? 40 : 200
    }

    struct Pitch: CustomTestStringConvertible, Sendable {
        let degrees: Double
        var testDescription: String { "camera pitched \(Int(degrees))°" }
    }

    /// A floor passing under the camera, 1.5 m below it: only the part in front of the near plane
    /// is painted, and every painted pixel shows the floor point its ray meets (nothing from
    /// behind the camera, which a homography alone would mirror into the sky).
    @Test(arguments: [Pitch(degrees: 0), Pitch(degrees: -50)])
    func floorUnderTheCameraIsClippedAtTheNearPlane(_ pitch: Pitch) throws {
        let eyeHeight = 1.5
        let floor = try Self.checkerFloor(height: eyeHeight)
        let worldFromCamera = Transform(rotation: .rotation(angle: pitch.degrees * .pi / 180, axis: SIMD3(1, 0, 0)), translation: .zero)
        let cameraFromPlane = worldFromCamera.inverse * floor.pose(0)
        // The old entry point refuses such a plane; the projection clips it.
        #expect(floor.homography(cameraFromPlane: cameraFromPlane, camera: Self.camera) == nil)
        let projection = try #require(floor.projection(cameraFromPlane: cameraFromPlane, camera: Self.camera))
        let polygon = try #require(projection.polygon)
        #expect(ConvexPolygon.isConvex(polygon))

        let renderer = try SceneRenderer(width: Self.camera.width, height: Self.camera.height)
        let image = try renderer.render(
            instants: [[SceneRenderer.Layer(texture: floor.texture, homography: projection.homography, gain: 1, polygon: polygon)]],
            background: 90, finish: Self.exact)

        let f = Self.camera.fx, cx = Self.camera.cx, cy = Self.camera.cy
        var checked = 0, wrong: [String] = [], skyPainted = 0
        image.withPixels { base, stride in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let value = base[y * stride + x * 3]
                    // The ray of the pixel centre in world coordinates (ARKit camera: -z forward).
                    let ray = worldFromCamera.rotation * SIMD3((Double(x) - cx) / f, -(Double(y) - cy) / f, -1)
                    guard ray.y < -1e-9 else {
                        // At or above the horizon: nothing may be painted there.
                        if value != 90 { skyPainted += 1 }
                        continue
                    }
                    let s = eyeHeight / -ray.y
                    let p = ray * s
                    // Near enough that a pixel covers a few cm at most, away from the far edge.
                    guard s < 6, let expected = Self.checker(x: p.x, z: p.z, margin: 0.1) else { continue }
                    checked += 1
                    if abs(Int(value) - Int(expected)) > 2, wrong.count < 5 { wrong.append("(\(x), \(y)): \(value) not \(expected)") }
                }
            }
        }
        #expect(skyPainted == 0, "\(skyPainted) pixels at or above the horizon were painted")
        #expect(checked > 20_000, "only \(checked) pixels checked")
        #expect(wrong.isEmpty, "\(wrong)")
        if pitch.degrees == 0 {
            // Looking level, the upper half is all sky (background) and the bottom rows floor.
            #expect(image.pixel(x: 320, y: 100) == 90)
            #expect(image.pixel(x: 320, y: 470) != 90)
        }
    }

    /// A plane entirely in front of the camera paints the same pixels through its polygon as
    /// through the texture's quad (the renderer's polygon path generalises the quad's coverage).
    @Test func polygonOfTheWholePlaneMatchesTheQuad() throws {
        let poster = ScenePlane(texture: try PhotoLibrary.photo("graf1.png"), size: SIMD2(0.5, 0.4), pose: { _ in
            MarkerScenes.standing(at: .zero, roll: 0.3)
        })
        let cameraFromPlane = Transform(rotation: .rotation(angle: 0.4, axis: SIMD3(0, 1, 0)), translation: SIMD3(0.05, -0.02, -0.8))
        let h = try #require(poster.homography(cameraFromPlane: cameraFromPlane, camera: Self.camera))
        let corners = try #require(poster.projectedCorners(cameraFromPlane: cameraFromPlane, camera: Self.camera, ofTarget: false))
        let renderer = try SceneRenderer(width: Self.camera.width, height: Self.camera.height)
        let quad = try renderer.render(instants: [[SceneRenderer.Layer(texture: poster.texture, homography: h, gain: 1)]],
                                       background: 90, finish: Self.exact)
        let outlined = try renderer.render(
            instants: [[SceneRenderer.Layer(texture: poster.texture, homography: h, gain: 1, polygon: corners.reversed())]],
            background: 90, finish: Self.exact)
        var worst = 0
        quad.withPixels { a, sa in
            outlined.withPixels { b, sb in
                for y in 0..<quad.height { for i in 0..<(quad.width * 3) { worst = max(worst, abs(Int(a[y * sa + i]) - Int(b[y * sb + i]))) } }
            }
        }
        #expect(worst <= 1)
    }

    /// Layers the renderer cannot draw are refused with a one-line message, leaving the frame.
    @Test func invalidOutlinesAreRefused() throws {
        let floor = try Self.checkerFloor(height: 1.5)
        let projection = try #require(floor.projection(cameraFromPlane: floor.pose(0), camera: Self.camera))
        let renderer = try SceneRenderer(width: 64, height: 48)
        func render(_ polygon: [SIMD2<Double>]?) throws {
            _ = try renderer.render(instants: [[SceneRenderer.Layer(texture: floor.texture, homography: projection.homography,
                                                                   gain: 1, polygon: polygon)]], background: 90, finish: Self.exact)
        }
        // The whole texture would cross the camera plane.
        expectOneLineError(containing: ["layer 0", "behind the camera"]) { try render(nil) }
        expectOneLineError(containing: ["polygon_count", "3...64"]) { try render([SIMD2(0, 0), SIMD2(10, 10)]) }
        expectOneLineError(containing: ["not convex"]) {
            try render([SIMD2(0, 30), SIMD2(60, 30), SIMD2(60, 47), SIMD2(30, 35), SIMD2(0, 47)])
        }
        expectOneLineError(containing: ["beyond the plane's horizon"]) {
            try render([SIMD2(0, 1), SIMD2(60, 1), SIMD2(60, 47), SIMD2(0, 47)])  // rows 1... are above the horizon (239.5)
        }
        try render([SIMD2(0, 300), SIMD2(60, 300), SIMD2(60, 470), SIMD2(0, 470)])  // off this small canvas: fine
    }

    /// Boxes are painted back to front, each with only the faces turned to the camera, and its
    /// decals right after its top.
    @Test func furnitureIsPaintedBackToFront() throws {
        let gray = try Image.filled(width: 8, height: 8, value: 128)
        let decal = ScenePlane(texture: gray, size: SIMD2(0.1, 0.1), pose: { _ in MarkerScenes.lying(at: SIMD3(0, 0.751, -2)) })
        let far = SceneBox(base: SIMD3(0, 0, -2), size: SIMD3(1, 0.75, 0.8), texture: { _ in gray }, decals: [decal])
        let near = SceneBox(base: SIMD3(0.4, 0, -0.5), size: SIMD3(0.6, 0.45, 0.4), texture: { _ in gray })
        let floor = ScenePlane(texture: gray, size: SIMD2(6, 6), pose: { _ in MarkerScenes.lying(at: .zero) })
        var scene = SyntheticScene(name: "boxes", camera: Self.camera, frameCount: 1, planes: [floor],
                                   path: CameraPath(seed: 1, eye: { _ in SIMD3(0, 1.5, 1.5) }, lookAt: { _ in SIMD3(0, 0, -1) }))
        scene.boxes = [near, far]  // listed near first: the order must come from the geometry
        #expect(scene.allPlanes.count == 1 + 6 + 5)
        // allPlanes: floor 0; near box 1...5 (top, front, right, back, left); far box 6...10, its
        // decal 11. From (0, 1.5, 1.5): the far box first (top, front, decal), then the near one
        // (top, front, and its left side: the eye is at x = 0, left of it).
        #expect(scene.paintOrder(eye: SIMD3(0, 1.5, 1.5)) == [0, 6, 7, 11, 1, 2, 5])
        // Seen from behind (z = -4) the near box is the far one: its top, back and left side
        // first, then the other's top, back and decal.
        #expect(scene.paintOrder(eye: SIMD3(0, 1.5, -4)) == [0, 1, 4, 5, 6, 9, 11])
        #expect(SceneBox.upright(facing: SIMD3(1, 0, 0), at: .zero).rotation.columns.0 == SIMD3(0, 0, -1))
    }

    // MARK: The committed room-walk sequence

    static let roomWalk = Paths.dataset("room-walk")

    /// Ground truth: 300 frames, rigid gravity-aligned camera poses (the walk starts by moving
    /// sideways), gravity matching them, plane anchors with coverage in 0...1 and the normals of
    /// FORMATS.md, the targets of sequence.json.
    @Test func committedRoomWalkGroundTruthIsConsistent() throws {
        let sequence = try RecordedSequence(folder: Self.roomWalk)
        let d = sequence.description
        #expect(d.name == "room-walk" && d.video == "video.mp4" && d.fps == 30)
        #expect((d.images ?? []).map(\.name).sorted() == ["butterfly", "home", "messi"])
        #expect(d.markers == [MarkerSet(dictionary: "DICT_4X4_50", size: 0.15)])
        let truth = try #require(try sequence.groundTruth())
        #expect(truth.count == 300)
        let gravity = try GravityFile.read(contentsOf: sequence.resolve(try #require(d.gravity)))

        let first = try #require(truth.first).camera.transform
        #expect(isNear(first.translation, .zero, 1e-12))
        #expect(abs(first.rotation.columns.2.x) < 1e-9, "world -z is the first view direction projected on the floor")
        // Sideways parallax before frame 20: at least 15 cm along the first camera's x axis.
        let step = truth[19].camera.transform.translation - first.translation
        #expect(dot(step, first.rotation.columns.0) > 0.15)

        let planeIDs: Set = ["plane/floor", "plane/ceiling", "plane/wall-back", "plane/wall-front", "plane/wall-left",
                             "plane/wall-right", "plane/table", "plane/bench", "plane/cabinet"]
        var previous: SIMD3<Double>?
        for update in truth {
            let r = update.camera.transform.rotation
            let gram = r.transposed * r
            #expect(isNear(gram, .identity, 1e-9) && abs(r.determinant - 1) < 1e-9, "frame \(update.frame): not a rotation")
            let g = try #require(gravity[update.frame])
            #expect(isNear(g, r.transposed * SIMD3(0, -9.80665, 0), 1e-6), "frame \(update.frame): gravity \(g)")
            // Walking speed: 0.25...0.65 m/s between frames.
            let position = update.camera.transform.translation
            if let previous { #expect((0.25...0.65).contains(length(position - previous) * 30), "frame \(update.frame)") }
            previous = position

            let planes = update.anchors.filter { $0.kind == .plane }
            #expect(Set(planes.map(\.identifier)) == planeIDs)
            var total = 0.0
            for plane in planes {
                let coverage = try #require(plane.coverage)
                #expect((0...1).contains(coverage))
                #expect(plane.isTracked == (coverage > 0))
                total += coverage
                let normal = plane.transform.rotation.columns.1
                let polygon = try #require(plane.polygon)
                #expect(polygon.count == 4 && polygon.allSatisfy { abs($0.x) == plane.extent.x / 2 && abs($0.y) == plane.extent.y / 2 })
                switch plane.alignment {
                case "horizontal":
                    // Floors and tops face up, the ceiling down.
                    #expect(isNear(normal, SIMD3(0, plane.identifier == "plane/ceiling" ? -1 : 1, 0), 1e-9))
                case "vertical":
                    #expect(abs(normal.y) < 1e-9)
                    // Walls face the room: the camera is on their +y side.
                    #expect(dot(normal, position - plane.transform.translation) > 0.2)
                default: Issue.record("\(plane.identifier): alignment \(plane.alignment ?? "nil")")
                }
            }
            #expect(total <= 1.0001, "frame \(update.frame): planes cover \(total) of the image")
            let floor = try #require(planes.first { $0.identifier == "plane/floor" })
            #expect(try #require(floor.coverage) >= 0.05, "frame \(update.frame): the floor is always in view")
        }
        // Every target is expected (visible >= 0.5) somewhere, the table top is detectable.
        for id in ["image/home", "image/messi", "image/butterfly", "marker/DICT_4X4_50/7", "marker/DICT_4X4_50/23"] {
            #expect(truth.contains { $0.anchors.contains { $0.identifier == id && ($0.visible ?? 0) >= 0.5 } }, "\(id) never expected")
        }
        #expect(truth.contains { $0.anchors.contains { $0.identifier == "plane/table" && ($0.coverage ?? 0) >= 0.05 } })
    }

    /// The ground-truth corners of the home poster, projected into the committed video, frame
    /// the rendered poster: the reference image warped there correlates with the frame, and
    /// 6 px off it does not nearly as well.
    @Test func groundTruthPosterCornersLandOnTheRenderedPoster() throws {
        let sequence = try RecordedSequence(folder: Self.roomWalk)
        let truth = try #require(try sequence.groundTruth())
        // The frame where the poster, fully in view, is largest.
        let candidates = truth.compactMap { update -> (FrameUpdate, Anchor, [SIMD2<Double>])? in
            guard let a = update.anchors.first(where: { $0.identifier == "image/home" && ($0.visible ?? 0) >= 0.999 }),
                  let corners = a.corners else { return nil }
            return (update, a, corners)
        }
        let (update, anchor, corners) = try #require(candidates.max { ConvexPolygon.area($0.2) < ConvexPolygon.area($1.2) })
        // The anchor's pose agrees with its corners.
        let cameraFromAnchor = update.camera.transform.inverse * anchor.transform
        for (corner, point) in zip(corners, TargetConvention.corners(width: anchor.extent.x, height: anchor.extent.y)) {
            let projected = try #require(Self.camera.project(cameraFromAnchor.apply(to: point)))
            #expect(isNear(projected, corner, 1e-6))
        }

        let source = try sequence.openFrames()
        var frame: Frame?
        while let next = try source.nextFrame() {
            if next.index == update.frame { frame = next; break }
        }
        let image = try #require(frame).image
        let reference = try Image(contentsOf: sequence.resolve("targets/home.png"))
        func correlation(shift: SIMD2<Double>) throws -> Double {
            let w = Double(reference.width), h = Double(reference.height)
            let from: [SIMD2<Float>] = [SIMD2(-0.5, -0.5), SIMD2(Float(w) - 0.5, -0.5), SIMD2(Float(w) - 0.5, Float(h) - 0.5),
                                        SIMD2(-0.5, Float(h) - 0.5)]
            let to = corners.map { SIMD2<Float>($0 + shift) }
            let estimate = try #require(try Homography.estimate(from: from, to: to, method: .leastSquares))
            let result = try Homography.correlation(estimate.matrix, reference: reference, image: image)
            #expect(result.coverage > 0.99)
            return result.correlation
        }
        let aligned = try correlation(shift: .zero)
        let off = try correlation(shift: SIMD2(6, 0))
        #expect(aligned > 0.85, "correlation at the true corners \(aligned)")
        #expect(off < aligned - 0.2, "correlation 6 px off \(off), at the true corners \(aligned)")
    }
}
