import Foundation

/// Grows a plane over the parts of its surface that have too few map points, from two views:
/// an image block shows the plane where the plane's homography carries it onto the other view
/// (homography-based region growing). A wall's plain stretches and a box side seen at a slant
/// give the odometry few corners, but their texture still lines up.
///
/// A block of the newer view shows the plane when its ray meets the plane in front of the
/// camera, it correlates at least ``minimumCorrelation`` under the plane's homography, and
/// better than under the plane moved ``relativeShift`` of its distance either way (so that a
/// block of another surface near the plane's foot is not taken for it). Blocks where the moved
/// planes shift the view by less than ``minimumParallax`` are not judged: the pair cannot tell
/// them apart there. The growth starts from such blocks within ``reach`` of the boundary and
/// spreads over neighbouring ones up to ``spread`` from it, so that a wall seen further along
/// grows at once, yet only over texture connected to it; a block with fewer than
/// ``minimumNeighbours`` such neighbours is a chance match and is left out (the boundary is a
/// hull, which one stray block would stretch over whatever it showed).
struct PlaneGrowth {
    /// Side of the blocks, pixels of the pair's views.
    var patch = 8
    var minimumTexture = 1.0
    var minimumCorrelation: Float = 0.8
    /// How much better the plane must explain a block than the moved planes.
    var margin: Float = 0.02
    var relativeShift = 0.05
    /// Least parallax between the plane and each moved one at a block, pixels of the pair's
    /// views (half-size views: one pixel of the frames).
    var minimumParallax = 0.5
    /// Least number of a block's 8 neighbours the plane must explain as well.
    var minimumNeighbours = 4
    /// Farthest a block that starts the growth may lie from the plane's boundary, metres.
    var reach = 0.3
    /// Farthest the growth spreads from the boundary over connected blocks, metres.
    var spread = 1.0

    /// World points of `plane` (a plane anchor) shown by blocks of `pair`'s reference view.
    /// A block that one of `others` (the session's other planes) explains at least as well, where
    /// its ray meets that plane inside its boundary, belongs to that one. `unit` is metres per
    /// world unit.
    func points(on plane: Anchor, others: [Anchor], in pair: ViewPair, metresPerUnit unit: Double) throws -> [SIMD3<Double>] {
        guard let own = Surface(plane, pair: pair) else { return [] }
        let ref = pair.reference.transform
        let distance = abs(dot(own.normal, ref.translation - plane.transform.translation))
        guard distance * unit > 0.05 else { return [] }
        let moved = [relativeShift, -relativeShift].map { f in
            let p = pair.plane(normal: own.normal, through: plane.transform.translation + own.normal * (f * distance))
            return pair.homography(normal: p.normal, inverseOffset: p.inverseOffset)
        }
        let rivals = others.compactMap { Surface($0, pair: pair) }

        let columns = pair.camera.width / patch
        var blocks: [(corner: SIMD2<Int>, homography: Matrix3)] = []
        var candidates: [Int: (point: SIMD3<Double>, isSeed: Bool, tests: Range<Int>)] = [:]
        for row in 0..<(pair.camera.height / patch) { for column in 0..<columns {
            let corner = SIMD2(column * patch, row * patch)
            let pixel = SIMD2(Double(corner.x), Double(corner.y)) + Double(patch - 1) / 2
            let ray = pair.ray(pixel)
            guard let hit = own.hit(ray, from: ref), hit.depth >= -spread / unit else { continue }
            // Where moving the plane hardly moves the block, the pair cannot tell them apart.
            let there = Homography.map(own.homography, pixel)
            guard moved.allSatisfy({ length(Homography.map($0, pixel) - there) >= minimumParallax }) else { continue }
            let first = blocks.count
            let rivalling = rivals.filter { ($0.hit(ray, from: ref)?.depth ?? -1) >= 0 }.map(\.homography)
            blocks += ([own.homography] + moved + rivalling).map { (corner, $0) }
            candidates[row * columns + column] = (hit.point, hit.depth >= -reach / unit, first..<blocks.count)
        } }
        guard !blocks.isEmpty else { return [] }
        let scores = try pair.scores(blocks, patch: patch, minimumTexture: minimumTexture).map { $0.isNaN ? -1 : $0 }
        let shown = candidates.filter { _, c in
            let mine = scores[c.tests.lowerBound], best = scores[c.tests.dropFirst()].max() ?? -1
            return mine >= minimumCorrelation && mine > best + margin
        }
        // Blocks are numbered row by row; a neighbour off the grid's sides has no number.
        func neighbours(of block: Int, _ steps: [(row: Int, column: Int)]) -> [Int] {
            let (row, column) = block.quotientAndRemainder(dividingBy: columns)
            return steps.filter { (0..<columns).contains(column + $0.column) }.map { (row + $0.row) * columns + column + $0.column }
        }
        let around = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
        let supported = shown.filter { block, _ in
            neighbours(of: block, around).filter { shown[$0] != nil }.count >= minimumNeighbours
        }
        var queue = supported.filter(\.value.isSeed).map(\.key).sorted(), taken = Set(queue)
        while let block = queue.popLast() {
            for next in neighbours(of: block, [(-1, 0), (1, 0), (0, -1), (0, 1)]) where supported[next] != nil && taken.insert(next).inserted {
                queue.append(next)
            }
        }
        return taken.sorted().map { supported[$0]!.point }
    }

    /// A plane anchor as `pair`'s reference camera sees it: its homography, and where a ray
    /// meets it in front of the camera (with how far inside its boundary).
    private struct Surface {
        let normal: SIMD3<Double>
        let homography: Matrix3
        private let m: SIMD3<Double>, s: Double
        private let region: PlanarRegion

        init?(_ plane: Anchor, pair: ViewPair) {
            guard let polygon = plane.polygon, polygon.count >= 3 else { return nil }
            normal = plane.transform.rotation.columns.1
            (m, s) = pair.plane(normal: normal, through: plane.transform.translation)
            // A plane through the camera is seen edge-on: it shows no blocks.
            guard s.isFinite, abs(s) < 1e6 else { return nil }
            homography = pair.homography(normal: m, inverseOffset: s)
            region = PlanarRegion(plane)
        }

        /// The world point where `ray` (reference camera frame, depth 1) meets the plane in front
        /// of the camera, and its depth inside the boundary (``PlanarRegion/depth(of:)``, world
        /// units, negative outside); nil behind the camera.
        func hit(_ ray: SIMD3<Double>, from reference: Transform) -> (point: SIMD3<Double>, depth: Double)? {
            let along = s * dot(m, ray)  // the ray meets m · X = 1/s at X = ray / (s m · ray)
            guard along > 0 else { return nil }
            let world = reference.apply(to: ray / along)
            return (world, region.depth(of: world))
        }
    }
}
