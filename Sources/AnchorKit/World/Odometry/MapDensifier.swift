import Foundation

/// Extra map points for the users of the map's geometry (plane detection, `.estimatedPlane`
/// raycasts), which need far more points than the pose does: a keyframe pair's many weak
/// corners, followed by optical flow from one keyframe to a later one and triangulated with the
/// two keyframes' poses (a semi-dense mapping step, as in ORB-SLAM's or LSD-SLAM's mapping).
///
/// The odometry follows at most a few hundred points, spaced and strong enough to be followed
/// frame to frame; a weakly textured floor gets almost none, and a far wall a handful. Here,
/// once per keyframe, the keyframe `gap` keyframes back is searched for corners at a low
/// threshold (about a thousand, ``spacing`` pixels apart), each is followed straight into the
/// new keyframe (Lucas–Kanade from a guess: the image motion of the map points seen near it in
/// both keyframes; the flow's forward-backward check must pass), and kept when its rays meet
/// within ``maxReprojectionError`` under at least ``minParallax``.
///
/// These points never enter tracking or bundle adjustment: the poses (and the world tracking's
/// output) are the same with or without them. Work is queued per keyframe and done only when
/// ``densify(camera:)`` is called (the map's points are asked for), so world tracking alone
/// does not pay for it; the queue keeps the last ``capacity`` pairs.
///
/// Conventions are the odometry's: OpenCV camera axes, poses `opencvCamera_from_world`, points
/// in its world and current unit, pixels as the frames show them (distortion is removed before
/// triangulating).
struct MapDensifier {
    /// One keyframe's image, for the pairs it will be part of.
    struct KeyframeImage {
        let keyframe: Int
        let gray: Image
        let pyramid: FlowPyramid
    }

    /// A keyframe as the odometry holds it when a pair is queued: its pose (after that
    /// keyframe's local bundle adjustment) and its map points' pixels.
    struct View {
        var pose: Transform
        var observations: [(point: Int, position: SIMD2<Float>)]
    }

    private struct Job {
        var first: View, second: View
        var firstImage: KeyframeImage, secondImage: KeyframeImage
    }

    /// Keyframes between the two of a pair: more baseline (depth) against less overlap.
    var gap = 2
    /// Corners searched for in the pair's first keyframe, at most, and their FAST threshold (low:
    /// weak texture is what the odometry's own corners miss).
    var maximumCorners = 1200
    var fastThreshold = 6
    /// Least distance between corners, and from the odometry's own points, pixels.
    var spacing: Float = 7
    /// Largest reprojection error in either keyframe, pixels, and least angle between the two
    /// rays, degrees: flow is good to a few tenths of a pixel, and the depth of a point seen
    /// under a small angle is too uncertain to tell a plane from what lies near it.
    var maxReprojectionError = 1.0
    var minParallax = 1.5
    /// Pairs kept waiting for ``densify(camera:)``.
    var capacity = 4
    /// The points found so far (OpenCV world, the odometry's current unit), oldest pair first:
    /// those of the newest 100 pairs.
    var points: [SIMD3<Double>] { found.elements }
    private var found = NewestBatches<SIMD3<Double>>(capacity: 100)
    private var images: [KeyframeImage] = []
    private var pending: [Job] = []

    /// Records keyframe `keyframe`'s image; queues the pair it closes (with the keyframe `gap`
    /// back, whose pose and observations `view(_:)` gives).
    mutating func add(_ image: KeyframeImage, view: (Int) -> View) {
        images.append(image)
        if images.count > gap + 1 { images.removeFirst() }
        guard images.count == gap + 1, images[0].keyframe == image.keyframe - gap else { return }
        pending.append(Job(first: view(images[0].keyframe), second: view(image.keyframe),
                           firstImage: images[0], secondImage: image))
        if pending.count > capacity { pending.removeFirst() }
    }

    /// Follows the odometry's renumbering of its keyframes (`index` gives a keyframe's new
    /// number, nil once removed): a removed keyframe's image is no longer paired.
    mutating func renumberKeyframes(_ index: (Int) -> Int?) {
        images = images.compactMap { i in index(i.keyframe).map { KeyframeImage(keyframe: $0, gray: i.gray, pyramid: i.pyramid) } }
    }

    /// Multiplies every length by `factor` (the odometry's world became metric).
    mutating func rescale(by factor: Double) {
        found.update { $0 * factor }
        for i in pending.indices {
            pending[i].first.pose = pending[i].first.pose.translationScaled(by: factor)
            pending[i].second.pose = pending[i].second.pose.translationScaled(by: factor)
        }
    }

