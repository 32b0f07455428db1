import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia

/// Plane metrics on the committed room walk's ground truth (its planes: floor, walls, table,
/// bench, ...). Debug builds are slow, so the walk is cut to every 4th frame.
@Suite("Plane scorer") struct PlaneScorerTests {
    /// The room walk's camera and every 4th ground-truth line.
    static func roomWalk() throws -> (camera: CameraIntrinsics, truth: [FrameUpdate]) {
        let sequence = try RecordedSequence(folder: Paths.dataset("room-walk"))
        let truth = try #require(try sequence.groundTruth())
        return (sequence.description.camera, truth.filter { $0.frame % 4 == 0 })
    }

    /// The first line where `id` is expected (coverage ≥ 5 %).
    static func firstExpected(_ id: String, in truth: [FrameUpdate]) -> FrameUpdate? {
        truth.first { ($0.anchor(id)?.coverage ?? 0) >= 0.05 }
    }

    /// `truth` with the floor replaced by `floor(trueFloor)` and `extra` (given the line) added.
    static func edited(_ truth: [FrameUpdate], floor: (Anchor) -> Anchor,
                       extra: ((FrameUpdate) -> Anchor?)? = nil) -> [FrameUpdate] {
        truth.map { line in
            var line = line
            line.anchors = line.anchors.map { $0.identifier == "plane/floor" ? floor($0) : $0 }
            if let a = extra?(line) { line.anchors.append(a) }
            return line
        }
    }

    /// The half of the floor with x < 0 (`left`) or x > 0, its centre moved 3 cm up the normal
    /// and tilted 1° about its x axis.
    static func halfFloor(_ floor: Anchor, left: Bool) -> Anchor {
        var a = floor
        let halfWidth = floor.extent.x / 4, depth = floor.extent.y / 2
        let offset = Transform(rotation: .rotation(angle: 1 * .pi / 180, axis: SIMD3(1, 0, 0)),
                               translation: SIMD3(left ? -halfWidth : halfWidth, 0.03, 0))
        a.transform = floor.transform * offset
        a.polygon = [SIMD2(-halfWidth, -depth), SIMD2(halfWidth, -depth), SIMD2(halfWidth, depth), SIMD2(-halfWidth, depth)]
        a.extent = SIMD2(2 * halfWidth, 2 * depth)
        return a
    }

    @Test func groundTruthAgainstItselfIsPerfect() throws {
        let (camera, truth) = try Self.roomWalk()
        let score = try #require(PlaneScorer(camera: camera).score(reported: truth, truth: truth))
        #expect(score.planes.count >= 4, "expected planes: \(score.planes.map(\.identifier))")
        #expect(score.planes.contains { $0.identifier == "plane/floor" })
        for p in score.planes {
            let first = try #require(Self.firstExpected(p.identifier, in: truth))
            #expect(p.firstExpectedFrame == first.frame)
            #expect(p.foundFrame == first.frame, "\(p.identifier) found at \(String(describing: p.foundFrame))")
            #expect(p.foundTime == first.time)
            #expect(p.secondsInViewBeforeFound == 0)
            #expect(p.matchedFrames == p.expectedFrames)
            #expect(p.reportedIdentifiers == [p.identifier])
            #expect((p.normalErrorDegreesMedian ?? .infinity) < 1e-4 && (p.normalErrorDegreesLast ?? .infinity) < 1e-4)
            #expect((p.offsetCentimetresMedian ?? .infinity) < 1e-6 && (p.offsetCentimetresLast ?? .infinity) < 1e-6)
            #expect((p.offsetPercentMedian ?? .infinity) < 1e-6)
            #expect((p.coverage ?? 0) >= 0.99, "\(p.identifier) coverage \(String(describing: p.coverage))")
            #expect(p.seenArea > 0 && p.coveredArea <= p.seenArea + 1e-9)
        }
        #expect(score.falsePlanes.isEmpty && score.framesWithFalsePlanes == 0)
        #expect(score.arbitraryScale == nil && score.unscoredFrames == 0)
    }

