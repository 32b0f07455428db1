import Foundation
import AnchorKit

/// Scores the camera trajectory and the world-locked anchors of a world-tracking stream against
/// ground truth: the absolute trajectory error (ATE) of TUM-RGBD-style benchmarks, after a
/// similarity alignment where the stream's scale is arbitrary and a rigid one where it is
/// metric, and how far anchors of static targets wander in the world.
public struct TrajectoryScorer {
    public init() {}

    /// Frames whose pose is an estimate (once tracking was first `normal`): `normal`, or
    /// `limited` for excessive motion or few features. Initialising and relocalising frames
    /// carry no new pose.
    static func hasPose(_ camera: CameraState) -> Bool {
        switch camera.trackingState {
        case .normal: return true
        case .limited(let reason): return reason == .excessiveMotion || reason == .insufficientFeatures
        case .notAvailable: return false
        }
    }

    /// The frames a stream's trajectory is scored on and their alignment to the truth.
    private struct Fitted {
        let truthByFrame: [Int: FrameUpdate]
        let ordered: [FrameUpdate], metric: [FrameUpdate], arbitrary: [FrameUpdate]
        /// The frames the ATE is over (the metric ones when there are 3 or more) and their fit.
        let scored: [FrameUpdate]
        let rms: Double, fit: SimilarityAlignment

        init?(reported: [FrameUpdate], truth: [FrameUpdate]) {
            guard reported.contains(where: { $0.camera.scale != nil }) else { return nil }
            let truthByFrame = Dictionary(truth.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
            let ordered = reported.sorted { $0.frame < $1.frame }
            // Metric frames are scored rigidly; if there are none, all posed frames with a similarity.
            // Before the first `normal` frame there is no map, whatever the reason given.
            let start = ordered.firstIndex { $0.camera.trackingState == .normal } ?? ordered.endIndex
            let posed = ordered[start...].filter { TrajectoryScorer.hasPose($0.camera) && truthByFrame[$0.frame] != nil }
            self.truthByFrame = truthByFrame
            self.ordered = ordered
            metric = posed.filter { $0.camera.scale == .metric }
            arbitrary = posed.filter { $0.camera.scale != .metric }
            scored = metric.count >= 3 ? metric : arbitrary
            guard let (rms, fit) = Self.ate(scored, truthByFrame, withScale: metric.count < 3) else { return nil }
            self.rms = rms
            self.fit = fit
        }

        /// The RMS position error of `lines` after the best rigid (or similarity) alignment, and the alignment.
        static func ate(_ lines: [FrameUpdate], _ truthByFrame: [Int: FrameUpdate], withScale: Bool) -> (rms: Double, fit: SimilarityAlignment)? {
            let estimate = lines.map(\.camera.transform.translation)
            let actual = lines.map { truthByFrame[$0.frame]!.camera.transform.translation }
            guard let fit = SimilarityAlignment.fit(source: estimate, target: actual, withScale: withScale) else { return nil }
            let squares = zip(estimate, actual).map { dot(fit.apply(to: $0) - $1, fit.apply(to: $0) - $1) }
            return ((squares.reduce(0, +) / Double(squares.count)).squareRoot(), fit)
        }
    }

    /// The scored frames' camera positions after the alignment ``score(reported:truth:)`` makes
    /// (in the truth's world, metres) beside the true ones: what a trajectory plot draws. Empty
    /// when the stream has no world tracking.
    public func alignedPositions(reported: [FrameUpdate], truth: [FrameUpdate]) -> [(frame: Int, estimate: SIMD3<Double>, truth: SIMD3<Double>)] {
        guard let f = Fitted(reported: reported, truth: truth) else { return [] }
        return f.scored.map { ($0.frame, f.fit.apply(to: $0.camera.transform.translation), f.truthByFrame[$0.frame]!.camera.transform.translation) }
    }

    /// The least distance, metres, the true camera must move from its mean position in metric
    /// frames for the metric scale error to be measured.
    static let leastSpreadForScale = 0.05

