import AnchorKitCV

/// Area, intersection and hulls of convex polygons in a plane (the image, in pixels, or a plane
/// anchor's x-z plane, in metres).
package enum ConvexPolygon {
    /// The signed area (positive for counter-clockwise in x-right, y-up axes; for image axes
    /// with y down, clockwise-looking polygons are positive).
    public static func signedArea(_ p: [SIMD2<Double>]) -> Double {
        guard p.count >= 3 else { return 0 }
        var s = 0.0
        for i in p.indices {
            let a = p[i], b = p[(i + 1) % p.count]
            s += a.x * b.y - b.x * a.y
        }
        return s / 2
    }

    /// The absolute area.
    public static func area(_ p: [SIMD2<Double>]) -> Double { abs(signedArea(p)) }

    /// The lengths of the sides of polygon `p`, the closing one last (units of `p`).
    public static func sideLengths(_ p: [SIMD2<Double>]) -> [Double] {
        zip(p, p.dropFirst() + p.prefix(1)).map { length($0 - $1) }
    }

    /// The part of `subject` inside the convex `clip` polygon (Sutherland–Hodgman).
    // Not OpenCV's intersectConvexConvex: it takes single-precision points, and the visible
    // fractions written into rendered sequences' ground truth would carry its rounding.
    public static func clip(_ subject: [SIMD2<Double>], by clip: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard clip.count >= 3 else { return [] }
        let orientation: Double = signedArea(clip) >= 0 ? 1 : -1
        var output = subject
        for i in clip.indices {
            let a = clip[i], b = clip[(i + 1) % clip.count]
            let input = output
            output = []
            guard !input.isEmpty else { break }
            func inside(_ p: SIMD2<Double>) -> Bool {
                orientation * ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)) >= 0
            }
            func intersection(_ p: SIMD2<Double>, _ q: SIMD2<Double>) -> SIMD2<Double> {
                let d1 = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
                let d2 = (b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x)
                return p + (q - p) * (d1 / (d1 - d2))
            }
            for j in input.indices {
                let p = input[j], q = input[(j + 1) % input.count]
                switch (inside(p), inside(q)) {
                case (true, true): output.append(q)
                case (true, false): output.append(intersection(p, q))
                case (false, true): output.append(intersection(p, q)); output.append(q)
                case (false, false): break
                }
            }
        }
        return output
    }

    /// The image rectangle of a `width` x `height` image with pixel centres at integers.
    public static func imageRectangle(width: Int, height: Int) -> [SIMD2<Double>] {
        let w = Double(width) - 0.5, h = Double(height) - 0.5
        return [SIMD2(-0.5, -0.5), SIMD2(w, -0.5), SIMD2(w, h), SIMD2(-0.5, h)]
    }

    /// True if the polygon is convex (all turns the same way) and not degenerate.
    public static func isConvex(_ p: [SIMD2<Double>]) -> Bool {
        guard p.count >= 3 else { return false }
        var sign = 0.0
        for i in p.indices {
            let a = p[i], b = p[(i + 1) % p.count], c = p[(i + 2) % p.count]
            let turn = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            if turn == 0 { return false }
            if sign == 0 { sign = turn } else if (turn > 0) != (sign > 0) { return false }
        }
        return true
    }

    /// True if `point` lies inside (or on) the convex polygon.
    public static func contains(_ polygon: [SIMD2<Double>], _ point: SIMD2<Double>) -> Bool {
        var sign = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            let side = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if side != 0 {
                if sign == 0 { sign = side } else if (side > 0) != (sign > 0) { return false }
            }
        }
        return true
    }

    /// How far `point` lies inside the counter-clockwise convex `polygon` (as ``hull(_:)``
    /// gives it): its distance to the nearest edge's line, negative outside. -∞ for fewer than
    /// 3 corners.
    public static func depth(of point: SIMD2<Double>, in polygon: [SIMD2<Double>]) -> Double {
        guard polygon.count >= 3 else { return -.infinity }
        var depth = Double.infinity
        for i in polygon.indices {
            let a = polygon[i], e = polygon[(i + 1) % polygon.count] - a
            let edge = (e.x * e.x + e.y * e.y).squareRoot()
            guard edge > 0 else { continue }
            depth = min(depth, (e.x * (point.y - a.y) - e.y * (point.x - a.x)) / edge)
        }
        return depth
    }

    /// The convex hull of `points`, counter-clockwise in x-right, y-up axes (OpenCV's
    /// `convexHull`, through the shim). Fewer than 3 points give them back sorted.
    public static func hull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard points.count >= 3 else { return points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y } }
        var indices = [Int32](repeating: 0, count: points.count), count: Int32 = 0
        guard ak_convex_hull(points.flatMap { [$0.x, $0.y] }, Int32(points.count), &indices, &count) == AK_OK else { return [] }
        return indices.prefix(Int(count)).map { points[Int($0)] }
    }
}
