import Foundation
import AnchorKit

/// Scores the plane anchors of a stream against ground-truth planes (../shared/FORMATS.md,
/// "Planes"): when each true plane is found, how far the reported planes' normals and offsets
/// are from it, how much of its seen area they cover at the end, and which reported planes match
/// nothing.
///
/// Planes are compared in each frame's camera space: the reported plane as the reported camera
/// sees it (`inverse(camera.transform) * plane.transform`), the true plane as the true camera
/// sees it. That needs no alignment of the reported world to the true one, and works the same
/// with and without world tracking (as ``TrajectoryScorer`` does for anchors).
///
/// A true plane is found, and its errors measured, only in frames where it is expected
/// (coverage ≥ 5 %): a plane glimpsed at the image border is not yet there to find. A reported
/// plane is false only if it matches no listed true plane at all, so reporting a barely visible
/// plane correctly costs nothing.
///
/// Units: metres and degrees inside; offsets are reported in centimetres and as a percentage of
/// the camera's distance to the true plane. Frames are matched by index.
///
/// Streams whose world has an arbitrary unit (`camera.scale == .arbitrary`) are brought to
/// metres with the scale of a similarity alignment of their camera positions to the true ones
/// (as the trajectory score fits it). Such frames give normal errors and offsets as a
/// percentage of the camera distance only, never in centimetres, since that scale is itself an
/// estimate. Without at least 3 posed arbitrary-scale frames no scale is known and those frames
/// are not scored at all (``PlaneScore/unscoredFrames``).
public struct PlaneScorer {
    /// The camera that took the frames: a point of a true plane is seen where it projects into
    /// this image (pinhole; distortion is ignored, it moves the image border by a few pixels).
    public var camera: CameraIntrinsics
    /// Share of the image (0...1) from which a true plane is expected in a frame (FORMATS: 5 %).
    public var expectedCoverage = 0.05
    /// Largest angle between the normals of a matching pair, degrees.
    public var maximumNormalAngle = 10.0
    /// A reported plane's centre must lie within max(`minimumOffsetTolerance` metres,
    /// `relativeOffsetTolerance` × the camera's distance to the true plane) of the true plane,
    /// along its normal: depth from a camera gets worse with distance.
    public var minimumOffsetTolerance = 0.10
    public var relativeOffsetTolerance = 0.05
    /// How far outside the true polygon (metres, in the true plane) a reported plane's centre or
    /// vertex may lie and still count as overlapping it.
    public var overlapMargin = 0.20
    /// Spacing of the grid of area samples on a true plane, metres (each stands for its square).
    public var gridSpacing = 0.05
    /// Nearest depth in front of the camera at which a sample counts as seen, metres.
    public var minimumDepth = 0.05

    /// A scorer for frames taken by `camera`.
    public init(camera: CameraIntrinsics) { self.camera = camera }

    /// The plane metrics of `reported` against `truth`. Nil when the ground truth has no plane
    /// anchors or the stream lists none (a run without plane detection has nothing to score).
    /// What scoring a stream's planes starts from: the true planes expected somewhere, the unit
    /// of each line, and the lines that can be scored.
    private struct Context {
        let sortedTruth: [FrameUpdate]
        let truthByFrame: [Int: FrameUpdate]
        /// The true planes that are expected somewhere, in order of first expectation.
        var expectedIDs: [String] = []
        var firstExpected: [String: FrameUpdate] = [:]
        /// The truth frames where each plane is expected, in order, with the seconds each stands
        /// for (up to the next truth frame; the last frame as long as the one before it).
        var expectedSpans: [String: [(frame: Int, seconds: Double)]] = [:]
        var alignment: [String: PlaneAlignment] = [:]
        let arbitraryScale: Double?
        /// With a world, a plane not seen in this frame keeps a valid world pose, so it still says
        /// where the plane is; without one (identity cameras) its pose is a stale camera pose.
        let hasWorld: Bool
        /// The stream's lines that have a truth, and of those the ones that can be scored.
        let ordered: [FrameUpdate], scored: [FrameUpdate]

