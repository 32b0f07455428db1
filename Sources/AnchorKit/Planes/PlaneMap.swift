import Foundation

/// The session's plane anchors over time (ARPlaneAnchor's life): each pass of ``PlaneFinder``
/// over the map updates the planes its candidates match, adds the others, and merges planes a
/// candidate joins (the oldest keeps its identifier, the others are removed). Planes only grow:
/// a plane's boundary is the hull of everything seen of it, so a surface seen earlier and now
/// out of view stays.
struct PlaneMap {
    var parameters: PlaneDetection.Parameters
    /// Plane anchors in the order they were found (`plane/<n>`, n from 0).
    private(set) var anchors: [Anchor] = []
    /// How many map points the fit that set each plane's pose had (by identifier).
    private var support: [String: Int] = [:]
    private var next = 0
    /// How many times the points of the fit that set a plane's pose a fit askew of it must have
    /// to set it instead (``update(with:growingIn:freeSpace:viewpoint:metresPerUnit:)``).
    private static let reposingSupport = 1.5

    init(parameters: PlaneDetection.Parameters) { self.parameters = parameters }

    /// Applies one pass's candidates, then grows the upright planes over the blocks of `pairs`
    /// their homographies explain (``PlaneGrowth``; level planes have the level sweep's points);
    /// returns the events (added, updated, removed anchors). A candidate that too many of
    /// `freeSpace`'s lines of sight pass through is left out, and so is a new one hidden from
    /// `viewpoint` (the current camera centre, ``isHidden(_:from:unit:)``); one lying inside a
    /// plane already found (``plane(holding:unit:)``) sets that plane's pose when it has more
    /// points than the fit that set it, and is left out otherwise. `unit` is metres per world unit (1
    /// once metric), which scales the matching tolerances. Throws on a native failure.
    mutating func update(with candidates: [PlaneCandidate], growingIn pairs: [ViewPair] = [], freeSpace: FreeSpace? = nil,
                         viewpoint: SIMD3<Double>? = nil, metresPerUnit unit: Double) throws -> AnchorEvents {
        var events = AnchorEvents()
        var changed = Set<String>(), added = Set<String>()
        // Larger surfaces first: they take the identifiers of the planes they grew from.
        for var c in candidates.sorted(by: { $0.support > $1.support }) {
            if let freeSpace, Double(freeSpace.crossings(of: PlanarRegion(normal: c.normal, origin: c.origin, outline: c.outline),
                                                         margin: parameters.sightLineMargin / unit))
                > parameters.maximumSightLines * Double(c.support) { continue }
            var matches = anchors.indices.filter { isSurface(c, of: anchors[$0], unit: unit) }
            if matches.isEmpty {
                if isHidden(c, from: viewpoint, unit: unit) { continue }
                if let plane = plane(holding: c, unit: unit) {
                    // A piece of a plane fitted askew: the fit with clearly more points is the
                    // surface. An early fit from few points can be 14 degrees off and would
                    // otherwise stay so, since no later fit is within the merge angle of it; a
                    // late fit from few points is no better than the plane's own, and one from
                    // about as many may straddle the plane and its neighbour round a corner (a
                    // cabinet's front, fitted from 51 points, was turned 16 degrees by 59).
                    guard anchors[plane].alignment == c.alignment,
                          Double(c.support) >= Self.reposingSupport * Double(support[anchors[plane].identifier, default: 0]),
                          !changed.contains(anchors[plane].identifier) else { continue }
                    matches = [plane]
                } else {
                    let anchor = Self.anchor(identifier: "plane/\(next)", alignment: c.alignment, normal: c.normal,
                                             origin: c.origin, outline: c.outline, xAxis: nil)
                    next += 1
                    anchors.append(anchor)
                    added.insert(anchor.identifier)
                    support[anchor.identifier] = c.support
                    continue
                }
            }
            let keep = matches[0]
            // A plane keeps the side it was first seen from: a camera that walks past the end of
            // a wall, or round a table, sees the same surface's points from the other side.
            if dot(anchors[keep].transform.rotation.columns.1, c.normal) < 0 { c.normal = -c.normal }
            // A plane a larger surface of this pass has set keeps that surface's pose; this
            // smaller piece (of a map bent by a few centimetres) only adds to its boundary.
            if changed.contains(anchors[keep].identifier) {
                c.normal = anchors[keep].transform.rotation.columns.1
                c.origin = anchors[keep].transform.translation
                c.outline = c.outline.map { $0 - c.normal * dot($0 - c.origin, c.normal) }
            }
            // The surface grows by everything the merged planes covered.
            var outline = c.outline
            for m in matches { outline += Self.outline(of: anchors[m]).map { $0 - c.normal * dot($0 - c.origin, c.normal) } }
            let kept = Self.anchor(identifier: anchors[keep].identifier, alignment: c.alignment, normal: c.normal,
                                   origin: c.origin, outline: outline, xAxis: anchors[keep].transform.rotation.columns.0)
            if !changed.contains(kept.identifier) { support[kept.identifier] = c.support }
            anchors[keep] = kept
            changed.insert(kept.identifier)
            for m in matches.dropFirst().reversed() {
                // A plane added in this pass and merged at once was never reported.
                if !added.contains(anchors[m].identifier) { events.removed.append(anchors[m]) }
                changed.remove(anchors[m].identifier)
                anchors.remove(at: m)
            }
        }
        let growth = PlaneGrowth()
        for pair in pairs {
            for i in anchors.indices where anchors[i].alignment != .horizontal {
                let others = anchors.indices.filter { $0 != i }.map { anchors[$0] }
                if let grown = Self.extended(anchors[i], with: try growth.points(on: anchors[i], others: others, in: pair,
                                                                                 metresPerUnit: unit)) {
                    anchors[i] = grown
                    changed.insert(grown.identifier)
                }
            }
        }
        events.added = anchors.filter { added.contains($0.identifier) }
        events.updated = anchors.filter { changed.contains($0.identifier) && !added.contains($0.identifier) }
        return events
    }