    /// The trajectory metrics of `reported` against `truth` (frames matched by index). Nil when
    /// the stream has no world tracking (no line states a scale) or fewer than 3 posed frames.
    public func score(reported: [FrameUpdate], truth: [FrameUpdate]) -> TrajectoryScore? {
        guard let fitted = Fitted(reported: reported, truth: truth) else { return nil }
        let (truthByFrame, ordered, metric, arbitrary, rms, fit) =
            (fitted.truthByFrame, fitted.ordered, fitted.metric, fitted.arbitrary, fitted.rms, fitted.fit)
        // Frames before the world became metric are in another unit: scored on their own.
        let before = metric.count >= 3 && arbitrary.count >= 3 ? Fitted.ate(arbitrary, truthByFrame, withScale: true)?.rms : nil
        // How far the metric unit is from metres: the scale a similarity would still apply. A
        // camera that barely moved (a tripod) has no scale to measure.
        let scaleError = metric.count >= 3 && Self.truthSpread(of: metric, truthByFrame) >= Self.leastSpreadForScale
            ? Fitted.ate(metric, truthByFrame, withScale: true).map { 100 * ($0.fit.scale - 1) } : nil
        let windows = metric.count >= 3 ? Self.scaleWindows(metric, truthByFrame, relativeTo: 1)
            : Self.scaleWindows(arbitrary, truthByFrame, relativeTo: fit.scale)
        let sortedTruth = truth.sorted { $0.frame < $1.frame }
        let path = zip(sortedTruth, sortedTruth.dropFirst())
            .map { length($1.camera.transform.translation - $0.camera.transform.translation) }.reduce(0, +)

        // Tracking state over time.
        let firstNormal = ordered.first { $0.camera.trackingState == .normal }
        var losses = 0, regains = 0, wasNormal = false, everNormal = false
        for line in ordered {
            let normal = line.camera.trackingState == .normal
            if wasNormal && !normal { losses += 1 }
            if !wasNormal && normal && everNormal { regains += 1 }
            everNormal = everNormal || normal
            wasNormal = normal
        }

        // World-locked anchors, metric frames: where each one is put relative to the real target,
        // as the camera sees it (the reported camera_from_anchor against the true one, turned
        // into the true world's axes). Its change over the walk is the drift: content on the
        // anchor sliding off the target; its size is the error. Neither depends on the alignment.
        var drift: [String: Double] = [:], anchorError: [String: Double] = [:]
        var firstOffset: [String: SIMD3<Double>] = [:]
        for line in metric {
            guard let gtLine = truthByFrame[line.frame] else { continue }
            // Each anchor against its own target: a marker id printed several times is matched
            // instance to instance (``AnchorMatching``), by where the camera sees them.
            let anchors = line.anchors.filter { $0.isTracked && $0.kind != .plane && $0.kind != .geo && $0.isPlaced != false }
            let targets = gtLine.anchors.filter { $0.kind != .plane && $0.kind != .geo }
            let pairs = AnchorMatching.pairs(reported: anchors, truth: targets) { a, gt in
                length(line.camera.cameraFrom(a.transform).translation - gtLine.camera.cameraFrom(gt.transform).translation)
            }
            for pair in pairs {
                let a = anchors[pair.reported], gt = targets[pair.truth]
                let reported = line.camera.cameraFrom(a.transform).translation
                let actual = gtLine.camera.cameraFrom(gt.transform).translation
                let offset = gtLine.camera.transform.rotation * (reported - actual)
                if let first = firstOffset[a.identifier] {
                    drift[a.identifier] = max(drift[a.identifier] ?? 0, length(offset - first))
                } else {
                    firstOffset[a.identifier] = offset
                    drift[a.identifier] = 0
                }
                anchorError[a.identifier] = max(anchorError[a.identifier] ?? 0, length(offset))
            }
        }
        let stated = Self.statedAccuracy(fitted)
        return TrajectoryScore(
            posedFrames: metric.count >= 3 ? metric.count : arbitrary.count, frames: reported.count,
            alignment: metric.count >= 3 ? .rigid : .similarity, alignmentScale: fit.scale,
            absoluteTrajectoryErrorRMS: rms, pathLength: path, absoluteTrajectoryErrorPercent: path > 0 ? 100 * rms / path : nil,
            arbitraryScaleFrames: metric.count >= 3 ? arbitrary.count : 0, arbitraryScaleErrorRMS: before,
            metricScaleErrorPercent: scaleError, scaleWindows: windows,
            timeToNormal: firstNormal?.time, frameOfFirstNormal: firstNormal?.frame, losses: losses, regains: regains,
            anchorDriftCentimetres: drift.mapValues { $0 * 100 }, anchorErrorCentimetres: anchorError.mapValues { $0 * 100 },
            statedAccuracy: stated)
    }

    /// How far the true camera of `lines` strays from its mean position at most, metres.
    static func truthSpread(of lines: [FrameUpdate], _ truthByFrame: [Int: FrameUpdate]) -> Double {
        let positions = lines.compactMap { truthByFrame[$0.frame]?.camera.transform.translation }
        let centre = positions.reduce(SIMD3<Double>.zero, +) / Double(max(1, positions.count))
        return positions.map { length($0 - centre) }.max() ?? 0
    }

    /// Seconds of stream time each of ``TrajectoryScore/scaleWindows`` spans.
    static let scaleWindowSeconds = 2.0

