/// Tracks printed square markers (ArUco and AprilTag families) with metric 6-DoF poses.
///
/// Search: a full-frame pass per dictionary every ``Parameters/fullSearchInterval`` frames (every
/// ``Parameters/idleSearchInterval`` while none is followed, and after a marker was lost); in
/// between, a coarse full-frame pass for large newcomers, and each recently seen marker the passes
/// missed is followed by aligning its ideal picture from its predicted corners (confirmed markers,
/// kept when the picture correlates well with the image), else searched for in a region around
/// those corners, resampled to a working size; one that both miss (blurred, oblique, partly
/// outside the image) is followed once more from the prediction shifted as the markers found in
/// the frame moved.
/// Several markers may print the same id: `MarkerInstances` tells them apart and numbers them
/// (anchor ids `marker/<dictionary>/<id>/<instance>` after the first).
///
/// Pose: refined corners, and both IPPE_SQUARE hypotheses per marker. A likelihood-ratio test on
/// the two hypotheses' reprojection errors says when a frame is decisive; each marker's
/// `PlanarPoseTrack` follows both hypotheses over time, weighted by their covariances, and
/// reports the one the evidence favours (with a weak prior toward the orientation of the frame's
/// decisive markers). With `parameters.filter = nil` each frame stands alone. Markers that keep
/// their places relative to one another are then reported through the `MarkerLayout` they form
/// (``Parameters/learnsLayout``). The reported corners are the detected ones.
public final class MarkerTracker: AnchorTracker {
    /// Tuning of the ambiguity resolution.
    public struct Parameters: Sendable {
        /// The second hypothesis is rejected outright when it explains the corners this much
        /// worse: `Σ residual²` larger by this many times the corner variance (a likelihood
        /// ratio test on 8 residuals; 9 is "three sigma"). Comparing errors by ratio alone is
        /// unreliable when both are far below the noise.
        public var decisiveChiSquare = 9.0
        /// A marker's previous pose guides the choice for this many frames.
        public var memoryFrames = 15
        /// A marker id never reported before must be detected in this many consecutive frames
        /// before its anchor is added: one-frame look-alikes in textured scenes (4x4 codes
        /// match random quads now and then) are not reported. Sets that list their `ids` are
        /// trusted from the first detection.
        public var confirmationFrames = 2
        /// With `.template` corner refinement, a detection counts toward confirming a new id only
        /// if the id's ideal picture aligned to it correlates with the image at least this much
        /// (Pearson, -1...1): look-alikes in texture decode as a code but do not look like it
        /// (measured correlations: Benchmarks/README.md, markers). nil: every detection counts.
        public var confirmationCorrelation: Double? = 0.8
        /// Noise of detected corners, pixels (the floor of the per-marker estimate); nil takes
        /// the noise measured for the corner refinement in use (``MarkerTracker/cornerNoise(for:)``).
        public var cornerSigma: Double?
        /// A marker seen within this many frames is followed by its picture or, failing that,
        /// searched for in a region around its predicted corners, resampled so that it is about
        /// `regionSidePixels` wide (upsampled when small: small, distant markers drop out of
        /// full-frame passes now and then; decimated when large). 0: no regions, a full-frame pass
        /// every frame.
        public var recoveryFrames = 3
        public var regionSidePixels = 48.0
        /// A confirmed marker (or one of a set that lists its ids) the full or coarse pass missed is
        /// followed from its predicted corners by aligning its ideal picture
        /// (``MarkerDetector/follow(id:from:in:)``) before its region is searched, and kept when
        /// the picture correlates with the image at least this much (Pearson, -1...1); nil: not
        /// followed, regions only.
        public var followingCorrelation: Double? = 0.9
        /// A full-frame pass runs every this many frames, and whenever a recent marker was neither
        /// followed nor found in its region; in between, only the following, the regions and the
        /// coarse pass below. 1: every frame. Markers that appear between passes, too small for
        /// the coarse pass, are found up to this many frames late (hence 6 rather than 8:
        /// Benchmarks/README.md, "Following before regions").
        public var fullSearchInterval = 6
        /// While no marker is followed, a full-frame pass runs every this many frames (the
        /// coarse pass below in between): markers entering the view are found up to this many
        /// frames late, and a view without markers costs a third of a pass a frame.
        public var idleSearchInterval = 3
        /// Between full-frame passes, the whole frame is also searched at 1 / this resolution for
        /// new markers large enough (a quarter of the resolution finds ~40 px ones); nil: not at all.
        public var coarseSearchDecimation: Double? = 4
        /// An instance of an id unseen for this many frames gives its number to the next marker
        /// with that id found away from every instance (see `MarkerInstances`).
        public var instanceMemoryFrames = 2
        /// Every frame on its own (still photos): state is cleared before each.
        public var independentFrames = false
        /// Temporal pose filter; nil reports each frame's own estimate.
        public var filter: PoseFilter.Parameters? = PoseFilter.Parameters()
        /// Markers that keep their places relative to one another (printed on walls, tables,
        /// boards) are reported through the layout they form: the camera's pose from all their
        /// corners together, and each marker's place refined over many views (see
        /// `MarkerLayout`). A marker that moves is reported on its own pose. false: each
        /// marker on its own.
        public var learnsLayout = true
        public init() {}

