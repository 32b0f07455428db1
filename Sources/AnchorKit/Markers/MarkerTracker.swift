/// Tracks printed square markers (ArUco and AprilTag families) with metric 6-DoF poses.
///
/// Per frame: one detection pass per dictionary, sub-pixel corners, and both IPPE_SQUARE pose
/// hypotheses per marker. The planar two-fold ambiguity is resolved by the reprojection-error
/// ratio when it is decisive; otherwise by temporal consistency (the hypothesis closest in
/// rotation to the marker's recent pose), then by agreement with the unambiguous markers of the
/// same frame, and last by the smaller error.
public final class MarkerTracker: AnchorTracker {
    /// Tuning of the ambiguity resolution.
    public struct Parameters: Sendable {
        /// The second hypothesis is rejected outright when its error is this many times the
        /// first's.
        public var decisiveErrorRatio = 2.0
        /// A marker's previous pose guides the choice for this many frames.
        public var memoryFrames = 15
        public init() {}
    }

    private struct Family {
        let detector: MarkerDetector
        let sets: [MarkerSet]
    }

    private let families: [Family]
    private let camera: CameraIntrinsics
    private let parameters: Parameters
    private var recent: [String: (frame: Int, pose: Transform)] = [:]

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
            let dictionary = try MarkerDictionary(named: name)
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
            let detections = try family.detector.detect(in: frame.image)
            // Group by physical size: one batched pose call per size.
            var bySize: [Double: [MarkerDetection]] = [:]
            for d in detections {
                guard let set = family.sets.first(where: { $0.accepts(d.id) }) else { continue }
                bySize[set.size, default: []].append(d)
            }
            for (size, group) in bySize.sorted(by: { $0.key < $1.key }) {
                let hypotheses = try SquarePoseSolver.solve(corners: group.map(\.corners), side: size, camera: camera)
                let identifiers = group.map { "marker/\(family.detector.dictionary.name)/\($0.id)" }
                let chosen = resolveAmbiguity(hypotheses, identifiers: identifiers, frame: frame.index)
                for (i, d) in group.enumerated() {
                    guard let pose = chosen[i] else { continue }
                    recent[identifiers[i]] = (frame.index, pose)
                    observations.append(TargetObservation(
                        identifier: identifiers[i], kind: .marker, name: String(d.id), cameraFromAnchor: pose,
                        extent: SIMD2(size, size), corners: d.corners))
                }
            }
        }
        return observations.sorted { $0.identifier < $1.identifier }
    }

    /// Picks one hypothesis per marker (see the type's documentation).
    private func resolveAmbiguity(_ hypotheses: [[PoseHypothesis]], identifiers: [String], frame: Int) -> [Transform?] {
        var chosen = [Transform?](repeating: nil, count: hypotheses.count)
        var undecided: [Int] = []
        for (i, h) in hypotheses.enumerated() {
            guard let best = h.first else { continue }
            if h.count == 1 || h[1].reprojectionError > parameters.decisiveErrorRatio * max(best.reprojectionError, 1e-3) {
                chosen[i] = best.cameraFromAnchor
            } else if let prior = recent[identifiers[i]], frame - prior.frame <= parameters.memoryFrames {
                chosen[i] = h.min { angleBetween($0.cameraFromAnchor, prior.pose) < angleBetween($1.cameraFromAnchor, prior.pose) }!.cameraFromAnchor
            } else {
                undecided.append(i)
            }
        }
        // Markers of one scene usually share an orientation: follow the decided ones' normals.
        let normals = chosen.compactMap { $0.map { $0.rotation.columns.1 } }
        for i in undecided {
            let h = hypotheses[i]
            if normals.isEmpty {
                chosen[i] = h[0].cameraFromAnchor
            } else {
                let mean = normals.reduce(SIMD3<Double>.zero, +)
                chosen[i] = h.max { dot($0.cameraFromAnchor.rotation.columns.1, mean) < dot($1.cameraFromAnchor.rotation.columns.1, mean) }!.cameraFromAnchor
            }
        }
        return chosen
    }

    private func angleBetween(_ a: Transform, _ b: Transform) -> Double {
        (a.rotation.transposed * b.rotation).rotationAngle
    }
}
