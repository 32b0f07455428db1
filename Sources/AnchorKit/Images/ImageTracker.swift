import Foundation

/// Finds reference images in frames and follows them (ARImageTrackingConfiguration).
///
/// - Detection: ORB features of the frame (outside the targets already followed) are matched
///   against every reference at once through the set's index; references with enough
///   distinctive matches get a robust homography (USAC MAGSAC++), which is refined by aligning
///   the reference to the frame (ECC, and the tracker's sparse alignment when ECC stops short)
///   and verified by that alignment's correlation before an anchor is reported; a detection
///   with few inliers needs a confident correlation. A reference with a few matches that lie
///   together gets a closer look: the window around them upsampled, searched and matched again
///   (small, far targets).
/// - Tracking: a found target's points are followed by pyramidal Lucas–Kanade flow, the
///   homography re-estimated from them and refined every frame by a `TemplateAligner`
///   (sparse, occlusion-robust inverse-compositional alignment); a target whose alignment fails
///   is dropped and left to detection, which runs every frame for `redetectionFrames` after a
///   loss (a target lost to a blurred frame is found again at the next sharp one), and every
///   `idleDetectionInterval` (nothing followed) or `detectionInterval` frames otherwise.
/// - Motion blur: a target moving fast is aligned from its constant-velocity prediction (the
///   flow fails on a blurred frame) with the reference blurred as the frame is, along the
///   target's motion over one exposure; blurs the alignment implies (the speed changed, the
///   exposure is shorter) are tried too and the best fitting one kept, provided the target's
///   outline keeps its shape. The exposure's share of the frame interval is learnt from the
///   blurs that fit. A target found in the last frame, with no velocity yet, is aligned at the
///   blur of the flow's motion where it does not align as if sharp.
/// - Pose: IPPE on the refined corners (then least-squares reprojection), blended over time by
///   a `PlanarPoseTrack`.
/// - Still photos (``Parameters/forStills()``): each frame gets the detection above on its own,
///   nothing followed or blended from the frame before.
public final class ImageTracker: AnchorTracker {
    /// Tuning.
    public struct Parameters: Sendable {
        /// How many targets are followed at once (ARKit's maximumNumberOfTrackedImages).
        public var maximumTracked = 4
        /// Frames between detection passes while at least one target is followed.
        public var detectionInterval = 5
        /// Frames between detection passes while none is followed: a reference coming into view
        /// is found up to this many frames late, and a view without one costs a third of a pass
        /// a frame (measured on the room walk, where the posters are out of view half the time:
        /// Benchmarks/README.md, "Idle detection").
        public var idleDetectionInterval = 3
        /// Frame features per detection pass, for a 640x480 frame: a larger frame gets more in
        /// proportion to its area (3,000 at 1280x720), so that a target covering the same share
        /// of any frame gets as many. A fixed count spread over a 1280x720 frame left a sign
        /// filling a sixth of it too few to be found.
        public var frameFeatures = FeatureSet.Parameters()
        /// Frames whose larger side is longer are searched for features on a copy this long
        /// (pixels); alignment and tracking use every pixel.
        public var detectionSize = 1280
        /// Lowe's ratio for distinctive matches.
        public var ratio = 0.8
        /// Matches a reference needs before a homography is tried, and inliers it needs after.
        public var minimumMatches = 12
        public var minimumInliers = 12
        /// Robust estimator and its threshold, pixels of the image searched for features.
        public var robustMethod = Homography.Method.usacMagsac
        public var ransacThreshold = 4.0
        /// A second look, at ``closerLookScale`` times the frame's resolution in a window of
        /// ``closerLookWindow`` pixels around them, is taken for the references (at most
        /// ``closerLooks`` a pass, those with the most) with at least this many distinctive
        /// matches but not found: small targets. Three: a poster 90 px wide keeps 2-4 distinctive
        /// matches among a frame's thousand features once the index finds the true runner-up.
        public var closerLookMatches = 3
        /// Closer looks a detection pass takes at most, afresh in every pass: waiting some frames
        /// after one that found nothing left a sign lost behind a passing sheet of paper unfound at
        /// 640x360 (Benchmarks/README.md, "Closer looks in every detection pass").
        public var closerLooks = 2
        public var closerLookWindow = 160
        public var closerLookScale = 2
        /// Features searched for in that window.
        public var closerLookFeatures = 500
        /// A surface view (``ImageTracker/surfaceViewSource``) is searched as densely as a closer look
        /// searches its window (``closerLookFeatures`` per ``closerLookWindow`` squared pixels:
        /// a poster 60 px wide in the view keeps a few distinctive matches only at that density),
        /// with at most this many features.
        public var surfaceLookFeatures = 3000
        /// Frames between searches of the surface views: each costs a few detection passes.
        public var surfaceLookInterval = 10
        /// Each search of the surface views that finds nothing doubles the wait before the next,
        /// up to this many frames; a target found or lost brings it back to
        /// ``surfaceLookInterval``. A walk past bare floors and tables stops paying for views
        /// that keep showing nothing, and a poster lying in a new view waits at most this long.
        public var surfaceLookLongestInterval = 40
        /// A detection's photometric alignment must keep at least this share of the robust
        /// estimate's inliers within 1.5 thresholds: an alignment that slid off the target (a
        /// sheet of paper over it, a plain panel) can still correlate at 0.7-0.9.
        public var agreeingShare = 0.7
        /// ECC correlation an alignment needs to be kept (tracking) or accepted (detection).
        public var minimumCorrelation = 0.6
        /// Alignment correlation above which a fallback start is not tried; a detection with
        /// fewer than `wellSupportedInliers` inliers needs it too.
        public var confidentCorrelation = 0.9
        /// Inliers from which a detection is accepted at `minimumCorrelation` (an occluded
        /// target correlates poorly but is matched widely).
        public var wellSupportedInliers = 30
        /// Share of the reference's alignment samples that must be in view and agree with the
        /// alignment (not occluded) to keep following a target.
        public var minimumCoverage = 0.3
        /// Largest side of the reference copy aligned, pixels: alignment costs grow with it
        /// and beyond a few hundred pixels accuracy no longer improves.
        public var alignmentSize = 240
        /// Alignment iterations when following (the start is close) and ECC iterations when detecting.
        public var trackingIterations = 5
        /// Alignment iterations when following a target through modelled motion blur: its
        /// start, extrapolated at constant velocity, can be tens of pixels off.
        public var blurredTrackingIterations = 15
        public var detectionIterations = 40
        /// The share of the frame interval the shutter is open at first, which makes a target's
        /// motion between frames into motion blur (1: a 1/30 s exposure at 30 frames/s); it is
        /// then learnt from the blur that fits the frames best.
        public var exposureShare = 1.0
        /// Every this many frames longer and shorter blurs are tried too, to learn the exposure:
        /// each try is an alignment.
        public var exposureSearchInterval = 4
        /// Motion blur from which the reference is blurred alike before it is aligned to a
        /// frame, pixels.
        public var modelledBlur = 3.0
        /// The most a target's outline may change beyond a similarity from one frame to the next,
        /// as a share of its longest side, when followed through modelled blur (see
        /// `keepsShape`).
        public var blurredShapeChange = 0.05
        /// Points followed per target.
        public var trackedPoints = 80
        /// Corner noise after alignment, pixels (weights the pose filter).
        public var cornerSigma = 0.25
        /// Corner noise stated for a target aligned through modelled motion blur, per pixel of
        /// blur: along a blur the alignment is loosely held.
        public var blurredCornerShare = 0.1
        /// Temporal pose filter; nil reports each frame's own estimate.
        public var filter: PoseFilter.Parameters? = PoseFilter.Parameters()
        /// A target re-found within this many frames continues its pose track.
        public var memoryFrames = 15
        /// Frames after losing a target in which detection runs every frame.
        public var redetectionFrames = 5
        /// The naive per-frame baseline: detection in every frame by brute-force matching
        /// against each reference with a ratio test and RANSAC; no tracking, alignment or filter.
        public var detectEveryFrame = false
        /// Each frame an unrelated photo: searched in full by the detection above (its closer
        /// looks and verification included) with ``ImageTracker/stillFeatureFactor`` times
        /// ``frameFeatures``, nothing followed or remembered from the frame before.
        public var independentFrames = false
        public init() {}

