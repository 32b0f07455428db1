import Foundation
import AnchorKit
import AnchorKitMedia
import AnchorKitRendering

/// Renders a ``SyntheticScene`` into a recorded-sequence folder (../shared/FORMATS.md) with exact
/// ground truth: `sequence.json`, frames as PNG files and/or an mp4 video, `groundtruth.jsonl`
/// and `gravity.jsonl`.
///
/// Ground truth is written in the gravity-aligned world of FORMATS.md (+y up, origin at the
/// first camera position, -z the first viewing direction projected onto the horizontal), so it
/// also serves world-tracking evaluation; camera-relative poses are
/// `inverse(camera.transform) * anchor.transform` as always.
public struct SequenceSynthesizer {
    /// How frames are stored.
    public enum FrameStorage: String, CaseIterable, Sendable {
        /// `frames/%06d.png` (lossless).
        case images
        /// `video.mp4` (H.264).
        case video
        /// Both; sequence.json names the PNG frames.
        case both
    }

    public var storage: FrameStorage = .images
    /// Standard gravity, m/s^2.
    public static let gravity = 9.80665

    public init(storage: FrameStorage = .images) { self.storage = storage }

    /// Renders `scene` into `folder`, built under a hidden `.partial-<pid>-` name beside it and
    /// renamed when complete. An existing `folder` is
    /// replaced only as ``checkDestination(_:sceneName:replacing:)`` allows. `progress(done,
    /// total)` is called after each frame.
    public func write(_ scene: SyntheticScene, to folder: String, replacing: Bool = true,
                      progress: ((Int, Int) -> Void)? = nil) throws {
        try Self.checkDestination(folder, sceneName: scene.name, replacing: replacing)
        let fm = FileManager.default
        let staging = OutputFolder.partialPath(for: folder)
        try PartialFiles.create(staging) {
            do {
                try fm.createDirectory(atPath: staging + "/frames", withIntermediateDirectories: true)
            } catch {
                throw InputError(folder, "cannot create the sequence folder: \(error.localizedDescription)")
            }
        }
        do {
            try render(scene, into: staging, progress: progress)
            if storage == .video { try? fm.removeItem(atPath: staging + "/frames") }
            try PartialFiles.commit([(staging, folder)]) {
                if FileIdentity(folder) != nil { try fm.removeItem(atPath: folder) }  // checked above: an earlier output
            }
        } catch {
            PartialFiles.remove([staging])
            throw error
        }
    }

