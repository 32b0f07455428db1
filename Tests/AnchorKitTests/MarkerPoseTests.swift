import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia
@testable import AnchorKitRendering
@testable import AnchorKitSynthesis

/// Marker poses against exact truth: single rendered markers, and the committed datasets scored
/// with the metrics of FORMATS.md.
@Suite("Marker poses")
struct MarkerPoseTests {
    /// A noise-free rendering of one DICT_4X4_50 marker and its true corners.
    struct Rendered {
        let image: Image
        let corners: [SIMD2<Double>]
        let cameraFromAnchor: Transform
    }

    static let markerSize = 0.08

    /// Facing the camera, top edge up: anchor +x -> camera +x, +y -> +z, +z -> -y.
    static let facing = Matrix3(columns: (SIMD3(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, -1, 0)))

    static func render(id: Int, cameraFromAnchor pose: Transform,
                       camera: CameraIntrinsics = MarkerScenes.standardCamera()) throws -> Rendered {
        let dictionary = try MarkerDictionary(named: "DICT_4X4_50")
        let plane = try MarkerScenes.markerPlane(dictionary, id: id, size: markerSize, pose: pose)
        let h = try #require(plane.homography(cameraFromPlane: pose, camera: camera))
        let renderer = try SceneRenderer(width: camera.width, height: camera.height)
        var finish = SceneRenderer.Finish()
        finish.readNoise = 0
        finish.shotNoise = 0
        finish.vignetting = 0
        let image = try renderer.render(
            instants: [[SceneRenderer.Layer(texture: plane.texture, homography: h, gain: 1)]], background: 90, finish: finish)
        let corners = try #require(plane.projectedCorners(cameraFromPlane: pose, camera: camera, ofTarget: true))
        return Rendered(image: image, corners: corners, cameraFromAnchor: pose)
    }

    struct Pose: CustomTestStringConvertible, Sendable {
        let name: String
        let transform: Transform
        var testDescription: String { name }
    }

    static let poses = [
        Pose(name: "0.5 m, tilted 30° about x",
             transform: Transform(rotation: .rotation(angle: .pi / 6, axis: SIMD3(1, 0, 0)) * facing,
                                  translation: SIMD3(0.03, 0.02, -0.5))),
        Pose(name: "0.5 m, tilted 30° about y, rolled 40°",
             transform: Transform(rotation: .rotation(angle: .pi / 6, axis: SIMD3(0, 1, 0)) * facing
                                      * .rotation(angle: 40 * .pi / 180, axis: SIMD3(0, 1, 0)),
                                  translation: SIMD3(-0.05, -0.01, -0.5))),
        Pose(name: "0.35 m, tilted 45° about a diagonal, upside down",
             transform: Transform(rotation: .rotation(angle: .pi / 4, axis: SIMD3(1, 1, 0)) * facing
                                      * .rotation(angle: .pi, axis: SIMD3(0, 1, 0)),
                                  translation: SIMD3(0.0, 0.0, -0.35))),
    ]

    @Test(arguments: poses)
    func singleMarkerPoseMatchesTruth(_ pose: Pose) throws {
        let camera = MarkerScenes.standardCamera()
        let truth = try Self.render(id: 7, cameraFromAnchor: pose.transform)
        let session = try Session(configuration: Configuration(
            camera: camera, markers: [MarkerSet(dictionary: "DICT_4X4_50", size: Self.markerSize)]))
        var last: FrameUpdate?
        for i in 0..<3 {
            last = try session.process(Frame(index: i, time: Double(i) / 30, image: truth.image))
        }
        let update = try #require(last)
        #expect(update.camera.transform == .identity, "no world tracking: world is the camera")
        #expect(update.anchors.count == 1, "anchors: \(update.anchors.map(\.identifier))")
        let anchor = try #require(update.anchor("marker/DICT_4X4_50/7"))
        #expect(anchor.kind == .marker && anchor.name == "7" && anchor.isTracked)
        #expect(anchor.extent == SIMD2(Self.markerSize, Self.markerSize))

        let corners = try #require(anchor.corners)
        #expect(corners.count == 4)
        let cornerErrors = zip(corners, truth.corners).map { length($0 - $1) }
        #expect(cornerErrors.allSatisfy { $0 < 0.5 }, "corner errors \(cornerErrors) px")

        let estimated = update.camera.cameraFrom(anchor.transform)
        let rotation = rotationErrorDegrees(estimated, truth.cameraFromAnchor)
        let distance = length(truth.cameraFromAnchor.translation)
        let translation = 100 * length(estimated.translation - truth.cameraFromAnchor.translation) / distance
        #expect(rotation < 1, "rotation error \(rotation)°")
        #expect(translation < 1, "translation error \(translation) %")
        print("single marker [\(pose.name)]: corner error max \(String(format: "%.3f", cornerErrors.max()!)) px, "
              + "rotation \(String(format: "%.3f", rotation))°, translation \(String(format: "%.3f", translation)) %")
    }