        init?(_ scorer: PlaneScorer, reported: [FrameUpdate], truth: [FrameUpdate]) {
            guard truth.contains(where: { $0.anchors.contains { $0.kind == .plane } }),
                  reported.contains(where: { $0.anchors.contains { $0.kind == .plane } }) else { return nil }
            sortedTruth = truth.sorted { $0.frame < $1.frame }
            let truthByFrame = Dictionary(truth.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
            self.truthByFrame = truthByFrame
            for (i, line) in sortedTruth.enumerated() {
                let seconds = i + 1 < sortedTruth.count ? sortedTruth[i + 1].time - line.time
                    : i > 0 ? line.time - sortedTruth[i - 1].time : 0
                for a in line.anchors where a.kind == .plane && scorer.isExpected(a) {
                    if firstExpected[a.identifier] == nil {
                        expectedIDs.append(a.identifier)
                        firstExpected[a.identifier] = line
                        alignment[a.identifier] = a.alignment
                    }
                    expectedSpans[a.identifier, default: []].append((line.frame, seconds))
                }
            }
            let arbitraryScale = PlaneScorer.arbitraryScale(reported: reported, truthByFrame: truthByFrame)
            self.arbitraryScale = arbitraryScale
            hasWorld = reported.contains { $0.camera.transform != .identity }
            ordered = reported.sorted { $0.frame < $1.frame }.filter { truthByFrame[$0.frame] != nil }
            scored = ordered.filter { Self.unit($0, arbitraryScale: arbitraryScale) != nil }
        }

        /// Metres per stream unit of `line`; nil for frames that cannot be scored.
        func unit(_ line: FrameUpdate) -> Double? { Self.unit(line, arbitraryScale: arbitraryScale) }

        static func unit(_ line: FrameUpdate, arbitraryScale: Double?) -> Double? {
            line.camera.scale == .arbitrary ? arbitraryScale : 1
        }
    }

    /// Each expected true plane's coverage (the share of its area seen so far that the matching
    /// reported planes cover, as in ``score(reported:truth:)`` at the end) at every `step`-th
    /// scored frame and the last: planes' coverage over time. Empty when there is nothing to score.
    public func coverageOverTime(reported: [FrameUpdate], truth: [FrameUpdate], step: Int = 10) -> [(frame: Int, time: Double, coverage: [String: Double])] {
        guard let c = Context(self, reported: reported, truth: truth), !c.scored.isEmpty else { return [] }
        var ends = Swift.stride(from: 0, to: c.scored.count, by: max(1, step)).map { c.scored[$0] }
        if ends.last?.frame != c.scored.last!.frame { ends.append(c.scored.last!) }
        return ends.map { end in
            let truthSoFar = c.sortedTruth.filter { $0.frame <= end.frame }
            var coverage: [String: Double] = [:]
            for id in c.expectedIDs where c.firstExpected[id]!.frame <= end.frame {
                if let extent = extentAtEnd(of: id, end: end, metresPerUnit: c.unit(end)!, hasWorld: c.hasWorld, truth: truthSoFar),
                   extent.seen > 0 {
                    coverage[id] = extent.covered / extent.seen
                }
            }
            return (end.frame, c.truthByFrame[end.frame]!.time, coverage)
        }
    }

