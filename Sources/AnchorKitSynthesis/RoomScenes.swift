import Foundation
import AnchorKit

/// The synthetic room sequences, for world tracking (visual odometry) and plane detection: a
/// handheld 640x480 camera carried through a furnished, textured room.
///
/// The room (scene coordinates, metres, +y up): 6 m along x by 5 m along z by 2.6 m high, the
/// floor at y = 0, centred on the origin. Floor, walls and ceiling are mosaics of photographs
/// (``TextureMosaic``), rich enough for ORB and optical flow everywhere, with the floor at 4 mm
/// and walls at 5 mm per texel. Three boxes stand in it: a table (0.75 m high), a bench (0.45 m)
/// and a cabinet (1.0 m) against the back wall. Floor, walls, ceiling and the three tops are
/// detectable surfaces (plane anchors in ground truth). A simple directional light shades each
/// face by its orientation, so that the corners of the room and of the boxes show.
///
/// room-planes and room-planes-weak are made for plane detection: a walk around the table that
/// shows floor, table top and walls from the first frame, one poster of known size, and the
/// boxes' sides listed as vertical surfaces too; in room-planes-weak the floor and the table top
/// are weakly textured (``weakened(_:)``).
public enum RoomScenes {
    /// Names of the scenes ``scene(named:frameCount:)`` builds.
    public static let names = ["room-walk", "room-walk-plain", "room-planes", "room-planes-weak", "room-loop",
                               "room-painted", "room-brick", "room-tiled", "room-tripod"]

    /// Builds the named scene; `frameCount` overrides its default length (300 frames, 10 s).
    public static func scene(named name: String, frameCount: Int? = nil) throws -> SyntheticScene {
        switch name {
        case "room-walk": return try walk(frameCount: frameCount ?? 300)
        case "room-walk-plain": return try walkPlain(frameCount: frameCount ?? 300)
        case "room-planes": return try planes(frameCount: frameCount ?? 300)
        case "room-planes-weak": return try planesWeak(frameCount: frameCount ?? 300)
        case "room-loop": return try loop(frameCount: frameCount ?? 750)
        case "room-painted": return try walkPlain(frameCount: frameCount ?? 300, finish: .painted)
        case "room-brick": return try walkPlain(frameCount: frameCount ?? 300, finish: .brick)
        case "room-tiled": return try walkPlain(frameCount: frameCount ?? 300, finish: .tiled)
        case "room-tripod": return try tripod(frameCount: frameCount ?? 300)
        default: throw InputError(name, "unknown scene (known: \(names.joined(separator: ", ")))")
        }
    }

    /// The room's size: x (width), y (height), z (depth), metres.
    public static let size = SIMD3(6.0, 2.6, 5.0)

    /// The marker dictionary and printed size (metres, black square) of room-walk's markers.
    static let markerDictionary = "DICT_4X4_50", markerSize = 0.15

    // MARK: The scenes

    /// A 10 s walk (about 0.3–0.6 m/s) at eye height with the view sweeping over the back wall, the
    /// table, the right wall, the bench and the left wall, pitched 16–28° down. Three posters
    /// (0.45–0.7 m wide) and two 15 cm ArUco markers (on the back wall, on the table) give targets
    /// of known size. The walk starts by stepping sideways (parallax for a two-view start).
    static func walk(frameCount n: Int) throws -> SyntheticScene {
        let path = walkPath(seed: 81, stops: walkStops, duration: 10)
        let dictionary = try MarkerDictionary(named: markerDictionary)
        let onTable = try MarkerScenes.markerPlane(dictionary, id: 23, size: markerSize,
                                                   pose: MarkerScenes.lying(at: SIMD3(1.15, 0.751, -1.15), yaw: 0.4))
        let onWall = try MarkerScenes.markerPlane(dictionary, id: 7, size: markerSize,
                                                  pose: MarkerScenes.standing(at: SIMD3(1.3, 1.1, -size.z / 2 + 0.002)))
        var scene = try room(name: "room-walk", frameCount: n, path: path, seed: 81,
                             targets: try posters() + [onWall], tableDecals: [onTable])
        scene.markers = [MarkerSet(dictionary: markerDictionary, size: markerSize)]
        return scene
    }

