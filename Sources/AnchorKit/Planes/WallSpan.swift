/// An upright surface as a line in the top view (x-z) and the span of the surface along the
/// line and in height: what the level-surface search needs to tell a row of a wall's corners
/// from a floor or a table top. The session's world (+y up); lengths in its unit.
struct WallSpan {
    /// Unit normal of the line in the top view, (x, z).
    var normal: SIMD2<Double>
    /// The line is `dot(normal, (x, z)) = offset`.
    var offset: Double
    /// Span along the line's direction (-normal.y, normal.x) in the top view.
    var along: ClosedRange<Double>
    /// Span in height (y).
    var height: ClosedRange<Double>

    /// The span of `points` along the line and of `heights` (both not empty).
    init(normal: SIMD2<Double>, offset: Double, spanning points: [SIMD3<Double>], heights: [Double]) {
        let a = points.map { Self.position(of: $0, along: normal) }
        self.normal = normal
        self.offset = offset
        along = a.min()!...a.max()!
        height = heights.min()!...heights.max()!
    }

    /// The span of an upright plane anchor's boundary; nil for other planes.
    init?(_ plane: Anchor) {
        let corners = PlaneMap.outline(of: plane)
        guard plane.alignment == .vertical, !corners.isEmpty else { return nil }
        let n = plane.transform.rotation.columns.1, normal = normalize(SIMD2(n.x, n.z))
        self.init(normal: normal, offset: dot(normal, SIMD2(plane.transform.translation.x, plane.transform.translation.z)),
                  spanning: corners, heights: corners.map(\.y))
    }

    /// Where `p` lies along the top-view line with unit normal `normal`: its coordinate along the
    /// direction (-normal.y, normal.x).
    static func position(of p: SIMD3<Double>, along normal: SIMD2<Double>) -> Double {
        -normal.y * p.x + normal.x * p.z
    }

    /// True when `p` lies within 4 `tolerance` of the line in the top view (a wall seen again
    /// after the map drifted is a band of points that thick), and inside the span (widened by
    /// `tolerance` along the line, 2 `tolerance` in height).
    func holds(_ p: SIMD3<Double>, tolerance: Double) -> Bool {
        let a = Self.position(of: p, along: normal)
        return abs(dot(normal, SIMD2(p.x, p.z)) - offset) <= 4 * tolerance
            && a >= along.lowerBound - tolerance && a <= along.upperBound + tolerance
            && p.y >= height.lowerBound - 2 * tolerance && p.y <= height.upperBound + 2 * tolerance
    }
}