    /// `plane` with its boundary widened by `points` (world, projected onto it); nil when the
    /// boundary does not change.
    private static func extended(_ plane: Anchor, with points: [SIMD3<Double>]) -> Anchor? {
        guard !points.isEmpty else { return nil }
        let normal = plane.transform.rotation.columns.1, origin = plane.transform.translation
        let outline = Self.outline(of: plane) + points.map { $0 - normal * dot($0 - origin, normal) }
        let grown = anchor(identifier: plane.identifier, alignment: plane.alignment ?? .any, normal: normal, origin: origin,
                           outline: outline, xAxis: plane.transform.rotation.columns.0)
        return ConvexPolygon.area(grown.polygon ?? []) > ConvexPolygon.area(plane.polygon ?? []) * (1 + 1e-9) ? grown : nil
    }

    /// Multiplies every length by `factor` (the world became metric).
    mutating func rescale(by factor: Double) {
        for i in anchors.indices {
            anchors[i].transform = anchors[i].transform.translationScaled(by: factor)
            anchors[i].extent *= factor
            anchors[i].polygon = anchors[i].polygon?.map { $0 * factor }
        }
    }

    /// True when `c` is (part of) the surface of `plane`: same alignment, normals within
    /// ``PlaneDetection/Parameters/mergeAngle`` (either way round), either centre within a few
    /// inlier distances of the other's plane (a wall seen again after the map drifted is fitted a
    /// degree or two askew, so one far end of a long plane lies off it), and
    /// boundaries overlapping or nearly touching (within ``PlaneDetection/Parameters/mergeGap``).
    private func isSurface(_ c: PlaneCandidate, of plane: Anchor, unit: Double) -> Bool {
        let normal = plane.transform.rotation.columns.1, apart = plane.transform.translation - c.origin
        guard plane.alignment == c.alignment, abs(dot(normal, c.normal)) >= cos(parameters.mergeAngle),
              min(abs(dot(apart, c.normal)), abs(dot(apart, normal))) <= 3 * parameters.inlierDistance / unit else { return false }
        let axes = PlaneAxes.spanning(c.normal), g = parameters.mergeGap / unit
        func flat(_ p: SIMD3<Double>) -> SIMD2<Double> { SIMD2(dot(p - c.origin, axes.0), dot(p - c.origin, axes.1)) }
        let mine = ConvexPolygon.hull(c.outline.map(flat))
        let theirs = ConvexPolygon.hull(Self.outline(of: plane).map(flat).flatMap {
            [$0 + SIMD2(g, 0), $0 - SIMD2(g, 0), $0 + SIMD2(0, g), $0 - SIMD2(0, g)]
        })
        return ConvexPolygon.area(ConvexPolygon.clip(mine, by: theirs)) > 0
    }