    /// room-walk's stops: across the front of the room, toward the table, round to the left wall.
    static let walkStops = [
        Stop(position: SIMD3(-0.9, 1.50, 1.6), heading: 0.45, pitch: -22),
        Stop(position: SIMD3(0.1, 1.50, 1.5), heading: -0.1, pitch: -25),
        Stop(position: SIMD3(0.4, 1.48, 0.5), heading: -0.8, pitch: -16),
        Stop(position: SIMD3(-0.3, 1.50, -0.3), heading: 1.1, pitch: -28),
        Stop(position: SIMD3(-1.0, 1.52, 0.6), heading: 1.3, pitch: -18),
    ]

    /// room-walk's room and targets, walked round and round for as long as asked (laps of 12.5 s
    /// through room-walk's stops and back to the first): a long video of one place, as people
    /// film a room for minutes, on which the map must stay bounded (issue 21's 10,000 frames).
    static func loop(frameCount n: Int) throws -> SyntheticScene {
        let path = loopPath(seed: 83, stops: walkStops, lap: 12.5)
        var scene = try walk(frameCount: n)
        scene.name = "room-loop"
        scene.path = path
        scene.seed = 83
        return scene
    }

    /// The same room with no poster and no marker (nothing of known size: monocular odometry
    /// cannot find the scale), and another walk: sideways from the right, across the room, round
    /// the bench and back toward the table.
    /// How the room's shell is finished: photo mosaics everywhere (the rooms world tracking was
    /// tuned on), or as rooms are (issue 28; ``RoomFinishes``): painted walls with a door frame, a
    /// picture and a switch and carpet; a brick back wall over a tiled floor; or a tiled floor with
    /// painted walls. The furniture keeps its photo textures (rooms have things in them).
    enum Finish { case mosaic, painted, brick, tiled }

    static func walkPlain(frameCount n: Int, finish: Finish = .mosaic) throws -> SyntheticScene {
        let path = walkPath(seed: 82, stops: [
            Stop(position: SIMD3(1.4, 1.45, 1.2), heading: -0.3, pitch: -25),
            Stop(position: SIMD3(0.4, 1.47, 1.4), heading: 0.2, pitch: -20),
            Stop(position: SIMD3(-0.6, 1.50, 0.9), heading: 0.9, pitch: -28),
            Stop(position: SIMD3(-0.4, 1.52, -0.2), heading: 0.2, pitch: -22),
            Stop(position: SIMD3(0.5, 1.50, -0.4), heading: -1.0, pitch: -30),
        ], duration: 10)
        let name = finish == .mosaic ? "room-walk-plain" : "room-\(finish)"
        return try room(name: name, frameCount: n, path: path, seed: 82, targets: [], tableDecals: [], finish: finish)
    }

    /// A camera on a tripod in the middle of the room, no target in view: it only turns (its
    /// centre never moves), panning 80° across the back and right walls and back, tilting between
    /// 8° and 30° down, in 10 s (at most ~25°/s). No parallax at all: a map cannot start.
    static func tripod(frameCount n: Int) throws -> SyntheticScene {
        let eye = SIMD3(-0.3, 1.40, 0.8)
        var path = CameraPath(seed: 84, eye: { _ in eye }, lookAt: { t in
            let u = 0.5 - 0.5 * cos(2 * .pi * t / 10)
            let heading = 0.3 - 1.4 * u, pitch = (-8 - 22 * (0.5 - 0.5 * cos(4 * .pi * t / 10))) * .pi / 180
            return eye + SIMD3(-sin(heading) * cos(pitch), sin(pitch), -cos(heading) * cos(pitch))
        })
        path.shakePosition = 0
        path.shakeRotation = 0
        return try room(name: "room-tripod", frameCount: n, path: path, seed: 84, targets: [], tableDecals: [])
    }