        /// These parameters for still photos: every frame detected on its own
        /// (``independentFrames``), with no pose filter.
        public func forStills() -> Parameters {
            var p = self
            p.independentFrames = true
            p.filter = nil
            return p
        }
    }

    /// How many times ``Parameters/frameFeatures`` a still photo (``Parameters/independentFrames``)
    /// is searched with: a photo is searched once where a video has many frames to find a target
    /// in, and a target seen far off its normal keeps few right matches among the video's count
    /// (Benchmarks/README.md, "Still photos of reference images get the full detection").
    public static let stillFeatureFactor = 2

    /// A target being followed.
    private struct Target {
        let reference: Int
        var homography: Matrix3       // working-copy px -> frame px
        var referencePoints: [SIMD2<Float>]
        var framePoints: [SIMD2<Float>]
        /// The last frame-to-frame motion (previous frame px -> frame px), once followed.
        var motion: Matrix3? = nil
        /// The motion blur the reference was given to match this frame, frame px.
        var blur = SIMD2<Double>.zero
    }

    public let references: ReferenceImageSet
    private let camera: CameraIntrinsics
    private let parameters: Parameters
    private var targets: [Target] = []
    private var previousPyramid: FlowPyramid?
    /// Its time per stage (flow, alignment, detection), for ``Session/profile``.
    package private(set) var profile = StageProfile()
    private var lastDetection = Int.min / 2
    /// The last frame in which a followed target was lost.
    private var lastLoss = Int.min / 2
    /// Where level surfaces in view are seen from above (set by the session before each frame:
    /// the frame's gravity, and views of the planes found): the views are built and searched
    /// every ``Parameters/surfaceLookInterval`` frames of detection, up to
    /// ``Parameters/surfaceLookLongestInterval`` while the searches find nothing.
    public var surfaceViewSource = SurfaceViewSource()
    private var lastSurfaceLook = Int.min / 2
    /// Searches of the surface views in a row that found nothing (their back-off).
    private var fruitlessSurfaceLooks = 0
    /// Pose tracks by reference, kept while a target is lost so that a quick re-detection
    /// continues its track.
    private var poses: [Int: PlanarPoseTrack] = [:]
    /// The share of the frame interval the shutter is open, learnt from the blur that fits best
    /// (see ``Parameters/exposureShare``).
    private var exposureShare: Double
    /// The least exposure share learnt: a target's blur is still modelled when it moves fast.
    private static let shortestExposureShare = 0.05
    /// Alignment samples by reference, one aligner per pyramid level, made when first followed.
    private var aligners: [Int: [TemplateAligner]] = [:]

