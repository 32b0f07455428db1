import Foundation

/// One plane found in one pass over the map, in the session's world (+y up).
struct PlaneCandidate {
    /// `horizontal`, `vertical` or `any` (FORMATS.md's plane `alignment`).
    var alignment: PlaneAlignment
    /// Unit normal, toward the side the camera sees.
    var normal: SIMD3<Double>
    /// A point of the plane: its supporting points' centroid.
    var origin: SIMD3<Double>
    /// Points of the plane whose convex hull bounds the surface seen (the hull's corners).
    var outline: [SIMD3<Double>]
    /// How many map points support it.
    var support: Int
}

/// Finds planar surfaces among a map's 3D points, the way ARKit's plane detection does it from
/// its feature points.
///
/// Horizontal planes are dense modes of the points' heights: a floor or table top puts many
/// points within a few centimetres of one height, which walls (spread evenly over all heights)
/// do not. Vertical planes are lines in the top view (x-z), found by RANSAC. Arbitrary planes
/// are RANSAC planes in 3D. Each geometric plane is split into connected surfaces on a grid
/// (two tables of equal height are two planes), and a surface must spread in both in-plane
/// directions: a wall's slice at one height is a line, not a floor.
struct PlaneFinder {
    var detection: PlaneDetection
    var parameters = PlaneDetection.Parameters()

    /// The planes among `points` (world, +y up), seen from `viewpoint` (the camera centre,
    /// which decides each normal's side). `unit` is metres per world unit's estimate (1 once
    /// metric): every length of ``PlaneDetection/Parameters`` is divided by it.
    /// `levelPoints` (``LevelSweep``) join `points` in the search for level surfaces only. The
    /// last `recentLevelPoints` of them come from the newest pair of views, measured with the
    /// current camera's pose: a level surface with enough of them takes its height from them, so
    /// that it stays right below the camera when the map has drifted by a few centimetres since
    /// its older points were made (what raycasts and content on it need).
    /// `knownPlanes` (the session's plane anchors) add their upright planes to the walls found
    /// in this pass, for ``isWallSlice(_:points:walls:tolerance:)``: a pass whose map has moved a
    /// wall's points apart may not find that wall again, yet its rows of corners are still there.
    func find(in mapPoints: [SIMD3<Double>], levelPoints: [SIMD3<Double>] = [], recentLevelPoints: Int = 0,
              knownPlanes: [Anchor] = [], viewpoint: SIMD3<Double>, metresPerUnit unit: Double) -> [PlaneCandidate] {
        let points = mapPoints + levelPoints
        let recent = points.count - min(recentLevelPoints, levelPoints.count)
        let tolerance = parameters.inlierDistance / unit
        var used = [Bool](repeating: false, count: points.count)
        var found: [PlaneCandidate] = []
        var random = SplitMix64(seed: 7)
        var walls = knownPlanes.compactMap(WallSpan.init)
        let levels = knownPlanes.filter { $0.alignment == .horizontal }.map(\.transform.translation.y)

        // Walls first: the texture of a wall has rows of corners at some heights (tile joints,
        // shelves), dense modes of height that would pass for a level surface, and a wall's
        // points are taken out before level surfaces are looked for. A floor loses only the
        // strip within an inlier distance of each wall's foot.
        if detection.contains(.vertical) {
            var pool = Array(mapPoints.indices)
            for _ in 0..<12 {
                guard pool.count >= parameters.minimumPoints,
                      let line = bestLine(pool.map { SIMD2(points[$0].x, points[$0].z) }, tolerance: tolerance, random: &random)
                else { break }
                let inliers = pool.filter { abs(dot(line.normal, SIMD2(points[$0].x, points[$0].z)) - line.offset) <= tolerance }
                let along = SIMD3(-line.normal.y, 0, line.normal.x), normal = SIMD3(line.normal.x, 0, line.normal.y)
                for surface in surfaces(inliers, points: points, judgedBy: mapPoints.count, normal: normal, offset: line.offset,
                                        axes: (along, SIMD3(0, 1, 0)), alignment: .vertical, levels: levels,
                                        viewpoint: viewpoint, metresPerUnit: unit) {
                    found.append(surface.candidate)
                    for i in surface.members { used[i] = true }
                    // In height, all the line's points: the contrast test leaves out a wall's cells
                    // along the floor (the floor's points lie just beside them).
                    walls.append(WallSpan(normal: line.normal, offset: line.offset, spanning: surface.members.map { points[$0] },
                                          heights: inliers.map { points[$0].y }))
                }
                let onLine = Set(inliers)
                pool.removeAll { onLine.contains($0) }
            }
        }

        if detection.contains(.horizontal) {
            var pool = points.indices.filter { !used[$0] }.sorted { points[$0].y < points[$1].y }
            for _ in 0..<12 {
                guard let height = densestHeight(pool.map { points[$0].y }, within: tolerance) else { break }
                let band = pool.filter { abs(points[$0].y - height) <= tolerance }
                for surface in surfaces(band, points: points, judgedBy: points.count, normal: SIMD3(0, 1, 0), offset: height,
                                        axes: (SIMD3(1, 0, 0), SIMD3(0, 0, 1)), alignment: .horizontal,
                                        viewpoint: viewpoint, metresPerUnit: unit)
                where !isWallSlice(surface.members, points: points, walls: walls, tolerance: tolerance) {
                    var c = surface.candidate
                    let fresh = surface.members.filter { $0 >= recent }.map { points[$0].y }.sorted()
                    if fresh.count >= parameters.minimumPoints {
                        let shift = fresh[fresh.count / 2] - c.origin.y
                        c.origin.y += shift
                        c.outline = c.outline.map { $0 + SIMD3(0, shift, 0) }
                    }
                    found.append(c)
                    for i in surface.members { used[i] = true }
                }
                let inBand = Set(band)
                pool.removeAll { inBand.contains($0) }
                if pool.count < parameters.minimumPoints { break }
            }
        }

        if detection.contains(.arbitrary) {
            var pool = mapPoints.indices.filter { !used[$0] }
            for _ in 0..<8 {
                guard pool.count >= parameters.minimumPoints,
                      let plane = bestPlane(pool.map { points[$0] }, tolerance: tolerance, random: &random) else { break }
                let inliers = pool.filter { abs(dot(plane.normal, points[$0]) - plane.offset) <= tolerance }
                let tilt = asin(min(1, abs(plane.normal.y)))  // 0 for vertical, π/2 for horizontal
                let generic = tilt > parameters.arbitraryMinimumTilt && tilt < .pi / 2 - parameters.arbitraryMinimumTilt
                if generic {
                    found += surfaces(inliers, points: points, judgedBy: mapPoints.count, normal: plane.normal, offset: plane.offset,
                                      axes: PlaneAxes.spanning(plane.normal), alignment: .any,
                                      viewpoint: viewpoint, metresPerUnit: unit).map(\.candidate)
                }
                let onPlane = Set(inliers)
                pool.removeAll { onPlane.contains($0) }
            }
        }
        return found
    }