        /// The naive per-frame baseline that benchmarks compare against: each frame on its own,
        /// the lower-error IPPE solution, no confirmation, recovery or filtering.
        public static var detectEveryFrame: Parameters {
            var p = Parameters()
            p.decisiveChiSquare = 0
            p.memoryFrames = 0
            p.confirmationFrames = 1
            p.recoveryFrames = 0
            p.filter = nil
            p.learnsLayout = false
            return p
        }

        /// These parameters for still photos: every detection of each frame, nothing carried
        /// between frames (no confirmation, regions or filtering: without regions every frame is
        /// searched in full); both pose hypotheses are still weighed within the frame.
        public func forStills() -> Parameters {
            var p = self
            p.memoryFrames = 0
            p.confirmationFrames = 1
            p.recoveryFrames = 0
            p.filter = nil
            p.learnsLayout = false
            p.independentFrames = true
            return p
        }
    }

    private struct Family {
        let detector: MarkerDetector
        /// The parameters `detector` was made with (passes ahead get detectors of their own).
        let detection: MarkerDetectionParameters
        let sets: [MarkerSet]

        /// Whether `id` belongs to a set that lists its ids (trusted from its first detection).
        func lists(_ id: Int) -> Bool { sets.first { $0.accepts(id) }?.ids != nil }
    }

    private let families: [Family]
    private let camera: CameraIntrinsics

    /// Its detectors' time per stage (``MarkerDetector/profile``), for ``Session/profile``.
    package var profile: StageProfile {
        families.reduce(passesAhead?.profile ?? StageProfile()) { $0.merged(with: $1.detector.profile) }
    }
    private let parameters: Parameters
    /// The corner noise in use, pixels.
    private let cornerSigma: Double
    /// Whether new ids need a correlated template to be confirmed (see ``Parameters/confirmationCorrelation``).
    private let verifiesByTemplate: Bool

    private static func confirmsByCorrelation(_ parameters: Parameters, _ detection: MarkerDetectionParameters) -> Bool {
        parameters.confirmationCorrelation != nil && parameters.confirmationFrames > 1 && detection.cornerRefinement == .template
    }
    /// Per marker: its pose track (the filters of its live hypotheses).
    private var tracks: [String: PlanarPoseTrack] = [:]
    /// Which physical marker each detection is, and where each was last seen.
    private var instances: MarkerInstances
    /// The last frame searched in full, and whether the next must be (a followed marker was lost).
    private var lastFullSearch: Int?
    private var lastObserved: Int?
    private var fullSearchDue = false
    /// Ids detected but not yet confirmed: consecutive detections so far and the last frame.
    private var candidates: [String: (count: Int, frame: Int)] = [:]
    private var confirmed = Set<String>()
    /// Where the static markers are relative to one another (``Parameters/learnsLayout``).
    private var layout: MarkerLayout?
    /// Whole-frame passes (full or coarse) of frames handed ahead (``anticipate(_:)``), made on first use.
    private var passesAhead: MarkerPassesAhead?

