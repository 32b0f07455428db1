/// Tracks QR codes (and Micro QR, Data Matrix, Aztec codes) with their payloads and metric 6-DoF
/// poses.
///
/// Every frame is read whole (``CodeReader``: zxing-cpp, QR corners refined from the finder
/// patterns). A code read before but not in this frame (blurred, partly hidden, too oblique to
/// decode) is followed for ``Parameters/recoveryFrames`` frames from its predicted corners: its
/// finder patterns' corners are refined from there, and the result kept when the finder patterns
/// look like finder patterns (``Parameters/followingCorrelation``). Several codes may hold the
/// same payload: each is an instance (anchor ids `qr/<digest>/<instance>` after the first), told
/// apart by where it was last seen. The pose comes from the corners and the printed size
/// (``QRCodeSet``), both IPPE hypotheses followed over time as for markers.
public final class QRCodeTracker: AnchorTracker {
    /// Tuning of reading and following.
    public struct Parameters: Sendable {
        /// How codes are read.
        public var reading = CodeReader.Parameters()
        /// A QR code read within this many frames is followed where it is not read (0: never).
        public var recoveryFrames = 8
        /// A followed code is kept when its finder patterns correlate with their ideal picture at
        /// least this much (Pearson, -1...1).
        public var followingCorrelation = 0.75
        /// Noise of the corners, pixels, for the pose's covariance.
        public var cornerSigma = 0.3
        /// A code's previous pose guides the choice between its two pose hypotheses for this many frames.
        public var memoryFrames = 15
        /// Temporal pose filter; nil reports each frame's own estimate.
        public var filter: PoseFilter.Parameters? = PoseFilter.Parameters()
        /// Every frame on its own (still photos): state is cleared before each.
        public var independentFrames = false
        public init() {}

        /// The naive baseline benchmarks compare against: zxing's own corners read in every frame,
        /// nothing followed or filtered.
        public static var readEveryFrame: Parameters {
            var p = Parameters()
            p.reading.refinesQRCorners = false
            p.recoveryFrames = 0
            p.filter = nil
            return p
        }

        /// These parameters for still photos: nothing carried between frames.
        public func forStills() -> Parameters {
            var p = self
            p.recoveryFrames = 0
            p.filter = nil
            p.independentFrames = true
            return p
        }
    }

    /// One physical code: its payload, which instance of that payload it is, and where it was seen.
    private struct Instance {
        let payload: CodePayload
        let number: Int
        let format: CodeFormat
        var modules: Int?
        var corners: [SIMD2<Double>]
        var frame: Int
        /// The sighting before, for the velocity (nil after a gap).
        var previous: (corners: [SIMD2<Double>], frame: Int)?

        var identifier: String { Anchor.qrIdentifier(payload: payload, instance: number) }
        var side: Double { (0..<4).map { length(corners[$0] - corners[($0 + 1) % 4]) }.reduce(0, +) / 4 }

        /// Corners expected in `frame`, at constant velocity from the last two sightings.
        func predictedCorners(at frame: Int) -> [SIMD2<Double>] {
            guard let previous, self.frame > previous.frame else { return corners }
            let steps = Double(frame - self.frame) / Double(self.frame - previous.frame)
            return corners.indices.map { corners[$0] + (corners[$0] - previous.corners[$0]) * steps }
        }
    }

    private let reader: CodeReader
    private let codes: QRCodeSet
    private let camera: CameraIntrinsics
    private let parameters: Parameters
    private var instances: [Instance] = []
    private var tracks: [String: PlanarPoseTrack] = [:]
    /// Time spent reading, following and solving poses, and the reader's stages.
    package var profile: StageProfile { ownProfile.merged(with: reader.profile) }
    private var ownProfile = StageProfile()

    /// A tracker of `codes`, seen by a camera with `camera` intrinsics.
    public init(codes: QRCodeSet, camera: CameraIntrinsics, parameters: Parameters = Parameters()) throws {
        if let problem = codes.sizeProblem() { throw MarkerError(problem) }
        reader = try CodeReader(parameters: parameters.reading)
        self.codes = codes
        self.camera = camera
        self.parameters = parameters
    }

    /// Payloads read so far that no size in the ``QRCodeSet`` covers (so never reported), in the
    /// order they were first read.
    public private(set) var payloadsWithoutSize: [CodePayload] = []

