import AnchorKitCV
import Foundation

/// Dense evidence of level surfaces (floors, table tops) from pairs of views, where feature
/// points are too few: a weakly textured floor gives the odometry almost no corners it can
/// follow, but its faint texture still lines up between two views under the floor's homography.
///
/// Each new view is compared with the one ``gap`` views back (plane sweep): for a series of level
/// planes below the camera, the older view is warped into the newer one through the plane's
/// homography, and every ``patch``-pixel block of the newer view is scored by normalised
/// cross-correlation (``ak_plane_sweep``, one native call per pair). A block whose score peaks
/// high, once, at one height lies on a surface through that height at its centre; its centre's
/// ray meets that plane at a 3D point. The planes are spaced about ``step`` pixels of parallax
/// apart and the peak is refined by a parabola through its neighbours. A block on a wall or a
/// box side peaks at some height, too (for a small patch, all planes through one point look
/// alike), but fits the upright plane through that point better (``ak_block_scores``): it is
/// left out.
///
/// Conventions: the session's world (+y against gravity), cameras as `world_from_arkitCamera`,
/// pixels as the frames show them. Cameras with lens distortion are not swept (a homography
/// does not hold across a distorted image): their level surfaces come from map points alone.
struct LevelSweep {
    /// A frame kept for sweeping: its gray image and its camera (`world_from_arkitCamera`).
    struct View {
        var image: Image
        var transform: Transform
    }

    /// Views between the two of a pair (more baseline against less overlap).
    var gap = 2
    /// The views are swept at 1/`shrink` of their size (area-averaged): a quarter of the pixels
    /// and half the planes per halving, for a coarser height per block.
    var shrink = 2
    /// Side of the scored blocks, pixels of the shrunk views.
    var patch = 8
    /// Least peak correlation of a block.
    var minimumCorrelation: Float = 0.85
    /// Least drop of a block's correlation away from its peak: its texture must tell heights apart.
    var minimumDrop: Float = 0.3
    /// Largest correlation of any second peak (more than 2 planes from the first) below the first:
    /// repeated texture matches at several heights.
    var ambiguity: Float = 0.1
    /// Least standard deviation of a block's gray levels (either view).
    var minimumTexture = 1.0
    /// Parallax between neighbouring planes at most, pixels.
    var step = 1.5
    /// Planes swept, from `nearest` to `farthest` metres below the newer camera, at most `maximumPlanes`.
    var nearest = 0.4
    var farthest = 4.0
    var maximumPlanes = 64
    /// Least distance between the two cameras, metres: without baseline every plane looks alike.
    var minimumBaseline = 0.05

    /// The points found so far (world, current unit), the newest pair's last: those of the
    /// newest 100 sweeps.
    var points: [SIMD3<Double>] { found.elements }
    private var found = NewestBatches<SIMD3<Double>>(capacity: 100)
    /// The centre of the camera that saw each of ``points`` (the newer view of its pair).
    private var viewpoints: [SIMD3<Double>] { seenFrom.elements }
    private var seenFrom = NewestBatches<SIMD3<Double>>(capacity: 100)
    /// How many of ``points`` the newest pair gave.
    private(set) var recentCount = 0

    private var views: [View] = []
    /// The newest view (shrunk) paired with each older view kept, nearest first, where the
    /// cameras lie ``minimumBaseline`` apart at least: the nearer pair shares more of the view,
    /// the farther one has more parallax.
    private(set) var latestPairs: [ViewPair] = []

