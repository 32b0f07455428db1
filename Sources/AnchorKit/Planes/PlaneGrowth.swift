import Foundation

/// Grows a plane over the parts of its surface that have too few map points, from two views:
/// an image block shows the plane where the plane's homography carries it onto the other view
/// (homography-based region growing). A wall's plain stretches and a box side seen at a slant
/// give the odometry few corners, but their texture still lines up.
///
/// A block of the newer view counts when its ray meets the plane in front of the camera within
/// ``reach`` of the plane's boundary, it correlates at least ``minimumCorrelation`` under the
/// plane's homography, and better than under the plane moved ``relativeShift`` of its distance
/// either way (so that a pair without the parallax to tell them apart adds nothing, and a block
/// of another surface near the plane's foot is not taken for it).
struct PlaneGrowth {
    /// Side of the blocks, pixels of the pair's views.
    var patch = 8
    var minimumTexture = 1.0
    var minimumCorrelation: Float = 0.8
    /// How much better the plane must explain a block than the moved planes.
    var margin: Float = 0.02
    var relativeShift = 0.05
    /// Least parallax between the plane and a moved one at the image centre, pixels.
    var minimumParallax = 1.0
    /// Farthest a new point may lie from the plane's boundary, metres.
    var reach = 0.3

    /// World points of `plane` (a plane anchor) shown by blocks of `pair`'s reference view.
    /// A block that one of `others` (the session's other planes) explains at least as well, where
    /// its ray meets that plane inside its boundary, belongs to that one. `unit` is metres per
    /// world unit.
    func points(on plane: Anchor, others: [Anchor], in pair: ViewPair, metresPerUnit unit: Double) throws -> [SIMD3<Double>] {
        guard let own = Surface(plane, pair: pair, reach: reach / unit) else { return [] }
        let ref = pair.reference.transform
        let distance = abs(dot(own.normal, ref.translation - plane.transform.translation))
        guard distance * unit > 0.05 else { return [] }
        let moved = [relativeShift, -relativeShift].map { f in
            let p = pair.plane(normal: own.normal, through: plane.transform.translation + own.normal * (f * distance))
            return pair.homography(normal: p.normal, inverseOffset: p.inverseOffset)
        }
        let centre = SIMD2(Double(pair.camera.width - 1), Double(pair.camera.height - 1)) / 2
        guard length(Homography.map(moved[0], centre) - Homography.map(own.homography, centre)) >= minimumParallax else { return [] }
        let rivals = others.compactMap { Surface($0, pair: pair, reach: 0) }

        var blocks: [(corner: SIMD2<Int>, homography: Matrix3)] = [], candidates: [(point: SIMD3<Double>, tests: Range<Int>)] = []
        for row in 0..<(pair.camera.height / patch) { for column in 0..<(pair.camera.width / patch) {
            let corner = SIMD2(column * patch, row * patch)
            let ray = pair.ray(SIMD2(Double(corner.x), Double(corner.y)) + Double(patch - 1) / 2)
            guard let point = own.hit(ray, from: ref) else { continue }
            let first = blocks.count
            blocks += ([own.homography] + moved + rivals.filter { $0.hit(ray, from: ref) != nil }.map(\.homography)).map { (corner, $0) }
            candidates.append((point, first..<blocks.count))
        } }
        guard !blocks.isEmpty else { return [] }
        let scores = try pair.scores(blocks, patch: patch, minimumTexture: minimumTexture).map { $0.isNaN ? -1 : $0 }
        return candidates.compactMap { c in
            let mine = scores[c.tests.lowerBound], best = scores[c.tests.dropFirst()].max() ?? -1
            return mine >= minimumCorrelation && mine > best + margin ? c.point : nil
        }
    }

    /// A plane anchor as `pair`'s reference camera sees it: its homography, and where a ray
    /// meets it inside its boundary widened by `reach` (world units).
    private struct Surface {
        let normal: SIMD3<Double>
        let homography: Matrix3
        private let m: SIMD3<Double>, s: Double
        private let anchorFromWorld: Transform
        private let widened: [SIMD2<Double>]

        init?(_ plane: Anchor, pair: ViewPair, reach: Double) {
            guard let polygon = plane.polygon, polygon.count >= 3 else { return nil }
            normal = plane.transform.rotation.columns.1
            (m, s) = pair.plane(normal: normal, through: plane.transform.translation)
            // A plane through the camera is seen edge-on: it shows no blocks.
            guard s.isFinite, abs(s) < 1e6 else { return nil }
            homography = pair.homography(normal: m, inverseOffset: s)
            anchorFromWorld = plane.transform.inverse
            widened = reach > 0
                ? ConvexPolygon.hull(polygon.flatMap { [$0 + SIMD2(reach, 0), $0 - SIMD2(reach, 0), $0 + SIMD2(0, reach), $0 - SIMD2(0, reach)] })
                : polygon
        }

        /// The world point where `ray` (reference camera frame, depth 1) meets the plane in front
        /// of the camera inside the widened boundary, else nil.
        func hit(_ ray: SIMD3<Double>, from reference: Transform) -> SIMD3<Double>? {
            let along = s * dot(m, ray)  // the ray meets m · X = 1/s at X = ray / (s m · ray)
            guard along > 0 else { return nil }
            let world = reference.apply(to: ray / along)
            let local = anchorFromWorld.apply(to: world)
            return ConvexPolygon.contains(widened, SIMD2(local.x, local.z)) ? world : nil
        }
    }
}
