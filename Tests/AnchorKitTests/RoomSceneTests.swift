import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitMedia
@testable import AnchorKitRendering
@testable import AnchorKitSynthesis
import AnchorKitEvaluation

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

    // MARK: The plane-detection walks (room-planes, room-planes-weak)

    struct PlanesScene: CustomTestStringConvertible, Sendable {
        let name: String
        var testDescription: String { name }
    }

    static let planesScenes = [PlanesScene(name: "room-planes"), PlanesScene(name: "room-planes-weak")]

    /// The ground truth of the first 1.5 s (no rendering): floor, table top and a wall each cover
    /// at least 5 % of the image in some frame; the walk starts by stepping sideways at walking
    /// pace, at eye height, pitched 20–35° down; the boxes' sides are vertical surfaces facing out.
    @Test(arguments: planesScenes)
    func planesWalkShowsFloorTableAndWallEarly(_ scene: PlanesScene) throws {
        let description = try RoomScenes.scene(named: scene.name)
        #expect(description.frameCount == 300 && description.framesPerSecond == 30)
        #expect(description.allPlanes.compactMap(\.target?.identifier) == ["image/home"], "one target of known size")
        let world = SequenceSynthesizer.gravityAlignedWorld(firstCamera: description.path.pose(at: 0))
        let synthesizer = SequenceSynthesizer()
        var firstSeen: [String: Double] = [:]  // plane id -> first time with coverage >= 5 %
        var sideIDs: Set<String> = []
        for i in 0..<45 {
            let t = Double(i) / 30
            let update = synthesizer.groundTruth(description, frame: i, time: t, gtWorldFromScene: world)
            for plane in update.anchors where plane.kind == .plane {
                if let c = plane.coverage, c >= 0.05, firstSeen[plane.identifier] == nil { firstSeen[plane.identifier] = t }
                if plane.identifier.hasPrefix("plane/table-") || plane.identifier.hasPrefix("plane/bench-")
                    || plane.identifier.hasPrefix("plane/cabinet-") {
                    sideIDs.insert(plane.identifier)
                    #expect(plane.alignment == .vertical && abs(plane.transform.rotation.columns.1.y) < 1e-9)
                }
            }
            let pose = update.camera.transform
            let forward = -pose.rotation.columns.2
            let pitch = asin(forward.y) * 180 / .pi
            #expect((-35.0 ... -20.0).contains(pitch), "frame \(i): pitch \(pitch)°")
            // Eye height: world y is relative to the first camera, which is ~1.5 m high.
            #expect(abs(pose.translation.y) < 0.15, "frame \(i)")
        }
        #expect(firstSeen["plane/floor"] != nil, "floor: \(firstSeen)")
        #expect(firstSeen["plane/table"] != nil, "table top: \(firstSeen)")
        #expect(firstSeen.keys.contains { $0.hasPrefix("plane/wall-") }, "no wall: \(firstSeen)")
        #expect(sideIDs.count == 12 && sideIDs.contains("plane/table-front"), "\(sideIDs.sorted())")

        // Sideways first: 0.3–0.6 m along the first camera's x in the first second, little
        // along its view direction.
        let p0 = description.path.pose(at: 0), p1 = description.path.pose(at: 1)
        let step = p1.translation - p0.translation
        let sideways = abs(dot(step, p0.rotation.columns.0))
        #expect((0.3...0.6).contains(sideways), "sideways \(sideways) m in the first second")
        #expect(abs(dot(step, p0.rotation.columns.2)) < 0.5 * sideways)
        for t in stride(from: 0.0, through: 10, by: 0.5) {
            #expect((1.3...1.6).contains(description.path.pose(at: t).translation.y), "t = \(t)")
        }
    }

    /// Where a pixel's ray from the camera at `pose` (scene coordinates) first meets the floor or
    /// a box: the point, and whether it is on the floor (not behind or on a box).
    static func firstHit(_ pixel: SIMD2<Double>, pose: Transform, scene: SyntheticScene) -> (point: SIMD3<Double>, box: Int?) {
        let ray = pose.rotation * camera.unproject(pixel, depth: 1)
        let origin = pose.translation
        var best = -origin.y / ray.y, hit: Int? = nil  // the floor (y = 0)
        for (k, box) in scene.boxes.enumerated() {
            var near = 0.0, far = Double.infinity
            for axis in 0..<3 {
                let d = ray[axis]
                if abs(d) < 1e-12 {
                    if origin[axis] < box.minimum[axis] || origin[axis] > box.maximum[axis] { far = -1 }
                    continue
                }
                let a = (box.minimum[axis] - origin[axis]) / d, b = (box.maximum[axis] - origin[axis]) / d
                near = max(near, min(a, b)); far = min(far, max(a, b))
            }
            if near <= far, near > 0, near < best { best = near; hit = k }
        }
        return (origin + ray * best, hit)
    }

    /// Grey-level standard deviation of a `side` x `side` patch centred on `centre`.
    static func patchDeviation(_ image: Image, centre: SIMD2<Double>, side: Int) -> Double {
        let x0 = Int(centre.x.rounded()) - side / 2, y0 = Int(centre.y.rounded()) - side / 2
        var values: [Double] = []
        image.withPixels { base, stride in
            for y in y0..<(y0 + side) {
                for x in x0..<(x0 + side) {
                    let p = base + y * stride + x * 3
                    values.append(0.114 * Double(p[0]) + 0.587 * Double(p[1]) + 0.299 * Double(p[2]))
                }
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
    }

    /// The first rendered frame of each walk: patches of floor near the camera and of the table
    /// top vary far less in room-planes-weak than in room-planes (a fifth of the contrast), yet
    /// are not flat.
    @Test func weakFloorAndTableHaveLowContrast() throws {
        var deviations: [String: [String: Double]] = [:]
        for name in ["room-planes", "room-planes-weak"] {
            var scene = try RoomScenes.scene(named: name)
            scene.frameCount = 1
            let folder = TemporaryFolder("room-planes")
            try SequenceSynthesizer().write(scene, to: folder.file("sequence"))
            let image = try Image(contentsOf: folder.file("sequence/frames/000000.png"), channels: 3)
            let pose = scene.path.pose(at: 0)
            let side = 32
            // Whether every point of a 5 x 5 grid over the patch at `centre` sees the top of `box`
            // (nil: the floor).
            func seesOnly(_ box: Int?, centre: SIMD2<Double>) -> Bool {
                (0..<25).allSatisfy { k in
                    let offset = SIMD2(Double(k % 5 - 2), Double(k / 5 - 2)) * Double(side) / 4
                    let hit = Self.firstHit(centre + offset, pose: pose, scene: scene)
                    return hit.box == box && abs(hit.point.y - (box.map { scene.boxes[$0].maximum.y } ?? 0)) < 1e-6
                }
            }
            // Floor patches: those of two rows of the lower image that see only floor (the table
            // stands in the middle of the view). One tile may be a smooth crop: several are averaged.
            let floorCentres = [360.0, 440].flatMap { y in stride(from: 40.0, through: 600, by: 40).map { SIMD2($0, y) } }
                .filter { seesOnly(nil, centre: $0) }
            #expect(floorCentres.count >= 4, "\(name): \(floorCentres.count) floor patches")
            // Table-top patches: around the top's centre, 60 px to either side, seeing only the top.
            let top = try #require(Self.camera.project(pose.inverse.apply(to: SIMD3(RoomScenes.tableCentre.x, 0.75,
                                                                                 RoomScenes.tableCentre.y))))
            let topCentres = [-60.0, 0, 60].map { top + SIMD2($0, 0) }
            #expect(topCentres.allSatisfy { seesOnly(0, centre: $0) }, "\(name): the table patches do not see only the top")
            func mean(_ centres: [SIMD2<Double>]) -> Double {
                centres.map { Self.patchDeviation(image, centre: $0, side: side) }.reduce(0, +) / Double(max(1, centres.count))
            }
            deviations[name] = ["floor": mean(floorCentres), "table": mean(topCentres)]
        }
        let normal = try #require(deviations["room-planes"]), weak = try #require(deviations["room-planes-weak"])
        for surface in ["floor", "table"] {
            let n = try #require(normal[surface]), w = try #require(weak[surface])
            #expect(n > 12, "\(surface): room-planes' patch deviates by \(n) grey levels only")
            #expect(w < 0.4 * n, "\(surface): weak \(w), normal \(n) grey levels")
            #expect(w > 2, "\(surface): weak \(w) grey levels: flat")
        }
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

        // The room's floor, ceiling and walls, the furniture's tops, and their sides.
        let planeIDs = Set(["plane/floor", "plane/ceiling", "plane/wall-back", "plane/wall-front", "plane/wall-left",
                            "plane/wall-right", "plane/table", "plane/bench", "plane/cabinet"]
                           + ["table", "bench", "cabinet"].flatMap { box in ["front", "right", "back", "left"].map { "plane/\(box)-\($0)" } })
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
                case .horizontal:
                    // Floors and tops face up, the ceiling down.
                    #expect(isNear(normal, SIMD3(0, plane.identifier == "plane/ceiling" ? -1 : 1, 0), 1e-9))
                case .vertical:
                    #expect(abs(normal.y) < 1e-9)
                    // Walls face the room: the camera is on their +y side (a box's sides face out of it).
                    if plane.identifier.hasPrefix("plane/wall-") { #expect(dot(normal, position - plane.transform.translation) > 0.2) }
                default: Issue.record("\(plane.identifier): alignment \(plane.alignment?.rawValue ?? "nil")")
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

/// A room as rooms are (issue 28): painted walls with a door frame, a picture and a switch over
/// carpet, no target (`Datasets/room-painted`). At 8 s the camera pans over the bare back wall
/// (under 100 corners in view): tracking holds there, limited, on the few points followed and
/// comes back to normal; the painted back wall, with no map points but its door frame, is found
/// from its foot on the floor (within 2 s: the carpet seen from its foot down to the frame's
/// edge); the plain carpet within 1.5 s, from the row of points where the first box stands on
/// it, and the right wall, in view for the first 1.3 s only, with it; no false plane. (Figures
/// over the whole walk, beside the mosaic room: Benchmarks/README.md, "Rooms as they are".)
@Suite("Painted room")
struct PaintedRoomTests {
    @Test func holdsOverTheBareWallAndFindsItFromItsFoot() throws {
        let sequence = try RecordedSequence(folder: Paths.dataset("room-painted"))
        var configuration = try Configuration(sequence: sequence)
        configuration.worldTracking = .visualOdometry(VisualOdometry.Parameters())
        configuration.planeDetection = [.horizontal, .vertical]
        let session = try Session(configuration: configuration)
        let source = try sequence.openFrames()
        var updates: [FrameUpdate] = []
        // To 9 s: the bare wall is passed at 8.5 s.
        while let frame = try source.nextFrame(), frame.index < 270 { updates.append(try session.process(frame)) }
        let truth = try #require(try sequence.groundTruth()).filter { $0.frame < 270 }
        let score = Scorer(camera: sequence.description.camera).score(reported: updates, truth: truth)
        let world = try #require(score.world), planes = try #require(score.planes)
        let found = Set(planes.planes.filter { $0.foundFrame != nil }.map(\.identifier))
        let relocalising = updates.filter { $0.camera.trackingState == .limited(.relocalizing) }.count
        print("room-painted: ATE \(world.absoluteTrajectoryErrorPercent ?? -1) %, lost \(world.losses) regained \(world.regains), relocalising \(relocalising) frames, planes found \(found.sorted()), false \(planes.falsePlanes)")
        #expect(relocalising == 0)
        #expect(world.regains == world.losses)
        #expect((world.absoluteTrajectoryErrorPercent ?? .infinity) < 2)
        #expect(found.isSuperset(of: ["plane/floor", "plane/bench", "plane/wall-back", "plane/wall-right"]))
        for (plane, by) in [("plane/floor", 45), ("plane/wall-back", 60)] {
            let foundFrame = planes.planes.first { $0.identifier == plane }?.foundFrame
            #expect((foundFrame ?? .max) <= by, "\(plane) found at frame \(foundFrame ?? -1)")
        }
        #expect(planes.falsePlanes.isEmpty)
    }
}