    /// True when most of `members` (points of one level surface) lie on the walls found or known
    /// (``WallSpan/holds(_:tolerance:)``): a row of corners along a wall, or round a corner of
    /// the room, whose points the wall's own fit left out (a drifting map bends a long wall by
    /// more than an inlier distance). A floor or a table top has only the strips along its
    /// edges there.
    private func isWallSlice(_ members: [Int], points: [SIMD3<Double>], walls: [WallSpan], tolerance: Double) -> Bool {
        guard !walls.isEmpty else { return false }
        let onWalls = members.filter { i in walls.contains { $0.holds(points[i], tolerance: tolerance) } }.count
        return 2 * onWalls > members.count
    }

    /// The height with the most values within ±`tolerance` (sorted `heights`), refined to the
    /// median of those values; nil when no height has ``PlaneDetection/Parameters/minimumPoints``.
    private func densestHeight(_ heights: [Double], within tolerance: Double) -> Double? {
        var best = (count: 0, start: 0, end: 0), j = 0
        for i in heights.indices {
            while j < heights.count && heights[j] <= heights[i] + 2 * tolerance { j += 1 }
            if j - i > best.count { best = (j - i, i, j) }
        }
        guard best.count >= parameters.minimumPoints else { return nil }
        let window = heights[best.start..<best.end]
        return window[window.startIndex + window.count / 2]
    }

    /// The line `dot(normal, p) = offset` (top view) with the most points within `tolerance`.
    private func bestLine(_ p: [SIMD2<Double>], tolerance: Double, random: inout SplitMix64)
        -> (normal: SIMD2<Double>, offset: Double)? {
        var best: (normal: SIMD2<Double>, offset: Double, count: Int)?
        for _ in 0..<parameters.iterations {
            let a = p[Int(random.next() % UInt64(p.count))], b = p[Int(random.next() % UInt64(p.count))]
            let d = b - a
            guard length(d) > 4 * tolerance else { continue }
            let n = SIMD2(-d.y, d.x) / length(d), c = dot(n, a)
            var count = 0
            for q in p where abs(dot(n, q) - c) <= tolerance { count += 1 }
            if count > (best?.count ?? 0) { best = (n, c, count) }
        }
        guard var line = best, line.count >= parameters.minimumPoints else { return nil }
        // Least squares on the inliers (the principal direction of their scatter).
        for _ in 0..<2 {
            let inliers = p.filter { abs(dot(line.normal, $0) - line.offset) <= tolerance }
            guard inliers.count >= 2 else { break }
            let s = Self.spread(inliers)
            line.normal = SIMD2(-s.direction.y, s.direction.x)
            line.offset = dot(line.normal, s.mean)
        }
        return (line.normal, line.offset)
    }