    public func score(reported: [FrameUpdate], truth: [FrameUpdate]) -> PlaneScore? {
        guard let context = Context(self, reported: reported, truth: truth) else { return nil }
        let (sortedTruth, truthByFrame, expectedIDs, firstExpected, expectedSpans, alignment) =
            (context.sortedTruth, context.truthByFrame, context.expectedIDs, context.firstExpected, context.expectedSpans, context.alignment)
        let (arbitraryScale, hasWorld, ordered, scored) = (context.arbitraryScale, context.hasWorld, context.ordered, context.scored)
        func unit(_ line: FrameUpdate) -> Double? { context.unit(line) }
        var records: [String: [Record]] = [:]
        var trackedIDs: [String] = [], matchedIDs = Set<String>(), trackedPerLine: [[String]] = []
        for line in scored {
            let gt = truthByFrame[line.frame]!, metresPerUnit = unit(line)!
            let truePlanes = gt.anchors.filter { $0.kind == .plane }.map { ($0, CameraPlane($0, seenFrom: gt.camera)) }
            var best: [String: (match: PlaneMatch, reported: String)] = [:]
            var tracked: [String] = []
            for r in line.anchors where r.kind == .plane && r.isTracked {
                tracked.append(r.identifier)
                if !trackedIDs.contains(r.identifier) { trackedIDs.append(r.identifier) }
                let rp = CameraPlane(r, seenFrom: line.camera, metresPerUnit: metresPerUnit)
                // Any true plane listed, expected or not: a correct report of a barely visible
                // plane is not a false plane.
                for (t, tp) in truePlanes {
                    guard let m = match(rp, tp) else { continue }
                    matchedIDs.insert(r.identifier)
                    guard isExpected(t) else { continue }
                    if best[t.identifier].map({ m.cost < $0.match.cost }) ?? true { best[t.identifier] = (m, r.identifier) }
                }
            }
            for (id, b) in best {
                records[id, default: []].append(Record(frame: line.frame, time: gt.time, match: b.match,
                                                       metric: line.camera.scale != .arbitrary, reported: b.reported))
            }
            trackedPerLine.append(tracked)
        }
        let falseIDs = trackedIDs.filter { !matchedIDs.contains($0) }
        let falseFrames = trackedPerLine.filter { $0.contains { falseIDs.contains($0) } }.count

        // Extent at the end: the last scored line's reported planes against the truth of that line.
        let end = scored.last
        var planes: [TruePlaneScore] = []
        for id in expectedIDs {
            let first = firstExpected[id]!
            let rs = records[id] ?? []
            var score = TruePlaneScore(
                identifier: id, alignment: alignment[id], expectedFrames: expectedSpans[id]?.count ?? 0,
                firstExpectedFrame: first.frame, firstExpectedTime: first.time,
                foundFrame: rs.first?.frame, foundTime: rs.first?.time, matchedFrames: rs.count,
                lastMatchedFrame: rs.last?.frame, reportedIdentifiers: Array(Set(rs.map(\.reported))).sorted())
            score.secondsInViewBeforeFound = (expectedSpans[id] ?? [])
                .filter { span in rs.first.map { span.frame < $0.frame } ?? true }.reduce(0) { $0 + $1.seconds }
            if let last = rs.last {
                score.normalErrorDegreesLast = last.match.normalDegrees
                score.normalErrorDegreesMedian = Summary(rs.map(\.match.normalDegrees))?.median
                score.offsetPercentLast = last.match.offsetPercent
                score.offsetPercentMedian = Summary(rs.map(\.match.offsetPercent))?.median
                let metric = rs.filter(\.metric)
                score.offsetCentimetresLast = metric.last.map { 100 * $0.match.offset }
                score.offsetCentimetresMedian = Summary(metric.map { 100 * $0.match.offset })?.median
            }
            if let end, let extent = extentAtEnd(of: id, end: end, metresPerUnit: unit(end)!, hasWorld: hasWorld,
                                                 truth: sortedTruth.filter { $0.frame <= end.frame }) {
                score.seenArea = extent.seen
                score.coveredArea = extent.covered
                score.coverage = extent.seen > 0 ? extent.covered / extent.seen : nil
            }
            planes.append(score)
        }
        return PlaneScore(planes: planes, falsePlanes: falseIDs, framesWithFalsePlanes: falseFrames,
                          arbitraryScale: arbitraryScale, unscoredFrames: ordered.count - scored.count)
    }

    /// True where a ground-truth plane is expected to be reported (coverage ≥ ``expectedCoverage``).
    func isExpected(_ truePlane: Anchor) -> Bool { (truePlane.coverage ?? 0) >= expectedCoverage }

    /// The metres of one unit of an arbitrary-scale world: the scale of a similarity alignment of
    /// the posed arbitrary-scale camera positions to the true ones. Nil with fewer than 3 of them.
    static func arbitraryScale(reported: [FrameUpdate], truthByFrame: [Int: FrameUpdate]) -> Double? {
        let lines = reported.filter {
            $0.camera.scale == .arbitrary && TrajectoryScorer.hasPose($0.camera) && truthByFrame[$0.frame] != nil
        }
        let fit = SimilarityAlignment.fit(source: lines.map(\.camera.transform.translation),
                                          target: lines.map { truthByFrame[$0.frame]!.camera.transform.translation },
                                          withScale: true)
        return fit.map(\.scale).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    }

