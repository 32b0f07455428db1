/// Tracks printed square markers (ArUco and AprilTag families) with metric 6-DoF poses.
///
/// Per frame: one detection pass per dictionary (plus an upsampled search around recently seen
/// markers that the pass missed), refined corners, and both IPPE_SQUARE pose hypotheses per
/// marker. A likelihood-ratio test on the two hypotheses' reprojection errors says when a frame
/// is decisive; each marker's ``PlanarPoseTrack`` follows both hypotheses over time, weighted by
/// their covariances, and reports the one the evidence favours (with a weak prior toward the
/// orientation of the frame's decisive markers). With `parameters.filter = nil` each frame
/// stands alone. The reported corners are the detected ones.
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
        /// Noise of detected corners, pixels (the floor of the per-marker estimate); nil takes
        /// the noise measured for the corner refinement in use (``MarkerTracker/cornerNoise(for:)``).
        public var cornerSigma: Double?
        /// A marker seen within this many frames but missed by the full-frame pass is searched for
        /// again around its last corners, upsampled so that it is at least
        /// `recoverySidePixels` wide (small, distant markers drop out of single passes now and
        /// then). 0 disables the search.
        public var recoveryFrames = 3
        public var recoverySidePixels = 48.0
        /// Temporal pose filter; nil reports each frame's own estimate.
        public var filter: PoseFilter.Parameters? = PoseFilter.Parameters()
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
            return p
        }
    }

    private struct Family {
        let detector: MarkerDetector
        let sets: [MarkerSet]
    }

    private let families: [Family]
    private let camera: CameraIntrinsics
    private let parameters: Parameters
    /// The corner noise in use, pixels.
    private let cornerSigma: Double
    /// Per marker: its pose track (the filters of its live hypotheses).
    private var tracks: [String: PlanarPoseTrack] = [:]
    /// Per marker: the last frame it was seen in and its corners there.
    private var lastSeen: [String: (frame: Int, id: Int, corners: [SIMD2<Double>])] = [:]
    /// Ids detected but not yet confirmed: consecutive detections so far and the last frame.
    private var candidates: [String: (count: Int, frame: Int)] = [:]
    private var confirmed = Set<String>()

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
            return Family(detector: try MarkerDetector(dictionary: dictionary, parameters: detection), sets: byDictionary[name]!)
        }
        self.camera = camera
        self.parameters = parameters
        cornerSigma = parameters.cornerSigma ?? Self.cornerNoise(for: detection.cornerRefinement)
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
        var observations: [TargetObservation] = []
        for family in families {
            var detections = try family.detector.detect(in: frame.image)
            detections += try recover(missing: detections, family: family, frame: frame)
            // Group by physical size: one batched pose call per size.
            var bySize: [Double: [MarkerDetection]] = [:]
            for d in detections {
                guard let set = family.sets.first(where: { $0.accepts(d.id) }) else { continue }
                bySize[set.size, default: []].append(d)
            }
            for (size, group) in bySize.sorted(by: { $0.key < $1.key }) {
                let hypotheses = try PlanarPoseSolver.solveSquares(corners: group.map(\.corners), side: size, camera: camera)
                let identifiers = group.map { "marker/\(family.detector.dictionary.name)/\($0.id)" }
                let poses = resolve(hypotheses, side: size, identifiers: identifiers, frame: frame)
                for (i, d) in group.enumerated() {
                    guard let pose = poses[i] else { continue }
                    let trusted = family.sets.first { $0.accepts(d.id) }?.ids != nil
                    guard trusted || isConfirmed(identifiers[i], frame: frame.index) else { continue }
                    lastSeen[identifiers[i]] = (frame.index, d.id, d.corners)
                    observations.append(TargetObservation(
                        identifier: identifiers[i], kind: .marker, name: String(d.id), cameraFromAnchor: pose,
                        extent: SIMD2(size, size), corners: d.corners))
                }
            }
        }
        return observations.sorted { $0.identifier < $1.identifier }
    }

    /// Searches again, in an upsampled region around its last corners, for each recently seen
    /// marker of `family` that the full-frame pass missed.
    private func recover(missing detections: [MarkerDetection], family: Family, frame: Frame) throws -> [MarkerDetection] {
        guard parameters.recoveryFrames > 0 else { return [] }
        let prefix = "marker/\(family.detector.dictionary.name)/"
        let found = Set(detections.map(\.id))
        var recovered: [MarkerDetection] = []
        for (identifier, seen) in lastSeen.sorted(by: { $0.key < $1.key })
        where identifier.hasPrefix(prefix) && !found.contains(seen.id) && frame.index - seen.frame <= parameters.recoveryFrames {
            let xs = seen.corners.map(\.x), ys = seen.corners.map(\.y)
            let side = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
            let pad = 0.5 * side + 8
            let region = (x: Int((xs.min()! - pad).rounded(.down)), y: Int((ys.min()! - pad).rounded(.down)),
                          width: Int((side + 2 * pad).rounded(.up)), height: Int((side + 2 * pad).rounded(.up)))
            let scale = min(8, max(1, parameters.recoverySidePixels / max(side, 1)))
            recovered += try family.detector.detect(in: frame.image, region: region, scale: scale).filter { $0.id == seen.id }.prefix(1)
        }
        return recovered
    }

    /// Counts consecutive detections of a not-yet-reported id; true once it has enough.
    private func isConfirmed(_ identifier: String, frame: Int) -> Bool {
        if confirmed.contains(identifier) { return true }
        let previous = candidates[identifier]
        let count = previous.map { $0.frame == frame - 1 ? $0.count + 1 : 1 } ?? 1
        candidates[identifier] = (count, frame)
        guard count >= parameters.confirmationFrames else { return false }
        confirmed.insert(identifier)
        candidates[identifier] = nil
        return true
    }

    /// The pose of each marker in this frame (see the type's documentation): decisive markers
    /// first, whose normals then guide the others; with filtering, through each marker's
    /// ``PlanarPoseTrack``.
    private func resolve(_ hypotheses: [[PoseHypothesis]], side: Double, identifiers: [String], frame: Frame) -> [Transform?] {
        let decisive = hypotheses.map { h in
            h.count == 1 || (h.count > 1 && isDecisive(h[0].reprojectionError, h[1].reprojectionError))
        }
        // Markers of one scene usually share an orientation: the decisive ones' mean normal.
        let normal = hypotheses.indices.filter { decisive[$0] && !hypotheses[$0].isEmpty }
            .map { hypotheses[$0][0].cameraFromAnchor.rotation.columns.1 }
            .reduce(SIMD3<Double>.zero, +)
        func agreement(_ h: PoseHypothesis) -> Double { dot(h.cameraFromAnchor.rotation.columns.1, normal) }
        let corners = TargetConvention.corners(width: side, height: side)

        return hypotheses.indices.map { i -> Transform? in
            let h = hypotheses[i]
            guard !h.isEmpty else { return nil }
            let measurements = PlanarPoseTrack.measurements(of: h, targetPoints: corners, camera: camera, sigma: cornerSigma)
            guard let settings = parameters.filter, measurements.count == h.count else {
                // No filtering: each frame on its own.
                if decisive[i] || normal == .zero { return h[0].cameraFromAnchor }
                return h.max { agreement($0) < agreement($1) }!.cameraFromAnchor
            }
            // A weak prior toward the decisive markers' orientation, for a new track.
            let prior: [Double] = normal == .zero || h.count < 2 ? [0, 0] : (agreement(h[0]) >= agreement(h[1]) ? [0, 2] : [2, 0])
            let track = PlanarPoseTrack.advancing(tracks[identifiers[i]], with: measurements, prior: prior, sigma: cornerSigma,
                                                  time: frame.time, frame: frame.index, memoryFrames: parameters.memoryFrames,
                                                  settings: settings)
            tracks[identifiers[i]] = track
            return track.pose
        }
    }

    /// The likelihood-ratio test of the type's documentation (errors are RMS over 8 residuals).
    private func isDecisive(_ best: Double, _ second: Double) -> Bool {
        8 * (second * second - best * best) > parameters.decisiveChiSquare * cornerSigma * cornerSigma
    }
}