    public init(references: ReferenceImageSet, camera: CameraIntrinsics, parameters: Parameters = Parameters()) {
        self.references = references
        self.camera = camera
        self.parameters = parameters
        exposureShare = parameters.exposureShare
    }

    public func observe(_ frame: Frame) throws -> [TargetObservation] {
        let gray = try frame.gray()
        if parameters.detectEveryFrame {
            return try detectNaively(in: gray, frame: frame)
        }
        if parameters.independentFrames {
            targets.removeAll()
            (lastSurfaceLook, fruitlessSurfaceLooks) = (Int.min / 2, 0)
            let detecting = StageProfile.now()
            try detect(in: gray, frame: frame)
            profile.add(.imageDetection, since: detecting)
            return try targets.compactMap { try observation($0, frame: frame) }
        }
        let building = StageProfile.now()
        let pyramid = try frame.flowPyramid()
        profile.add(.imageFlow, since: building)
        defer { previousPyramid = pyramid }

        // Follow what we have.
        var kept: [Target] = []
        for var target in targets {
            if let previous = previousPyramid, try follow(&target, from: previous, to: pyramid, gray: gray, frame: frame.index) {
                kept.append(target)
            } else {
                lastLoss = frame.index
                fruitlessSurfaceLooks = 0
            }
        }
        targets = kept

        // Look for more: every frame for a while after losing a target (it is most likely still
        // in view, lost to a blurred frame or a passing occluder, and found again it continues
        // its pose track), else every few frames.
        let untracked = references.images.count > targets.count
        let interval = frame.index - lastLoss <= parameters.redetectionFrames ? 1
            : targets.isEmpty ? min(parameters.idleDetectionInterval, parameters.detectionInterval) : parameters.detectionInterval
        if untracked && targets.count < parameters.maximumTracked && frame.index - lastDetection >= interval {
            lastDetection = frame.index
            let detecting = StageProfile.now()
            try detect(in: gray, frame: frame)
            profile.add(.imageDetection, since: detecting)
        }
        return try targets.compactMap { try observation($0, frame: frame) }
    }

    // MARK: Tracking

    private func follow(_ target: inout Target, from previous: FlowPyramid, to next: FlowPyramid, gray: Image,
                        frame: Int) throws -> Bool {
        let flowing = StageProfile.now()
        let moved = try previous.track(target.framePoints, into: next)
        var src: [SIMD2<Float>] = [], dst: [SIMD2<Float>] = []
        for (i, p) in moved.enumerated() {
            if let p { src.append(target.referencePoints[i]); dst.append(p) }
        }
        // Alignment starts from the flow's homography, or from the last frame's when the flow is
        // misled (points on an occluder that moves across the target can outvote the rest).
        var starts: [Matrix3] = []
        var flowEstimate: Matrix3?          // the flow's homography, working-copy px -> frame px
        if src.count >= parameters.minimumInliers,
           let estimate = try Homography.estimate(from: src, to: dst, method: parameters.robustMethod, threshold: 2),
           estimate.inlierCount >= parameters.minimumInliers {
            starts.append(estimate.matrix)
            flowEstimate = estimate.matrix
        }
        // The motion at constant velocity is a start too (the flow fails on a blurred frame), and
        // sets the motion blur the reference is given to match the frame.
        let blur = target.motion.map { motionOfCentre(of: target, moving: $0) * exposureShare } ?? .zero
        if let motion = target.motion { starts.append(motion * target.homography) }
        starts.append(target.homography)
        profile.add(.imageFlow, since: flowing)
        let aligning = StageProfile.now()
        defer { profile.add(.imageAlignment, since: aligning) }
        var best: BlurredAlignment?
        let explores = frame % parameters.exposureSearchInterval == 0
        var assumed = blur
        for start in starts {
            guard let aligned = try align(start, following: target, gray: gray, blur: assumed, exploring: explores),
                  aligned.correlation >= parameters.minimumCorrelation else { continue }
            if aligned.correlation > best?.correlation ?? -1 { best = aligned }
            if aligned.correlation >= parameters.confidentCorrelation {
                if aligned.isFirstHeld { break }
                // Reached only by re-blurring from a first fit that failed, it may have slid
                // along the blur (where a blurred reference still correlates): the other starts
                // are tried too, at the blur it found.
                assumed = aligned.blur
            }
        }
        // A target found in the last frame has no velocity yet: where it does not align as if
        // sharp, it is aligned at the blur of the flow's motion, from the flow's shift of its
        // centre (on a blurred frame the flow's homography can be skewed, and alignment along a
        // long blur does not undo it).
        if best == nil, target.motion == nil, let flowed = flowEstimate.flatMap({ f in target.homography.inverse.map { f * $0 } }),
           case let shift = motionOfCentre(of: target, moving: flowed), length(shift * exposureShare) >= parameters.modelledBlur {
            let start = Matrix3(rows: SIMD3(1, 0, shift.x), SIMD3(0, 1, shift.y), SIMD3(0, 0, 1)) * target.homography
            best = try align(start, following: target, gray: gray, blur: shift * exposureShare, exploring: true)
                .flatMap { $0.correlation >= parameters.minimumCorrelation ? $0 : nil }
        }
        if let best, length(blur) >= parameters.modelledBlur, let back = target.homography.inverse,
           case let motion = length(motionOfCentre(of: target, moving: best.matrix * back)), motion > parameters.modelledBlur {
            // The exposure the best fitting blur implies, averaged over the frames.
            let share = min(1, length(best.blur) / motion)
            exposureShare = min(1, max(Self.shortestExposureShare, exposureShare + 0.2 * (share - exposureShare)))
        }
        guard let best else { return false }
        let h = best.matrix
        target.blur = best.blur
        target.motion = target.homography.inverse.map { h * $0 }
        target.homography = h
        // Keep the points the flow followed to where the alignment puts them; top up from the
        // reference's keypoints when fewer than half are left.
        var kept = zip(src, dst).filter { length(project(h, $0.0) - $0.1) <= 2 }.map(\.0)
        if kept.count < parameters.trackedPoints / 2 { kept = seedPoints(target.reference, h: h) }
        target.referencePoints = kept
        target.framePoints = kept.map { project(h, $0) }
        return true
    }