    // MARK: Matching

    /// How a reported plane compares with a true one in the same camera space.
    struct PlaneMatch {
        /// Angle between the normals, degrees.
        var normalDegrees: Double
        /// Distance of the reported centre from the true plane, metres.
        var offset: Double
        /// Perpendicular distance of the camera centre from the true plane, metres.
        var cameraDistance: Double
        /// Normal angle and offset, each as a fraction of its tolerance: picks the best of several.
        var cost: Double
        /// The offset as a percentage of the camera distance.
        var offsetPercent: Double { 100 * offset / max(cameraDistance, 1e-9) }
    }

    /// One frame where a true plane was matched.
    struct Record {
        var frame: Int, time: Double, match: PlaneMatch, metric: Bool, reported: String
    }

    /// Whether `r` matches `t` (both in the same camera space): normals within
    /// ``maximumNormalAngle``, `r`'s centre within the offset tolerance of `t`'s plane, and `r`'s
    /// centre or one of its vertices, dropped onto `t`'s plane, inside `t`'s polygon grown by
    /// ``overlapMargin`` (a cheap overlap test: it misses only a reported plane that straddles
    /// a small true one with no vertex near it).
    func match(_ r: CameraPlane, _ t: CameraPlane) -> PlaneMatch? {
        let n = t.normal
        // atan2, not acos: exact near 0°, where acos of a rounded cosine is off by ~1e-6°.
        let angle = atan2(length(cross(n, r.normal)), dot(n, r.normal)) * 180 / .pi
        guard angle < maximumNormalAngle else { return nil }
        let distance = abs(dot(n, t.origin))  // the camera centre is the origin
        let offset = abs(dot(n, r.origin - t.origin))
        let tolerance = max(minimumOffsetTolerance, relativeOffsetTolerance * distance)
        guard offset < tolerance else { return nil }
        let points = [r.origin] + r.outline.map { r.point($0) }
        let overlaps = points.contains { p in
            let l = t.local(p)
            return PlaneScorer.polygon(t.outline, contains: SIMD2(l.x, l.z), margin: overlapMargin)
        }
        guard overlaps else { return nil }
        return PlaneMatch(normalDegrees: angle, offset: offset, cameraDistance: distance,
                          cost: angle / maximumNormalAngle + offset / tolerance)
    }

    // MARK: Extent

    /// The seen area of true plane `id` up to `end` (m²) and the part of it covered by the
    /// reported planes of `end` that match it (tracked ones; with a world, also those not seen
    /// in `end`, whose world pose still stands). Nil when `end`'s truth does not list the plane.
    func extentAtEnd(of id: String, end: FrameUpdate, metresPerUnit: Double, hasWorld: Bool,
                     truth: [FrameUpdate]) -> (seen: Double, covered: Double)? {
        guard let endTruth = truth.last, endTruth.frame == end.frame, let t = endTruth.anchor(id) else { return nil }
        let tp = CameraPlane(t, seenFrom: endTruth.camera)
        let matched = end.anchors
            .filter { $0.kind == .plane && ($0.isTracked || hasWorld) }
            .map { CameraPlane($0, seenFrom: end.camera, metresPerUnit: metresPerUnit) }
            .filter { match($0, tp) != nil }
        let samples = Self.grid(inside: tp.outline, spacing: gridSpacing)
        let seen = seenSamples(of: id, samples: samples, truth: truth)
        var seenCount = 0, coveredCount = 0
        for (s, isSeen) in zip(samples, seen) where isSeen {
            seenCount += 1
            let p = tp.point(s)
            if matched.contains(where: { r in let l = r.local(p); return Self.polygon(r.outline, contains: SIMD2(l.x, l.z)) }) {
                coveredCount += 1
            }
        }
        let cell = gridSpacing * gridSpacing
        return (Double(seenCount) * cell, Double(coveredCount) * cell)
    }