    /// Keeps `view` (full size, gray) and sweeps it against the view ``gap`` back. `unit` is
    /// metres per world unit (1 once metric). Throws on a native failure.
    /// With `findingLevels` false the views are only kept (for ``latestPairs``).
    mutating func add(_ view: View, camera: CameraIntrinsics, metresPerUnit unit: Double, findingLevels: Bool = true) throws {
        guard !camera.hasDistortion else { return }
        let small = try view.image.resized(width: camera.width / shrink, height: camera.height / shrink)
        views.append(View(image: small, transform: view.transform))
        if views.count > gap + 1 { views.removeFirst() }
        let pairs = views.dropLast().reversed().map { ViewPair(reference: views.last!, other: $0, camera: shrunk(camera)) }
        latestPairs = pairs.filter { $0.baseline * unit >= minimumBaseline }
        // The sweep compares the newest view with the one `gap` back (the last pair).
        guard views.count == gap + 1, findingLevels, let pair = pairs.last else { return }
        let found = try sweep(pair, metresPerUnit: unit)
        self.found.append(found)
        seenFrom.append(Array(repeating: pair.reference.transform.translation, count: found.count))
        recentCount = found.count
    }

    /// ``points`` without those that lie on or behind one of `walls` (upright or slanted planes
    /// found) as seen from their camera (``PlanarRegion/hides(_:from:margin:)``), and how many
    /// of them the newest pair gave. A wall's texture also lines up under the level plane
    /// through the line where that plane meets the wall, and the slant test keeps some of those
    /// blocks, a little in front of the wall or behind it: rows of points along the wall that
    /// would make a level surface of their own there.
    func points(besides walls: [PlanarRegion], margin: Double) -> (points: [SIMD3<Double>], recentCount: Int) {
        guard !walls.isEmpty else { return (points, recentCount) }
        var kept: [SIMD3<Double>] = [], recent = 0
        for (i, p) in points.enumerated() where !walls.contains(where: { $0.hides(p, from: viewpoints[i], margin: margin) }) {
            kept.append(p)
            if i >= points.count - recentCount { recent += 1 }
        }
        return (kept, recent)
    }

    /// `camera` for images shrunk by ``shrink`` with area averaging: pixel centres map as
    /// x' = (x + 0.5) / shrink - 0.5.
    private func shrunk(_ camera: CameraIntrinsics) -> CameraIntrinsics {
        let s = Double(shrink)
        var out = camera
        out.width = camera.width / shrink; out.height = camera.height / shrink
        out.fx = camera.fx / s; out.fy = camera.fy / s
        out.cx = (camera.cx + 0.5) / s - 0.5; out.cy = (camera.cy + 0.5) / s - 0.5
        return out
    }

    /// Multiplies every length by `factor` (the world became metric).
    mutating func rescale(by factor: Double) {
        found.update { $0 * factor }
        seenFrom.update { $0 * factor }
        latestPairs = []
        for i in views.indices { views[i].transform = views[i].transform.translationScaled(by: factor) }
    }