    public func observe(_ frame: Frame) throws -> [TargetObservation] {
        let start = StageProfile.now()
        defer { ownProfile.add(.codes, since: start) }
        if parameters.independentFrames { instances.removeAll(); tracks.removeAll() }
        let image = try frame.gray()
        var sized: [(detection: CodeDetection, payload: CodePayload, size: Double)] = []
        for d in try reader.read(image) {
            guard let payload = d.payload else { continue }
            guard let size = codes.size(for: payload) else {
                if !payloadsWithoutSize.contains(payload) { payloadsWithoutSize.append(payload) }
                continue
            }
            sized.append((d, payload, size))
        }
        var seen: [(instance: Int, corners: [SIMD2<Double>], size: Double)] = []
        var taken = Set<Int>()
        for (d, payload, size) in sized {
            let i = assign(d, payload: payload, frame: frame.index, taken: taken)
            taken.insert(i)
            record(i, corners: d.corners, modules: d.modules, frame: frame.index)
            seen.append((i, d.corners, size))
        }
        if parameters.recoveryFrames > 0 {
            for i in instances.indices where !taken.contains(i) && frame.index - instances[i].frame <= parameters.recoveryFrames {
                guard let modules = instances[i].modules, let size = codes.size(for: instances[i].payload) else { continue }
                let predicted = instances[i].predictedCorners(at: frame.index)
                guard let (corners, correlation) = try reader.followQRCode(instances[i].payload, from: predicted, in: image),
                      correlation >= parameters.followingCorrelation else { continue }
                record(i, corners: corners, modules: modules, frame: frame.index)
                seen.append((i, corners, size))
            }
        }
        return try poses(of: seen, frame: frame).sorted { $0.identifier < $1.identifier }
    }

    /// The instance a code read in `frame` is: among those holding its payload and not yet taken in
    /// this frame, the one last seen nearest its place (within a few sides, allowing for its
    /// motion), else one not seen lately (the code moved while out of view), else a new one.
    private func assign(_ d: CodeDetection, payload: CodePayload, frame: Int, taken: Set<Int>) -> Int {
        let centre = d.corners.reduce(.zero, +) / 4
        let recentSince = frame - max(1, parameters.recoveryFrames)
        let mine = instances.indices.filter { instances[$0].payload == payload && !taken.contains($0) }
        // Recent instances within reach (the nearest), then stale ones (the lowest number).
        let near = mine.filter { instances[$0].frame >= recentSince }.map { i -> (Int, Double) in
            let predicted: SIMD2<Double> = instances[i].predictedCorners(at: frame).reduce(.zero, +) / 4
            return (i, length(predicted - centre))
        }.filter { $0.1 < 3 * instances[$0.0].side + 20 }
        if let best = near.min(by: { $0.1 < $1.1 }) { return best.0 }
        if let stale = mine.filter({ instances[$0].frame < recentSince }).min(by: { instances[$0].number < instances[$1].number }) {
            instances[stale].previous = nil
            return stale
        }
        let number = (instances.filter { $0.payload == payload }.map(\.number).max() ?? -1) + 1
        instances.append(Instance(payload: payload, number: number, format: d.format, modules: d.modules, corners: d.corners,
                                  frame: frame, previous: nil))
        return instances.count - 1
    }

    private func record(_ i: Int, corners: [SIMD2<Double>], modules: Int?, frame: Int) {
        if instances[i].frame < frame {
            instances[i].previous = frame - instances[i].frame <= 2 ? (instances[i].corners, instances[i].frame) : nil
        }
        instances[i].corners = corners
        instances[i].frame = frame
        if let modules { instances[i].modules = modules }
    }

    /// Each code's pose from its corners and size: one batched solve per size, then each code's
    /// ``PlanarPoseTrack`` (or, without filtering, the better hypothesis).
    private func poses(of seen: [(instance: Int, corners: [SIMD2<Double>], size: Double)], frame: Frame) throws -> [TargetObservation] {
        var bySize: [Double: [(instance: Int, corners: [SIMD2<Double>])]] = [:]
        for s in seen { bySize[s.size, default: []].append((s.instance, s.corners)) }
        var observations: [TargetObservation] = []
        for (size, group) in bySize.sorted(by: { $0.key < $1.key }) {
            let hypotheses = try PlanarPoseSolver.solveSquares(corners: group.map(\.corners), side: size, camera: camera)
            let points = TargetConvention.corners(width: size, height: size)
            for (g, h) in zip(group, hypotheses) where !h.isEmpty {
                let instance = instances[g.instance]
                var pose = h[0].cameraFromAnchor
                if let settings = parameters.filter {
                    let measurements = PlanarPoseTrack.measurements(of: h, targetPoints: points, camera: camera, sigma: parameters.cornerSigma)
                    if !measurements.isEmpty {
                        let track = PlanarPoseTrack.advancing(tracks[instance.identifier], with: measurements, sigma: parameters.cornerSigma,
                                                              time: frame.time, frame: frame.index, memoryFrames: parameters.memoryFrames,
                                                              settings: settings)
                        tracks[instance.identifier] = track
                        pose = track.pose
                    }
                }
                observations.append(TargetObservation(
                    identifier: instance.identifier, kind: .qr, name: nil, instance: instance.number == 0 ? nil : instance.number,
                    cameraFromAnchor: pose, extent: SIMD2(size, size), corners: g.corners, payload: instance.payload,
                    codeFormat: instance.format == .qrCode ? nil : instance.format))
            }
        }
        return observations
    }
}
