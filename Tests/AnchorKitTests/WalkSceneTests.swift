import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia
@testable import AnchorKitSynthesis

/// The handheld walk scenes: several markers printing one id, far, small, oblique and blurred,
/// as their documentation promises (measured from the ground truth's corners).
@Suite("Marker walk scenes")
struct WalkSceneTests {
    /// The ground truth of every frame of a scene, without rendering.
    static func truth(of scene: SyntheticScene) -> [FrameUpdate] {
        let world = SequenceSynthesizer.gravityAlignedWorld(firstCamera: scene.path.pose(at: 0))
        return (0..<scene.frameCount).map { i in
            SequenceSynthesizer().groundTruth(scene, frame: i, time: Double(i) / scene.framesPerSecond, gtWorldFromScene: world)
        }
    }

    /// The expected marker observations of a stream (tracked, at least half visible).
    static func expected(_ truth: [FrameUpdate]) -> [Anchor] {
        truth.flatMap { $0.anchors.filter { $0.kind == .marker && $0.isTracked && ($0.visible ?? 1) >= 0.5 } }
    }

    /// Mean edge length of a quadrilateral, pixels.
    static func side(_ corners: [SIMD2<Double>]) -> Double {
        (0..<4).map { length(corners[($0 + 1) % 4] - corners[$0]) }.reduce(0, +) / 4
    }

    /// The fraction of `values` satisfying `condition`.
    static func share(_ values: [Double], _ condition: (Double) -> Bool) -> Double {
        Double(values.filter(condition).count) / Double(values.count)
    }

    /// One test per scene: building the room's textures takes seconds in a debug build, so each
    /// scene is built once and every check of it runs on that.
    @Test(arguments: ["markers-far-walk", "markers-blur-walk"])
    func walkScene(_ name: String) throws {
        let scene = try MarkerScenes.scene(named: name)
        let truth = Self.truth(of: scene)
        try Self.checkDuplicateInstances(scene, truth)
        try Self.checkCommittedCopy(name, truth)
        if name == "markers-far-walk" {
            try Self.checkSmallAndOblique(truth)
            _ = Self.blur(scene)
            try Self.checkRendering(scene)
        } else {
            Self.checkBlurredAndOblique(scene, truth)
        }
    }

