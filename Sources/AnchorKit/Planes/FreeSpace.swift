import Foundation

/// The empty space a map's keyframes looked through: the line from each keyframe's camera to
/// each map point it saw. An opaque surface cannot lie across such a line, so a plane whose
/// boundary many of them pass through (to points well behind it) is not a surface: points that
/// happen to line up in space (the silhouette edges of things seen against what is behind them,
/// the bottoms of several objects), which the floor and walls behind were seen through.
struct FreeSpace {
    /// Keyframe camera centres and the indices into `points` each saw (session world).
    var views: [MapView]
    var points: [SIMD3<Double>]

    /// How many lines of sight pass through `region` (``PlanarRegion/isCrossed(from:to:margin:)``).
    func crossings(of region: PlanarRegion, margin: Double) -> Int {
        var count = 0
        for view in views {
            for i in view.points where region.isCrossed(from: view.centre, to: points[i], margin: margin) { count += 1 }
        }
        return count
    }
}

/// A convex piece of a plane in the world, for tests of what lies behind it.
struct PlanarRegion {
    let normal: SIMD3<Double>, origin: SIMD3<Double>
    private let axes: (SIMD3<Double>, SIMD3<Double>)
    private let polygon: [SIMD2<Double>]

    /// The region bounded by the hull of `outline` (world points of the plane through `origin`
    /// with unit `normal`).
    init(normal: SIMD3<Double>, origin: SIMD3<Double>, outline: [SIMD3<Double>]) {
        self.normal = normal
        self.origin = origin
        axes = PlaneAxes.spanning(normal)
        let axes = axes
        polygon = ConvexPolygon.hull(outline.map { SIMD2(dot($0 - origin, axes.0), dot($0 - origin, axes.1)) })
    }

    /// A plane anchor's region.
    init(_ plane: Anchor) {
        self.init(normal: plane.transform.rotation.columns.1, origin: plane.transform.translation, outline: PlaneMap.outline(of: plane))
    }

    /// Signed distance of `p` from the plane, along the normal.
    func distance(_ p: SIMD3<Double>) -> Double { dot(normal, p - origin) }

    /// How far `p`, projected onto the plane, lies inside the boundary (negative outside;
    /// ``ConvexPolygon/depth(of:in:)``).
    func depth(of p: SIMD3<Double>) -> Double {
        let x = p - origin
        return ConvexPolygon.depth(of: SIMD2(dot(x, axes.0), dot(x, axes.1)), in: polygon)
    }

    /// True when the segment from `a` to `b` passes through the region at least `margin` inside
    /// its boundary, with both ends at least `margin` off the plane, on opposite sides.
    func isCrossed(from a: SIMD3<Double>, to b: SIMD3<Double>, margin: Double) -> Bool {
        sightMeetsRegion(from: a, through: b, margin: margin) { $0 <= -margin }
    }

    /// True when `p`, seen from `a`, lies on the region or behind it: `a` at least `margin` off
    /// the plane, `p` not `margin` or more off it on `a`'s side, and the line of sight from `a`
    /// through `p` meets the plane at least `margin` inside the boundary.
    func hides(_ p: SIMD3<Double>, from a: SIMD3<Double>, margin: Double) -> Bool {
        sightMeetsRegion(from: a, through: p, margin: margin) { $0 < margin }
    }

    /// True when `a` lies at least `margin` off the plane, `p`'s distance from it, counted
    /// positive on `a`'s side, satisfies `isPlaced`, and the line through them meets the plane at
    /// least `margin` inside the boundary.
    private func sightMeetsRegion(from a: SIMD3<Double>, through p: SIMD3<Double>, margin: Double,
                                  where isPlaced: (Double) -> Bool) -> Bool {
        // Distances on `a`'s side: negating both leaves the crossing's parameter unchanged.
        let side = distance(a) >= 0 ? 1.0 : -1.0
        let da = side * distance(a), dp = side * distance(p)
        guard da >= margin, isPlaced(dp) else { return false }
        return depth(of: a + (p - a) * (da / (da - dp))) >= margin
    }
}
