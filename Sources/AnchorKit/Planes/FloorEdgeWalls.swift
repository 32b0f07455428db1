import Foundation

/// Upright planes found from their foot, where a surface meets the floor, and the floor's height
/// from those feet: a painted wall over a plain carpet has too few map points for
/// ``PlaneFinder``, but the edge along the wall's foot is long, straight and seen from everywhere
/// in the room.
///
/// In each view (a keyframe), the straight edges (``LineSegment``) below the horizon with
/// different shades on their two sides are kept as the lines of sight through their ends. Laid
/// on a level plane, an edge that lies on that plane lands on the same line from every
/// viewpoint; one above or below it lands elsewhere from each, by as much as the cameras moved
/// across it (along it, an edge at any height lands on one line). So:
///
/// - Pairs of views at least ``PlaneDetection/Parameters/edgeBaseline`` apart across an edge
///   give the height at which they agree; the lowest height that several pairs agree on (a row
///   of map points where something stands on the floor counting as four) is the floor's, used
///   while no floor plane is found (a plain floor has few map points either) and offered as a
///   floor candidate.
/// - Laid on the floor, an edge that three views agree on is a wall's foot (views closer across
///   it, when the floor is seen up to it: its points, or its shade down to the frame's foot).
///   The wall rises as far as its shade goes up the image (a cabinet's front ends at its top, a
///   wall at the ceiling or the frame's edge); a floor found beyond the edge rules it out (a
///   rug's or a tile's edge).
///
/// ``PlaneMap`` then tests each candidate against the map's lines of sight like every other.
/// The session's world (+y up, gravity when known); lengths in its unit.
struct FloorEdgeWalls {
    var parameters: PlaneDetection.Parameters
    /// The latest views' edges, oldest first.
    private var views: [View] = []
    /// Views remembered.
    private let remembered = 12

    /// An edge as lines of sight (world directions from the view's centre): through its ends,
    /// and through the highest points above three points along it up to which the far side's
    /// shade goes; and whether the near side's shade goes on from its middle to the frame's
    /// bottom edge.
    private struct Edge {
        var a: SIMD3<Double>, b: SIMD3<Double>
        var tops: [SIMD3<Double>]
        var nearShadeReachesBottom = false
    }

    private struct View {
        var centre: SIMD3<Double>
        var edges: [Edge]
    }

    /// An edge laid on a level plane, in the top view (x, z).
    private struct FloorLine {
        var a: SIMD2<Double>, b: SIMD2<Double>
        var direction: SIMD2<Double> { normalize(b - a) }
    }

    init(parameters: PlaneDetection.Parameters) { self.parameters = parameters }

    /// Multiplies every length by `factor` (the world became metric).
    mutating func rescale(by factor: Double) {
        for i in views.indices { views[i].centre *= factor }
    }

    /// The floor among `planes`: the lowest level plane, unless more than 2 % of the map's
    /// `points` lie over `tolerance` below it (then the floor has not been found yet and the
    /// lowest level plane is a table's or a bench's top, whose edges would pass for walls' feet).
    static func floor(among planes: [Anchor], points: [SIMD3<Double>], tolerance: Double) -> Anchor? {
        guard let lowest = PlaneMap.lowestLevelPlane(among: planes) else { return nil }
        let height = lowest.transform.translation.y
        return isBelowMap(height, points: points, tolerance: tolerance) ? lowest : nil
    }

    /// True when at most 2 % of `points` lie over `tolerance` below `height`.
    private static func isBelowMap(_ height: Double, points: [SIMD3<Double>], tolerance: Double) -> Bool {
        points.filter { $0.y < height - tolerance }.count * 50 <= points.count
    }