    /// An alignment and the motion blur (frame px) the reference was given for it;
    /// `isFirstHeld`: the first alignment from its start, at the blur assumed, kept the target's
    /// shape at a correlation the tracker keeps.
    private typealias BlurredAlignment = (matrix: Matrix3, correlation: Double, blur: SIMD2<Double>, isFirstHeld: Bool)

    /// Aligns the reference of `target` from `start`, blurred by `blur` (frame px) when that is
    /// long enough to matter; then tries other blurs from the result and keeps the best fitting
    /// (correlation) one that keeps the target's shape: those the alignment implies when they
    /// differ from the one assumed (at a turn of a shake, constant velocity predicts the old
    /// speed); and, when `exploring`, a longer one (the exposure is learnt, and may grow), half
    /// of it and none.
    private func align(_ start: Matrix3, following target: Target, gray: Image, blur: SIMD2<Double>,
                       exploring: Bool) throws -> BlurredAlignment? {
        guard let first = try align(start, reference: target.reference, gray: gray, iterations: iterations(blur), sparse: true,
                                    blur: blur) else { return nil }
        let isFirstHeld = first.correlation >= parameters.minimumCorrelation && keepsShape(first.matrix, of: target)
        var aligned: BlurredAlignment = (first.matrix, first.correlation, blur, isFirstHeld)
        guard let back = target.homography.inverse else { return aligned }
        let moved = motionOfCentre(of: target, moving: first.matrix * back)
        let implied = moved * exposureShare
        guard max(length(blur), length(implied)) >= parameters.modelledBlur else { return aligned }
        var others: [SIMD2<Double>] = []
        if length(implied - blur) > max(parameters.modelledBlur, 0.25 * length(blur)) {
            // The motion since the last frame lags the speed at this one by half a frame:
            // extrapolated with the change since the frame before.
            others += [implied, implied + (implied - blur) / 2]
        }
        if exploring {
            if exposureShare < 1 { others.append(moved * min(1, 2 * exposureShare)) }
            if length(blur) >= parameters.modelledBlur { others += [blur / 2, .zero] }
        }
        // Blurs too short to be modelled are all no blur: each is tried once, and not again.
        var tried = [length(blur) >= parameters.modelledBlur ? blur : .zero]
        for candidate in others {
            let other = length(candidate) >= parameters.modelledBlur ? candidate : .zero
            guard !tried.contains(other) else { continue }
            tried.append(other)
            if let again = try align(first.matrix, reference: target.reference, gray: gray, iterations: iterations(other),
                                     sparse: true, blur: other),
               again.correlation > aligned.correlation, keepsShape(again.matrix, of: target) {
                aligned = (again.matrix, again.correlation, other, isFirstHeld)
            }
        }
        return keepsShape(aligned.matrix, of: target) ? aligned : nil
    }

    /// How far `motion` (previous frame px -> frame px) moves the centre of `target` (frame px).
    private func motionOfCentre(of target: Target, moving motion: Matrix3) -> SIMD2<Double> {
        let centre = centre(of: target.reference, under: target.homography)
        return Homography.map(motion, centre) - centre
    }

    /// Where `h` (working-copy px -> frame px) puts the centre of `reference` (frame px).
    private func centre(of reference: Int, under h: Matrix3) -> SIMD2<Double> {
        let ref = references.images[reference]
        return Homography.map(h, SIMD2(Double(ref.width - 1), Double(ref.height - 1)) / 2)
    }

    /// Whether `h` keeps the target's outline, up to a similarity, within
    /// ``Parameters/blurredShapeChange`` of its size since the last frame. Along a long blur the
    /// alignment is loosely held and its perspective terms can drift: one corner 60 px off while
    /// the others stay within 10; a held poster's outline changes far less from frame to frame.
    private func keepsShape(_ h: Matrix3, of target: Target) -> Bool {
        let ref = references.images[target.reference]
        let before = ref.corners.map { Homography.map(target.homography, $0) }, after = ref.corners.map { Homography.map(h, $0) }
        let size = ConvexPolygon.sideLengths(before).max() ?? 0
        return Similarity2D.fit(from: before, to: after).map { fit in
            zip(before, after).allSatisfy { length(fit.apply($0) - $1) <= parameters.blurredShapeChange * size }
        } ?? false
    }