    /// The scale of `lines` window by window: consecutive ``scaleWindowSeconds`` from the first
    /// line, and again from each line whose world was rescaled (``CameraState/worldRescale``), each
    /// aligned to the truth by a similarity of its own, whose scale is given as
    /// 100 (s / `reference` - 1) %: with `reference` 1 on metric frames, how far the unit is from
    /// a metre there; with the whole stream's scale on arbitrary ones, how far the unit strays from
    /// its mean. An inertial scale refined during the stream changes the unit, which one
    /// similarity over all metric frames blends. Windows with under half their span of frames or
    /// a true camera that moved under ``leastSpreadForScale`` are left out.
    static func scaleWindows(_ lines: [FrameUpdate], _ truthByFrame: [Int: FrameUpdate], relativeTo reference: Double) -> [ScaleWindow] {
        guard var start = lines.first?.time, reference > 0 else { return [] }
        var windows: [[FrameUpdate]] = [[]]
        for line in lines {
            if line.camera.worldRescale != nil, !windows[windows.count - 1].isEmpty {
                start = line.time
                windows.append([])
            }
            let end = start + scaleWindowSeconds
            if line.time >= end {
                // Whole windows from the segment's start: a gap in the stream may skip some.
                start += scaleWindowSeconds * ((line.time - start) / scaleWindowSeconds).rounded(.down)
                windows.append([])
            }
            windows[windows.count - 1].append(line)
        }
        return windows.compactMap { window in
            guard window.count >= 3, let first = window.first, let last = window.last,
                  last.time - first.time >= scaleWindowSeconds / 2 else { return nil }
            guard truthSpread(of: window, truthByFrame) >= leastSpreadForScale,
                  let fit = Fitted.ate(window, truthByFrame, withScale: true)?.fit else { return nil }
            return ScaleWindow(startTime: first.time, endTime: last.time, errorPercent: 100 * (fit.scale / reference - 1))
        }
    }

    /// How the scored frames' stated position accuracy (``CameraState/positionAccuracy``, in
    /// ground-truth metres through the alignment's scale) compares with their error after the
    /// alignment: from one frame to the next, the error may change by 3 sigmas of the two
    /// frames' errors together (`3 √(σ₁² + σ₂²)`); each frame's error may be 3 of its own sigmas.
    /// Nil when no scored frame states one.
    private static func statedAccuracy(_ f: Fitted) -> StatedAccuracyScore? {
        let stated = f.scored.compactMap { line in
            line.camera.positionAccuracy.map { (frame: line.frame, sigma: $0 * f.fit.scale,
                                                error: f.fit.apply(to: line.camera.transform.translation)
                                                    - f.truthByFrame[line.frame]!.camera.transform.translation) }
        }
        guard !stated.isEmpty else { return nil }
        var jumps = 0, largest = 0.0
        for (a, b) in zip(stated, stated.dropFirst()) where b.frame == a.frame + 1 {
            let ratio = length(b.error - a.error) / max(1e-9, (a.sigma * a.sigma + b.sigma * b.sigma).squareRoot())
            if ratio > 3 { jumps += 1 }
            largest = max(largest, ratio)
        }
        let sigmas = stated.map(\.sigma).sorted()
        return StatedAccuracyScore(frames: stated.count, medianCentimetres: 100 * sigmas[sigmas.count / 2],
                                   jumpsBeyondThreeSigmas: jumps, largestJumpInSigmas: largest,
                                   withinThreeSigmasPercent: 100 * Double(stated.filter { length($0.error) <= 3 * $0.sigma }.count)
                                       / Double(stated.count))
    }
}

/// The stated position accuracy of a world-tracking stream against its errors.
public struct StatedAccuracyScore: Codable, Sendable {
    /// Scored frames that state an accuracy, and the median stated sigma, cm.
    public var frames: Int
    public var medianCentimetres: Double
    /// Consecutive frames whose error changed by more than 3 sigmas of the two (a jump beyond
    /// the stated uncertainty), and the largest change, in those sigmas.
    public var jumpsBeyondThreeSigmas: Int
    public var largestJumpInSigmas: Double
    /// Frames whose error is within 3 of their stated sigmas, percent.
    public var withinThreeSigmasPercent: Double
}

/// Trajectory and world-anchor metrics of one world-tracking stream.
public struct TrajectoryScore: Codable, Sendable {
    /// Frames whose pose was scored (the metric ones when there are any), of all frames.
    public var posedFrames: Int
    public var frames: Int
    /// How the stream's trajectory was aligned to the ground truth.
    public var alignment: TrajectoryAlignment
    /// The fitted scale (1 for rigid).
    public var alignmentScale: Double
    /// RMS of camera-position error after the alignment, metres (ground-truth units).
    public var absoluteTrajectoryErrorRMS: Double
    /// Length of the true camera path, metres, and the ATE as a percentage of it.
    public var pathLength: Double
    public var absoluteTrajectoryErrorPercent: Double?
    /// Where the world became metric during the stream: the frames before, in their own unit, and
    /// their ATE after a similarity alignment of their own (ground-truth metres).
    public var arbitraryScaleFrames: Int
    public var arbitraryScaleErrorRMS: Double?
    /// For metric streams: how far the world's unit is from a metre, percent (the scale of a
    /// similarity alignment of the metric frames, minus 1).
    public var metricScaleErrorPercent: Double?
    /// The scale window by window (``TrajectoryScorer/scaleWindows(_:_:relativeTo:)``): of the
    /// metric frames, each window's error against metres; of a stream that never became metric,
    /// each window's unit against the stream's whole.
    public var scaleWindows: [ScaleWindow]
    /// Seconds (stream time) and frame of the first `normal` tracking state.
    public var timeToNormal: Double?
    public var frameOfFirstNormal: Int?
    /// Times tracking fell from `normal`, and came back to it.
    public var losses: Int
    public var regains: Int
    /// Per static anchor, over metric frames where it is placed (not `"placed": false`), cm: its
    /// misplacement is the reported anchor's
    /// position relative to the camera minus the true one (in the true world's axes). Drift is
    /// the largest change of that misplacement from the first frame (how far content on the
    /// anchor slides across the real target), error its largest size.
    public var anchorDriftCentimetres: [String: Double]
    public var anchorErrorCentimetres: [String: Double]
    /// The stated position accuracy against the errors, when the stream states one.
    public var statedAccuracy: StatedAccuracyScore?

