import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitSynthesis

/// Several physical markers printing one id: the scorer matches them instance to instance and
/// counts identity switches. Hand-made anchors: this is evaluation code, not the vision core.
@Suite("Scoring duplicate marker ids")
struct AnchorMatchingTests {
    // MARK: Matching

    @Test func groupsIgnoreTheInstanceOfMarkersOnly() {
        func anchor(_ id: String, _ kind: Anchor.Kind) -> Anchor {
            Anchor(identifier: id, kind: kind, isTracked: true, transform: .identity, extent: SIMD2(0.1, 0.1))
        }
        #expect(AnchorMatching.group(of: anchor("marker/DICT_4X4_50/7/2", .marker)) == "marker/DICT_4X4_50/7")
        #expect(AnchorMatching.group(of: anchor("marker/DICT_4X4_50/7", .marker)) == "marker/DICT_4X4_50/7")
        #expect(AnchorMatching.group(of: anchor("image/poster/2", .image)) == "image/poster/2")
        #expect(AnchorMatching.group(of: anchor("marker/DICT_4X4_50/7/x", .marker)) == "marker/DICT_4X4_50/7/x")
    }

    @Test func assignmentIsOptimalWhereGreedyIsNot() {
        // Greedy takes (0, 0) first and pays 11 in all; the optimum pays 3.
        #expect(AnchorMatching.assignment([[1, 2], [1, 10]]) == [1, 0])
        // More rows than columns: the row left over gets none; infinite costs are avoided.
        #expect(AnchorMatching.assignment([[5, .infinity], [.infinity, 1], [4, 9]]) == [nil, 1, 0])
        // Nothing but infinite costs still pairs min(rows, columns).
        #expect(AnchorMatching.assignment([[.infinity], [.infinity]]).compactMap { $0 } == [0])
        #expect(AnchorMatching.assignment([]) == [])
        // Agrees with trying every permutation on a 5 x 5 matrix.
        var random = SplitMix64(seed: 9)
        let cost = (0..<5).map { _ in (0..<5).map { _ in (random.nextUnit() * 100).rounded() } }
        func permutations(_ n: Int) -> [[Int]] {
            n == 0 ? [[]] : permutations(n - 1).flatMap { p in (0...p.count).map { var q = p; q.insert(n - 1, at: $0); return q } }
        }
        let best = permutations(5).map { p in p.enumerated().map { cost[$0][$1] }.reduce(0, +) }.min()!
        let found = AnchorMatching.assignment(cost).enumerated().map { cost[$0][$1!] }.reduce(0, +)
        #expect(found == best)
    }

    // MARK: Scoring

    static let camera = MarkerScenes.standardCamera()
    static let size = 0.08

    /// A marker anchor of `identifier` (id 7 of dictionary D) at `x` metres right of the optical
    /// axis, 0.6 m in front of a camera at the world origin, facing it; corners projected.
    static func marker(_ identifier: String, x: Double) -> Anchor {
        let facing = Matrix3(columns: (SIMD3(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, -1, 0)))
        let pose = Transform(rotation: facing, translation: SIMD3(x, 0, -0.6))
        let corners = TargetConvention.corners(width: size, height: size).map { camera.project(pose.apply(to: $0))! }
        return Anchor(identifier: identifier, kind: .marker, name: "7", isTracked: true, transform: pose,
                      extent: SIMD2(size, size), corners: corners)
    }

    /// Two markers printing id 7: instance 0 on the left, instance 1 on the right.
    static let left = marker("marker/D/7", x: -0.1), right = marker("marker/D/7/1", x: 0.1)

    /// Six frames of the truth, then of a report whose anchor on the left is `leftName(frame)`
    /// and on the right `rightName(frame)`.
    static func streams(leftName: (Int) -> String, rightName: (Int) -> String) -> (truth: [FrameUpdate], reported: [FrameUpdate]) {
        let frames = 0..<6
        let truth = frames.map { FrameUpdate(frame: $0, time: Double($0) / 30, camera: CameraState(intrinsics: testCamera), anchors: [left, right]) }
        let reported = frames.map { f in
            var l = left, r = right
            l.identifier = leftName(f)
            r.identifier = rightName(f)
            return FrameUpdate(frame: f, time: Double(f) / 30, camera: CameraState(intrinsics: testCamera), anchors: [r, l])
        }
        return (truth, reported)
    }