    /// True when most of the boundary of `c` (a candidate matching no plane) lies behind a plane
    /// already found, as seen from `viewpoint`: it could not have been seen, so it is a chance
    /// match beyond a wall, such as a level slice of the sweep behind it.
    private func isHidden(_ c: PlaneCandidate, from viewpoint: SIMD3<Double>?, unit: Double) -> Bool {
        guard let viewpoint else { return false }
        let near = 3 * parameters.inlierDistance / unit
        let regions = anchors.map(PlanarRegion.init)
        let hidden = c.outline.filter { q in regions.contains { $0.isCrossed(from: viewpoint, to: q, margin: near) } }
        return 2 * hidden.count >= c.outline.count
    }

    /// The plane that `c` (a candidate matching no plane) is a piece of, if any: one whose surface
    /// holds the centre of `c` (within a few inlier distances, inside its boundary) with the
    /// normals within three times ``PlaneDetection/Parameters/mergeAngle``. Two surfaces cannot
    /// be in one place, so one of the two fits is tilted beyond the merge angle by its few points
    /// (the 0.9 m front of a box, fitted from a few late points, came out 21° askew of its plane).
    /// Surfaces that do meet, such as a box's sides, meet at far larger angles and at their
    /// edges, not at their centres.
    private func plane(holding c: PlaneCandidate, unit: Double) -> Int? {
        let near = 3 * parameters.inlierDistance / unit
        return anchors.indices.first { i in
            let plane = PlanarRegion(anchors[i])
            return abs(dot(plane.normal, c.normal)) >= cos(3 * parameters.mergeAngle)
                && abs(plane.distance(c.origin)) <= near && plane.depth(of: c.origin) >= 0
        }
    }

    /// The lowest level plane of `planes` (the floor, once it is found), by its origin's height.
    static func lowestLevelPlane(among planes: [Anchor]) -> Anchor? {
        planes.filter { $0.alignment == .horizontal }.min { $0.transform.translation.y < $1.transform.translation.y }
    }

    /// A plane anchor's boundary in world coordinates.
    static func outline(of plane: Anchor) -> [SIMD3<Double>] {
        (plane.polygon ?? []).map { plane.transform.apply(to: SIMD3($0.x, 0, $0.y)) }
    }

    /// The plane anchor for a surface: +y along `normal`, x level on vertical planes, else along
    /// `xAxis` (kept from the plane's previous pose so that content on it does not spin) or
    /// along the longer side of its boundary; origin at the centre of the boundary's bounding rectangle in those axes,
    /// extent that rectangle's size, polygon the boundary's hull in the anchor's x-z plane.
    static func anchor(identifier: String, alignment: PlaneAlignment, normal: SIMD3<Double>, origin: SIMD3<Double>,
                       outline: [SIMD3<Double>], xAxis: SIMD3<Double>?) -> Anchor {
        let basis = PlaneAxes.spanning(normal)
        func flat(_ p: SIMD3<Double>) -> SIMD2<Double> { SIMD2(dot(p - origin, basis.0), dot(p - origin, basis.1)) }
        var x = basis.0
        if abs(normal.y) < 1e-6 {
            // Vertical: x runs level along the wall (z then points down it), as on ARKit's
            // vertical planes, so that the extent is the wall's width and height.
            x = normalize(cross(SIMD3(0, 1, 0), normal))
        } else if let hint = xAxis, length(hint - normal * dot(hint, normal)) > 0.5 {
            x = normalize(hint - normal * dot(hint, normal))
        } else {
            let d = PlaneFinder.spread(outline.map(flat)).direction
            x = normalize(d.x * basis.0 + d.y * basis.1)
        }
        let z = cross(x, normal)
        let uv = outline.map { SIMD2(dot($0 - origin, x), dot($0 - origin, z)) }
        let low = uv.reduce(SIMD2(Double.infinity, .infinity)) { pointwiseMin($0, $1) }
        let high = uv.reduce(SIMD2(-Double.infinity, -.infinity)) { pointwiseMax($0, $1) }
        let mid = uv.isEmpty ? .zero : (low + high) / 2
        let centre = origin + mid.x * x + mid.y * z
        return Anchor(identifier: identifier, kind: .plane, isTracked: true,
                      transform: Transform(rotation: Matrix3(columns: (x, normal, z)), translation: centre),
                      extent: uv.isEmpty ? .zero : high - low, alignment: alignment,
                      polygon: ConvexPolygon.hull(uv.map { $0 - mid }))
    }
}