    /// Which samples (x-z coordinates of true plane `id`) some ground-truth frame sees: the sample
    /// projects into the image, lies more than ``minimumDepth`` in front of the camera, and the
    /// segment from the camera centre to it crosses no other true plane's polygon. Only planes
    /// occlude: solids of the scene that the ground truth does not list as planes (a box's
    /// sides) are ignored, so a sample behind one still counts as seen.
    func seenSamples(of id: String, samples: [SIMD2<Double>], truth: [FrameUpdate]) -> [Bool] {
        var seen = [Bool](repeating: false, count: samples.count)
        var remaining = samples.count
        let w = Double(camera.width) - 0.5, h = Double(camera.height) - 0.5
        let fx = camera.fx, fy = camera.fy, cx = camera.cx, cy = camera.cy
        for line in truth where remaining > 0 {
            guard let t = line.anchor(id) else { continue }
            let tp = CameraPlane(t, seenFrom: line.camera)
            let occluders = line.anchors.filter { $0.kind == .plane && $0.identifier != id }
                .map { Occluder(CameraPlane($0, seenFrom: line.camera)) }
            // Scalars, not SIMD: this loop runs samples × frames times and debug builds do not
            // inline generic SIMD arithmetic.
            let (a, b, o) = (tp.rotation.columns.0, tp.rotation.columns.2, tp.origin)
            for i in samples.indices where !seen[i] {
                let s = samples[i]
                let px = a.x * s.x + b.x * s.y + o.x, py = a.y * s.x + b.y * s.y + o.y, pz = a.z * s.x + b.z * s.y + o.z
                let depth = -pz  // the camera looks along -z
                guard depth > minimumDepth else { continue }
                let u = fx * px / depth + cx, v = -fy * py / depth + cy  // image y points down
                guard u >= -0.5, u <= w, v >= -0.5, v <= h else { continue }
                if occluders.contains(where: { $0.hides(px, py, pz) }) { continue }
                seen[i] = true
                remaining -= 1
            }
        }
        return seen
    }

    /// A true plane that may hide points behind it, in one frame's camera space.
    struct Occluder {
        let plane: CameraPlane
        let n: SIMD3<Double>, nDotOrigin: Double

        init(_ plane: CameraPlane) {
            self.plane = plane
            n = plane.normal
            nDotOrigin = dot(n, plane.origin)
        }

        /// True if the segment from the camera centre to (x, y, z) crosses this plane's polygon
        /// before reaching the point. The crossing must come clearly before the end, so planes
        /// that meet the point's own plane (a wall on the floor's edge) do not hide it.
        func hides(_ x: Double, _ y: Double, _ z: Double) -> Bool {
            let denominator = n.x * x + n.y * y + n.z * z
            guard abs(denominator) > 1e-12 else { return false }
            let lambda = nDotOrigin / denominator
            guard lambda > 1e-9, lambda < 1 - 1e-6 else { return false }
            let l = plane.local(SIMD3(lambda * x, lambda * y, lambda * z))
            return PlaneScorer.polygon(plane.outline, contains: SIMD2(l.x, l.z))
        }
    }

    // MARK: Polygons

    /// The centres of the cells of a `spacing` grid over the polygon's bounding box that lie
    /// inside the polygon.
    static func grid(inside polygon: [SIMD2<Double>], spacing: Double) -> [SIMD2<Double>] {
        guard polygon.count >= 3, spacing > 0 else { return [] }
        let lo = polygon.reduce(SIMD2(Double.infinity, .infinity)) { pointwiseMin($0, $1) }
        let hi = polygon.reduce(SIMD2(-Double.infinity, -.infinity)) { pointwiseMax($0, $1) }
        let nx = Int(((hi.x - lo.x) / spacing).rounded(.up)), nz = Int(((hi.y - lo.y) / spacing).rounded(.up))
        var samples: [SIMD2<Double>] = []
        for j in 0..<nz {
            for i in 0..<nx {
                let p = SIMD2(lo.x + (Double(i) + 0.5) * spacing, lo.y + (Double(j) + 0.5) * spacing)
                if Self.polygon(polygon, contains: p) { samples.append(p) }
            }
        }
        return samples
    }