    /// Adds the view of `gray` from `worldFromCamera` (ARKit camera axes) and returns the
    /// surfaces its edges and the earlier views' agree on: upright ones from their foot, and the
    /// floor when `floor` (the floor plane, ``floor(among:points:tolerance:)``) is nil and the
    /// edges tell its height. `points` are the map's (none may lie well below a floor);
    /// `knownPlanes` orient the walls in a Manhattan world (``PlaneDetection/Parameters/manhattanWorld``).
    /// `unit` is metres per world unit.
    mutating func candidates(in gray: Image, worldFromCamera: Transform, camera: CameraIntrinsics, floor: Anchor?,
                             points: [SIMD3<Double>], knownPlanes: [Anchor], metresPerUnit unit: Double) throws -> [PlaneCandidate] {
        let view = View(centre: worldFromCamera.translation,
                        edges: try edges(in: gray, worldFromCamera: worldFromCamera, camera: camera))
        defer {
            views.append(view)
            if views.count > remembered { views.removeFirst() }
        }
        let tolerance = 2 * parameters.inlierDistance / unit
        var found: [PlaneCandidate] = []
        let floorHeight: Double
        if let floor {
            floorHeight = floor.transform.translation.y
        } else {
            let resting = restingHeight(of: points, below: view.centre.y, tolerance: tolerance, unit: unit)
            guard let height = edgeFloorHeight(of: view, besides: resting, tolerance: tolerance, unit: unit),
                  Self.isBelowMap(height, points: points, tolerance: 1.5 * tolerance) else { return [] }
            floorHeight = height
        }
        guard view.centre.y - floorHeight > 0.3 / unit else { return [] }
        let floorRegion = floor.map(PlanarRegion.init)
        let reference = parameters.manhattanWorld
            ? knownPlanes.first { $0.alignment == .vertical }.map { p -> SIMD2<Double> in
                let n = p.transform.rotation.columns.1
                return normalize(SIMD2(-n.z, n.x))
            } : nil
        let earlier = views.map { v in
            LaidView(centre: v.centre, lines: v.edges.compactMap { Self.laid($0, from: v.centre, at: floorHeight, unit: unit) })
        }
        // The map's points on a floor plane, top view: they ground a foot seen without parallax. Any
        // view's: the floor seen from elsewhere behind a bench lies in front of the bench's top
        // edge laid on the floor, but then the floor found goes on beyond that edge too, which
        // rules it out (`beyond` in wall(rising:)). The newest views' own points ground nothing
        // here: the floor's points near a wall are the map's densified ones, which no view lists.
        let floorPoints = floor == nil ? [] : points.filter { abs($0.y - floorHeight) <= tolerance }.map { SIMD2($0.x, $0.z) }
        var feet: [SIMD2<Double>] = []
        for edge in view.edges {
            guard let wall = wall(rising: edge, in: view, seenBefore: earlier, floorHeight: floorHeight, floorRegion: floorRegion,
                                  floorPoints: floorPoints, squaredTo: reference, tolerance: tolerance, unit: unit) else { continue }
            feet += [wall.foot.a, wall.foot.b]
            found.append(wall.surface)
        }
        if floor == nil, !feet.isEmpty {
            // The floor seen: between the walls' feet and the ground under the cameras.
            let outline = (feet + views.map { SIMD2($0.centre.x, $0.centre.z) } + [SIMD2(view.centre.x, view.centre.z)])
                .map { SIMD3($0.x, floorHeight, $0.y) }
            let centroid = outline.reduce(SIMD3<Double>.zero, +) / Double(outline.count)
            found.append(PlaneCandidate(alignment: .horizontal, normal: SIMD3(0, 1, 0), origin: centroid, outline: outline,
                                        support: feet.count / 2))
        }
        return found
    }

    /// An earlier view's edges laid on the floor.
    private struct LaidView {
        var centre: SIMD3<Double>
        var lines: [FloorLine]
    }