    /// Alignment iterations when following a target through `blur` (frame px).
    private func iterations(_ blur: SIMD2<Double>) -> Int {
        length(blur) >= parameters.modelledBlur ? parameters.blurredTrackingIterations : parameters.trackingIterations
    }

    /// Reference keypoints that land inside the frame under `h`, strongest first.
    private func seedPoints(_ reference: Int, h: Matrix3) -> [SIMD2<Float>] {
        let w = Float(camera.width), hgt = Float(camera.height)
        var points: [SIMD2<Float>] = []
        for p in references.images[reference].features.points {
            let q = project(h, p)
            if q.x >= 8, q.y >= 8, q.x < w - 8, q.y < hgt - 8 { points.append(p) }
            if points.count >= parameters.trackedPoints { break }
        }
        return points
    }

    private func project(_ h: Matrix3, _ p: SIMD2<Float>) -> SIMD2<Float> {
        let q = Homography.map(h, SIMD2(Double(p.x), Double(p.y)))
        return SIMD2(Float(q.x), Float(q.y))
    }

    /// Alignment of the reference to the frame at the pyramid level closest to its footprint:
    /// ECC (detection, from a rough start) or the sparse ``TemplateAligner`` (`sparse`, tracking);
    /// the homography is converted to and from that level.
    private func align(_ h: Matrix3, reference: Int, gray: Image, iterations: Int, sparse: Bool = false,
                       blur: SIMD2<Double> = .zero) throws -> (matrix: Matrix3, correlation: Double)? {
        let ref = references.images[reference]
        let corners = ref.corners.map { Homography.map(h, $0) }
        let footprint = ConvexPolygon.sideLengths(corners).max() ?? 0
        let wanted = min(footprint, Double(parameters.alignmentSize))
        let pyramid = try ref.pyramid
        var level = 0
        while level + 1 < pyramid.count && Double(max(pyramid[level].width, pyramid[level].height)) > wanted * 1.5 { level += 1 }
        // Pixel centres: working = (level + 0.5) * scale - 0.5, per axis (halving odd sizes
        // makes the scale a little more than 2 per level).
        let sx = Double(ref.width) / Double(pyramid[level].width)
        let sy = Double(ref.height) / Double(pyramid[level].height)
        let toWorking = Matrix3(rows: SIMD3(sx, 0, 0.5 * sx - 0.5), SIMD3(0, sy, 0.5 * sy - 0.5), SIMD3(0, 0, 1))
        guard let back = toWorking.inverse else { return nil }
        if sparse {
            if aligners[reference] == nil { aligners[reference] = try pyramid.map { try TemplateAligner(reference: $0) } }
            var aligner = aligners[reference]![level]
            // A blurred frame is matched by the reference blurred alike: the frame's blur segment,
            // centred on the target, mapped into the level's pixels.
            if length(blur) >= parameters.modelledBlur, let toLevel = (h * toWorking).inverse {
                let centre = centre(of: reference, under: h)
                let along = Homography.map(toLevel, centre + blur / 2) - Homography.map(toLevel, centre - blur / 2)
                if length(along) >= 1, length(along) <= 128 {
                    aligner = try TemplateAligner(reference: try pyramid[level].motionBlurred(by: along))
                }
            }
            guard let result = try aligner.align(h * toWorking, to: gray, iterations: iterations),
                  result.coverage >= parameters.minimumCoverage else { return nil }
            return (result.matrix * back, result.correlation)
        }
        guard let (refined, correlation) = try Homography.refine(h * toWorking, reference: pyramid[level], image: gray,
                                                                 iterations: iterations) else { return nil }
        return (refined * back, correlation)
    }

    // MARK: Detection

    private func detect(in gray: Image, frame: Frame) throws {
        let (features, scale) = try frameFeatures(of: gray, mask: try maskOfTargets(gray))
        guard features.count >= parameters.minimumMatches else { return }
        let byReference = try distinctiveMatches(of: features, excluding: Set(targets.map(\.reference)))
        for (reference, group) in byReference.prefix(3) where group.count >= parameters.minimumMatches && targets.count < parameters.maximumTracked {
            if let target = try verifiedTarget(reference, matching: group, of: features, threshold: parameters.ransacThreshold * scale, gray: gray) {
                targets.append(target)
            }
        }
        // A second look at small targets: a few matches to a reference not found, close together.
        let found = Set(targets.map(\.reference))
        let small = byReference.filter {
            !found.contains($0.key) && $0.value.count >= parameters.closerLookMatches
        }
        for (reference, group) in small.prefix(parameters.closerLooks) where targets.count < parameters.maximumTracked {
            if let target = try lookCloser(for: reference, around: group.map { features.points[$0.query] }, in: gray, gray: gray) {
                targets.append(target)
            }
        }
        let surfaceViews = frame.index - lastSurfaceLook >= surfaceLookWait ? surfaceViewSource.views(camera: camera) : []
        if !surfaceViews.isEmpty {
            lastSurfaceLook = frame.index
            let looking = StageProfile.now(), followed = targets.count
            for view in surfaceViews where targets.count < parameters.maximumTracked {
                try look(at: view, gray: gray)
            }
            fruitlessSurfaceLooks = targets.count > followed ? 0 : fruitlessSurfaceLooks + 1
            profile.add(.imageSurfaceLooks, since: looking)
        }
    }

