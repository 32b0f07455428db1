import Foundation
import Testing

@testable import AnchorKit

/// The geometry under plane detection and raycasts, on known cases.
@Suite("Plane geometry") struct PlaneGeometryTests {
    @Test func hullDropsInnerAndCollinearPoints() {
        let square = [SIMD2(0.0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)]
        let hull = ConvexPolygon.hull(square + [SIMD2(0.5, 0.5), SIMD2(0.5, 0), SIMD2(0.2, 0.7)])
        #expect(hull.count == 4 && Set(hull.map { [$0.x, $0.y] }) == Set(square.map { [$0.x, $0.y] }))
        #expect(ConvexPolygon.signedArea(hull) > 0, "counter-clockwise in x-right, y-up axes")
    }

    @Test func eigenDecompositionOfAKnownMatrix() {
        // R diag(1, 4, 9) Rᵀ for a rotation R about z by 30°: eigenvectors are R's columns.
        let r = Matrix3.rotation(angle: .pi / 6, axis: SIMD3(0, 0, 1))
        let m = r * Matrix3.diagonal(SIMD3(1, 4, 9)) * r.transposed
        let e = SymmetricEigen((0..<3).map { i in (0..<3).map { m[i, $0] } })
        #expect(zip(e.values, [1.0, 4, 9]).allSatisfy { abs($0 - $1) < 1e-12 })
        let columns = [r.columns.0, r.columns.1, r.columns.2]
        for (v, c) in zip(e.vectors, columns) { #expect(abs(abs(dot(SIMD3(v[0], v[1], v[2]), c)) - 1) < 1e-12) }
    }

    /// A 2 x 1 m floor at y = -1.5 (normal up), centred at (0, -1.5, -3).
    static let floor = PlaneMap.anchor(identifier: "plane/0", alignment: .horizontal, normal: SIMD3(0, 1, 0),
                                       origin: SIMD3(0, -1.5, -3),
                                       outline: [SIMD3(-1, -1.5, -3.5), SIMD3(1, -1.5, -3.5), SIMD3(1, -1.5, -2.5), SIMD3(-1, -1.5, -2.5)],
                                       xAxis: SIMD3(1, 0, 0))

    @Test func planeAnchorIsCentredWithYAlongTheNormal() {
        let a = Self.floor
        #expect(isNear(a.transform.translation, SIMD3(0, -1.5, -3), 1e-12))
        #expect(isNear(a.transform.rotation.columns.1, SIMD3(0, 1, 0), 1e-12))
        #expect(isNear(a.transform.rotation.columns.0, SIMD3(1, 0, 0), 1e-12))
        #expect(isNear(a.transform.rotation.columns.2, SIMD3(0, 0, 1), 1e-12), "right-handed: z = x × y")
        #expect(abs(a.extent.x - 2) < 1e-12 && abs(a.extent.y - 1) < 1e-12)
    }

    @Test func raycastsHitInsideTheBoundaryOrTheInfinitePlane() throws {
        // From the origin, 45° down toward -z: meets y = -1.5 at z = -1.5 (outside the floor's
        // boundary), and a steeper ray meets it at z = -3 (inside), 3.354 m away.
        let shallow = RaycastQuery(origin: .zero, direction: SIMD3(0, -1, -1), target: .existingPlaneGeometry, alignment: .any)
        #expect(Raycaster.cast(shallow, planes: [Self.floor]).isEmpty)
        var infinite = shallow
        infinite.target = .existingPlaneInfinite
        let far = try #require(Raycaster.cast(infinite, planes: [Self.floor]).first)
        #expect(isNear(far.worldTransform.translation, SIMD3(0, -1.5, -1.5), 1e-12))
        let steep = RaycastQuery(origin: .zero, direction: SIMD3(0, -1.5, -3), target: .existingPlaneGeometry, alignment: .horizontal)
        let hit = try #require(Raycaster.cast(steep, planes: [Self.floor]).first)
        #expect(abs(hit.distance - (1.5 * 1.5 + 9).squareRoot()) < 1e-12 && hit.anchorIdentifier == "plane/0")
        #expect(isNear(hit.worldTransform.rotation.columns.1, SIMD3(0, 1, 0), 1e-12))
        var vertical = steep
        vertical.alignment = .vertical
        #expect(Raycaster.cast(vertical, planes: [Self.floor]).isEmpty, "a horizontal plane is not a vertical target")
        let up = RaycastQuery(origin: .zero, direction: SIMD3(0, 1, -1), target: .existingPlaneInfinite, alignment: .any)
        #expect(Raycaster.cast(up, planes: [Self.floor]).isEmpty, "planes behind the ray are not hit")
    }

    @Test func estimatedPlaneRaycastFitsTheFeaturePoints() throws {
        var random = SplitMix64(seed: 3)
        let points = (0..<400).map { _ in SIMD3(random.nextUnit() * 2 - 1, -1.5 + 0.003 * (random.nextUnit() - 0.5), -2 - 2 * random.nextUnit()) }
        let query = RaycastQuery(origin: .zero, direction: SIMD3(0, -1.5, -3), target: .estimatedPlane, alignment: .horizontal)
        let hit = try #require(Raycaster.cast(query, planes: [], points: points).first)
        #expect(isNear(hit.worldTransform.translation, SIMD3(0, -1.5, -3), 0.01))
        #expect(Raycaster.cast(RaycastQuery(origin: .zero, direction: SIMD3(0, 1, 0), target: .estimatedPlane, alignment: .any),
                               planes: [], points: points).isEmpty, "nothing above: no hit, not an error")
    }

    /// Two pieces of one floor are two planes until a detection joins them: the older keeps its
    /// identifier, the other is removed.
    @Test func planesGrowAndMerge() throws {
        func piece(_ x0: Double, _ x1: Double) -> PlaneCandidate {
            let outline = [SIMD3(x0, -1.5, -3.5), SIMD3(x1, -1.5, -3.5), SIMD3(x1, -1.5, -2.5), SIMD3(x0, -1.5, -2.5)]
            return PlaneCandidate(alignment: .horizontal, normal: SIMD3(0, 1, 0), origin: SIMD3((x0 + x1) / 2, -1.5, -3),
                                  outline: outline, support: Int((x1 - x0) * 100))
        }
        var map = PlaneMap(parameters: PlaneDetection.Parameters())
        let first = try map.update(with: [piece(-3, -2), piece(1, 2)], metresPerUnit: 1)
        #expect(first.added.map(\.identifier) == ["plane/0", "plane/1"] && map.anchors.count == 2)
        let joined = try map.update(with: [piece(-3, 2)], metresPerUnit: 1)
        #expect(joined.removed.map(\.identifier) == ["plane/1"] && joined.updated.map(\.identifier) == ["plane/0"])
        // The axes stay those of plane/0's first detection (a square: x may lie along either side).
        let axes = map.anchors[0].transform.rotation
        #expect(map.anchors.count == 1 && abs(map.anchors[0].extent.max() - 5) < 1e-9 && abs(map.anchors[0].extent.min() - 1) < 1e-9)
        // Planes only grow: a smaller view of the same floor keeps the extent and the axes.
        _ = try map.update(with: [piece(-1, 0)], metresPerUnit: 1)
        #expect(abs(map.anchors[0].extent.max() - 5) < 1e-9 && isNear(map.anchors[0].transform.rotation, axes))
    }

    /// A long wall (x from -2.5 to 3 m, 3 m away) seen again beyond its end after the map drifted:
    /// the new piece is fitted 1.5° askew to it, its centre 2 cm from the wall, but the wall's
    /// centre lies 8 cm from the piece's plane. It is the same surface, so it updates the wall (the
    /// newest fit wins) instead of being left out as a piece lying inside it.
    @Test func aDriftedWallSeenAgainAtOneEndIsUpdated() throws {
        let tilt = 1.5 * Double.pi / 180
        let pieceNormal = SIMD3(sin(tilt), 0, cos(tilt))
        func onPiece(_ x: Double, _ y: Double) -> SIMD3<Double> { SIMD3(x, y, -3.02 - (x - 4.2) * tan(tilt)) }
        let wall = PlaneCandidate(alignment: .vertical, normal: SIMD3(0, 0, 1), origin: SIMD3(0.25, 0, -3),
                                  outline: [SIMD3(-2.5, -1, -3), SIMD3(3, -1, -3), SIMD3(3, 1, -3), SIMD3(-2.5, 1, -3)], support: 400)
        let piece = PlaneCandidate(alignment: .vertical, normal: pieceNormal, origin: onPiece(4.2, 0),
                                   outline: [onPiece(3.2, -1), onPiece(5.2, -1), onPiece(5.2, 1), onPiece(3.2, 1)], support: 120)
        var map = PlaneMap(parameters: PlaneDetection.Parameters())
        _ = try map.update(with: [wall], metresPerUnit: 1)
        let seenAgain = try map.update(with: [piece], viewpoint: SIMD3(4, 0, 0), metresPerUnit: 1)
        #expect(seenAgain.updated.map(\.identifier) == ["plane/0"] && seenAgain.added.isEmpty && map.anchors.count == 1)
        #expect(abs(dot(map.anchors[0].transform.rotation.columns.1, pieceNormal) - 1) < 1e-9)
    }

    @Test func depthInsideAPolygonAndLinesOfSightThroughARegion() {
        let square = ConvexPolygon.hull([SIMD2(0.0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)])
        #expect(abs(ConvexPolygon.depth(of: SIMD2(0.5, 0.5), in: square) - 0.5) < 1e-12)
        #expect(abs(ConvexPolygon.depth(of: SIMD2(0.9, 0.5), in: square) - 0.1) < 1e-12)
        #expect(abs(ConvexPolygon.depth(of: SIMD2(1.2, 0.5), in: square) + 0.2) < 1e-12, "negative outside")
        // A 2 x 2 m wall at z = -3 facing the camera at the origin.
        let wall = PlanarRegion(normal: SIMD3(0, 0, 1), origin: SIMD3(0, 0, -3),
                                outline: [SIMD3(-1, -1, -3), SIMD3(1, -1, -3), SIMD3(1, 1, -3), SIMD3(-1, 1, -3)])
        #expect(wall.isCrossed(from: .zero, to: SIMD3(0, 0, -5), margin: 0.1))
        #expect(!wall.isCrossed(from: .zero, to: SIMD3(0, 0, -3.05), margin: 0.1), "a point on the wall, within the margin")
        #expect(!wall.isCrossed(from: .zero, to: SIMD3(2, 0, -5), margin: 0.1), "crosses the plane at x = 1.2, beside the wall")
        #expect(!wall.isCrossed(from: .zero, to: SIMD3(1.55, 0, -5), margin: 0.1), "crosses at x = 0.93, within the margin of its edge")
        #expect(!wall.isCrossed(from: .zero, to: SIMD3(0, 0, -2), margin: 0.1), "a point in front of the wall")
        // Two keyframes; the first saw four points behind the wall, the second one in front of it.
        let points = [SIMD3(0, 0, -5), SIMD3(0.5, 0.5, -4), SIMD3(3, 0, -5), SIMD3(0, 0, -2), SIMD3(0, 0.5, -6)]
        let space = FreeSpace(views: [MapView(centre: .zero, points: [0, 1, 2, 3]), MapView(centre: SIMD3(0, 0, -1), points: [4, 3])],
                              points: points)
        #expect(space.crossings(of: wall, margin: 0.1) == 3)
    }

    @Test func pointsOnOrBehindARegionAreHidden() {
        // The 2 x 2 m wall at z = -3 facing the camera at the origin.
        let wall = PlanarRegion(normal: SIMD3(0, 0, 1), origin: SIMD3(0, 0, -3),
                                outline: [SIMD3(-1, -1, -3), SIMD3(1, -1, -3), SIMD3(1, 1, -3), SIMD3(-1, 1, -3)])
        #expect(wall.hides(SIMD3(0, 0, -5), from: .zero, margin: 0.1), "behind it")
        #expect(wall.hides(SIMD3(0.2, 0, -3.05), from: .zero, margin: 0.1), "on it, within the margin behind")
        #expect(wall.hides(SIMD3(0.2, 0, -2.95), from: .zero, margin: 0.1), "on it, within the margin in front")
        #expect(!wall.hides(SIMD3(0, 0, -2.8), from: .zero, margin: 0.1), "clearly in front of it")
        #expect(!wall.hides(SIMD3(2, 0, -5), from: .zero, margin: 0.1), "the line of sight passes beside it (x = 1.2)")
        #expect(!wall.hides(SIMD3(0, 0, -5), from: SIMD3(0, 0, -2.95), margin: 0.1), "a camera within the margin of the plane")
        // Seen from behind, the sides swap: the origin lies behind the wall.
        #expect(wall.hides(.zero, from: SIMD3(0, 0, -5), margin: 0.1))
    }

    /// A level slice behind a wall, a piece of the wall fitted askew and a surface the camera saw
    /// through are not planes; a floor in front of the wall is.
    @Test func hiddenTiltedAndSeenThroughCandidatesAreNotAdded() throws {
        var map = PlaneMap(parameters: PlaneDetection.Parameters())
        func upright(_ normal: SIMD3<Double>, at origin: SIMD3<Double>, width: Double, height: Double) -> PlaneCandidate {
            let along = normalize(cross(SIMD3(0, 1, 0), normal))
            let corners: [(Double, Double)] = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
            let outline = corners.map { (u, v) -> SIMD3<Double> in origin + along * (u * width / 2) + SIMD3(0, v * height / 2, 0) }
            return PlaneCandidate(alignment: .vertical, normal: normal, origin: origin, outline: outline, support: 100)
        }
        func level(y: Double, z: ClosedRange<Double>) -> PlaneCandidate {
            let outline = [SIMD3(-1, y, z.lowerBound), SIMD3(1, y, z.lowerBound), SIMD3(1, y, z.upperBound), SIMD3(-1, y, z.upperBound)]
            return PlaneCandidate(alignment: .horizontal, normal: SIMD3(0, 1, 0), origin: SIMD3(0, y, (z.lowerBound + z.upperBound) / 2),
                                  outline: outline, support: 100)
        }
        let eye = SIMD3(0.0, 0, 0)
        _ = try map.update(with: [upright(SIMD3(0, 0, 1), at: SIMD3(0, 0, -3), width: 4, height: 2.6)], viewpoint: eye, metresPerUnit: 1)
        #expect(map.anchors.count == 1)
        let behind = try map.update(with: [level(y: -0.7, z: -3.6 ... -3.2)], viewpoint: eye, metresPerUnit: 1)
        #expect(behind.added.isEmpty, "a level surface behind the wall")
        let tilt = 15 * Double.pi / 180
        let askew = try map.update(with: [upright(SIMD3(sin(tilt), 0, cos(tilt)), at: SIMD3(0.5, -0.8, -3), width: 0.5, height: 0.3)],
                                   viewpoint: eye, metresPerUnit: 1)
        #expect(askew.added.isEmpty && map.anchors.count == 1, "a piece of the wall 15° askew")
        // 200 points on the wall that a keyframe at the eye saw through a floating upright patch.
        let wallPoints = (0..<200).map { (i: Int) -> SIMD3<Double> in
            SIMD3(Double(i % 20) * 0.05 - 0.5, Double(i / 20) * 0.05 - 0.25, -3)
        }
        let space = FreeSpace(views: [MapView(centre: eye, points: Array(wallPoints.indices))], points: wallPoints)
        let floating = try map.update(with: [upright(SIMD3(0, 0, 1), at: SIMD3(0, 0, -1.5), width: 0.6, height: 0.4)], freeSpace: space,
                                      viewpoint: eye, metresPerUnit: 1)
        #expect(floating.added.isEmpty, "a patch in the air the wall was seen through")
        let floor = try map.update(with: [level(y: -1.5, z: -2.9 ... -1)], freeSpace: space, viewpoint: eye, metresPerUnit: 1)
        #expect(floor.added.count == 1 && map.anchors.count == 2)
    }

    @Test func planeListsParse() {
        #expect(PlaneDetection(list: "horizontal,vertical") == [.horizontal, .vertical])
        #expect(PlaneDetection(list: "any") == [.horizontal, .vertical, .arbitrary])
        #expect(PlaneDetection(list: "floor") == nil && PlaneDetection(list: "") == nil)
    }
}
