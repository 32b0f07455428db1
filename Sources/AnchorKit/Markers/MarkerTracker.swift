/// Tracks printed square markers (ArUco and AprilTag families) with metric 6-DoF poses.
///
/// Per frame: one detection pass per dictionary, sub-pixel corners, and both IPPE_SQUARE pose
/// hypotheses per marker. The planar two-fold ambiguity is resolved by the reprojection-error
/// ratio when it is decisive; otherwise by temporal consistency (the hypothesis nearest, in
/// Mahalanobis distance, to the pose the marker's filter predicts), then by agreement with the
/// unambiguous markers of the same frame, and last by the smaller error. Each marker's pose is
/// then blended over time by a ``PoseFilter`` weighted by the measurement's own covariance
/// (switch off with `parameters.filter = nil`); the reported corners are the detected ones.
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
        /// Noise of detected corners, pixels (the floor of the per-marker estimate).
        public var cornerSigma = 0.3
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
    /// Per marker: the last frame it was seen in and its pose filter.
    private var tracks: [String: (frame: Int, filter: PoseFilter)] = [:]
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
            guard set.size.isFinite, set.size > 0 else { throw MarkerError("marker size must be positive metres, got \(set.size)") }
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
                let hypotheses = try SquarePoseSolver.solve(corners: group.map(\.corners), side: size, camera: camera)
                let identifiers = group.map { "marker/\(family.detector.dictionary.name)/\($0.id)" }
                let measured = hypotheses.map { h in
                    h.map { ($0, PoseUncertainty.covariance(
                        of: $0.cameraFromAnchor, points: TargetConvention.corners(width: size, height: size), camera: camera,
                        pixelSigma: max(parameters.cornerSigma, $0.reprojectionError))) }
                }
                let chosen = resolveAmbiguity(measured, identifiers: identifiers, frame: frame)
                for (i, d) in group.enumerated() {
                    guard let (measurement, covariance) = chosen[i] else { continue }
                    let trusted = family.sets.first { $0.accepts(d.id) }?.ids != nil
                    guard trusted || isConfirmed(identifiers[i], frame: frame.index) else { continue }
                    let pose = filtered(identifiers[i], measurement, covariance, frame: frame)
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

    /// The filter of a marker seen recently enough to predict it.
    private func liveFilter(_ identifier: String, frame: Int) -> PoseFilter? {
        guard let track = tracks[identifier], frame - track.frame <= parameters.memoryFrames else { return nil }
        return track.filter
    }

    /// Blends a measurement into the marker's filter and returns the pose to report.
    private func filtered(_ identifier: String, _ measurement: Transform, _ covariance: DenseMatrix?, frame: Frame) -> Transform {
        guard let settings = parameters.filter, let covariance else {
            tracks[identifier] = nil
            return measurement
        }
        if var filter = liveFilter(identifier, frame: frame.index) {
            let pose = filter.update(measurement, covariance: covariance, at: frame.time)
            tracks[identifier] = (frame.index, filter)
            return pose
        }
        tracks[identifier] = (frame.index, PoseFilter(pose: measurement, covariance: covariance, time: frame.time, parameters: settings))
        return measurement
    }

    typealias Measurement = (hypothesis: PoseHypothesis, covariance: DenseMatrix?)

    /// Picks one hypothesis per marker (see the type's documentation).
    private func resolveAmbiguity(_ hypotheses: [[Measurement]], identifiers: [String], frame: Frame) -> [(Transform, DenseMatrix?)?] {
        var chosen = [(Transform, DenseMatrix?)?](repeating: nil, count: hypotheses.count)
        var undecided: [Int] = []
        for (i, h) in hypotheses.enumerated() {
            guard let best = h.first else { continue }
            if h.count == 1 || isDecisive(best.hypothesis.reprojectionError, h[1].hypothesis.reprojectionError) {
                chosen[i] = (best.hypothesis.cameraFromAnchor, best.covariance)
            } else if let filter = liveFilter(identifiers[i], frame: frame.index) {
                let nearest = h.min { a, b in
                    distance(filter, a, frame.time) < distance(filter, b, frame.time)
                }!
                chosen[i] = (nearest.hypothesis.cameraFromAnchor, nearest.covariance)
            } else {
                undecided.append(i)
            }
        }
        // Markers of one scene usually share an orientation: follow the decided ones' normals.
        let normals = chosen.compactMap { $0.map { $0.0.rotation.columns.1 } }
        for i in undecided {
            let h = hypotheses[i]
            var pick = h[0]
            if !normals.isEmpty {
                let mean = normals.reduce(SIMD3<Double>.zero, +)
                pick = h.max { dot($0.hypothesis.cameraFromAnchor.rotation.columns.1, mean) < dot($1.hypothesis.cameraFromAnchor.rotation.columns.1, mean) }!
            }
            chosen[i] = (pick.hypothesis.cameraFromAnchor, pick.covariance)
        }
        return chosen
    }

    /// The likelihood-ratio test of the type's documentation (errors are RMS over 8 residuals).
    private func isDecisive(_ best: Double, _ second: Double) -> Bool {
        8 * (second * second - best * best) > parameters.decisiveChiSquare * parameters.cornerSigma * parameters.cornerSigma
    }

    private func distance(_ filter: PoseFilter, _ m: Measurement, _ time: Double) -> Double {
        guard let c = m.covariance else { return angleBetween(filter.predicted(at: time), m.hypothesis.cameraFromAnchor) }
        return filter.distance(of: m.hypothesis.cameraFromAnchor, covariance: c, at: time)
    }

    private func angleBetween(_ a: Transform, _ b: Transform) -> Double {
        (a.rotation.transposed * b.rotation).rotationAngle
    }
}