    /// Frames from one search of the surface views to the next: ``Parameters/surfaceLookInterval``
    /// doubled for each search in a row that found nothing, up to
    /// ``Parameters/surfaceLookLongestInterval``.
    private var surfaceLookWait: Int {
        let longest = max(parameters.surfaceLookInterval, parameters.surfaceLookLongestInterval)
        let interval = parameters.surfaceLookInterval.multipliedReportingOverflow(by: 1 << min(fruitlessSurfaceLooks, 32))
        return interval.overflow ? longest : min(longest, interval.partialValue)
    }

    /// Searches `view` (a surface seen from above) for the references not followed, as densely
    /// as a closer look searches its window; what it finds is verified and aligned in the frame,
    /// its matches mapped back through the view.
    private func look(at view: SurfaceView, gray: Image) throws {
        let picture = try gray.warped(by: view.frameFromView, width: view.width, height: view.height)
        let window = Double(parameters.closerLookWindow)
        let windows = Double(view.width * view.height) / (window * window)
        var p = parameters.frameFeatures
        p.maximumCount = min(parameters.surfaceLookFeatures, max(parameters.closerLookFeatures, Int(Double(parameters.closerLookFeatures) * windows)))
        if p.gridColumns > 0 {
            // The grid's cells as large as in a closer look's window.
            p.gridColumns = min(64, max(p.gridColumns, Int((Double(p.gridColumns * view.width) / window).rounded())))
            p.gridRows = min(64, max(p.gridRows, Int((Double(p.gridRows * view.height) / window).rounded())))
        }
        let features = try FeatureSet(image: picture, parameters: p)
        guard features.count >= parameters.minimumMatches else { return }
        let byReference = try distinctiveMatches(of: features, excluding: Set(targets.map(\.reference)))
        for (reference, group) in byReference.prefix(3) where group.count >= parameters.closerLookMatches && targets.count < parameters.maximumTracked {
            if group.count >= parameters.minimumMatches,
               let target = try verifiedTarget(reference, matching: group, of: features, mappedBy: view.frameFromView,
                                               threshold: parameters.ransacThreshold, gray: gray) {
                targets.append(target)
            } else if let target = try lookCloser(for: reference, around: group.map { features.points[$0.query] }, in: picture,
                                                  frameFromImage: view.frameFromView, gray: gray) {
                targets.append(target)
            }
        }
    }

    /// The distinctive matches of `features` to each reference but the `excluded`, most matched
    /// first.
    private func distinctiveMatches(of features: FeatureSet, excluding excluded: Set<Int>) throws -> [(key: Int, value: [FeatureMatch])] {
        var byReference: [Int: [FeatureMatch]] = [:]
        for m in try references.index.match(features) where !excluded.contains(m.reference) && m.isDistinctive(ratio: parameters.ratio) {
            byReference[m.reference, default: []].append(m)
        }
        return byReference.sorted(by: Self.mostMatchedFirst)
    }

    /// Most matches first, ties in reference order: a dictionary's order changes from one run to
    /// the next, and the order decides which references are verified or looked at closely.
    private static func mostMatchedFirst(_ a: (key: Int, value: [FeatureMatch]), _ b: (key: Int, value: [FeatureMatch])) -> Bool {
        (a.value.count, b.key) > (b.value.count, a.key)
    }

    /// The target `reference` where the matches `group` of `features` put it, their points mapped
    /// to the frame by `frameFromFeatures` (see the next).
    private func verifiedTarget(_ reference: Int, matching group: [FeatureMatch], of features: FeatureSet,
                                mappedBy frameFromFeatures: Matrix3 = .identity, threshold: Double, gray: Image) throws -> Target? {
        let src = group.map { references.images[reference].features.points[$0.train] }
        let dst = group.map { SIMD2<Float>(Homography.map(frameFromFeatures, SIMD2<Double>(features.points[$0.query]))) }
        return try verifiedTarget(reference, from: src, to: dst, threshold: threshold, gray: gray)
    }

    /// The target `reference` where the matches `src` (reference px) -> `dst` (frame px) put it,
    /// if a robust homography (`threshold` frame px) has enough inliers, is plausible, and the
    /// reference aligned from it correlates as its support requires and keeps most inliers.
    private func verifiedTarget(_ reference: Int, from src: [SIMD2<Float>], to dst: [SIMD2<Float>], threshold: Double,
                                gray: Image) throws -> Target? {
        guard let estimate = try Homography.estimate(from: src, to: dst, method: parameters.robustMethod, threshold: threshold),
              estimate.inlierCount >= parameters.minimumInliers, isPlausible(estimate.matrix, reference: reference),
              let (h, correlation) = try alignDetection(estimate.matrix, reference: reference, gray: gray),
              correlation >= requiredCorrelation(inliers: estimate.inlierCount), isPlausible(h, reference: reference)
        else { return nil }
        let agreeing = zip(src, dst).filter { length(Homography.map(h, SIMD2<Double>($0)) - SIMD2<Double>($1)) <= 1.5 * threshold }.count
        guard Double(agreeing) >= parameters.agreeingShare * Double(estimate.inlierCount) else { return nil }
        var target = Target(reference: reference, homography: h, referencePoints: [], framePoints: [])
        target.referencePoints = seedPoints(reference, h: h)
        target.framePoints = target.referencePoints.map { project(h, $0) }
        return target
    }