    /// The copy in Datasets/ is this scene: the same ground truth, and a video of as many frames.
    static func checkCommittedCopy(_ name: String, _ truth: [FrameUpdate]) throws {
        let sequence = try RecordedSequence(folder: Paths.dataset(name))
        #expect(sequence.description.video == "video.mp4" && sequence.description.name == name)
        let committed = try #require(try sequence.groundTruth())
        #expect(committed.count == truth.count)
        for (a, b) in zip(committed, truth) {
            #expect(a.anchors.map(\.identifier) == b.anchors.map(\.identifier))
            #expect(a.anchors.map(\.instance) == b.anchors.map(\.instance))
            for (x, y) in zip(a.anchors, b.anchors) {
                #expect(Scorer.cornerError(x.corners, y.corners) < 1e-9 || (x.corners == nil && y.corners == nil))
            }
        }
        let source = try sequence.openFrames()
        if let count = source.expectedFrameCount { #expect(abs(count - truth.count) <= 2) }
        let first = try #require(try source.nextFrame())
        #expect(first.image.width == 640 && first.image.height == 480)
    }

    /// One id printed three times and another twice, all seen; ids, names, instance keys and
    /// sizes as the scene's marker sets say.
    static func checkDuplicateInstances(_ scene: SyntheticScene, _ truth: [FrameUpdate]) throws {
        let seen = expected(truth)
        var instances: [String: Set<Int>] = [:]
        for a in seen {
            let (dictionary, id) = try #require(a.markerCode, "\(a.identifier)")
            #expect(a.name == String(id))
            #expect(a.identifier == Anchor.markerIdentifier(dictionary: dictionary, id: id, instance: a.instance ?? 0))
            #expect(a.instance != 0, "the first instance has no instance key")
            instances[AnchorMatching.group(of: a), default: []].insert(a.instance ?? 0)
            let set = try #require(scene.markers.first { $0.dictionary == dictionary && $0.accepts(id) })
            #expect(a.extent == SIMD2(set.size, set.size))
        }
        #expect(instances.values.map(\.count).sorted(by: >).prefix(2) == [3, 2], "\(instances)")
        #expect(instances.values.allSatisfy { $0 == Set(0..<$0.count) })
    }

    /// markers-far-walk: the 10 cm tags 10–20 px (mean side) most of the time, some 10–12 px;
    /// seen from up to a little over 60° off their normal.
    static func checkSmallAndOblique(_ truth: [FrameUpdate]) throws {
        let seen = expected(truth)
        let sides = try seen.map { side(try #require($0.corners)) }
        let small = seen.indices.filter { seen[$0].extent.x < 0.15 }.map { sides[$0] }
        #expect(share(small) { (10...20).contains($0) } >= 0.6)
        #expect(share(small) { $0 <= 12 } >= 0.1)
        #expect(small.min()! >= 9.5)
        #expect(sides.max()! < 40)
        let angles = viewAngles(truth)
        #expect(angles.max()! > 60 && angles.max()! < 70)
    }

    /// markers-blur-walk: a fifth of the observations more than 50° off the normal, and a median
    /// blur (``blur(_:)``) of at least 2 px.
    static func checkBlurredAndOblique(_ scene: SyntheticScene, _ truth: [FrameUpdate]) {
        let angles = viewAngles(truth)
        #expect(share(angles) { $0 > 50 } >= 0.2)
        #expect(angles.max()! < 70)
        let sorted = blur(scene).sorted()
        #expect(sorted[sorted.count / 2] >= 2)
    }

    /// How far the fastest corner of each marker wholly in the image moves while the shutter is
    /// open, pixels, every frame: exactly, from the camera path (the rendering averages that
    /// motion). Prints its distribution and the camera's rate of turn.
    static func blur(_ scene: SyntheticScene) -> [Double] {
        var blur: [Double] = [], turn: [Double] = []
        for i in 0..<scene.frameCount {
            let t = Double(i) / scene.framesPerSecond, half = scene.exposure(t) / 2
            let (open, close) = (scene.path.pose(at: t - half).inverse, scene.path.pose(at: t + half).inverse)
            turn.append((open.rotation * close.rotation.transposed).rotationAngle / (2 * half))
            for plane in scene.planes where plane.target?.kind == .marker {
                guard let a = plane.projectedCorners(cameraFromPlane: open * plane.pose(t), camera: scene.camera, ofTarget: true),
                      let b = plane.projectedCorners(cameraFromPlane: close * plane.pose(t), camera: scene.camera, ofTarget: true),
                      (a + b).allSatisfy({ $0.x >= 0 && $0.y >= 0 && $0.x < 640 && $0.y < 480 }) else { continue }
                blur.append(zip(a, b).map { length($0 - $1) }.max()!)
            }
        }
        let sorted = blur.sorted()
        let rms = (turn.map { $0 * $0 }.reduce(0, +) / Double(turn.count)).squareRoot()
        print("\(scene.name): blur (px) p10 \(sorted[sorted.count / 10]), median \(sorted[sorted.count / 2]), "
              + "p90 \(sorted[sorted.count * 9 / 10]), max \(sorted.last!); camera turning \(rms) rad/s RMS")
        return blur
    }

    /// Two frames written to a folder carry the instances in groundtruth.jsonl and the marker
    /// sets in sequence.json.
    static func checkRendering(_ scene: SyntheticScene) throws {
        var short = scene
        short.frameCount = 2
        let folder = TemporaryFolder()
        try SequenceSynthesizer().write(short, to: folder.file("walk"))
        let sequence = try RecordedSequence(folder: folder.file("walk"))
        #expect(sequence.description.markers == scene.markers)
        let truth = try #require(try sequence.groundTruth())
        #expect(truth.count == 2)
        #expect(truth[0].anchors.compactMap(\.instance).sorted() == [1, 1, 2])
        #expect(truth[0].anchors.contains { $0.identifier == "marker/DICT_APRILTAG_36h11/3/2" && $0.instance == 2 })
    }

    /// The view angle of every expected marker observation, degrees.
    static func viewAngles(_ truth: [FrameUpdate]) -> [Double] {
        truth.flatMap { update in
            update.anchors.filter { $0.kind == .marker && $0.isTracked && ($0.visible ?? 1) >= 0.5 }.map { viewAngle($0, from: update) }
        }
    }

    /// The angle between a marker's normal and the ray to the camera, degrees (0 = frontal).
    static func viewAngle(_ anchor: Anchor, from update: FrameUpdate) -> Double {
        let pose = update.camera.cameraFrom(anchor.transform)
        let toCamera = -pose.translation / length(pose.translation)
        return acos(min(1, dot(pose.rotation.columns.1, toCamera))) * 180 / .pi
    }
}