    /// A tracker for `markerSets`, seen by a camera with `camera` intrinsics.
    public init(markerSets: [MarkerSet], camera: CameraIntrinsics,
                detection: MarkerDetectionParameters = MarkerDetectionParameters(), parameters: Parameters = Parameters()) throws {
        var byDictionary: [String: [MarkerSet]] = [:]
        var order: [String] = []
        for set in markerSets {
            if let problem = Plausible.physicalSizeProblem(set.size, of: "marker size") { throw MarkerError(problem) }
            if byDictionary[set.dictionary] == nil { order.append(set.dictionary) }
            byDictionary[set.dictionary, default: []].append(set)
        }
        families = try order.map { name in
            let dictionary = try MarkerDictionary.resolve(name)
            for set in byDictionary[name]! {
                if let bad = set.ids?.first(where: { !(0..<dictionary.count).contains($0) }) {
                    throw MarkerError("marker id \(bad) is not in \(name) (0..<\(dictionary.count))")
                }
            }
            var detection = detection
            // New ids are confirmed by correlation (Parameters.confirmationCorrelation).
            detection.measuresCorrelation = detection.measuresCorrelation || Self.confirmsByCorrelation(parameters, detection)
            return Family(detector: try MarkerDetector(dictionary: dictionary, parameters: detection), detection: detection,
                          sets: byDictionary[name]!)
        }
        self.camera = camera
        self.parameters = parameters
        instances = MarkerInstances(memoryFrames: parameters.instanceMemoryFrames)
        cornerSigma = parameters.cornerSigma ?? Self.cornerNoise(for: detection.cornerRefinement)
        verifiesByTemplate = Self.confirmsByCorrelation(parameters, detection)
        if parameters.learnsLayout && !parameters.independentFrames { layout = MarkerLayout(camera: camera) }
    }

    /// Typical corner noise of each refinement, pixels: the median corner errors measured on the
    /// committed sequences (0.06–0.10 px for template alignment, 0.25–0.4 px for sub-pixel
    /// corners) and OpenCV's pixel-level contour corners.
    public static func cornerNoise(for refinement: MarkerDetectionParameters.CornerRefinement) -> Double {
        switch refinement {
        case .template: return 0.1
        case .subpixel, .contour, .aprilTag: return 0.3
        case .none: return 0.6
        }
    }

    public func observe(_ frame: Frame) throws -> [TargetObservation] {
        if parameters.independentFrames {
            tracks.removeAll(); instances.removeAll(); candidates.removeAll(); confirmed.removeAll()
        }
        let full = isFullSearch(frame.index)
        let pass = passKind(full: full)
        let passAhead = try pass.flatMap { try passesAhead?.take(frame.index, $0) }
        var lost = false
        var observations: [TargetObservation] = []
        var sightings: [MarkerLayout.Sighting] = []
        for (f, family) in families.enumerated() {
            let (found, missed) = try search(family, in: frame, pass: pass, passedAhead: passAhead?[f])
            lost = lost || missed
            // Group by physical size: one batched pose call per size.
            var bySize: [Double: [(key: MarkerInstances.Key, detection: MarkerDetection)]] = [:]
            for f in found {
                guard let set = family.sets.first(where: { $0.accepts(f.detection.id) }) else { continue }
                bySize[set.size, default: []].append(f)
            }
            for (size, group) in bySize.sorted(by: { $0.key < $1.key }) {
                let hypotheses = try PlanarPoseSolver.solveSquares(corners: group.map(\.detection.corners), side: size, camera: camera)
                let identifiers = group.map(\.key.identifier)
                let poses = resolve(hypotheses, side: size, identifiers: identifiers, frame: frame)
                for (i, (key, d)) in group.enumerated() {
                    guard let (pose, decisive) = poses[i] else { continue }
                    let trusted = family.lists(d.id)
                    guard trusted || isConfirmed(identifiers[i], correlation: d.correlation, frame: frame.index) else { continue }
                    observations.append(TargetObservation(
                        identifier: identifiers[i], kind: .marker, name: String(d.id),
                        instance: key.instance == 0 ? nil : key.instance, cameraFromAnchor: pose,
                        extent: SIMD2(size, size), corners: d.corners, cornerSigma: cornerSigma))
                    sightings.append(MarkerLayout.Sighting(identifier: identifiers[i], side: size, cameraFromAnchor: pose,
                                                           corners: d.corners, decisive: decisive))
                }
            }
        }
        if full { lastFullSearch = frame.index }
        fullSearchDue = lost
        lastObserved = frame.index
        passesAhead?.forget(through: frame.index)
        startNextPassAhead()
        if let poses = try layout?.update(with: sightings.sorted { $0.identifier < $1.identifier }) {
            for i in observations.indices {
                if let pose = poses[observations[i].identifier] { observations[i].cameraFromAnchor = pose }
            }
        }
        return observations.sorted { $0.identifier < $1.identifier }
    }