    /// Looks for `reference` again in the frame where most of `points` (frame px, where some of
    /// its features matched) lie together, in a window of ``Parameters/closerLookWindow`` pixels
    /// upsampled ``Parameters/closerLookScale`` times: a target 40-90 px wide has too few features
    /// at the frame's resolution, and more at twice it.
    private func lookCloser(for reference: Int, around points: [SIMD2<Float>], in image: Image, frameFromImage: Matrix3 = .identity,
                            gray: Image) throws -> Target? {
        let side = min(parameters.closerLookWindow, min(image.width, image.height))
        let centre = Self.densestWindowCentre(points, side: Float(side))
        let x0 = min(max(0, Int(centre.x) - side / 2), image.width - side), y0 = min(max(0, Int(centre.y) - side / 2), image.height - side)
        // Matches spread over the frame are chance ones: a small target's lie together.
        let inside = points.filter { $0.x >= Float(x0) && $0.y >= Float(y0) && $0.x < Float(x0 + side) && $0.y < Float(y0 + side) }
        guard inside.count >= parameters.closerLookMatches else { return nil }
        let factor = parameters.closerLookScale
        let window = try image.cropped(x: x0, y: y0, width: side, height: side).resized(width: side * factor, height: side * factor)
        var p = parameters.frameFeatures
        p.maximumCount = parameters.closerLookFeatures
        let features = try FeatureSet(image: window, parameters: p)
        guard features.count >= parameters.minimumMatches else { return nil }
        let matches = try references.index.match(features).filter { $0.reference == reference && $0.isDistinctive(ratio: parameters.ratio) }
        guard matches.count >= parameters.minimumMatches else { return nil }
        // cv::resize maps pixel centres as x_window = (x + 0.5) * factor - 0.5.
        let f = Float(factor), origin = SIMD2(Float(x0), Float(y0))
        let dst = matches.map { SIMD2<Float>(Homography.map(frameFromImage, SIMD2<Double>((features.points[$0.query] + 0.5) / f - 0.5 + origin))) }
        let src = matches.map { references.images[reference].features.points[$0.train] }
        return try verifiedTarget(reference, from: src, to: dst, threshold: parameters.ransacThreshold / Double(factor), gray: gray)
    }

    /// The centre of the `side`-pixel square, centred on one of `points`, that holds the most of
    /// them: of a dozen matches to a target 90 px wide, most are chance ones spread over the
    /// frame and a handful are right, together (their median lies anywhere).
    static func densestWindowCentre(_ points: [SIMD2<Float>], side: Float) -> SIMD2<Double> {
        let half = side / 2
        func inside(_ c: SIMD2<Float>) -> [SIMD2<Float>] { points.filter { abs($0.x - c.x) <= half && abs($0.y - c.y) <= half } }
        var best: [SIMD2<Float>] = []
        for p in points {
            let near = inside(p)
            if near.count > best.count { best = near }
        }
        guard !best.isEmpty else { return .zero }
        return SIMD2<Double>(best.reduce(.zero, +) / Float(best.count))
    }

    /// The frame's features in frame pixels, searched on a copy at most ``Parameters/detectionSize``
    /// long, their number scaled by the area searched (see ``Parameters/frameFeatures``); and how
    /// many frame pixels a pixel of the searched image spans.
    private func frameFeatures(of gray: Image, mask: Image?) throws -> (FeatureSet, Double) {
        let longest = max(gray.width, gray.height)
        var searched = gray, searchedMask = mask
        if longest > parameters.detectionSize {
            let f = Double(parameters.detectionSize) / Double(longest)
            let w = max(1, Int((Double(gray.width) * f).rounded())), h = max(1, Int((Double(gray.height) * f).rounded()))
            searched = try gray.resized(width: w, height: h)
            searchedMask = try mask?.resized(width: w, height: h)
        }
        var p = parameters.frameFeatures
        if parameters.independentFrames { p.maximumCount *= Self.stillFeatureFactor }
        p.maximumCount = max(p.maximumCount, Int((Double(p.maximumCount) * Double(searched.width * searched.height) / (640 * 480)).rounded()))
        let features = try FeatureSet(reachingTheEdgesOf: searched, mask: searchedMask, parameters: p)
        guard searched.width != gray.width else { return (features, 1) }
        let scale = SIMD2(Double(gray.width) / Double(searched.width), Double(gray.height) / Double(searched.height))
        return (try FeatureSet.merging([(features, scale)]), scale.x)
    }