    /// Table rows, in the layout of ``Score/table``.
    public var rows: [(String, String)] {
        var rows = [
            ("posed frames", "\(posedFrames) of \(frames)"),
            ("trajectory alignment", alignment.rawValue + (alignment == .similarity ? " (scale \(tableCell(alignmentScale, 4)))" : "")),
            ("ATE RMS (m)", tableCell(absoluteTrajectoryErrorRMS, 4)),
            ("ATE (% of path)", tableCell(absoluteTrajectoryErrorPercent, 3) + " (path \(tableCell(pathLength, 2)) m)"),
            ("frames before metric, ATE (m)", "\(arbitraryScaleFrames), " + tableCell(arbitraryScaleErrorRMS, 4)),
            ("metric scale error (%)", tableCell(metricScaleErrorPercent, 2)),
            (alignment == .rigid ? "metric scale error per 2 s (%)" : "scale change per 2 s (%)", scaleWindowsCell),
            ("time to normal (s)", tableCell(timeToNormal, 2) + (frameOfFirstNormal.map { " (frame \($0))" } ?? "")),
            ("tracking lost / regained", "\(losses) / \(regains)"),
        ]
        if let stated = statedAccuracy {
            rows += [
                ("stated accuracy: frames, median (cm)", "\(stated.frames), " + tableCell(stated.medianCentimetres, 2)),
                ("jumps beyond 3 stated sigmas", "\(stated.jumpsBeyondThreeSigmas) (largest " + tableCell(stated.largestJumpInSigmas, 2) + " sigmas)"),
                ("error within 3 stated sigmas (%)", tableCell(stated.withinThreeSigmasPercent, 1)),
            ]
        }
        for id in anchorDriftCentimetres.keys.sorted() {
            rows.append(("drift \(id) (cm)", tableCell(anchorDriftCentimetres[id], 2) + " (error " + tableCell(anchorErrorCentimetres[id], 2) + ")"))
        }
        return rows
    }
}

extension TrajectoryScore {
    /// Each window's figure and span, and the largest in size: "+5.61 (5.13-7.10 s), ...; largest +5.61".
    var scaleWindowsCell: String {
        guard let largest = scaleWindows.max(by: { abs($0.errorPercent) < abs($1.errorPercent) }) else { return "-" }
        func signed(_ x: Double) -> String { String(format: "%+.2f", x) }
        return scaleWindows.map { "\(signed($0.errorPercent)) (\(tableCell($0.startTime))-\(tableCell($0.endTime)) s)" }
            .joined(separator: ", ") + "; largest \(signed(largest.errorPercent))"
    }
}

/// One window of ``TrajectoryScore/scaleWindows``: its first and last frames' times (s) and
/// its scale figure (%).
public struct ScaleWindow: Codable, Sendable, Equatable {
    public var startTime: Double
    public var endTime: Double
    public var errorPercent: Double
}

/// How a trajectory is aligned to its ground truth before its error is measured.
public enum TrajectoryAlignment: String, Codable, Sendable {
    /// Scale, rotation and translation fitted: the stream's scale is arbitrary.
    case similarity
    /// Rotation and translation fitted: the stream is metric.
    case rigid
}