    /// The upright surface whose foot is `edge` of `view`, when two views of `earlier` apart across
    /// it agree (or, closer, two views agree and `floorPoints` ground it, ``isGrounded(_:by:facing:unit:)``,
    /// or, half as far apart, the floor is found and its shade runs from the edge to the frame's foot),
    /// no floor found lies beyond it and its shade rises 0.25 m or more; with the foot as laid on
    /// the floor (`reference` squares the surface: a Manhattan world).
    private func wall(rising edge: Edge, in view: View, seenBefore earlier: [LaidView], floorHeight: Double,
                      floorRegion: PlanarRegion?, floorPoints: [SIMD2<Double>], squaredTo reference: SIMD2<Double>?,
                      tolerance: Double, unit: Double) -> (surface: PlaneCandidate, foot: FloorLine)? {
        guard let foot = Self.laid(edge, from: view.centre, at: floorHeight, unit: unit) else { return nil }
        let across = SIMD2(-foot.direction.y, foot.direction.x)
        let agreeing = earlier.filter { other in other.lines.contains { Self.isSame($0, as: foot, tolerance: tolerance) } }
        let baselines = agreeing.map { other in abs(dot(SIMD2(other.centre.x - view.centre.x, other.centre.z - view.centre.z), across)) }
        let supporters = baselines.filter { $0 >= parameters.edgeBaseline / unit }
        // Seen down to the frame's foot in one shade, the edge bounds the floor under the camera,
        // as a wall's foot does; a box's top would too, so half the baseline is still asked: it
        // puts a top 0.6 m or more above the floor 5 cm off (0.35 m for the whole baseline).
        let floorBelow = floorRegion != nil && edge.nearShadeReachesBottom
            && (baselines.max() ?? 0) >= parameters.edgeBaseline / (2 * unit)
        guard supporters.count >= 2
                || (agreeing.count >= 2 && (floorBelow || isGrounded(foot, by: floorPoints, facing: view.centre, unit: unit)))
        else { return nil }
        // A floor found beyond the edge: the edge lies on the floor (a tile's, a rug's).
        let normal = Self.normal(of: foot, facing: view.centre)
        let beyond = floorRegion.map { region in
            [0.25, 0.5, 0.75].contains { f in
                let q = foot.a + (foot.b - foot.a) * f - normal * (4 * tolerance)
                return region.depth(of: SIMD3(q.x, floorHeight, q.y)) > 0
            }
        } ?? false
        guard !beyond, let height = Self.height(of: edge, from: view.centre, laidAs: foot, floorHeight: floorHeight),
              height >= 0.25 / unit else { return nil }
        let line = reference.map { Self.squared(foot, to: $0) } ?? foot
        let n = Self.normal(of: line, facing: view.centre)
        let bottom = floorHeight, top = floorHeight + min(height, 3 / unit)
        let surface = PlaneCandidate(
            alignment: .vertical, normal: SIMD3(n.x, 0, n.y),
            origin: SIMD3((line.a.x + line.b.x) / 2, (bottom + top) / 2, (line.a.y + line.b.y) / 2),
            outline: [SIMD3(line.a.x, bottom, line.a.y), SIMD3(line.b.x, bottom, line.b.y),
                      SIMD3(line.b.x, top, line.b.y), SIMD3(line.a.x, top, line.a.y)],
            support: 1 + supporters.count)
        return (surface, foot)
    }

    /// True when three of the floor's `points` (top view) or more lie within
    /// ``PlaneDetection/Parameters/footFloorBand`` in front of `foot` (on the side of `viewpoint`),
    /// spread over 30 % of its length or more: the floor is seen up to the edge.
    private func isGrounded(_ foot: FloorLine, by points: [SIMD2<Double>], facing viewpoint: SIMD3<Double>, unit: Double) -> Bool {
        let n = Self.normal(of: foot, facing: viewpoint), d = foot.direction, span = length(foot.b - foot.a)
        let band = parameters.footFloorBand / unit
        let along = points.compactMap { p -> Double? in
            let q = p - foot.a, ahead = dot(q, n), s = dot(q, d)
            return ahead > 0 && ahead <= band && s >= 0 && s <= span ? s / span : nil
        }
        guard along.count >= 3, let first = along.min(), let last = along.max() else { return false }
        return last - first >= 0.3
    }

    /// The lowest height at which edges of `view` and of the earlier views agree (laid on a
    /// level plane at that height, they land on one line), when five pairs of views or more
    /// agree within 2 `tolerance`; a row of points things stand on (`resting`,
    /// ``restingHeight(of:below:tolerance:unit:)``) counts as four pairs.
    private func edgeFloorHeight(of view: View, besides resting: Double?, tolerance: Double, unit: Double) -> Double? {
        var heights: [Double] = resting.map { Array(repeating: $0, count: 4) } ?? []
        let probe = view.centre.y - 1 / unit
        for edge in view.edges {
            guard let line = Self.laid(edge, from: view.centre, at: probe, unit: unit) else { continue }
            let across = SIMD2(-line.direction.y, line.direction.x)
            // Offsets across the edge, affine in the height h: α + β h.
            func offset(_ sight: SIMD3<Double>, from c: SIMD3<Double>) -> (Double, Double) {
                let k = dot(across, SIMD2(sight.x, sight.z)) / sight.y
                return (dot(across, SIMD2(c.x, c.z)) - k * c.y, k)
            }
            let mine = offset(edge.a, from: view.centre)
            for other in views {
                for e in other.edges {
                    guard let laid = Self.laid(e, from: other.centre, at: probe, unit: unit),
                          abs(dot(laid.direction, line.direction)) >= cos(3 * Double.pi / 180) else { continue }
                    let theirs = offset(e.a, from: other.centre)
                    // An offset's error moves the height by itself over |Δβ|: enough parallax
                    // across the edge (the views' ground distances to it differ by a tenth of
                    // their height over it).
                    let slope = mine.1 - theirs.1
                    guard abs(slope) >= 0.1 else { continue }
                    let h = (theirs.0 - mine.0) / slope
                    guard h < view.centre.y - 0.3 / unit, h > view.centre.y - 4 / unit,
                          let a = Self.laid(edge, from: view.centre, at: h, unit: unit),
                          let b = Self.laid(e, from: other.centre, at: h, unit: unit),
                          Self.isSame(b, as: a, tolerance: tolerance) else { continue }
                    heights.append(h)
                }
            }
        }
        heights.sort()
        for (i, h) in heights.enumerated() {
            let agreeing = heights[i...].prefix { $0 <= h + 2 * tolerance }
            if agreeing.count >= 5 { return agreeing[agreeing.count / 2 + agreeing.startIndex] }
        }
        return nil
    }