    /// A 10 s walk for plane detection: from in front of the table, a little to its right, the
    /// camera steps sideways to the left (about 0.4 m in the first second, at walking pace, with
    /// the table top, the floor and the back wall each covering 10–35 % of the image from frame
    /// 0, pitched 28° down), then walks on (0.3–0.6 m/s, 4.3 m in all) round the table's front
    /// and left side to the gap between table and back wall, always looking at the table
    /// (pitched 28–32° down, eye 1.46–1.56 m high). The one target of known size: the 0.8 m
    /// "home" poster on the back wall behind the table (the world becomes metric from it). Box
    /// sides are surfaces in ground truth (``furniture``), as in every room.
    static func planes(frameCount n: Int) throws -> SyntheticScene {
        let path = aroundTable(seed: 91, laps: [
            (0.60, 1.65, 1.52, -28), (0.20, 1.60, 1.54, -29), (-0.30, 1.55, 1.55, -30), (-0.85, 1.50, 1.52, -31),
            (-1.40, 1.45, 1.50, -32), (-1.85, 1.40, 1.47, -30), (-2.20, 1.40, 1.49, -32),
        ], duration: 10)
        return try room(name: "room-planes", frameCount: n, path: path, seed: 91, targets: [try planesPoster()],
                        tableDecals: [])
    }

    /// room-planes with the floor and the table top weakly textured (``weakened(_:)``: the
    /// mosaics at a fifth of their contrast around mid-grey, no tile joints, a fine grain): the
    /// hard case of real plane detectors, which find few corners there. Walls, ceiling, the box
    /// sides, the bench and cabinet tops and the poster are as in room-planes. Another walk of the
    /// same kind (another seed, 3.9 m): from nearly straight in front of the table, sideways to
    /// the left, round its left side (pitched 27–33° down).
    static func planesWeak(frameCount n: Int) throws -> SyntheticScene {
        let path = aroundTable(seed: 92, laps: [
            (0.20, 1.70, 1.48, -27), (-0.20, 1.65, 1.50, -29), (-0.65, 1.60, 1.53, -30), (-1.10, 1.55, 1.55, -32),
            (-1.55, 1.50, 1.52, -31), (-1.90, 1.45, 1.49, -33), (-2.25, 1.40, 1.51, -30),
        ], duration: 10)
        return try room(name: "room-planes-weak", frameCount: n, path: path, seed: 92, targets: [try planesPoster()],
                        tableDecals: [], weak: true)
    }

    /// The target of known size of room-planes: the "home" poster, 0.8 x 0.6 m, on the back wall
    /// behind the table, centred 0.95 m high (above the table top as seen from the walk, and
    /// inside the image's top edge at the start).
    static func planesPoster() throws -> ScenePlane {
        let texture = try PhotoLibrary.photo("home.jpg")
        let extent = SIMD2(0.8, 0.8 * Double(texture.height) / Double(texture.width))
        let normal = SIMD3<Double>(0, 0, 1)
        let pose = SceneBox.upright(facing: normal, at: SIMD3(1.1, 0.95, -size.z / 2 + 0.002))
        return ScenePlane(texture: texture, size: extent, pose: { _ in pose }, gain: { _ in shade(normal) },
                          target: .init(identifier: "image/home", kind: .image, name: "home", extent: extent))
    }

