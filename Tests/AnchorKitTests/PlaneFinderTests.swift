import Foundation
import Testing

@testable import AnchorKit

/// Plane finding on synthetic map points: surfaces found where points crowd at a plane, and
/// none where they only happen to share a height or a top-view line.
@Suite("Plane finder") struct PlaneFinderTests {
    /// A corner of a room (floor at y = 0, walls at z = -2 and x = 2, 2.6 m high), points spread
    /// with 1 cm of noise, and on both walls a row of extra corners at 0.8 m (a tile joint).
    static func roomCorner() -> [SIMD3<Double>] {
        var random = SplitMix64(seed: 3)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() % 1_000_000) / 1_000_000 }
        func noise() -> Double { uniform(-0.01, 0.01) }
        var points: [SIMD3<Double>] = []
        for _ in 0..<600 { points.append(SIMD3(uniform(-1, 2), noise(), uniform(-2, 1))) }          // floor
        for _ in 0..<500 { points.append(SIMD3(uniform(-1, 2), uniform(0, 2.6), -2 + noise())) }    // back wall
        for _ in 0..<500 { points.append(SIMD3(2 + noise(), uniform(0, 2.6), uniform(-2, 1))) }     // right wall
        for _ in 0..<60 { points.append(SIMD3(uniform(-1, 2), 0.8 + noise(), -2 + noise())) }      // joint rows
        for _ in 0..<60 { points.append(SIMD3(2 + noise(), 0.8 + noise(), uniform(-2, 1))) }
        return points
    }

    @Test func findsFloorAndWallsButNoLevelSliceOfTheWalls() {
        let finder = PlaneFinder(detection: [.horizontal, .vertical])
        let found = finder.find(in: Self.roomCorner(), viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1)
        let level = found.filter { $0.alignment == .horizontal }
        #expect(level.count == 1 && abs(level[0].origin.y) < 0.01, "level surfaces at \(level.map(\.origin.y))")
        #expect(level.first.map { $0.normal.y > 0.99 } ?? false, "the floor's normal points up, toward the camera")
        let upright = found.filter { $0.alignment == .vertical }
        #expect(upright.count == 2, "\(upright.count) walls")
        for wall in upright {
            // Normals toward the room's inside, where the camera is.
            #expect(abs(wall.normal.z - 1) < 0.02 || abs(wall.normal.x + 1) < 0.02, "wall normal \(wall.normal)")
        }
    }

    @Test func pointsEvenlySpreadInHeightMakeNoLevelSurface() {
        // A cloud filling a box: every height and every top-view line has as many points just
        // beside it as on it.
        var random = SplitMix64(seed: 5)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() % 1_000_000) / 1_000_000 }
        let cloud = (0..<3000).map { _ in SIMD3(uniform(-1, 1), uniform(0, 1), uniform(-3, -1)) }
        let finder = PlaneFinder(detection: [.horizontal, .vertical])
        let found = finder.find(in: cloud, viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1)
        #expect(found.isEmpty, "found \(found.map { ($0.alignment, $0.origin) })")
    }

    @Test func findingIsDeterministic() {
        let points = Self.roomCorner()
        let finder = PlaneFinder(detection: [.horizontal, .vertical])
        let a = finder.find(in: points, viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1)
        let b = finder.find(in: points, viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1)
        #expect(a.map(\.origin) == b.map(\.origin) && a.map(\.outline) == b.map(\.outline))
    }

    @Test func aNarrowUprightClusterIsNoPlane() {
        // 60 points within 4 cm in the top view (along a box's upright edge), 0.5 m tall, and four
        // stray points 0.3-0.5 m off: every line through the cluster holds it, and the one through
        // the strays too could point anywhere. Their spread passes the standard-deviation test.
        var random = SplitMix64(seed: 9)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() % 1_000_000) / 1_000_000 }
        let edge = (0..<60).map { _ in SIMD3(uniform(-0.02, 0.02), uniform(0, 0.5), -2 + uniform(-0.02, 0.02)) }
        let strays = [0.3, 0.35, 0.45, 0.5].map { SIMD3($0 * 0.8, 0.1 * $0, -2 - $0 * 0.6) }
        let finder = PlaneFinder(detection: [.vertical])
        #expect(finder.find(in: edge + strays, viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1).isEmpty)
        // The same points spread 0.6 m along the edge's line are a surface.
        let wide = edge.map { SIMD3($0.x * 15, $0.y, -2 + ($0.z + 2) / 4) }
        #expect(finder.find(in: wide, viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1).count == 1)
    }

    @Test func aBoxCornerAndTheFloorBesideItAreNoWall() {
        // A box's upright corner (60 points within 4 cm in the top view, 0.45 m tall) and 30 of
        // the floor's points that happen to lie on one top-view line with it, 0.1-0.5 m away (as
        // room-walk-plain's bench gave two planes 32-33 degrees off both of its faces): the floor's
        // points give the line its width.
        var random = SplitMix64(seed: 13)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() % 1_000_000) / 1_000_000 }
        let corner = (0..<60).map { _ in SIMD3(uniform(-0.02, 0.02), uniform(0.03, 0.45), -2 + uniform(-0.02, 0.02)) }
        let floor = (0..<30).map { _ -> SIMD3<Double> in
            let d = uniform(0.1, 0.5)
            return SIMD3(d * 0.8 + uniform(-0.01, 0.01), uniform(-0.005, 0.005), -2 - d * 0.6 + uniform(-0.01, 0.01))
        }
        let finder = PlaneFinder(detection: [.vertical])
        #expect(finder.find(in: corner + floor, viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1).count == 1,
                "without the floor known, a plane")
        let known = PlaneMap.anchor(identifier: "plane/0", alignment: .horizontal, normal: SIMD3(0, 1, 0), origin: .zero,
                                    outline: [SIMD3(-3, 0, -4), SIMD3(3, 0, -4), SIMD3(3, 0, 1), SIMD3(-3, 0, 1)], xAxis: nil)
        #expect(finder.find(in: corner + floor, knownPlanes: [known], viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1).isEmpty)
    }

    @Test func aRowAlongAKnownWallIsNoLevelSurface() throws {
        // A band of corners 0.5 m up, 2 m long and 0.24 m deep across the line of a wall at
        // z = -3 (a wall seen again after the map drifted): no wall of its own in this pass.
        var random = SplitMix64(seed: 11)
        func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * Double(random.next() % 1_000_000) / 1_000_000 }
        let row = (0..<80).map { _ in SIMD3(uniform(-1, 1), 0.5 + uniform(-0.01, 0.01), -3 + uniform(-0.12, 0.12)) }
        let finder = PlaneFinder(detection: [.horizontal])
        #expect(finder.find(in: row, viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1).count == 1, "alone, it is a level surface")
        let wall = PlaneMap.anchor(identifier: "plane/0", alignment: .vertical, normal: SIMD3(0, 0, 1), origin: SIMD3(0, 1.3, -3),
                                   outline: [SIMD3(-3, 0, -3), SIMD3(3, 0, -3), SIMD3(3, 2.6, -3), SIMD3(-3, 2.6, -3)], xAxis: nil)
        let span = try #require(WallSpan(wall))
        #expect(abs(abs(span.normal.y) - 1) < 1e-12 && abs(abs(span.offset) - 3) < 1e-12)
        #expect(abs(span.along.upperBound - span.along.lowerBound - 6) < 1e-9 && abs(span.height.lowerBound) < 1e-9
                && abs(span.height.upperBound - 2.6) < 1e-9)
        #expect(finder.find(in: row, knownPlanes: [wall], viewpoint: SIMD3(0, 1.5, 0), metresPerUnit: 1).isEmpty)
    }
}
