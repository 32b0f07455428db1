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

    init(normal: SIMD2<Double>, offset: Double, along: ClosedRange<Double>, height: ClosedRange<Double>) {
        self.normal = normal
        self.offset = offset
        self.along = along
        self.height = height
    }

    /// The span of an upright plane anchor's boundary; nil for other planes.
    init?(_ plane: Anchor) {
        let corners = PlaneMap.outline(of: plane)
        guard plane.alignment == "vertical", !corners.isEmpty else { return nil }
        let n = plane.transform.rotation.columns.1
        normal = normalize(SIMD2(n.x, n.z))
        offset = dot(normal, SIMD2(plane.transform.translation.x, plane.transform.translation.z))
        let normal = normal
        let a = corners.map { -normal.y * $0.x + normal.x * $0.z }, y = corners.map(\.y)
        along = a.min()!...a.max()!
        height = y.min()!...y.max()!
    }

    /// True when `p` lies within 4 `tolerance` of the line in the top view (a wall seen again
    /// after the map drifted is a band of points that thick), and inside the span (widened by
    /// `tolerance` along the line, 2 `tolerance` in height).
    func holds(_ p: SIMD3<Double>, tolerance: Double) -> Bool {
        let a = -normal.y * p.x + normal.x * p.z
        return abs(dot(normal, SIMD2(p.x, p.z)) - offset) <= 4 * tolerance
            && a >= along.lowerBound - tolerance && a <= along.upperBound + tolerance
            && p.y >= height.lowerBound - 2 * tolerance && p.y <= height.upperBound + 2 * tolerance
    }
}