    /// True if `point` lies inside the polygon (any simple polygon, convex or not: the even-odd
    /// rule), or within `margin` of its boundary.
    static func polygon(_ polygon: [SIMD2<Double>], contains point: SIMD2<Double>, margin: Double = 0) -> Bool {
        guard polygon.count >= 3 else { return false }
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > point.y) != (b.y > point.y),
               point.x < a.x + (point.y - a.y) * (b.x - a.x) / (b.y - a.y) {
                inside.toggle()
            }
            j = i
        }
        guard !inside, margin > 0 else { return inside }
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            let ab = b - a, len2 = dot(ab, ab)
            let k = len2 > 0 ? min(1, max(0, dot(point - a, ab) / len2)) : 0
            if length(point - (a + k * ab)) <= margin { return true }
        }
        return false
    }
}

/// A plane anchor in one frame's camera space (ARKit camera: looks along -z): `camera_from_plane`
/// with the translation in metres, and its boundary in the plane's x-z coordinates.
struct CameraPlane {
    /// The rotation of `camera_from_plane`; its second column is the normal.
    var rotation: Matrix3
    /// The plane's centre in camera space, metres.
    var origin: SIMD3<Double>
    /// The boundary, [x, z] in the plane's coordinates, metres: the anchor's polygon, or its
    /// extent as a rectangle about the centre when it lists no polygon.
    var outline: [SIMD2<Double>]

    /// `anchor` as `camera` sees it; `metresPerUnit` converts an arbitrary world unit to metres.
    init(_ anchor: Anchor, seenFrom camera: CameraState, metresPerUnit: Double = 1) {
        let pose = camera.cameraFrom(anchor.transform)
        rotation = pose.rotation
        origin = metresPerUnit * pose.translation
        if let p = anchor.polygon, p.count >= 3 {
            outline = p.map { metresPerUnit * $0 }
        } else {
            let e = metresPerUnit * anchor.extent / 2
            outline = [SIMD2(-e.x, -e.y), SIMD2(e.x, -e.y), SIMD2(e.x, e.y), SIMD2(-e.x, e.y)]
        }
    }

    /// The unit normal (+y of the plane) in camera space.
    var normal: SIMD3<Double> { rotation.columns.1 }

    /// The camera-space point of plane coordinates [x, z].
    func point(_ xz: SIMD2<Double>) -> SIMD3<Double> { rotation * SIMD3(xz.x, 0, xz.y) + origin }

    /// A camera-space point in the plane's coordinates (y is the height above the plane).
    func local(_ p: SIMD3<Double>) -> SIMD3<Double> { rotation.transposed * (p - origin) }
}

/// The plane metrics of one stream (see ``PlaneScorer``).
public struct PlaneScore: Codable, Sendable {
    /// One entry per ground-truth plane that is expected (coverage ≥ 5 %) in at least one frame,
    /// in the order they first become expected.
    public var planes: [TruePlaneScore]
    /// Reported plane identifiers that match no true plane (expected or not) in any scored frame
    /// where they are tracked.
    public var falsePlanes: [String]
    /// Scored frames in which at least one of ``falsePlanes`` is tracked.
    public var framesWithFalsePlanes: Int
    /// Metres per unit of the stream's arbitrary-scale frames (a similarity fit of its camera
    /// positions to the true ones); nil when the stream has none or fewer than 3 posed ones.
    public var arbitraryScale: Double?
    /// Frames with ground truth that were not scored: arbitrary-scale frames with no known scale.
    public var unscoredFrames: Int