    /// The plane `dot(normal, p) = offset` with the most points within `tolerance`.
    private func bestPlane(_ p: [SIMD3<Double>], tolerance: Double, random: inout SplitMix64)
        -> (normal: SIMD3<Double>, offset: Double)? {
        var best: (normal: SIMD3<Double>, offset: Double, count: Int)?
        for _ in 0..<parameters.iterations {
            let a = p[Int(random.next() % UInt64(p.count))], b = p[Int(random.next() % UInt64(p.count))]
            let c = p[Int(random.next() % UInt64(p.count))]
            let n = cross(b - a, c - a)
            guard length(n) > 16 * tolerance * tolerance else { continue }
            let u = n / length(n), o = dot(u, a)
            var count = 0
            for q in p where abs(dot(u, q) - o) <= tolerance { count += 1 }
            if count > (best?.count ?? 0) { best = (u, o, count) }
        }
        guard var plane = best, plane.count >= parameters.minimumPoints else { return nil }
        let inliers = p.filter { abs(dot(plane.normal, $0) - plane.offset) <= tolerance }
        let (centroid, _, vectors) = SymmetricEigen.of(inliers)
        plane.normal = vectors[0]
        plane.offset = dot(plane.normal, centroid)
        return (plane.normal, plane.offset)
    }

    /// The surfaces among `members` (points near the plane `dot(normal, p) = offset`): their
    /// groups connected on the grid in the plane spanned by `axes` that have enough points spread
    /// in both directions, each with its normal turned to the side of `viewpoint`.
    /// The planarity contrast is judged by the first `judges` points only (map points for walls:
    /// a level sweep's points near a wall are depths of its patches, not evidence of it).
    /// An upright surface's width is judged by its points away from the `levels` (heights of
    /// the level planes known).
    private func surfaces(_ members: [Int], points: [SIMD3<Double>], judgedBy judges: Int, normal: SIMD3<Double>, offset: Double,
                          axes: (SIMD3<Double>, SIMD3<Double>), alignment: PlaneAlignment, levels: [Double] = [],
                          viewpoint: SIMD3<Double>, metresPerUnit unit: Double) -> [(candidate: PlaneCandidate, members: [Int])] {
        let side = dot(normal, viewpoint) - offset >= 0 ? 1.0 : -1.0
        let cell = parameters.cellSize / unit
        let planar = planarCells(points: points[..<judges], normal: normal, offset: offset, axes: axes, cell: cell,
                                 tolerance: parameters.inlierDistance / unit)
        let kept = members.filter { planar.contains(Self.key(points[$0], axes: axes, cell: cell)) }
        return connected(kept, points: points, cell: cell, axes: axes).compactMap { surface in
            let flat = surface.map { SIMD2(dot(points[$0], axes.0), dot(points[$0], axes.1)) }
            guard surface.count >= parameters.minimumPoints, Self.spread(flat).minor >= parameters.minimumSpread / unit else { return nil }
            // An upright plane's direction is that of its points' top view: a narrow cluster (a
            // strip along a box's edge, and a stray point) turns it any way. Points at the height
            // of a level plane known are that plane's evidence, not the upright's: a box's
            // corner, a column of points from its foot to its top, lines up with a few of the
            // floor's points beside it (a plane some 30 degrees off both of the box's faces).
            if alignment == .vertical {
                let band = 2 * parameters.inlierDistance / unit
                let along = surface.indices.filter { k in !levels.contains { abs(points[surface[k]].y - $0) <= band } }
                    .map { flat[$0].x }.sorted()
                let n = along.count
                guard n >= 2, along[n * 9 / 10] - along[n / 10] >= parameters.minimumWidth / unit else { return nil }
            }
            return (candidate(surface, points: points, normal: side * normal, alignment: alignment), surface)
        }
    }

    /// A cell of the grid of side `cell` in the plane spanned by `axes`.
    struct Key: Hashable { var u: Int, v: Int }