    /// The furnished room with `targets` on its walls and `tableDecals` on the table, filmed
    /// along `path`: 30 frames/s, a 1/250 s shutter (little motion blur). The boxes' sides are
    /// surfaces in ground truth (a detector may find them); `weak` weakens the floor's and the
    /// table top's texture.
    static func room(name: String, frameCount n: Int, path: CameraPath, seed: UInt64, targets: [ScenePlane],
                     tableDecals: [ScenePlane], weak: Bool = false, finish: Finish = .mosaic) throws -> SyntheticScene {
        var scene = SyntheticScene(name: name, camera: MarkerScenes.standardCamera(), frameCount: n,
                                   planes: try shell(weakFloor: weak, finish: finish) + targets, path: path)
        scene.boxes = try furniture(tableDecals: tableDecals, weakTable: weak)
        scene.exposure = { _ in 1.0 / 250 }
        scene.instantsPerExposure = 3  // 1/250 s: the camera moves ~2 mm, the image < 1 px
        scene.seed = seed
        return scene
    }

    // MARK: The room

    /// Brightness of a surface whose outside faces `normal` (world), under a light from above,
    /// a little from +x and +z, and an ambient part.
    static func shade(_ normal: SIMD3<Double>) -> Double {
        0.78 + 0.22 * dot(normalize(normal), normalize(SIMD3(0.3, 1, 0.5)))
    }

    // Photographs detailed all over (no large flat areas, no blur, no repetitive grids), and
    // none of them a poster of room-walk (a crop of a reference image would be a false match).
    static let floorPhotos = ["fruits.jpg", "baboon.jpg", "orange.jpg", "apple.jpg", "aloeL.jpg", "smarties.png",
                              "rubberwhale1.png", "squirrel_cls.jpg", "chicky_512.png"]
    static let wallPhotos = ["building.jpg", "leuvenA.jpg", "aero1.jpg", "aero3.jpg", "board.jpg", "box_in_scene.png",
                             "graf3.png", "starry_night.jpg", "left.jpg"]
    static let furniturePhotos = ["aloeR.jpg", "rubberwhale2.png", "chicky_512.png", "board.jpg", "graf3.png"]

    /// Floor, ceiling and walls, in painting order. The room is convex and seen from inside, so
    /// no order is ever wrong; but where two planes meet, the one painted first is drawn 2 cm
    /// larger (hidden behind the other), so that no background shows through the joint of two
    /// anti-aliased edges. Surfaces keep the room's true extents.
    static func shell(weakFloor: Bool = false, finish: Finish = .mosaic) throws -> [ScenePlane] {
        let (w, h, d) = (size.x, size.y, size.z), margin = 0.02
        if finish != .mosaic { return try finishedShell(finish) }
        // Floor: 0.5 m tiles with dark joints, warm and half-saturated (a tiled floor).
        var floorStyle = TextureMosaic.Style(photos: floorPhotos, tile: 125)
        floorStyle.zoom = 1.4...3.0
        floorStyle.saturation = 0.35
        floorStyle.tint = SIMD3(0.82, 0.95, 1.08)
        floorStyle.grout = 3
        if weakFloor { floorStyle = weakened(floorStyle) }
        let floorTexel = 0.004
        let floor = ScenePlane(
            texture: try TextureMosaic.make(width: Int(((w + 2 * margin) / floorTexel).rounded()),
                                            height: Int(((d + 2 * margin) / floorTexel).rounded()), style: floorStyle, seed: 1001),
            size: SIMD2(w + 2 * margin, d + 2 * margin), pose: { _ in MarkerScenes.lying(at: .zero) },
            gain: { _ in shade(SIMD3(0, 1, 0)) }, surface: .init(name: "floor", alignment: .horizontal, extent: SIMD2(w, d)))

        // Ceiling: light and low in contrast, but not blank (8 mm texels: it is far).
        var ceilingStyle = TextureMosaic.Style(photos: wallPhotos, tile: 75)
        ceilingStyle.saturation = 0.1
        ceilingStyle.contrast = 0.55
        ceilingStyle.tint = SIMD3(1.25, 1.25, 1.22)
        ceilingStyle.jitter = 0.05
        let ceilingPose = Transform(rotation: Matrix3(columns: (SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1))),
                                    translation: SIMD3(0, h, 0))
        let ceiling = ScenePlane(
            texture: try TextureMosaic.make(width: Int(((w + 2 * margin) / 0.008).rounded()),
                                            height: Int(((d + 2 * margin) / 0.008).rounded()), style: ceilingStyle, seed: 1002),
            size: SIMD2(w + 2 * margin, d + 2 * margin), pose: { _ in ceilingPose }, gain: { _ in shade(SIMD3(0, -1, 0)) },
            surface: .init(name: "ceiling", alignment: .horizontal, extent: SIMD2(w, d)))