    /// Does the queued work: adds the points of every waiting pair, oldest first.
    mutating func densify(camera: CameraIntrinsics) throws {
        let jobs = pending
        pending = []
        for job in jobs { found.append(try densify(job, camera: camera)) }
    }

    private func densify(_ job: Job, camera: CameraIntrinsics) throws -> [SIMD3<Double>] {
        // The map points seen in both keyframes: their image motion guides the flow.
        var secondPosition: [Int: SIMD2<Float>] = [:]
        for o in job.second.observations { secondPosition[o.point] = o.position }
        let shared = job.first.observations.compactMap { o in secondPosition[o.point].map { (o.position, $0 - o.position) } }
        guard shared.count >= 8 else { return [] }
        let guide = MotionField(shared, width: camera.width, height: camera.height)

        // Corners of the first keyframe away from its map points.
        var parameters = FeatureSet.Parameters()
        parameters.maximumCount = maximumCorners
        parameters.fastThreshold = fastThreshold
        parameters.gridColumns = 8; parameters.gridRows = 6
        parameters.levels = 1
        let found = try FeatureSet(image: job.firstImage.gray, parameters: parameters)
        var occupied = Set<SIMD2<Int32>>()
        func key(_ q: SIMD2<Float>) -> SIMD2<Int32> { SIMD2(Int32(q.x / spacing), Int32(q.y / spacing)) }
        for o in job.first.observations { occupied.insert(key(o.position)) }
        var corners: [SIMD2<Float>] = []
        for q in found.points where occupied.insert(key(q)).inserted { corners.append(q) }
        guard !corners.isEmpty else { return [] }

        let moved = try job.firstImage.pyramid.track(corners, into: job.secondImage.pyramid,
                                                     guesses: corners.map { $0 + guide.motion(at: $0) })
        var from: [SIMD2<Float>] = [], to: [SIMD2<Float>] = []
        let w = Float(camera.width - 1), h = Float(camera.height - 1)
        for (p, q) in zip(corners, moved) {
            guard let q, q.x >= 0, q.y >= 0, q.x <= w, q.y <= h else { continue }
            from.append(camera.idealPixel(p))
            to.append(camera.idealPixel(q))
        }
        var triangulator = Triangulator()
        triangulator.maxReprojectionError = maxReprojectionError
        triangulator.minParallax = minParallax
        return try triangulator.triangulate(pixels1: from, pixels2: to, opencvCamera1FromWorld: job.first.pose,
                                            opencvCamera2FromWorld: job.second.pose, camera: camera).compactMap(\.position)
    }
}

/// The image motion between two keyframes near any pixel, from the motions of the points seen
/// in both: the median over the points in the surrounding cells of a coarse grid (widening
/// until some are found). Nearby points of one surface move alike; the median ignores the few
/// of another surface.
private struct MotionField {
    private let cell: Float = 40
    private let columns: Int, rows: Int
    private var cells: [[SIMD2<Float>]]
    private let overall: SIMD2<Float>

    init(_ samples: [(position: SIMD2<Float>, motion: SIMD2<Float>)], width: Int, height: Int) {
        columns = max(1, Int((Float(width) / cell).rounded(.up)))
        rows = max(1, Int((Float(height) / cell).rounded(.up)))
        cells = Array(repeating: [], count: columns * rows)
        for s in samples {
            let c = min(columns - 1, max(0, Int(s.position.x / cell))), r = min(rows - 1, max(0, Int(s.position.y / cell)))
            cells[r * columns + c].append(s.motion)
        }
        overall = Self.median(samples.map(\.motion))
    }

    func motion(at p: SIMD2<Float>) -> SIMD2<Float> {
        let c = min(columns - 1, max(0, Int(p.x / cell))), r = min(rows - 1, max(0, Int(p.y / cell)))
        for radius in 1...3 {
            var near: [SIMD2<Float>] = []
            for rr in max(0, r - radius)...min(rows - 1, r + radius) {
                for cc in max(0, c - radius)...min(columns - 1, c + radius) { near += cells[rr * columns + cc] }
            }
            if near.count >= 3 { return Self.median(near) }
        }
        return overall
    }

    /// Component-wise median.
    private static func median(_ v: [SIMD2<Float>]) -> SIMD2<Float> {
        guard !v.isEmpty else { return .zero }
        let x = v.map(\.x).sorted(), y = v.map(\.y).sorted()
        return SIMD2(x[x.count / 2], y[y.count / 2])
    }
}