    /// The median height of the lowest row of `points` (map points, world) within 2 `tolerance`
    /// of one height, with ``PlaneDetection/Parameters/restingRowPoints`` or more stretching
    /// ``PlaneDetection/Parameters/restingRowLength`` or more in the top view, and at most 2 % of
    /// `points` below it: the foot of something standing on the floor. A row, not an area: the
    /// plain floor around it gives no points. Nil when that row lies less than 0.8 m below the
    /// camera (`viewpoint`, the height of a view's centre): a hand-held camera is higher above a
    /// floor, even in a map whose unit is guessed 40 % short, and a picture's or a shelf's row
    /// on a bare wall would otherwise pass for it.
    private func restingHeight(of points: [SIMD3<Double>], below viewpoint: Double, tolerance: Double, unit: Double) -> Double? {
        let sorted = points.sorted { $0.y < $1.y }
        let least = parameters.restingRowPoints
        guard sorted.count >= least else { return nil }
        var end = 0
        for start in sorted.indices {
            end = max(end, start)
            while end < sorted.count, sorted[end].y <= sorted[start].y + 2 * tolerance { end += 1 }
            guard end - start >= least else { continue }
            let row = sorted[start..<end]
            let top = row.map { SIMD2($0.x, $0.z) }
            // The row's length: its spread along its main direction, as a uniform segment's.
            guard 12.squareRoot() * PlaneFinder.spread(top).major * unit >= parameters.restingRowLength else { continue }
            let height = row[row.startIndex + row.count / 2].y
            guard viewpoint - height >= 0.8 / unit else { return nil }
            return Self.isBelowMap(height, points: points, tolerance: 1.5 * tolerance) ? height : nil
        }
        return nil
    }

    /// The edges of `gray` that may be a surface's foot: at least a tenth of the width long,
    /// below the horizon, with shades differing by ``PlaneDetection/Parameters/minimumEdgeContrast``
    /// across them.
    private func edges(in gray: Image, worldFromCamera: Transform, camera: CameraIntrinsics) throws -> [Edge] {
        func sight(_ pixel: SIMD2<Float>) -> SIMD3<Double> {
            worldFromCamera.rotation * camera.unproject(SIMD2<Double>(pixel), depth: 1)
        }
        // Distance on any level plane below the camera, up to a common factor.
        func reach(_ d: SIMD3<Double>) -> Double { d.y < -1e-9 ? length(SIMD2(d.x, d.z)) / -d.y : .infinity }
        return try LineSegment.detect(in: gray, minimumLength: Float(gray.width) / 10).compactMap { segment in
            guard segment.leftGray >= 0, segment.rightGray >= 0,
                  Double(abs(segment.leftGray - segment.rightGray)) >= parameters.minimumEdgeContrast else { return nil }
            let a = sight(segment.start), b = sight(segment.end)
            guard a.y < -1e-9, b.y < -1e-9 else { return nil }
            // The far side is the surface's: the floor on the near side runs toward the camera.
            let middle = (segment.start + segment.end) / 2, left = segment.leftNormal
            let leftIsFar = reach(sight(middle + 12 * left)) > reach(sight(middle))
            let up = leftIsFar ? left : -left, shade = leftIsFar ? segment.leftGray : segment.rightGray
            let tops = [Float(0.2), 0.5, 0.8].map { f in
                sight(Self.reach(of: shade, in: gray, from: segment.start + (segment.end - segment.start) * f, toward: up))
            }
            // `reach` stops 2-3 px short of the border.
            let nearShade = leftIsFar ? segment.rightGray : segment.leftGray
            let bottom = Self.reach(of: nearShade, in: gray, from: middle, toward: -up)
            return Edge(a: a, b: b, tops: tops, nearShadeReachesBottom: Int(bottom.y.rounded()) >= gray.height - 6)
        }
    }