        // Walls: 0.35 m tiles without joints (a patterned wallpaper), each wall its own tint.
        // Back and front walls run 2 cm past the corners; the side walls, painted after them,
        // cover that.
        let walls: [(String, SIMD3<Double>, Double, SIMD3<Double>, Double)] = [
            ("wall-back", SIMD3(0, 0, 1), d / 2, SIMD3(0.95, 1.05, 1.0), w + 2 * margin),
            ("wall-front", SIMD3(0, 0, -1), d / 2, SIMD3(1.05, 1.0, 0.9), w + 2 * margin),
            ("wall-left", SIMD3(1, 0, 0), w / 2, SIMD3(1.08, 0.98, 0.9), d),
            ("wall-right", SIMD3(-1, 0, 0), w / 2, SIMD3(0.9, 1.0, 1.08), d),
        ]
        var planes = [floor, ceiling]
        for (k, (name, normal, distance, tint, width)) in walls.enumerated() {
            var style = TextureMosaic.Style(photos: wallPhotos, tile: 70)
            style.zoom = 1.5...3.2
            style.saturation = 0.45
            style.contrast = 0.85
            style.tint = tint
            let texel = 0.005
            let pose = SceneBox.upright(facing: normal, at: -normal * distance + SIMD3(0, h / 2, 0))
            planes.append(ScenePlane(
                texture: try TextureMosaic.make(width: Int((width / texel).rounded()), height: Int((h / texel).rounded()),
                                                style: style, seed: 1010 + UInt64(k)),
                size: SIMD2(width, h), pose: { _ in pose }, gain: { _ in shade(normal) },
                surface: .init(name: name, alignment: .vertical, extent: SIMD2(abs(dot(pose.rotation.columns.0, size)), h))))
        }
        return planes
    }

    /// The shell of a room as rooms are (``Finish``), with the mosaic shell's geometry, surfaces and
    /// painting order.
    static func finishedShell(_ finish: Finish) throws -> [ScenePlane] {
        let (w, h, d) = (size.x, size.y, size.z), margin = 0.02
        let fw = w + 2 * margin, fd = d + 2 * margin
        let floorTexture: Image
        switch finish {
        case .painted: floorTexture = try RoomFinishes.painted(width: fw, height: fd, texel: 0.004, colour: SIMD3(70, 90, 110),
                                                               gradient: 0, grain: 9, seed: 3001)  // carpet: grain only
        default: floorTexture = try RoomFinishes.tiles(width: fw, height: fd, texel: 0.004, seed: 3002)
        }
        let floor = ScenePlane(texture: floorTexture, size: SIMD2(fw, fd), pose: { _ in MarkerScenes.lying(at: .zero) },
                               gain: { _ in shade(SIMD3(0, 1, 0)) }, surface: .init(name: "floor", alignment: .horizontal, extent: SIMD2(w, d)))
        let ceilingPose = Transform(rotation: Matrix3(columns: (SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1))),
                                    translation: SIMD3(0, h, 0))
        let ceiling = ScenePlane(
            texture: try RoomFinishes.painted(width: fw, height: fd, texel: 0.01, colour: SIMD3(235, 238, 238), gradient: 0.03, seed: 3003),
            size: SIMD2(fw, fd), pose: { _ in ceilingPose }, gain: { _ in shade(SIMD3(0, -1, 0)) },
            surface: .init(name: "ceiling", alignment: .horizontal, extent: SIMD2(w, d)))
        let walls: [(String, SIMD3<Double>, Double, Double, [RoomFinishes.Feature])] = [
            // The back wall: a door frame, and a picture frame beside it.
            ("wall-back", SIMD3(0, 0, 1), d / 2, w + 2 * margin,
             [.init(x: 0.9, y: 0.55, width: 0.9, height: 2.05, border: 0.07, shade: 0.72),
              .init(x: 3.4, y: 0.7, width: 0.6, height: 0.45, border: 0.035, shade: 0.45)]),
            ("wall-front", SIMD3(0, 0, -1), d / 2, w + 2 * margin, []),
            // A light switch on the left wall.
            ("wall-left", SIMD3(1, 0, 0), w / 2, d, [.init(x: 2.2, y: 1.4, width: 0.08, height: 0.12, border: 0, shade: 0.8)]),
            ("wall-right", SIMD3(-1, 0, 0), w / 2, d, []),
        ]
        var planes = [floor, ceiling]
        for (k, (name, normal, distance, width, features)) in walls.enumerated() {
            let texel = 0.005
            let texture = finish == .brick && name == "wall-back"
                ? try RoomFinishes.brick(width: width, height: h, texel: texel, seed: 3010)
                : try RoomFinishes.painted(width: width, height: h, texel: texel, colour: SIMD3(200, 215, 225), features: features,
                                           seed: 3011 + UInt64(k))
            let pose = SceneBox.upright(facing: normal, at: -normal * distance + SIMD3(0, h / 2, 0))
            planes.append(ScenePlane(
                texture: texture, size: SIMD2(width, h), pose: { _ in pose }, gain: { _ in shade(normal) },
                surface: .init(name: name, alignment: .vertical, extent: SIMD2(abs(dot(pose.rotation.columns.0, size)), h))))
        }
        return planes
    }

    /// The posters of room-walk: opencv-doc photographs 0.45–0.7 m wide, one on each of the back,
    /// left and right walls, 2 mm off the wall, centred 1.25–1.3 m high (a little below the eye,
    /// which mostly looks down).
    static func posters() throws -> [ScenePlane] {
        let (w, d) = (size.x, size.z), gap = 0.002
        let placed: [(String, String, Double, SIMD3<Double>, SIMD3<Double>)] = [
            ("home.jpg", "home", 0.6, SIMD3(0, 0, 1), SIMD3(-0.7, 1.25, -d / 2 + gap)),
            ("messi5.jpg", "messi", 0.7, SIMD3(1, 0, 0), SIMD3(-w / 2 + gap, 1.3, 0.5)),
            ("butterfly.jpg", "butterfly", 0.45, SIMD3(-1, 0, 0), SIMD3(w / 2 - gap, 1.25, -0.6)),
        ]
        return try placed.map { photo, name, width, normal, centre in
            let texture = try PhotoLibrary.photo(photo)
            let extent = SIMD2(width, width * Double(texture.height) / Double(texture.width))
            let pose = SceneBox.upright(facing: normal, at: centre)
            return ScenePlane(texture: texture, size: extent, pose: { _ in pose }, gain: { _ in shade(normal) },
                              target: .init(identifier: "image/\(name)", kind: .image, name: name, extent: extent))
        }
    }

    /// A weakly textured version of a mosaic style: a fifth of the contrast around mid-grey, a
    /// quarter of the colour, tiles of nearly equal brightness, no joints, and a fine grain of
    /// ±4 grey levels per texel. What is left (a few grey levels of blurred photograph) shows
    /// through noise and shading, but gives a corner detector little to hold on to: a plain
    /// floor or a laminated table top, the hard case of real plane detectors.
    static func weakened(_ style: TextureMosaic.Style) -> TextureMosaic.Style {
        var s = style
        s.contrast = 0.2
        s.saturation *= 0.25
        s.jitter = 0.02
        s.grout = 0
        s.noise = 4
        return s
    }

    /// The table (1.2 x 0.8 m, 0.75 m high, right of centre toward the back), the bench
    /// (1.0 x 0.5 m, 0.45 m high, left) and the cabinet (0.9 x 0.5 m, 1.0 m high, against the
    /// back wall on the left), each top a detectable surface. Their sides are vertical surfaces
    /// too (`plane/table-front`, `-right`, `-back`, `-left`, and so for bench
    /// and cabinet: textured upright rectangles a detector may find); `weakTable` weakens the
    /// table top's texture (``weakened(_:)``).
    static func furniture(tableDecals: [ScenePlane], weakTable: Bool = false) throws -> [SceneBox] {
        let boxes: [(String, SIMD3<Double>, SIMD3<Double>, SIMD3<Double>, [ScenePlane])] = [
            ("table", SIMD3(1.3, 0, -1.2), SIMD3(1.2, 0.75, 0.8), SIMD3(0.8, 0.95, 1.15), tableDecals),
            ("bench", SIMD3(-1.6, 0, -0.3), SIMD3(1.0, 0.45, 0.5), SIMD3(1.1, 0.95, 0.85), []),
            ("cabinet", SIMD3(-2.0, 0, -size.z / 2 + 0.3), SIMD3(0.9, 1.0, 0.5), SIMD3(0.95, 0.95, 0.95), []),
        ]
        return try boxes.enumerated().map { k, box in
            let (name, base, extent, tint, decals) = box
            var b = try SceneBox(base: base, size: extent, texture: { face in
                // One crop of a photograph per face: 4 mm texels on the sides, 2.5 mm on the top,
                // which the camera sees from closest (about what a 512 px photograph gives).
                let (fw, fh) = face == .top ? (extent.x, extent.z)
                    : (face == .front || face == .back ? (extent.x, extent.y) : (extent.z, extent.y))
                let texel = face == .top ? 0.0025 : 0.004
                let pw = Int((fw / texel).rounded()), ph = Int((fh / texel).rounded())
                var style = TextureMosaic.Style(photos: furniturePhotos, tile: max(pw, ph))
                style.zoom = 1.0...1.6
                style.saturation = 0.4
                style.tint = tint * (face == .top ? 1.0 : 0.85)
                style.jitter = 0
                if weakTable && k == 0 && face == .top { style = weakened(style) }
                return try TextureMosaic.make(width: pw, height: ph, style: style,
                                              seed: 2000 + UInt64(k) * 10 + UInt64(SceneBox.Face.allCases.firstIndex(of: face)!))
            }, top: .init(name: name, alignment: .horizontal), decals: decals)
            for i in b.faces.indices {
                let normal = b.faces[i].pose(0).rotation.columns.1
                b.faces[i].gain = { _ in shade(normal) }
            }
            // faces[1...] are front, right, back, left (``SceneBox/Face``); each side's surface is
            // the box's true side, without the seam its plane is drawn with (so it is centred up
            // to half a seam, 1.5 mm, off the drawn plane's centre).
            for (i, face) in zip(1..., SceneBox.Face.allCases.dropFirst()) {
                let width = face == .front || face == .back ? extent.x : extent.z
                b.faces[i].surface = .init(name: "\(name)-\(face)", alignment: .vertical, extent: SIMD2(width, extent.y))
            }
            for i in b.decals.indices { b.decals[i].gain = { _ in shade(SIMD3(0, 1, 0)) } }
            return b
        }
    }

    // MARK: The walk

    /// The table's centre on the floor (x, z), what the walks of room-planes go round.
    static let tableCentre = SIMD2(1.3, -1.2)

    /// A walk round the table through `laps` stops (angle a round the table's centre: the eye at
    /// centre + r (sin a, cos a) in x, z, a = 0 straight in front (+z), negative toward -x; r
    /// metres; eye height metres; pitch degrees), each looking at the table's centre.
    static func aroundTable(seed: UInt64, laps: [(Double, Double, Double, Double)], duration: Double) -> CameraPath {
        let c = tableCentre
        let stops = laps.map { a, r, height, pitch -> Stop in
            let p = SIMD2(c.x + r * sin(a), c.y + r * cos(a))
            let d = c - p
            return Stop(position: SIMD3(p.x, height, p.y), heading: atan2(-d.x, -d.y), pitch: pitch)
        }
        return walkPath(seed: seed, stops: stops, duration: duration)
    }

    /// A point the walk passes through: where the eye is, where it looks (heading in radians,
    /// 0 = along -z, positive turning left toward -x; pitch in degrees, negative down).
    struct Stop {
        var position: SIMD3<Double>
        var heading: Double
        var pitch: Double
    }

    /// A walk through `stops` evenly spaced in time over `duration` seconds: a Catmull–Rom spline
    /// (smooth, already moving at the first stop: a two-view start gets parallax from frame 0),
    /// a 1.8 Hz step bob of ±1 cm, and the hand shake of ``CameraPath``.
    static func walkPath(seed: UInt64, stops: [Stop], duration: Double) -> CameraPath {
        let step = duration / Double(stops.count - 1)
        return path(seed: seed, stops: stops) { p, t in catmullRom(p, at: t / step) }
    }

    /// A closed walk through `stops`, one lap every `lap` seconds, round and round: the closed
    /// Catmull–Rom spline through them (from the last stop back to the first), with the step bob
    /// and hand shake of ``walkPath(seed:stops:duration:)``.
    static func loopPath(seed: UInt64, stops: [Stop], lap: Double) -> CameraPath {
        let step = lap / Double(stops.count)
        return path(seed: seed, stops: stops) { p, t in
            let u = t / step, k = Int(floor(u)), n = p.count
            return catmullRom(segment: (-1...2).map { p[((k + $0) % n + n) % n] }, at: u - floor(u))
        }
    }

    /// The camera path through `stops` along `spline` (stop values and a time in seconds to a
    /// value), with a 1.8 Hz step bob of ±1 cm.
    private static func path(seed: UInt64, stops: [Stop],
                             spline: @escaping ([SIMD3<Double>], Double) -> SIMD3<Double>) -> CameraPath {
        let points = stops.map(\.position)
        let views = stops.map { SIMD3($0.heading, $0.pitch * .pi / 180, 0) }
        let eye = { (t: Double) -> SIMD3<Double> in spline(points, t) + SIMD3(0, 0.01 * sin(2 * .pi * 1.8 * t), 0) }
        return CameraPath(seed: seed, eye: eye, lookAt: { t in
            let v = spline(views, t)
            let (heading, pitch) = (v.x, v.y)
            return eye(t) + SIMD3(-sin(heading) * cos(pitch), sin(pitch), -cos(heading) * cos(pitch))
        })
    }

    /// The uniform Catmull–Rom spline through `p` at parameter u (u = k at p[k]), continued
    /// linearly past both ends.
    static func catmullRom(_ p: [SIMD3<Double>], at u: Double) -> SIMD3<Double> {
        let last = p.count - 1
        func point(_ k: Int) -> SIMD3<Double> {
            if k < 0 { return p[0] + (p[0] - p[1]) * Double(-k) }
            if k > last { return p[last] + (p[last] - p[last - 1]) * Double(k - last) }
            return p[k]
        }
        let k = Int(floor(min(max(u, 0), Double(last) - 1e-9)))
        return catmullRom(segment: [point(k - 1), point(k), point(k + 1), point(k + 2)], at: u - Double(k))
    }

    /// The Catmull–Rom segment between `p[1]` (s = 0) and `p[2]` (s = 1) of four points.
    static func catmullRom(segment p: [SIMD3<Double>], at s: Double) -> SIMD3<Double> {
        let (p0, p1, p2, p3) = (p[0], p[1], p[2], p[3])
        let a = 2 * p1, b = p2 - p0, c = 2 * p0 - 5 * p1 + 4 * p2 - p3, d = 3 * p1 - p0 - 3 * p2 + p3
        return 0.5 * (a + b * s + c * s * s + d * s * s * s)
    }
}