    /// Whether `frame` gets a full-frame pass (see ``Parameters/fullSearchInterval``).
    private func isFullSearch(_ frame: Int) -> Bool {
        guard let last = lastFullSearch, parameters.recoveryFrames > 0 else { return true }
        return fullSearchDue || frame - last >= fullSearchInterval(at: frame)
    }

    /// Frames between full-frame passes as of `frame`: longer while markers are followed.
    private func fullSearchInterval(at frame: Int) -> Int {
        instances.anyRecent(before: frame, within: parameters.recoveryFrames)
            ? parameters.fullSearchInterval : min(parameters.fullSearchInterval, parameters.idleSearchInterval)
    }

    /// How many frames ahead ``anticipate(_:)`` is worth calling: a full-frame pass's interval.
    public var framesWorthAnticipating: Int {
        parameters.recoveryFrames > 0 && !parameters.independentFrames ? parameters.fullSearchInterval : 0
    }

    /// Hands the tracker a frame it will observe later (decoded ahead): the whole-frame pass the
    /// schedule gives that frame (full, or coarse in between) starts now on another core, and
    /// ``observe(_:)`` takes its detections when the frame comes. The detections are those ``observe(_:)`` would have
    /// computed itself, so results are identical with or without anticipation; a pass the schedule
    /// then skips (a marker lost calls for one earlier) is dropped.
    public func anticipate(_ frame: Frame) {
        guard framesWorthAnticipating > 0, let last = lastFullSearch, frame.index > last else { return }
        if passesAhead == nil {
            // Detectors of their own: a detector keeps scratch memory and is not shared across threads.
            guard let detectors = try? families.map({ try MarkerDetector(dictionary: $0.detector.dictionary, parameters: $0.detection) })
            else { return }
            passesAhead = MarkerPassesAhead(detectors: detectors)
        }
        passesAhead!.hold(frame)
        startNextPassAhead()
    }

    /// Starts the passes ahead of the frames held, as the schedule stands after the last frame
    /// observed: a full-frame pass every interval from the last one, coarse ones in between.
    private func startNextPassAhead() {
        guard let passesAhead, let last = lastFullSearch, let observed = lastObserved else { return }
        let interval = fullSearchInterval(at: observed + 1)
        for index in passesAhead.heldFrames {
            if let kind = passKind(full: (index - last) % interval == 0) { passesAhead.start(index, kind) }
        }
    }

    /// The whole-frame pass a frame gets: full, coarse (``Parameters/coarseSearchDecimation``) or none.
    private func passKind(full: Bool) -> MarkerPass? {
        full ? .full : parameters.coarseSearchDecimation.map { .coarse(decimation: $0) }
    }