    /// A marker turned 45° about its normal and seen 75° off it (a tag on the floor ahead): a
    /// diamond about 42 x 10 px whose modules are thin slivers. Its template's blur is converted
    /// with the modules' width across the sides, not their length along them, and correlated
    /// between the template's axes as a blur the same in every image direction is: converted with
    /// the length, its two acute corners settled 1.6 and 1.3 px inside and the pose came out 7.3 %
    /// too far; blurred along the template's axes alone, 1.1 and 1.0 px and 5.2 % (0.6, 0.5 px and
    /// 2.5 % now; what is left: Benchmarks/README.md, "Known quirks").
    @Test func markerTurnedAboutItsNormalAndSeenObliquely() throws {
        let camera = MarkerScenes.standardCamera()
        let pose = Transform(rotation: .rotation(angle: 75 * .pi / 180, axis: SIMD3(1, 0, 0)) * Self.facing
                                 * .rotation(angle: .pi / 4, axis: SIMD3(0, 1, 0)),
                             translation: SIMD3(0.0, -0.05, -1.4))
        let truth = try Self.render(id: 7, cameraFromAnchor: pose)
        var configuration = Configuration(camera: camera,
                                          markers: [MarkerSet(dictionary: "DICT_4X4_50", size: Self.markerSize, ids: [7])])
        configuration.markerTracking.filter = nil
        let update = try Session(configuration: configuration).process(Frame(index: 0, time: 0, image: truth.image))
        let anchor = try #require(update.anchor("marker/DICT_4X4_50/7"))
        let corners = try #require(anchor.corners)
        let cornerErrors = zip(corners, truth.corners).map { length($0 - $1) }
        let distance = length(truth.cameraFromAnchor.translation)
        let translation = 100 * length(anchor.transform.translation - truth.cameraFromAnchor.translation) / distance
        print("marker seen 75° off its normal: corner errors \(cornerErrors.map { String(format: "%.2f", $0) }) px, "
              + "translation \(String(format: "%.2f", translation)) %")
        #expect(cornerErrors.allSatisfy { $0 < 0.8 }, "corner errors \(cornerErrors) px")
        #expect(translation < 3.5, "translation error \(translation) %")
    }

    @Test func singleFramePoseWithoutFilter() throws {
        // The first frame's own estimate (ids listed, so trusted at once; no temporal filter).
        let pose = Self.poses[0]
        let truth = try Self.render(id: 7, cameraFromAnchor: pose.transform)
        var configuration = Configuration(camera: MarkerScenes.standardCamera(),
                                          markers: [MarkerSet(dictionary: "DICT_4X4_50", size: Self.markerSize, ids: [7])])
        configuration.markerTracking.filter = nil
        let session = try Session(configuration: configuration)
        let update = try session.process(Frame(index: 0, time: 0, image: truth.image))
        let anchor = try #require(update.anchor("marker/DICT_4X4_50/7"))
        #expect(rotationErrorDegrees(anchor.transform, truth.cameraFromAnchor) < 1)
        #expect(length(anchor.transform.translation - truth.cameraFromAnchor.translation) < 0.005)
    }

