import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia
@testable import AnchorKitSynthesis

/// Markers reported through the layout they form (``MarkerLayout``), on rendered sequences:
/// better poses where markers keep their places, and a marker that moves reported on its own.
@Suite("Marker layout")
struct MarkerLayoutTests {
    /// The session's updates for `sequence`, with or without the layout.
    static func track(_ sequence: RecordedSequence, learnsLayout: Bool) throws -> [FrameUpdate] {
        var configuration = try Configuration(sequence: sequence)
        configuration.markerTracking.learnsLayout = learnsLayout
        let session = try Session(configuration: configuration)
        let source = try sequence.openFrames()
        var updates: [FrameUpdate] = []
        while let frame = try source.nextFrame() { updates.append(try session.process(frame)) }
        return updates
    }

    /// `updates` with only the anchors `keep` accepts.
    static func only(_ updates: [FrameUpdate], _ keep: (Anchor) -> Bool) -> [FrameUpdate] {
        updates.map { u in
            var u = u
            u.anchors = u.anchors.filter(keep)
            return u
        }
    }

    /// The committed blur walk (7 markers, up to 8 px of motion blur): the median rotation error
    /// is under the 0.5° with the layout, and lower than each marker on its own.
    @Test func staticMarkersGainFromTheLayout() throws {
        let sequence = try RecordedSequence(folder: Paths.dataset("markers-blur-walk"))
        let truth = try #require(try sequence.groundTruth())
        let scorer = Scorer(camera: sequence.description.camera)
        let withLayout = scorer.score(reported: try Self.track(sequence, learnsLayout: true), truth: truth)
        let alone = scorer.score(reported: try Self.track(sequence, learnsLayout: false), truth: truth)
        let (a, b) = (try #require(withLayout.rotationErrorDegrees), try #require(alone.rotationErrorDegrees))
        print("markers-blur-walk rotation error median / p90: layout \(a.median)° / \(a.p90)°, alone \(b.median)° / \(b.p90)°")
        #expect(a.median < 0.5 && a.median < 0.75 * b.median)
        #expect(withLayout.successRate(at: 5) == alone.successRate(at: 5))
    }

    /// The table scene with marker 42 slid across the table (5 cm/s) and turned (0.3 rad/s) while
    /// the camera orbits: its poses follow it (the layout does not hold it in place), and the
    /// three markers that stay keep their accuracy.
    @Test func aMovingMarkerIsReportedOnItsOwn() throws {
        var scene = try MarkerScenes.scene(named: "markers-aruco-table", frameCount: 75)
        scene.name = "markers-one-moving"
        let moving = "marker/DICT_4X4_50/42"
        let index = try #require(scene.planes.firstIndex { $0.target?.identifier == moving })
        let start = scene.planes[index].pose(0)
        scene.planes[index].pose = { t in
            Transform(rotation: .rotation(angle: 0.3 * t, axis: SIMD3(0, 1, 0)) * start.rotation,
                      translation: start.translation + SIMD3(-0.05 * t, 0, 0.02 * t))
        }
        let folder = TemporaryFolder()
        try SequenceSynthesizer().write(scene, to: folder.file("sequence"))
        let sequence = try RecordedSequence(folder: folder.file("sequence"))
        let truth = try #require(try sequence.groundTruth())
        let updates = try Self.track(sequence, learnsLayout: true)
        let scorer = Scorer(camera: sequence.description.camera)
        let mover = scorer.score(reported: Self.only(updates) { $0.identifier == moving },
                                 truth: Self.only(truth) { $0.identifier == moving })
        let others = scorer.score(reported: Self.only(updates) { $0.identifier != moving },
                                  truth: Self.only(truth) { $0.identifier != moving })
        let moverRotation = try #require(mover.rotationErrorDegrees), moverShift = try #require(mover.translationErrorPercent)
        let othersRotation = try #require(others.rotationErrorDegrees)
        print("one marker moving: it \(mover.reported)/\(mover.expected), rotation median \(moverRotation.median)° p90 "
              + "\(moverRotation.p90)°, translation median \(moverShift.median) %; the others rotation median \(othersRotation.median)°")
        #expect(try #require(mover.successRate(at: 5)) >= 0.95)
        #expect(moverRotation.median < 1 && moverRotation.p90 < 3)
        #expect(moverShift.median < 1)
        #expect(othersRotation.median < 0.2)
    }
}