    @Test func swappedInstanceNumbersScoreAsPerfect() {
        // The tracker saw the right-hand marker first: its instance numbers are the other way round.
        let (truth, reported) = Self.streams(leftName: { _ in "marker/D/7/1" }, rightName: { _ in "marker/D/7" })
        let score = Scorer(camera: Self.camera).score(reported: reported, truth: truth)
        #expect(score.expected == 12 && score.reported == 12)
        #expect(score.successRates.allSatisfy { $0 == 1 })
        #expect(score.falsePositives == 0)
        #expect(score.cornerError?.max == 0)
        #expect((score.rotationErrorDegrees?.max ?? 1) < 1e-6)
        #expect((score.translationErrorCentimetres?.max ?? 1) < 1e-9)
        #expect(score.identitySwitches == 0)
        #expect(score.jitterRMS == 0)
    }

    @Test func anInstanceRenamedMidSequenceIsOneSwitch() {
        // From frame 3 the tracker calls the right-hand marker by a new instance number.
        let (truth, reported) = Self.streams(leftName: { _ in "marker/D/7" }, rightName: { $0 < 3 ? "marker/D/7/1" : "marker/D/7/2" })
        let score = Scorer(camera: Self.camera).score(reported: reported, truth: truth)
        #expect(score.successRates.allSatisfy { $0 == 1 })
        #expect(score.falsePositives == 0)
        #expect(score.identitySwitches == 1)
        #expect(score.table.contains("identity switches"))
    }

    @Test func identifiersSwappingMidSequenceSwitchBothInstances() {
        // From frame 3 the two reported identifiers trade places: each true marker is matched to
        // another identifier than before, one switch each (as multi-object tracking counts).
        let (truth, reported) = Self.streams(leftName: { $0 < 3 ? "marker/D/7" : "marker/D/7/1" },
                                             rightName: { $0 < 3 ? "marker/D/7/1" : "marker/D/7" })
        let score = Scorer(camera: Self.camera).score(reported: reported, truth: truth)
        #expect(score.successRates.allSatisfy { $0 == 1 })
        #expect(score.identitySwitches == 2)
    }

    @Test func surplusReportsOfAnIdAreFalsePositives() {
        // Three reports of id 7 where two markers print it: the worst-placed one is left over.
        var (truth, reported) = Self.streams(leftName: { _ in "marker/D/7" }, rightName: { _ in "marker/D/7/1" })
        truth = Array(truth.prefix(1))
        var ghost = Self.marker("marker/D/7/2", x: 0.0)
        ghost.corners = ghost.corners!.map { $0 + SIMD2(0, 30) }
        reported = [FrameUpdate(frame: 0, time: 0, camera: CameraState(intrinsics: testCamera), anchors: reported[0].anchors + [ghost])]
        let score = Scorer(camera: Self.camera).score(reported: reported, truth: truth)
        #expect(score.successRate(at: 3) == 1)
        #expect(score.falsePositives == 1)
        #expect(score.identitySwitches == 0)
    }

    @Test func aMissedInstanceIsAMissNotAMismatch() {
        // Only the right-hand marker is reported, under the identifier of the left-hand one.
        let (truth, _) = Self.streams(leftName: { _ in "" }, rightName: { _ in "" })
        var r = Self.right
        r.identifier = "marker/D/7"
        let reported = truth.map { FrameUpdate(frame: $0.frame, time: $0.time, camera: CameraState(intrinsics: testCamera), anchors: [r]) }
        let score = Scorer(camera: Self.camera).score(reported: reported, truth: truth)
        #expect(score.expected == 12 && score.reported == 6)
        #expect(score.successRate(at: 3) == 0.5)
        #expect(score.falsePositives == 0)
        #expect(score.cornerError?.max == 0)
    }
}