    /// `edge` seen from `centre` laid on the level plane at `height`: nil when a line of sight
    /// does not meet it within 8 m.
    private static func laid(_ edge: Edge, from centre: SIMD3<Double>, at height: Double, unit: Double) -> FloorLine? {
        func meet(_ d: SIMD3<Double>) -> SIMD2<Double>? {
            let t = (height - centre.y) / d.y
            guard d.y < -1e-9, t > 0 else { return nil }
            let p = SIMD2(centre.x + t * d.x, centre.z + t * d.z)
            return length(p - SIMD2(centre.x, centre.z)) <= 8 / unit ? p : nil
        }
        guard let a = meet(edge.a), let b = meet(edge.b), a != b else { return nil }
        return FloorLine(a: a, b: b)
    }

    /// The height above the floor of the surface rising from `edge` (laid on the floor as
    /// `line`): the median of where its tops' lines of sight meet the upright plane through
    /// `line`.
    private static func height(of edge: Edge, from centre: SIMD3<Double>, laidAs line: FloorLine, floorHeight: Double) -> Double? {
        let n = normal(of: line, facing: centre)
        var heights: [Double] = []
        for top in edge.tops {
            let across = dot(SIMD2(top.x, top.z), n)
            guard abs(across) > 1e-9 else { continue }
            let t = dot(line.a - SIMD2(centre.x, centre.z), n) / across
            if t > 0 { heights.append(centre.y + t * top.y - floorHeight) }
        }
        return Summary(heights)?.median
    }

    /// The last pixel from `foot` along `direction` (image axes) whose 5-pixel mean gray level is
    /// within 20 of `shade`, walking from 4 px off the edge.
    private static func reach(of shade: Float, in gray: Image, from foot: SIMD2<Float>, toward direction: SIMD2<Float>) -> SIMD2<Float> {
        gray.withPixels { first, stride in
            var last = foot + 4 * direction, s: Float = 4
            while true {
                let p = foot + (s + 2) * direction
                let x = Int(p.x.rounded()), y = Int(p.y.rounded())
                guard x >= 2, y >= 2, x < gray.width - 2, y < gray.height - 2 else { return last }
                let row = first + y * stride
                let mean = (Float(row[x - 2]) + Float(row[x - 1]) + Float(row[x]) + Float(row[x + 1]) + Float(row[x + 2])) / 5
                guard abs(mean - shade) <= 20 else { return last }
                last = foot + s * direction
                s += 2
            }
        }
    }

    /// True when `other` lies along `line` (directions within 3°, both ends within `tolerance`
    /// of it) and overlaps it.
    private static func isSame(_ other: FloorLine, as line: FloorLine, tolerance: Double) -> Bool {
        let d = line.direction, n = SIMD2(-d.y, d.x)
        guard abs(dot(other.direction, d)) >= cos(3 * Double.pi / 180),
              abs(dot(other.a - line.a, n)) <= tolerance, abs(dot(other.b - line.a, n)) <= tolerance else { return false }
        let s0 = dot(other.a - line.a, d), s1 = dot(other.b - line.a, d), span = length(line.b - line.a)
        return max(s0, s1) > 0 && min(s0, s1) < span
    }

    /// The unit normal of `line` in the top view, on `viewpoint`'s side.
    private static func normal(of line: FloorLine, facing viewpoint: SIMD3<Double>) -> SIMD2<Double> {
        let d = line.direction, n = SIMD2(-d.y, d.x)
        return dot(SIMD2(viewpoint.x, viewpoint.z) - line.a, n) >= 0 ? n : -n
    }

    /// `line` turned about its middle to be parallel or perpendicular to `reference` (a unit
    /// direction in the top view) when it is within 10° of either.
    private static func squared(_ line: FloorLine, to reference: SIMD2<Double>) -> FloorLine {
        let d = line.direction
        let candidates = [reference, SIMD2(-reference.y, reference.x)].map { dot($0, d) >= 0 ? $0 : -$0 }
        guard let axis = candidates.first(where: { dot($0, d) >= cos(10 * Double.pi / 180) }) else { return line }
        let middle = (line.a + line.b) / 2, half = length(line.b - line.a) / 2
        var squared = line
        squared.a = middle - axis * half
        squared.b = middle + axis * half
        return squared
    }
}