    /// The markers of `family` in `frame`, each with its instance: from a full-frame (or coarse)
    /// pass, then from a region around each recently seen instance that the pass missed; `lost`
    /// when one of those regions came back empty.
    private func search(_ family: Family, in frame: Frame, pass: MarkerPass?, passedAhead: [MarkerDetection]?) throws
        -> (found: [(key: MarkerInstances.Key, detection: MarkerDetection)], lost: Bool) {
        let detector = family.detector, name = detector.dictionary.name
        // One gray copy per frame for every call (each call would otherwise convert a colour frame).
        let image = try frame.gray()
        var detections = try passedAhead ?? pass.map { try $0.run(detector, on: image) } ?? []
        detections = detections.filter { d in family.sets.contains { $0.accepts(d.id) } }
        let assigned = instances.assign(detections, dictionary: name, frame: frame.index)
        for (key, isNew) in assigned where isNew && key.instance > 0 {
            // A further copy of an id starts unconfirmed, even under a number an earlier copy had:
            // look-alikes of a confirmed id must not inherit its trust.
            confirmed.remove(key.identifier)
            candidates[key.identifier] = nil
        }
        var found = Array(zip(assigned.map(\.key), detections)).map { (key: $0.0, detection: $0.1) }
        var lost = false
        if parameters.recoveryFrames > 0 {
            var taken = Set(found.map(\.key))
            var missing: [(key: MarkerInstances.Key, predicted: [SIMD2<Double>])] = []
            for key in instances.recent(in: name, before: frame.index, within: parameters.recoveryFrames) where !taken.contains(key) {
                let sighting = instances.sightings[key]!
                let predicted = sighting.predictedCorners(at: frame.index)
                // A confirmed marker is first followed by its picture from the predicted corners:
                // one template alignment costs a fraction of a candidate search of its upsampled
                // region, and ends in the same refinement. The region is searched when that fails.
                if let followed = try follow(key, from: predicted, with: detector, in: image, of: family) {
                    found.append((key, followed))
                    taken.insert(key)
                    continue
                }
                let xs = predicted.map(\.x), ys = predicted.map(\.y)
                let side = sighting.side
                let pad = 0.5 * side + 8 + 2 * length(sighting.velocity)
                let region = (x: Int((xs.min()! - pad).rounded(.down)), y: Int((ys.min()! - pad).rounded(.down)),
                              width: Int((xs.max()! - xs.min()! + 2 * pad).rounded(.up)),
                              height: Int((ys.max()! - ys.min()! + 2 * pad).rounded(.up)))
                let scale = min(8, max(0.125, parameters.regionSidePixels / max(side, 1)))
                // Not a marker already placed: two instances side by side share a region.
                let best = try detector.detect(in: image, region: region, scale: scale)
                    .filter { d in d.id == key.id && !found.contains { $0.detection.id == d.id && length(MarkerInstances.centre(of: d.corners) - MarkerInstances.centre(of: $0.detection.corners)) < 0.5 * side } }
                    .compactMap { d in instances.gateDistance(of: d.corners, to: key, at: frame.index).map { (d, $0) } }
                    .min { $0.1 < $1.1 }
                if let (d, _) = best {
                    found.append((key, d))
                    taken.insert(key)
                } else {
                    missing.append((key, predicted))
                }
            }
            // The markers found show how this frame departs from the constant-velocity prediction
            // (the camera shook): the ones missed are followed from a prediction shifted alike.
            let shift = predictionShift(of: found, at: frame.index)
            // A region that came back empty still calls for a full-frame pass next: where one marker
            // is too blurred to detect, others may be, and a full pass also finds newcomers.
            lost = !missing.isEmpty
            for (key, predicted) in missing {
                if let followed = try follow(key, from: predicted.map { $0 + shift }, with: detector, in: image, of: family) {
                    found.append((key, followed))
                }
            }
        }
        for f in found { instances.record(f.key, corners: f.detection.corners, frame: frame.index) }
        return (found, lost)
    }

    /// The median displacement of the markers `found` in this frame from their predicted positions,
    /// pixels (zero when none was seen before).
    private func predictionShift(of found: [(key: MarkerInstances.Key, detection: MarkerDetection)], at frame: Int) -> SIMD2<Double> {
        let shifts = found.compactMap { f in
            instances.sightings[f.key].map { MarkerInstances.centre(of: f.detection.corners) - MarkerInstances.centre(of: $0.predictedCorners(at: frame)) }
        }
        guard !shifts.isEmpty else { return .zero }
        func median(_ v: [Double]) -> Double {
            let s = v.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : 0.5 * (s[s.count / 2 - 1] + s[s.count / 2])
        }
        return SIMD2(median(shifts.map(\.x)), median(shifts.map(\.y)))
    }