    /// A stream whose planes appear only from a given frame: each plane is found there, after
    /// the time it was expected before that frame (every 4th frame at 30 frames/s: 4/30 s per
    /// expected line), and a plane never reported counts all the time it was in view.
    @Test func timeInViewBeforeFound() throws {
        let (camera, truth) = try Self.roomWalk()
        let start = truth[truth.count / 2].frame
        let reported = truth.map { line -> FrameUpdate in
            var line = line
            line.anchors = line.frame < start ? [] : line.anchors.filter { $0.identifier != "plane/floor" }
            return line
        }
        let score = try #require(PlaneScorer(camera: camera).score(reported: reported, truth: truth))
        for p in score.planes {
            let expected = truth.filter { ($0.anchor(p.identifier)?.coverage ?? 0) >= 0.05 }
            let before = p.identifier == "plane/floor" ? expected : expected.filter { $0.frame < start }
            let seconds = Double(before.count) * 4 / 30
            #expect(abs(p.secondsInViewBeforeFound - seconds) < 1e-9, "\(p.identifier): \(p.secondsInViewBeforeFound) s, expected \(seconds) s")
            if p.identifier == "plane/floor" { #expect(p.foundFrame == nil) }
        }
        #expect(score.rows.contains { $0.1.hasPrefix("not found") && $0.1.contains("in view") })
    }

    /// Coverage over time (`anchorkit plot`'s planes picture) ends where the score's coverage at the
    /// end is, and the truth covers itself throughout.
    @Test func coverageOverTimeEndsAtTheScoresCoverage() throws {
        let (camera, truth) = try Self.roomWalk()
        let scorer = PlaneScorer(camera: camera)
        let score = try #require(scorer.score(reported: truth, truth: truth))
        let samples = scorer.coverageOverTime(reported: truth, truth: truth, step: 15)
        #expect(samples.count >= 5 && samples.last?.frame == truth.last?.frame)
        for p in score.planes { #expect(abs((samples.last?.coverage[p.identifier] ?? -1) - (p.coverage ?? -2)) < 1e-12, "\(p.identifier)") }
        #expect(samples.allSatisfy { $0.coverage.values.allSatisfy { $0 >= 0.99 } })
    }

    @Test func shiftedTiltedHalfFloorAndAFloatingPlane() throws {
        let (camera, truth) = try Self.roomWalk()
        let scorer = PlaneScorer(camera: camera)
        // A plane 1 m in front of the back wall, tracked throughout: it matches nothing.
        let floating: (FrameUpdate) -> Anchor? = { line in
            guard var wall = line.anchor("plane/wall-back") else { return nil }
            wall.identifier = "plane/floating"
            wall.isTracked = true
            wall.transform = wall.transform * Transform(translation: SIMD3(0, 1, 0))
            return wall
        }
        let left = try #require(scorer.score(reported: Self.edited(truth, floor: { Self.halfFloor($0, left: true) }, extra: floating),
                                             truth: truth))
        let floor = try #require(left.planes.first { $0.identifier == "plane/floor" })
        #expect(floor.foundFrame == Self.firstExpected("plane/floor", in: truth)?.frame)
        #expect(abs((floor.offsetCentimetresMedian ?? 0) - 3) < 1e-6 && abs((floor.offsetCentimetresLast ?? 0) - 3) < 1e-6)
        #expect(abs((floor.normalErrorDegreesMedian ?? 0) - 1) < 1e-6 && abs((floor.normalErrorDegreesLast ?? 0) - 1) < 1e-6)
        let leftCoverage = try #require(floor.coverage)
        #expect(leftCoverage > 0.05 && leftCoverage < 0.95, "coverage of the left half \(leftCoverage)")
        #expect(left.falsePlanes == ["plane/floating"])
        #expect(left.framesWithFalsePlanes == truth.filter { $0.anchor("plane/wall-back") != nil }.count)
        // The other planes are untouched.
        for p in left.planes where p.identifier != "plane/floor" { #expect((p.coverage ?? 0) >= 0.99) }

        // The two halves cover the seen floor between them, exactly once.
        let right = try #require(scorer.score(reported: Self.edited(truth, floor: { Self.halfFloor($0, left: false) }),
                                              truth: truth))
        let rightFloor = try #require(right.planes.first { $0.identifier == "plane/floor" })
        #expect(abs(leftCoverage + (rightFloor.coverage ?? 0) - 1) < 1e-9)
        #expect(abs(floor.seenArea - rightFloor.seenArea) < 1e-9)
        #expect(right.falsePlanes.isEmpty)
    }

    @Test func arbitraryScaleIsRecoveredAndGivesNoCentimetres() throws {
        let (camera, truth) = try Self.roomWalk()
        // The same world in half-metres, declared arbitrary.
        let scaled = truth.map { line -> FrameUpdate in
            var line = line
            line.camera.transform.translation *= 2
            line.camera.scale = .arbitrary
            line.anchors = line.anchors.map { a in
                var a = a
                a.transform.translation *= 2
                a.polygon = a.polygon?.map { 2 * $0 }
                a.extent *= 2
                return a
            }
            return line
        }
        let score = try #require(PlaneScorer(camera: camera).score(reported: scaled, truth: truth))
        #expect(abs((score.arbitraryScale ?? 0) - 0.5) < 1e-9)
        for p in score.planes {
            #expect(p.foundFrame == p.firstExpectedFrame)
            #expect(p.offsetCentimetresMedian == nil && (p.offsetPercentMedian ?? .infinity) < 1e-6)
            #expect((p.coverage ?? 0) >= 0.99)
        }
    }

    @Test func scoreTableHasPlaneRowsOnlyWhenPlanesAreReported() throws {
        let (camera, truth) = try Self.roomWalk()
        let score = Scorer(camera: camera).score(reported: truth, truth: truth)
        let planes = try #require(score.planes)
        #expect(score.table.contains("plane floor") && score.table.contains("false planes"))
        #expect(score.table.contains("found \(String(format: "%.2f", planes.planes[0].foundTime ?? -1)) s"))
        let json = try JSONEncoder().encode(score)
        let decoded = try JSONDecoder().decode(Score.self, from: json)
        #expect(decoded.planes?.planes.map(\.identifier) == planes.planes.map(\.identifier))

        let withoutPlanes = truth.map { line -> FrameUpdate in
            var line = line
            line.anchors.removeAll { $0.kind == .plane }
            return line
        }
        let none = Scorer(camera: camera).score(reported: withoutPlanes, truth: truth)
        #expect(none.planes == nil && !none.table.contains("false planes"))
    }

    @Test func polygonTestHandlesNonConvexShapesAndMargins() {
        // An L shape: the notch at (1.5, 1.5) is outside.
        let l: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(2, 0), SIMD2(2, 1), SIMD2(1, 1), SIMD2(1, 2), SIMD2(0, 2)]
        #expect(PlaneScorer.polygon(l, contains: SIMD2(0.5, 1.5)))
        #expect(PlaneScorer.polygon(l, contains: SIMD2(1.5, 0.5)))
        #expect(!PlaneScorer.polygon(l, contains: SIMD2(1.5, 1.5)))
        #expect(PlaneScorer.polygon(l, contains: SIMD2(1.5, 1.15), margin: 0.2))
        #expect(!PlaneScorer.polygon(l, contains: SIMD2(1.5, 1.3), margin: 0.2))
        // 5 cm grid: 3 m² of L in 25 cm² cells.
        #expect(PlaneScorer.grid(inside: l, spacing: 0.05).count == 1200)
    }
}