    /// A detection's alignment from its robust homography: ECC, then the sparse alignment when
    /// ECC stops short of a confident correlation (from a start tens of pixels off, ECC can
    /// settle at 0.66 where the sparse alignment reaches 0.98); the better of the two.
    private func alignDetection(_ h: Matrix3, reference: Int, gray: Image) throws -> (matrix: Matrix3, correlation: Double)? {
        let ecc = try align(h, reference: reference, gray: gray, iterations: parameters.detectionIterations)
        if let ecc, ecc.correlation >= parameters.confidentCorrelation { return ecc }
        let sparse = try align(h, reference: reference, gray: gray, iterations: parameters.detectionIterations, sparse: true)
        return [ecc, sparse].compactMap { $0 }.max { $0.correlation < $1.correlation }
    }

    /// The correlation a detection's alignment needs: a few inliers can all lie on one corner of
    /// the target and leave the rest misplaced (a poster entering the view: 12 inliers, corners
    /// 70 px off, correlation 0.66), so weak geometric support needs strong photometric support.
    private func requiredCorrelation(inliers: Int) -> Double {
        inliers >= parameters.wellSupportedInliers ? parameters.minimumCorrelation : parameters.confidentCorrelation
    }

    /// A mask that hides the targets already followed (0 inside their quads).
    private func maskOfTargets(_ gray: Image) throws -> Image? {
        guard !targets.isEmpty else { return nil }
        var pixels = [UInt8](repeating: 255, count: gray.width * gray.height)
        for t in targets {
            let quad = references.images[t.reference].corners.map { Homography.map(t.homography, $0) }
            let xs = quad.map(\.x), ys = quad.map(\.y)
            let x0 = max(0, Int(xs.min()!)), x1 = min(gray.width - 1, Int(xs.max()!))
            let y0 = max(0, Int(ys.min()!)), y1 = min(gray.height - 1, Int(ys.max()!))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 where ConvexPolygon.contains(quad, SIMD2(Double(x), Double(y))) { pixels[y * gray.width + x] = 0 }
            }
        }
        return try Image.fromPixels(pixels, width: gray.width, height: gray.height, channels: 1)
    }

    /// A homography that maps the reference to a convex, not degenerate, not absurdly skewed
    /// quadrilateral in front of the camera.
    private func isPlausible(_ h: Matrix3, reference: Int) -> Bool {
        let ref = references.images[reference]
        for c in ref.corners { if (h * SIMD3(c.x, c.y, 1)).z <= 0 { return false } }
        let quad = ref.corners.map { Homography.map(h, $0) }
        guard ConvexPolygon.isConvex(quad) else { return false }
        let area = ConvexPolygon.area(quad)
        guard area >= 400, area <= 16 * Double(camera.width * camera.height) else { return false }
        let sides = ConvexPolygon.sideLengths(quad)
        return sides.min()! * 8 >= sides.max()!
    }

    // MARK: Pose and observation

    private func observation(_ target: Target, frame: Frame) throws -> TargetObservation? {
        let ref = references.images[target.reference]
        let corners = ref.corners.map { Homography.map(target.homography, $0) }
        let points = TargetConvention.corners(width: ref.physicalWidth, height: ref.physicalHeight)
        let hypotheses = try PlanarPoseSolver.solve(targetPoints: points.map { SIMD2($0.x, $0.z) }, pixels: corners, camera: camera)
        guard !hypotheses.isEmpty else { return nil }
        let pose: Transform
        if let settings = parameters.filter {
            let measurements = PlanarPoseTrack.measurements(of: hypotheses, targetPoints: points, camera: camera,
                                                            sigma: parameters.cornerSigma)
            guard !measurements.isEmpty else { return nil }
            let track = PlanarPoseTrack.advancing(poses[target.reference], with: measurements, sigma: parameters.cornerSigma,
                                                  time: frame.time, frame: frame.index, memoryFrames: parameters.memoryFrames,
                                                  settings: settings)
            poses[target.reference] = track
            pose = track.pose
        } else {
            pose = hypotheses[0].cameraFromAnchor
        }
        return TargetObservation(identifier: ref.identifier, kind: .image, name: ref.name, cameraFromAnchor: pose,
                                 extent: SIMD2(ref.physicalWidth, ref.physicalHeight), corners: corners,
                                 cornerSigma: max(parameters.cornerSigma, parameters.blurredCornerShare * length(target.blur)),
                                 cornerBlur: length(target.blur) >= parameters.modelledBlur ? target.blur : nil,
                                 sharpCornerSigma: parameters.cornerSigma)
    }

    // MARK: Naive baseline

    private func detectNaively(in gray: Image, frame: Frame) throws -> [TargetObservation] {
        let features = try FeatureSet(image: gray, parameters: parameters.frameFeatures)
        var found: [TargetObservation] = []
        for (r, ref) in references.images.enumerated() where found.count < parameters.maximumTracked {
            guard features.count >= parameters.minimumMatches else { break }
            let matches = try features.match(against: ref.features).filter { $0.isDistinctive(ratio: parameters.ratio) }
            guard matches.count >= parameters.minimumMatches,
                  let estimate = try Homography.estimate(from: matches.map { ref.features.points[$0.train] },
                                                         to: matches.map { features.points[$0.query] },
                                                         method: .ransac, threshold: parameters.ransacThreshold),
                  estimate.inlierCount >= parameters.minimumInliers, isPlausible(estimate.matrix, reference: r) else { continue }
            let target = Target(reference: r, homography: estimate.matrix, referencePoints: [], framePoints: [])
            if let o = try observation(target, frame: frame) { found.append(o) }
        }
        return found
    }
}