    /// The points of `reference`'s blocks that match `other` on one level plane.
    func sweep(_ pair: ViewPair, metresPerUnit unit: Double) throws -> [SIMD3<Double>] {
        guard pair.baseline * unit >= minimumBaseline else { return [] }
        // Level planes y = h in the reference frame: m · X = h - y_ref = 1/s (s < 0: below).
        let n = pair.reference.transform.rotation.transposed * SIMD3<Double>(0, 1, 0)
        func homography(_ s: Double) -> Matrix3 { pair.homography(normal: n, inverseOffset: s) }

        // Planes spaced by parallax: the largest image motion between neighbours, over sample
        // pixels whose rays go down (meet planes below the camera), is `step`.
        var samples: [SIMD2<Double>] = []
        let w = Double(pair.camera.width - 1), h = Double(pair.camera.height - 1)
        for i in 0...4 { for j in 0...3 {
            let pixel = SIMD2(w * Double(i) / 4, h * Double(j) / 3)
            if dot(n, pair.ray(pixel)) < 0 { samples.append(pixel) }
        } }
        guard !samples.isEmpty else { return [] }
        func motion(_ s: Double, _ ds: Double) -> Double {
            let h0 = homography(s), h1 = homography(s + ds)
            return samples.map { length(Homography.map(h1, $0) - Homography.map(h0, $0)) }.max()!
        }
        var planes: [Double] = []
        var s = -unit / farthest
        let last = -unit / nearest
        while s >= last && planes.count < maximumPlanes {
            planes.append(s)
            let probe = 1e-3 * abs(s) + 1e-9
            let perStep = motion(s, -probe) / probe
            guard perStep > 1e-9 else { break }
            s -= step / perStep
        }
        guard planes.count >= 5 else { return [] }

        let columns = pair.reference.image.width / patch, rows = pair.reference.image.height / patch
        let blocks = columns * rows
        let scores = try pair.sweep(planes.map(homography), patch: patch, minimumTexture: minimumTexture)

        var found: [(corner: SIMD2<Int>, s: Double, point: SIMD3<Double>)] = []
        for b in 0..<blocks {
            let corner = SIMD2((b % columns) * patch, (b / columns) * patch)
            let r = pair.ray(SIMD2(Double(corner.x), Double(corner.y)) + Double(patch - 1) / 2)
            guard dot(n, r) < 0 else { continue }
            let curve = planes.indices.map { scores[$0 * blocks + b] }
            guard let best = peak(curve) else { continue }
            // Parabola through the peak and its neighbours, in plane index, then in s.
            let (l, c, h) = (Double(curve[best - 1]), Double(curve[best]), Double(curve[best + 1]))
            let curvature = l - 2 * c + h
            let shift = curvature < 0 ? max(-0.5, min(0.5, 0.5 * (l - h) / curvature)) : 0
            let sBest = shift >= 0 ? planes[best] + shift * (planes[best + 1] - planes[best])
                                   : planes[best] - shift * (planes[best - 1] - planes[best])
            // The ray meets n · X = 1/s at X = r / (s · n · r).
            let point = r / (sBest * dot(n, r))
            guard point.z < 0 else { continue }
            found.append((corner, sBest, point))
        }

        // Slant: each block under its level plane and under the upright plane through the same
        // point facing the camera. A block of a wall or a box side also peaks at some height (a
        // small patch looks alike under all planes through its centre) but fits the upright plane
        // better; only blocks that fit the level plane better are level evidence.
        let ref = pair.reference.transform
        // A point right below the camera has no such upright plane (it would pass through the
        // camera, seen edge-on): it is level evidence as it is.
        var tests: [(corner: SIMD2<Int>, homography: Matrix3)] = [], tested: [Int] = []
        for (i, block) in found.enumerated() {
            var toward = ref.rotation * -block.point  // world direction from the point to the camera
            toward.y = 0
            guard length(toward) > 1e-3 * length(block.point) else { continue }
            let m = ref.rotation.transposed * normalize(toward)
            tests += [(block.corner, homography(block.s)),
                      (block.corner, pair.homography(normal: m, inverseOffset: 1 / dot(m, block.point)))]
            tested.append(i)
        }
        let fits = try pair.scores(tests, patch: patch, minimumTexture: minimumTexture)
        var upright = Set<Int>()
        for (k, i) in tested.enumerated() where !fits[2 * k + 1].isNaN && !(fits[2 * k] > fits[2 * k + 1]) { upright.insert(i) }
        return found.indices.compactMap { upright.contains($0) ? nil : ref.apply(to: found[$0].point) }
    }

    /// The index of the one high, distinct peak of a block's correlation over the planes, with
    /// scored neighbours on both sides; nil when there is none.
    private func peak(_ curve: [Float]) -> Int? {
        var best = -1, top: Float = -2, low: Float = 2
        for (i, v) in curve.enumerated() where !v.isNaN {
            if v > top { top = v; best = i }
            low = min(low, v)
        }
        guard best > 0, best < curve.count - 1, top >= minimumCorrelation, top - low >= minimumDrop,
              !curve[best - 1].isNaN, !curve[best + 1].isNaN else { return nil }
        for (i, v) in curve.enumerated() where abs(i - best) > 2 && !v.isNaN && v > top - ambiguity {
            // Part of the same peak only if the curve stays high all the way to it.
            let between = i < best ? curve[i...best] : curve[best...i]
            if between.contains(where: { $0.isNaN || $0 < top - minimumDrop }) { return nil }
        }
        return best
    }
}