    /// The cell of `p` (projected along the plane's normal).
    static func key(_ p: SIMD3<Double>, axes: (SIMD3<Double>, SIMD3<Double>), cell: Double) -> Key {
        Key(u: Int((dot(p, axes.0) / cell).rounded(.down)), v: Int((dot(p, axes.1) / cell).rounded(.down)))
    }

    /// The cells of the plane `dot(normal, p) = offset` where its points stand out from those
    /// just beside it (``PlaneDetection/Parameters/minimumContrast``), among all `points`.
    private func planarCells(points: ArraySlice<SIMD3<Double>>, normal: SIMD3<Double>, offset: Double,
                             axes: (SIMD3<Double>, SIMD3<Double>), cell: Double, tolerance: Double) -> Set<Key> {
        var counts: [Key: (on: Int, beside: Int)] = [:]
        for p in points {
            let d = abs(dot(normal, p) - offset)
            guard d <= 4 * tolerance else { continue }
            let k = Self.key(p, axes: axes, cell: cell)
            if d <= tolerance { counts[k, default: (0, 0)].on += 1 } else { counts[k, default: (0, 0)].beside += 1 }
        }
        // Only membership is read from the set: its order does not matter.
        return Set(counts.filter { Double($0.value.on) >= parameters.minimumContrast * Double($0.value.beside) }.keys)
    }

    /// Splits `members` into groups connected on a grid of `cell` in the plane spanned by `axes`.
    private func connected(_ members: [Int], points: [SIMD3<Double>], cell: Double,
                           axes: (SIMD3<Double>, SIMD3<Double>)) -> [[Int]] {
        var cells: [Key: [Int]] = [:]
        for i in members { cells[Self.key(points[i], axes: axes, cell: cell), default: []].append(i) }
        var seen = Set<Key>(), groups: [[Int]] = []
        // Cells in a fixed order, so that the result does not depend on hashing.
        for start in cells.keys.sorted(by: { $0.u != $1.u ? $0.u < $1.u : $0.v < $1.v }) where !seen.contains(start) {
            var stack = [start], group: [Int] = []
            seen.insert(start)
            while let k = stack.popLast() {
                group += cells[k]!
                for du in -1...1 { for dv in -1...1 {
                    let n = Key(u: k.u + du, v: k.v + dv)
                    if cells[n] != nil && !seen.contains(n) { seen.insert(n); stack.append(n) }
                } }
            }
            groups.append(group.sorted())
        }
        return groups
    }

    /// The candidate for `members` on the plane with `normal` through their centroid.
    private func candidate(_ members: [Int], points: [SIMD3<Double>], normal: SIMD3<Double>, alignment: PlaneAlignment) -> PlaneCandidate {
        let p = members.map { points[$0] }
        var origin = p.reduce(SIMD3<Double>.zero, +) / Double(p.count)
        // Along the normal, the median: a surface's points have a long tail on one side (the
        // bottoms of things standing on a floor, a skirting board), which would pull a mean.
        let heights = p.map { dot($0, normal) }.sorted()
        origin += normal * (heights[heights.count / 2] - dot(origin, normal))
        let axes = PlaneAxes.spanning(normal)
        let hull = ConvexPolygon.hull(p.map { SIMD2(dot($0 - origin, axes.0), dot($0 - origin, axes.1)) })
        let outline = hull.map { origin + $0.x * axes.0 + $0.y * axes.1 }
        origin = outline.reduce(SIMD3<Double>.zero, +) / Double(max(outline.count, 1))
        return PlaneCandidate(alignment: alignment, normal: normal, origin: origin, outline: outline, support: p.count)
    }

    /// Mean, principal direction and spreads (standard deviations along the principal and the
    /// minor direction) of 2D points.
    static func spread(_ p: [SIMD2<Double>]) -> (mean: SIMD2<Double>, direction: SIMD2<Double>, major: Double, minor: Double) {
        let n = Double(max(p.count, 1))
        let mean = p.reduce(SIMD2<Double>.zero, +) / n
        var a = 0.0, b = 0.0, c = 0.0
        for q in p { let d = q - mean; a += d.x * d.x; b += d.x * d.y; c += d.y * d.y }
        a /= n; b /= n; c /= n
        let half = (a + c) / 2, radius = (((a - c) / 2) * ((a - c) / 2) + b * b).squareRoot()
        let angle = 0.5 * atan2(2 * b, a - c)
        return (mean, SIMD2(cos(angle), sin(angle)), max(0, half + radius).squareRoot(), max(0, half - radius).squareRoot())
    }
}