    /// Marker `key` followed from its predicted corners (see ``Parameters/followingCorrelation``):
    /// only a confirmed marker, or one of a set that lists its ids, so that a look-alike seen once
    /// is not carried into confirmation.
    private func follow(_ key: MarkerInstances.Key, from predicted: [SIMD2<Double>], with detector: MarkerDetector,
                        in image: Image, of family: Family) throws -> MarkerDetection? {
        guard let threshold = parameters.followingCorrelation else { return nil }
        guard family.lists(key.id) || confirmed.contains(key.identifier) else { return nil }
        guard let (corners, correlation) = try detector.follow(id: key.id, from: predicted, in: image) else { return nil }
        return correlation >= threshold ? MarkerDetection(id: key.id, corners: corners) : nil
    }

    /// Counts consecutive detections of a not-yet-reported id; true once it has enough. With
    /// template refinement and ``Parameters/confirmationCorrelation``, a detection whose ideal
    /// picture did not align (or correlates less) does not count.
    private func isConfirmed(_ identifier: String, correlation: Double?, frame: Int) -> Bool {
        if confirmed.contains(identifier) { return true }
        if verifiesByTemplate, let least = parameters.confirmationCorrelation, !((correlation ?? -1) >= least) {
            candidates[identifier] = nil
            return false
        }
        let previous = candidates[identifier]
        let count = previous.map { $0.frame == frame - 1 ? $0.count + 1 : 1 } ?? 1
        candidates[identifier] = (count, frame)
        guard count >= parameters.confirmationFrames else { return false }
        confirmed.insert(identifier)
        candidates[identifier] = nil
        return true
    }

    /// The pose of each marker in this frame (see the type's documentation), and whether the frame
    /// alone decides between its two hypotheses: decisive markers first, whose normals then guide
    /// the others; with filtering, through each marker's ``PlanarPoseTrack``.
    private func resolve(_ hypotheses: [[PoseHypothesis]], side: Double, identifiers: [String],
                         frame: Frame) -> [(pose: Transform, decisive: Bool)?] {
        let decisive = hypotheses.map { h in
            h.count == 1 || (h.count > 1 && isDecisive(h[0].reprojectionError, h[1].reprojectionError))
        }
        // Markers of one scene usually share an orientation: the decisive ones' mean normal.
        let normal = hypotheses.indices.filter { decisive[$0] && !hypotheses[$0].isEmpty }
            .map { hypotheses[$0][0].cameraFromAnchor.rotation.columns.1 }
            .reduce(SIMD3<Double>.zero, +)
        func agreement(_ h: PoseHypothesis) -> Double { dot(h.cameraFromAnchor.rotation.columns.1, normal) }
        let corners = TargetConvention.corners(width: side, height: side)

        return hypotheses.indices.map { i -> (pose: Transform, decisive: Bool)? in
            let h = hypotheses[i]
            guard !h.isEmpty else { return nil }
            let measurements = PlanarPoseTrack.measurements(of: h, targetPoints: corners, camera: camera, sigma: cornerSigma)
            guard let settings = parameters.filter, measurements.count == h.count else {
                // No filtering: each frame on its own.
                if decisive[i] || normal == .zero { return (h[0].cameraFromAnchor, decisive[i]) }
                return (h.max { agreement($0) < agreement($1) }!.cameraFromAnchor, false)
            }
            // A weak prior toward the decisive markers' orientation, for a new track.
            let prior: [Double] = normal == .zero || h.count < 2 ? [0, 0] : (agreement(h[0]) >= agreement(h[1]) ? [0, 2] : [2, 0])
            let track = PlanarPoseTrack.advancing(tracks[identifiers[i]], with: measurements, prior: prior, sigma: cornerSigma,
                                                  time: frame.time, frame: frame.index, memoryFrames: parameters.memoryFrames,
                                                  settings: settings)
            tracks[identifiers[i]] = track
            return (track.pose, decisive[i] && (track.pose.rotation.transposed * h[0].cameraFromAnchor.rotation).rotationAngle < 0.03)
        }
    }

    /// The likelihood-ratio test of the type's documentation (errors are RMS over 8 residuals).
    private func isDecisive(_ best: Double, _ second: Double) -> Bool {
        8 * (second * second - best * best) > parameters.decisiveChiSquare * cornerSigma * cornerSigma
    }
}