    /// Throws a one-line error naming `folder` unless writing the scene named `sceneName` there
    /// loses nothing: it does not exist, or (when `replacing`) it is an empty folder or an
    /// earlier output of that scene (its sequence.json names the scene and it holds only what
    /// this type writes). A user's folder is never deleted.
    public static func checkDestination(_ folder: String, sceneName: String, replacing: Bool) throws {
        guard let existing = FileIdentity(folder) else { return }
        guard replacing else { throw InputError(folder, "exists (not replaced with --no-overwrite)") }
        guard existing.isFolder else { throw InputError(folder, "exists and is not a folder: not replaced") }
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: folder)) ?? []
        guard !names.isEmpty else { return }
        let own: Set = ["sequence.json", "sequence-video.json", "frames", "video.mp4", "groundtruth.jsonl", "gravity.jsonl", "imu.jsonl", "location.jsonl", "targets"]
        let pictures = ["frames", "targets"].flatMap { (try? fm.contentsOfDirectory(atPath: folder + "/" + $0)) ?? [] }
        guard Set(names).isSubset(of: own), pictures.allSatisfy({ $0.hasSuffix(".png") }),
              (try? RecordedSequence(folder: folder))?.description.name == sceneName else {
            throw InputError(folder, "exists and is not an earlier synth output of \(sceneName): not replaced")
        }
    }

    private func render(_ scene: SyntheticScene, into folder: String, progress: ((Int, Int) -> Void)?) throws {
        let camera = scene.camera
        let renderer = try SceneRenderer(width: camera.width, height: camera.height)
        let video = storage == .images ? nil : try VideoFileWriter(
            path: folder + "/video.mp4", width: camera.width, height: camera.height, framesPerSecond: scene.framesPerSecond)
        let truth = try AnchorStreamWriter(path: folder + "/groundtruth.jsonl")
        let gravity = try AtomicFile(destination: folder + "/gravity.jsonl")
        let gtWorldFromScene = Self.gravityAlignedWorld(firstCamera: scene.path.pose(at: 0))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // byte-identical output on every run
        let planes = scene.allPlanes
        let places = try scene.georeference.map { try GeoPlaces($0) }

        for i in 0..<scene.frameCount {
            let t = Double(i) / scene.framesPerSecond
            let exposure = scene.exposure(t)
            let k = max(1, scene.instantsPerExposure)
            let instants: [[SceneRenderer.Layer]] = (0..<k).map { s in
                let ts = t + exposure * ((Double(s) + 0.5) / Double(k) - 0.5)
                let sceneFromCamera = scene.path.pose(at: ts)
                let cameraFromScene = sceneFromCamera.inverse
                return scene.paintOrder(eye: sceneFromCamera.translation).compactMap { index in
                    let plane = planes[index]
                    return plane.projection(cameraFromPlane: cameraFromScene * plane.pose(ts), camera: camera).map {
                        SceneRenderer.Layer(texture: plane.texture, homography: $0.homography, gain: plane.gain(ts),
                                            polygon: $0.polygon)
                    }
                }
            }
            var finish = scene.sensor
            finish.gain = scene.lighting(t) * scene.sensor.gain
            finish.tint = scene.tint(at: t)
            finish.seed = scene.seed &* 1_000_003 &+ UInt64(i)
            let image = try renderer.render(instants: instants, background: scene.background, finish: finish)
            if storage != .video { try image.write(to: folder + String(format: "/frames/%06d.png", i)) }
            try video?.write(image)

            var update = groundTruth(scene, frame: i, time: t, gtWorldFromScene: gtWorldFromScene)
            update.anchors += places?.anchors(gtWorldFromScene: gtWorldFromScene) ?? []
            update.lightEstimate = scene.light(at: t)
            try truth.write(update)
            let g = update.camera.transform.rotation.transposed * SIMD3(0, -Self.gravity, 0)
            var line = try encoder.encode(GravityLine(frame: i, gravity: [g.x, g.y, g.z]))
            line.append(0x0A)
            try gravity.write(line)
            progress?(i + 1, scene.frameCount)
        }
        try video?.finish()
        try truth.finish()
        try gravity.commit()

        if let sensor = scene.inertialSensor { try writeInertialLog(scene, sensor: sensor, into: folder) }
        if let georeference = scene.georeference {
            let log = try georeference.sensor.recording(along: scene.path, until: Double(scene.frameCount - 1) / scene.framesPerSecond,
                                                  georeference: georeference,
                                                  seed: georeference.logSeed ?? scene.seed &* 0x2545_F491_4F6C_DD1D &+ 29)
            try LocationLogFile.writeJSONLines(log, to: folder + "/location.jsonl")
        }
        let images = try writeReferenceImages(scene, into: folder)
        var description = SequenceDescription(
            name: scene.name, fps: scene.framesPerSecond,
            frames: storage == .video ? nil : "frames/%06d.png", video: storage == .video ? "video.mp4" : nil,
            camera: camera, images: images.isEmpty ? nil : images, markers: scene.markers.isEmpty ? nil : scene.markers,
            qrCodes: scene.qrCodes.isEmpty ? nil : scene.qrCodes, gravity: "gravity.jsonl",
            imu: scene.inertialSensor.map { .init(file: "imu.jsonl", frame: "camera", rate: $0.rate) }, groundTruth: "groundtruth.jsonl")
        if let places {
            description.location = "location.jsonl"
            description.geoAnchors = places.anchors.map(SequenceDescription.GeoAnchorDescription.init)
        }
        let json = JSONEncoder()
        json.outputFormatting = [.prettyPrinted, .sortedKeys]
        try json.encode(description).write(to: URL(fileURLWithPath: folder + "/sequence.json"))
        if storage == .both {
            var alternate = description
            alternate.frames = nil
            alternate.video = "video.mp4"
            try json.encode(alternate).write(to: URL(fileURLWithPath: folder + "/sequence-video.json"))
        }
    }

    /// Writes `imu.jsonl` (``InertialSensor/samples(along:until:seed:)``).
    private func writeInertialLog(_ scene: SyntheticScene, sensor: InertialSensor, into folder: String) throws {
        let samples = sensor.samples(along: scene.path, until: Double(scene.frameCount - 1) / scene.framesPerSecond,
                                     seed: scene.seed &* 0x5851_F42D_4C95_7F2D &+ 17)
        let file = try AtomicFile(destination: folder + "/imu.jsonl")
        for var line in try InertialLog.lines(header: .init(frame: "camera", rate: sensor.rate), samples: samples) {
            line.append(0x0A)
            try file.write(line)
        }
        try file.commit()
    }

    /// Writes `targets/<name>.jpg` for every image target in the scene and every distractor, and
    /// returns their sequence.json entries (targets first).
    private func writeReferenceImages(_ scene: SyntheticScene, into folder: String) throws -> [SequenceDescription.ImageTarget] {
        let planes = scene.allPlanes.compactMap { p in p.target.flatMap { $0.kind == .image ? (p.texture, $0.name, $0.extent.x) : nil } }
        let all = planes + scene.distractors.map { ($0.image, $0.name, $0.physicalWidth) }
        guard !all.isEmpty else { return [] }
        try FileManager.default.createDirectory(atPath: folder + "/targets", withIntermediateDirectories: true)
        return try all.map { texture, name, width in
            let file = "targets/\(name).png"
            try texture.write(to: folder + "/" + file)
            return SequenceDescription.ImageTarget(name: name, file: file, physicalWidth: width)
        }
    }

    private struct GravityLine: Encodable { let frame: Int; let gravity: [Double] }

    /// A scene's places given by coordinate, as ground truth lists them: geo anchors at their
    /// scene points with the geo world's axes (east, up, south).
    struct GeoPlaces {
        let anchors: [GeoAnchor]
        let sceneFromPlaces: [Transform]

        init(_ georeference: SceneGeoreference) throws {
            anchors = try georeference.places.map { GeoAnchor(name: $0.name, coordinate: try georeference.coordinate(of: $0.point)) }
            let axes = georeference.geoWorldFromScene.rotation.transposed
            sceneFromPlaces = georeference.places.map { Transform(rotation: axes, translation: $0.point) }
        }

        func anchors(gtWorldFromScene: Transform) -> [Anchor] {
            zip(anchors, sceneFromPlaces).map { place, sceneFromPlace in
                var anchor = Anchor(identifier: place.identifier, kind: .geo, name: place.name, isTracked: true,
                                    transform: gtWorldFromScene * sceneFromPlace, extent: .zero)
                anchor.coordinate = place.coordinate
                return anchor
            }
        }
    }

    /// The ground-truth line of frame `i`: every target with its pose, corners and visibility,
    /// and every surface (``ScenePlane/Surface``) as a plane anchor with its coverage.
    ///
    /// Occlusion is approximate: from the area of a target (or surface) in the image, the areas
    /// of its intersections with each plane painted after it are subtracted one by one, so parts
    /// hidden by two occluders at once are counted twice (the result is clamped at 0). Targets
    /// are not occluders of targets (posters side by side, markers on a table), nor are planes
    /// lying on a surface occluders of that surface (a poster is part of its wall).
    func groundTruth(_ scene: SyntheticScene, frame i: Int, time t: Double, gtWorldFromScene: Transform) -> FrameUpdate {
        let worldFromCamera = scene.path.pose(at: t)
        let cameraFromScene = worldFromCamera.inverse
        let image = ConvexPolygon.imageRectangle(width: scene.camera.width, height: scene.camera.height)
        let planes = scene.allPlanes
        let order = scene.paintOrder(eye: worldFromCamera.translation)
        var rank: [Int: Int] = [:]  // position in the painting order; none for planes not painted now
        for (k, p) in order.enumerated() { rank[p] = k }
        var outlines: [Int: [SIMD2<Double>]?] = [:]
        func outline(_ p: Int) -> [SIMD2<Double>]? {
            if let known = outlines[p] { return known }
            let o = planes[p].visibleOutline(cameraFromPlane: cameraFromScene * planes[p].pose(t), camera: scene.camera, ofTarget: false)
            outlines[p] = o
            return o
        }
        var anchors: [Anchor] = []
        for (p, plane) in planes.enumerated() {
            if let target = plane.target {
                let cameraFromPlane = cameraFromScene * plane.pose(t)
                let corners = plane.projectedCorners(cameraFromPlane: cameraFromPlane, camera: scene.camera, ofTarget: true)
                var visible = 0.0
                if let r = rank[p], let corners, ConvexPolygon.signedArea(corners) != 0 {
                    let inImage = ConvexPolygon.clip(corners, by: image)
                    var area = ConvexPolygon.area(inImage)
                    for o in order[(r + 1)...] where planes[o].target == nil {
                        if let occluder = outline(o) { area -= ConvexPolygon.area(ConvexPolygon.clip(inImage, by: occluder)) }
                    }
                    visible = max(0, min(1, area / ConvexPolygon.area(corners)))
                }
                var anchor = Anchor(
                    identifier: target.identifier, kind: target.kind, name: target.kind == .qr ? nil : target.name, isTracked: visible > 0,
                    transform: gtWorldFromScene * plane.pose(t), extent: target.extent,
                    corners: visible > 0 ? corners : nil, visible: (visible * 1e4).rounded() / 1e4)
                anchor.instance = target.instance
                anchor.payload = target.payload
                anchors.append(anchor)
            }
            if let surface = plane.surface {
                var coverage = 0.0
                if let r = rank[p], let own = outline(p) {
                    let inImage = ConvexPolygon.clip(own, by: image)
                    var area = ConvexPolygon.area(inImage)
                    if area > 0 {
                        for o in order[(r + 1)...] where !plane.isCoplanar(with: planes[o], at: t) {
                            if let occluder = outline(o) { area -= ConvexPolygon.area(ConvexPolygon.clip(inImage, by: occluder)) }
                        }
                    }
                    coverage = max(0, min(1, area / ConvexPolygon.area(image)))
                }
                coverage = (coverage * 1e4).rounded() / 1e4
                let extent = surface.extent ?? plane.size
                let polygon = TargetConvention.corners(width: extent.x, height: extent.y).map { SIMD2($0.x, $0.z) }
                anchors.append(Anchor(
                    identifier: surface.identifier, kind: .plane, isTracked: coverage > 0,
                    transform: gtWorldFromScene * plane.pose(t), extent: extent, alignment: surface.alignment,
                    polygon: polygon, coverage: coverage))
            }
        }
        return FrameUpdate(frame: i, time: t, camera: CameraState(transform: gtWorldFromScene * worldFromCamera, intrinsics: scene.camera),
                           anchors: anchors)
    }

    /// `gtWorld_from_scene` for ARKit's `.gravity` alignment: origin at the first camera, +y up,
    /// -z along the first viewing direction projected onto the horizontal.
    static func gravityAlignedWorld(firstCamera: Transform) -> Transform {
        // The scene's +y is already up; the heading is the first viewing direction.
        let axes = GravityAlignment.axes(up: SIMD3(0, 1, 0), forward: -firstCamera.rotation.columns.2, fallback: SIMD3(0, 0, -1))
        return Transform(rotation: axes, translation: firstCamera.translation).inverse
    }
}