    @Test func newIdsNeedTwoConsecutiveDetectionsUnlessListed() throws {
        let truth = try Self.render(id: 7, cameraFromAnchor: Self.poses[0].transform)
        let camera = MarkerScenes.standardCamera()
        let blank = try Image.filled(width: 640, height: 480, value: 128)

        let open = try Session(configuration: Configuration(camera: camera, markers: [MarkerSet(dictionary: "DICT_4X4_50", size: 0.08)]))
        let u0 = try open.process(Frame(index: 0, time: 0, image: truth.image))
        #expect(u0.anchors.isEmpty, "an unlisted id is not reported on its first detection")
        let u1 = try open.process(Frame(index: 1, time: 1.0 / 30, image: truth.image))
        #expect(u1.anchors.map(\.identifier) == ["marker/DICT_4X4_50/7"])
        #expect(u1.events.added.map(\.identifier) == ["marker/DICT_4X4_50/7"])
        #expect(u1.events.updated.isEmpty)
        let u2 = try open.process(Frame(index: 2, time: 2.0 / 30, image: truth.image))
        #expect(u2.events.added.isEmpty)
        #expect(u2.events.updated.map(\.identifier) == ["marker/DICT_4X4_50/7"])
        // Lost: still listed, tracked false, last transform kept, no corners.
        let u3 = try open.process(Frame(index: 3, time: 3.0 / 30, image: blank))
        let lost = try #require(u3.anchor("marker/DICT_4X4_50/7"))
        #expect(!lost.isTracked)
        #expect(lost.corners == nil)
        #expect(lost.transform == u2.anchor("marker/DICT_4X4_50/7")?.transform)
        #expect(u3.events.updated.map(\.identifier) == ["marker/DICT_4X4_50/7"])
        // Still lost: no new event.
        let u4 = try open.process(Frame(index: 4, time: 4.0 / 30, image: blank))
        #expect(u4.events.isEmpty)
        #expect(u4.anchors.count == 1)

        let listed = try Session(configuration: Configuration(
            camera: camera, markers: [MarkerSet(dictionary: "DICT_4X4_50", size: 0.08, ids: [7])]))
        let l0 = try listed.process(Frame(index: 0, time: 0, image: truth.image))
        #expect(l0.anchors.map(\.identifier) == ["marker/DICT_4X4_50/7"], "a listed id is trusted at once")

        let other = try Session(configuration: Configuration(
            camera: camera, markers: [MarkerSet(dictionary: "DICT_4X4_50", size: 0.08, ids: [3])]))
        for i in 0..<3 {
            #expect(try other.process(Frame(index: i, time: Double(i) / 30, image: truth.image)).anchors.isEmpty,
                    "ids not listed are ignored")
        }
    }

    @Test func detectorFindsTheRenderedCornersInOrder() throws {
        let truth = try Self.render(id: 21, cameraFromAnchor: Self.poses[2].transform)
        let detector = try MarkerDetector(dictionary: try MarkerDictionary(named: "DICT_4X4_50"))
        let found = try detector.detect(in: truth.image)
        #expect(found.map(\.id) == [21])
        let d = try #require(found.first)
        for (a, b) in zip(d.corners, truth.corners) { #expect(length(a - b) < 0.5, "\(a) vs \(b)") }
    }

    @Test func sessionRejectsFramesOfAnotherSize() throws {
        let session = try Session(configuration: Configuration(
            camera: MarkerScenes.standardCamera(), markers: [MarkerSet(dictionary: "DICT_4X4_50", size: 0.08)]))
        let small = try Image.filled(width: 320, height: 240, value: 0)
        expectOneLineError(containing: ["640x480", "320x240"]) {
            _ = try session.process(Frame(index: 0, time: 0, image: small))
        }
    }

    @Test func sessionRejectsBadConfigurations() {
        let camera = MarkerScenes.standardCamera()
        expectOneLineError(containing: ["DICT_9X9_1"]) {
            _ = try Session(configuration: Configuration(camera: camera, markers: [MarkerSet(dictionary: "DICT_9X9_1", size: 0.1)]))
        }
        expectOneLineError(containing: ["size"]) {
            _ = try Session(configuration: Configuration(camera: camera, markers: [MarkerSet(dictionary: "DICT_4X4_50", size: -1)]))
        }
        expectOneLineError(containing: ["77"]) {
            _ = try Session(configuration: Configuration(camera: camera, markers: [MarkerSet(dictionary: "DICT_4X4_50", size: 0.1, ids: [77])]))
        }
    }

    @Test func markerSetArguments() throws {
        #expect(try MarkerSet(argument: "DICT_4X4_50:0.08") == MarkerSet(dictionary: "DICT_4X4_50", size: 0.08))
        #expect(try MarkerSet(argument: "DICT_APRILTAG_36h11:0.06:0,5,12")
                    == MarkerSet(dictionary: "DICT_APRILTAG_36h11", size: 0.06, ids: [0, 5, 12]))
        for bad in ["garbage", "DICT_4X4_50", "DICT_4X4_50:", "DICT_4X4_50:-1", "DICT_4X4_50:abc", "DICT_4X4_50:0.1:x",
                    "DICT_4X4_50:0.1:1:2", "DICT_4X4_50:nan", "DICT_4X4_50:inf"] {
            #expect(throws: MarkerError.self, "\(bad)") { _ = try MarkerSet(argument: bad) }
        }
    }

    // MARK: The committed datasets

    @Test(arguments: Paths.datasetNames + Paths.walkDatasetNames)
    func datasetMeetsTheThresholds(_ name: String) throws {
        let sequence = try RecordedSequence(folder: Paths.dataset(name))
        let truth = try #require(try sequence.groundTruth())
        let session = try Session(configuration: try Configuration(sequence: sequence))
        let source = try sequence.openFrames()
        var updates: [FrameUpdate] = []
        while let frame = try source.nextFrame() { updates.append(try session.process(frame)) }
        #expect(updates.count == truth.count)
        let score = Scorer(camera: sequence.description.camera).score(reported: updates, truth: truth)
        let success5 = try #require(score.successRate(at: 5))
        let rotation = try #require(score.rotationErrorDegrees?.median)
        let translation = try #require(score.translationErrorPercent?.median)
        print("dataset \(name): frames \(updates.count), expected \(score.expected), reported \(score.reported), "
              + "success@3 \(score.successRate(at: 3)!), success@5 \(success5), success@10 \(score.successRate(at: 10)!), "
              + "false positives \(score.falsePositives), median rotation \(rotation)°, p90 rotation "
              + "\(score.rotationErrorDegrees!.p90)°, median translation \(translation) %, "
              + "median corner error \(score.cornerError?.median ?? .nan) px")
        #expect(success5 >= 0.98, "\(name): success@5px \(success5)")
        #expect(score.falsePositives == 0, "\(name): false positives \(score.falsePositives)")
        // The walks (far, small, oblique, blurred markers) are held to the issue's 0.5°.
        #expect(rotation < (Paths.walkDatasetNames.contains(name) ? 0.5 : 1.5), "\(name): median rotation error \(rotation)°")
        #expect(translation < 2, "\(name): median translation error \(translation) %")
    }

    // MARK: Scorer

    @Test func scorerOnThePerfectStream() throws {
        let sequence = try RecordedSequence(folder: Paths.dataset("markers-blur"))
        let truth = try #require(try sequence.groundTruth())
        let score = Scorer(camera: sequence.description.camera).score(reported: truth, truth: truth)
        #expect(score.frames == truth.count)
        #expect(score.successRates.allSatisfy { $0 == 1 })
        #expect(score.falsePositives == 0)
        #expect(score.reported == score.expected)
        #expect((score.rotationErrorDegrees?.max ?? 1) < 1e-4)
        #expect((score.translationErrorCentimetres?.max ?? 1) < 1e-9)
        #expect(score.cornerError?.max == 0)
        #expect(score.table.contains("success @ 5 px"))
    }

    @Test func scorerCountsMissesAndFalsePositives() throws {
        let camera = MarkerScenes.standardCamera()
        let pose = Self.poses[0].transform
        let corners = TargetConvention.corners(width: 0.08, height: 0.08).map { camera.project(pose.apply(to: $0))! }
        let gt = Anchor(identifier: "marker/D/1", kind: .marker, name: "1", isTracked: true, transform: pose,
                        extent: SIMD2(0.08, 0.08), corners: corners)
        let truth = [
            FrameUpdate(frame: 0, time: 0, camera: CameraState(intrinsics: testCamera), anchors: [gt]),
            FrameUpdate(frame: 1, time: 0.1, camera: CameraState(intrinsics: testCamera), anchors: [gt]),
        ]
        var shifted = gt
        shifted.corners = corners.map { $0 + SIMD2(4, 0) }
        var ghost = gt
        ghost.identifier = "marker/D/2"
        let reported = [
            FrameUpdate(frame: 0, time: 0, camera: CameraState(intrinsics: testCamera), anchors: [shifted, ghost]),
            FrameUpdate(frame: 1, time: 0.1, camera: CameraState(intrinsics: testCamera), anchors: []),
        ]
        let score = Scorer(camera: camera).score(reported: reported, truth: truth)
        #expect(score.expected == 2)
        #expect(score.reported == 1)
        #expect(score.successRate(at: 3) == 0)
        #expect(score.successRate(at: 5) == 0.5)
        #expect(score.falsePositives == 1)
        #expect(Scorer.cornerError(shifted.corners, gt.corners) == 4)
        #expect(Scorer.cornerError(nil, gt.corners) == .infinity)
    }
}