    /// Table rows, in the layout of ``Score/table``: one per true plane with its median errors
    /// over matched frames and its coverage at the end, then the false planes.
    public var rows: [(String, String)] {
        var rows: [(String, String)] = [
            ("planes found", "\(planes.filter { $0.foundFrame != nil }.count) of \(planes.count) (errors: median over matched frames)")
        ]
        for p in planes {
            let name = "plane " + (p.identifier.hasPrefix("plane/") ? String(p.identifier.dropFirst(6)) : p.identifier)
            guard let time = p.foundTime, let frame = p.foundFrame else {
                rows.append((name, "not found (expected from \(tableCell(p.firstExpectedTime, 2)) s; in view \(tableCell(p.secondsInViewBeforeFound, 2)) s)"))
                continue
            }
            rows.append((name, "found \(tableCell(time, 2)) s (frame \(frame); in view \(tableCell(p.secondsInViewBeforeFound, 2)) s before)  normal \(tableCell(p.normalErrorDegreesMedian, 2))°"
                + "  offset \(tableCell(p.offsetCentimetresMedian, 2)) cm (\(tableCell(p.offsetPercentMedian, 2)) %)"
                + "  coverage \(tableCell(p.coverage.map { 100 * $0 }, 0)) %"))
        }
        let falseText = falsePlanes.isEmpty ? "0"
            : "\(falsePlanes.count) (\(falsePlanes.joined(separator: ", ")); tracked in \(framesWithFalsePlanes) frames)"
        rows.append(("false planes", falseText))
        if let arbitraryScale { rows.append(("plane scale (m per unit)", tableCell(arbitraryScale, 4))) }
        if unscoredFrames > 0 { rows.append(("plane frames unscored (no scale)", "\(unscoredFrames)")) }
        return rows
    }
}

/// How one ground-truth plane was reported.
public struct TruePlaneScore: Codable, Sendable {
    /// The true plane's identifier (`plane/<name>`) and alignment (`horizontal`, `vertical`).
    public var identifier: String
    public var alignment: PlaneAlignment?
    /// Ground-truth frames where the plane is expected (coverage ≥ 5 %), and the first of them
    /// (frame index, seconds).
    public var expectedFrames: Int
    public var firstExpectedFrame: Int
    public var firstExpectedTime: Double
    /// The first expected frame (and its time, s) where a tracked reported plane matches it; nil
    /// when never found.
    public var foundFrame: Int?
    public var foundTime: Double?
    /// Seconds the plane was expected (in view) before it was found, or in all when never found:
    /// how long it took to find, counting only the time it could be seen (a wall that leaves the
    /// view and comes back later is not late for the time it was out of view).
    public var secondsInViewBeforeFound: Double = 0
    /// Expected frames where a reported plane matches it, and the last of them.
    public var matchedFrames: Int
    public var lastMatchedFrame: Int?
    /// The reported planes that were its best match in some frame.
    public var reportedIdentifiers: [String]
    /// Angle between the reported and true normals, degrees, at the last matched frame and the
    /// median over matched frames.
    public var normalErrorDegreesLast: Double?
    public var normalErrorDegreesMedian: Double?
    /// Distance of the reported plane's centre from the true plane (along the true normal),
    /// centimetres: metric frames only (last such matched frame, and median).
    public var offsetCentimetresLast: Double?
    public var offsetCentimetresMedian: Double?
    /// The same distance as a percentage of the true camera centre's distance from the true
    /// plane in that frame (every matched frame, arbitrary scale included).
    public var offsetPercentLast: Double?
    public var offsetPercentMedian: Double?
    /// Area of the plane seen by the true camera up to the stream's last scored frame, m² (5 cm
    /// grid; occlusion by other true planes only), the part of it inside the reported planes
    /// that match it in that last frame, m², and their ratio (0...1; nil when nothing was seen).
    public var seenArea: Double = 0
    public var coveredArea: Double = 0
    public var coverage: Double?

    init(identifier: String, alignment: PlaneAlignment?, expectedFrames: Int, firstExpectedFrame: Int,
         firstExpectedTime: Double, foundFrame: Int?, foundTime: Double?, matchedFrames: Int,
         lastMatchedFrame: Int?, reportedIdentifiers: [String]) {
        self.identifier = identifier; self.alignment = alignment; self.expectedFrames = expectedFrames
        self.firstExpectedFrame = firstExpectedFrame; self.firstExpectedTime = firstExpectedTime
        self.foundFrame = foundFrame; self.foundTime = foundTime; self.matchedFrames = matchedFrames
        self.lastMatchedFrame = lastMatchedFrame; self.reportedIdentifiers = reportedIdentifiers
    }
}
