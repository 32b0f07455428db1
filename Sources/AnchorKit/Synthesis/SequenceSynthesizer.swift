import Foundation

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

    /// Renders `scene` into `folder` (which must not exist yet, or is replaced). The folder is
    /// built under a temporary name and renamed when complete. `progress(done, total)` is
    /// called after each frame.
    public func write(_ scene: SyntheticScene, to folder: String, progress: ((Int, Int) -> Void)? = nil) throws {
        let fm = FileManager.default
        let staging = folder + ".partial-\(getpid())"
        try? fm.removeItem(atPath: staging)
        do {
            try fm.createDirectory(atPath: staging + "/frames", withIntermediateDirectories: true)
        } catch {
            throw InputError(folder, "cannot create the sequence folder: \(error.localizedDescription)")
        }
        do {
            try render(scene, into: staging, progress: progress)
            if storage == .video { try? fm.removeItem(atPath: staging + "/frames") }
            try? fm.removeItem(atPath: folder)
            try fm.moveItem(atPath: staging, toPath: folder)
        } catch {
            try? fm.removeItem(atPath: staging)
            throw error
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

        for i in 0..<scene.frameCount {
            let t = Double(i) / scene.framesPerSecond
            let exposure = scene.exposure(t)
            let k = max(1, scene.instantsPerExposure)
            let instants: [[SceneRenderer.Layer]] = (0..<k).map { s in
                let ts = t + exposure * ((Double(s) + 0.5) / Double(k) - 0.5)
                let cameraFromScene = scene.path.pose(at: ts).inverse
                return scene.planes.compactMap { plane in
                    plane.homography(cameraFromPlane: cameraFromScene * plane.pose(ts), camera: camera).map {
                        SceneRenderer.Layer(texture: plane.texture, homography: $0, gain: plane.gain(ts))
                    }
                }
            }
            var finish = scene.sensor
            finish.gain = scene.lighting(t) * scene.sensor.gain
            finish.seed = scene.seed &* 1_000_003 &+ UInt64(i)
            let image = try renderer.render(instants: instants, background: scene.background, finish: finish)
            if storage != .video { try image.write(to: folder + String(format: "/frames/%06d.png", i)) }
            try video?.write(image)

            let update = groundTruth(scene, frame: i, time: t, gtWorldFromScene: gtWorldFromScene)
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

        let images = try writeReferenceImages(scene, into: folder)
        let description = SequenceDescription(
            name: scene.name, fps: scene.framesPerSecond,
            frames: storage == .video ? nil : "frames/%06d.png", video: storage == .video ? "video.mp4" : nil,
            camera: camera, images: images.isEmpty ? nil : images, markers: scene.markers.isEmpty ? nil : scene.markers,
            gravity: "gravity.jsonl", groundTruth: "groundtruth.jsonl")
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

    /// Writes `targets/<name>.jpg` for every image target in the scene and every distractor, and
    /// returns their sequence.json entries (targets first).
    private func writeReferenceImages(_ scene: SyntheticScene, into folder: String) throws -> [SequenceDescription.ImageTarget] {
        let planes = scene.planes.compactMap { p in p.target.flatMap { $0.kind == .image ? (p.texture, $0.name, $0.extent.x) : nil } }
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

    /// The ground-truth line of frame `i`: every target with its pose, corners and visibility.
    func groundTruth(_ scene: SyntheticScene, frame i: Int, time t: Double, gtWorldFromScene: Transform) -> FrameUpdate {
        let worldFromCamera = scene.path.pose(at: t)
        let cameraFromScene = worldFromCamera.inverse
        let image = ConvexPolygon.imageRectangle(width: scene.camera.width, height: scene.camera.height)
        var anchors: [Anchor] = []
        for (p, plane) in scene.planes.enumerated() {
            guard let target = plane.target else { continue }
            let cameraFromPlane = cameraFromScene * plane.pose(t)
            let corners = plane.projectedCorners(cameraFromPlane: cameraFromPlane, camera: scene.camera, ofTarget: true)
            var visible = 0.0
            if let corners, ConvexPolygon.signedArea(corners) != 0 {
                let inImage = ConvexPolygon.clip(corners, by: image)
                var area = ConvexPolygon.area(inImage)
                for occluder in scene.planes[(p + 1)...] where occluder.target == nil {
                    if let o = occluder.projectedCorners(cameraFromPlane: cameraFromScene * occluder.pose(t),
                                                         camera: scene.camera, ofTarget: false) {
                        area -= ConvexPolygon.area(ConvexPolygon.clip(inImage, by: o))
                    }
                }
                visible = max(0, min(1, area / ConvexPolygon.area(corners)))
            }
            anchors.append(Anchor(
                identifier: target.identifier, kind: target.kind, name: target.name, isTracked: visible > 0,
                transform: gtWorldFromScene * plane.pose(t), extent: target.extent,
                corners: visible > 0 ? corners : nil, visible: (visible * 1e4).rounded() / 1e4))
        }
        return FrameUpdate(frame: i, time: t, camera: CameraState(transform: gtWorldFromScene * worldFromCamera), anchors: anchors)
    }

    /// `gtWorld_from_scene` for ARKit's `.gravity` alignment: origin at the first camera, +y up,
    /// -z along the first viewing direction projected onto the horizontal.
    static func gravityAlignedWorld(firstCamera: Transform) -> Transform {
        let forward = -firstCamera.rotation.columns.2
        var f = SIMD3(forward.x, 0, forward.z)
        f = length(f) < 1e-9 ? SIMD3(0, 0, -1) : normalize(f)
        let z = -f, y = SIMD3<Double>(0, 1, 0)
        let sceneFromWorld = Transform(rotation: Matrix3(columns: (cross(y, z), y, z)), translation: firstCamera.translation)
        return sceneFromWorld.inverse
    }
}
