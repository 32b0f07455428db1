import Foundation
import AnchorKit

/// Scores an anchor stream against ground truth with the metrics of ../shared/FORMATS.md.
public struct Scorer {
    /// The camera that took the frames (to project anchors that report no corners).
    public var camera: CameraIntrinsics
    /// Corner error beyond which a reported anchor is a false positive, pixels.
    public var falsePositiveCornerError = 50.0
    /// Thresholds of the success rates, pixels.
    public var successThresholds: [Double] = [3, 5, 10]

    public init(camera: CameraIntrinsics) { self.camera = camera }

    /// The metrics of `reported` against `truth` (frames matched by index).
    ///
    /// In each frame, reported image and marker anchors are paired with true ones by
    /// ``AnchorMatching``: a marker id printed on several markers is matched instance to
    /// instance by the least total corner error, whatever instance numbers the tracker gave.
    public func score(reported: [FrameUpdate], truth: [FrameUpdate]) -> Score {
        let reportedByFrame = Dictionary(reported.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
        var cornerErrors: [Double] = []
        var rotationErrors: [Double] = [], translationErrors: [Double] = [], relativeTranslationErrors: [Double] = []
        var falsePositives = 0
        var jitter: [Double] = []
        var previous: [String: (truth: [SIMD2<Double>], reported: [SIMD2<Double>])] = [:]
        // The reported identifier each true target was last correctly matched to.
        var lastMatch: [String: String] = [:]
        var identitySwitches = 0
        var observations: [ObservationError] = []

        for gtFrame in truth {
            let out = reportedByFrame[gtFrame.frame]
            var current: [String: (truth: [SIMD2<Double>], reported: [SIMD2<Double>])] = [:]
            let targets = gtFrame.anchors.filter { $0.kind != .plane && $0.kind != .geo }
            let reports = (out?.anchors ?? []).filter { $0.isTracked && $0.kind != .plane && $0.kind != .geo }
            let pairs = out.map { out in
                AnchorMatching.pairs(reported: reports, truth: targets) { r, gt in
                    Scorer.cornerError(corners(of: r, in: out), corners(of: gt, in: gtFrame))
                }
            } ?? []
            let reportOf = Dictionary(uniqueKeysWithValues: pairs.map { ($0.truth, $0) })
            let truthOf = Dictionary(uniqueKeysWithValues: pairs.map { ($0.reported, $0) })
            for (t, gt) in targets.enumerated() {
                guard gt.isTracked, (gt.visible ?? 1) >= 0.5 else { continue }
                guard let out, let pair = reportOf[t] else {
                    cornerErrors.append(.infinity)
                    observations.append(ObservationError(frame: gtFrame.frame, anchor: gt.identifier))
                    continue
                }
                let r = reports[pair.reported]
                let gtCorners = corners(of: gt, in: gtFrame)
                let rCorners = corners(of: r, in: out)
                let e = pair.cost
                cornerErrors.append(e)
                if e > falsePositiveCornerError { falsePositives += 1 }
                let gtPose = gtFrame.camera.cameraFrom(gt.transform), rPose = out.camera.cameraFrom(r.transform)
                rotationErrors.append((gtPose.rotation.transposed * rPose.rotation).rotationAngle * 180 / .pi)
                let dt = length(rPose.translation - gtPose.translation)
                translationErrors.append(dt * 100)
                relativeTranslationErrors.append(100 * dt / max(length(gtPose.translation), 1e-9))
                observations.append(ObservationError(frame: gtFrame.frame, anchor: gt.identifier, reported: r.identifier, cornerError: e,
                                                     rotationDegrees: rotationErrors.last, translationCentimetres: dt * 100))
                if let rc = rCorners, let gc = gtCorners { current[gt.identifier] = (gc, rc) }
            }
            // Reported anchors whose target is not expected here.
            for k in reports.indices {
                let pair = truthOf[k]
                let gt = pair.map { targets[$0.truth] }
                if let gt, gt.isTracked, (gt.visible ?? 1) >= 0.5 { continue }  // scored above
                let partlyInView = gt.map { $0.isTracked || ($0.visible ?? 0) > 0 } ?? false
                if partlyInView, let pair, pair.cost <= falsePositiveCornerError { continue }
                falsePositives += 1
            }
            // Identity switches (as in multi-object tracking): a target correctly matched (in
            // view, within the false-positive corner error) to another reported identifier than
            // the last time it was.
            for pair in pairs where pair.cost <= falsePositiveCornerError {
                let gt = targets[pair.truth], id = reports[pair.reported].identifier
                guard gt.isTracked || (gt.visible ?? 0) > 0 else { continue }
                if let last = lastMatch[gt.identifier], last != id { identitySwitches += 1 }
                lastMatch[gt.identifier] = id
            }
            // Jitter: reported corner motion where the truth stands still.
            for (id, now) in current {
                guard let before = previous[id], Scorer.cornerError(now.truth, before.truth) < 1e-3 else { continue }
                jitter.append(Scorer.cornerError(now.reported, before.reported))
            }
            previous = current
        }
        let expected = cornerErrors.count
        let success = successThresholds.map { t in
            expected == 0 ? 0 : Double(cornerErrors.filter { $0 <= t }.count) / Double(expected)
        }
        let jitterRMS = jitter.isEmpty ? nil : (jitter.map { $0 * $0 }.reduce(0, +) / Double(jitter.count)).squareRoot()
        return Score(
            frames: truth.count, expected: expected, reported: cornerErrors.filter(\.isFinite).count,
            successThresholds: successThresholds, successRates: success, falsePositives: falsePositives,
            identitySwitches: identitySwitches,
            cornerError: Summary(cornerErrors), rotationErrorDegrees: Summary(rotationErrors),
            translationErrorCentimetres: Summary(translationErrors),
            translationErrorPercent: Summary(relativeTranslationErrors), jitterRMS: jitterRMS,
            world: TrajectoryScorer().score(reported: reported, truth: truth),
            planes: PlaneScorer(camera: camera).score(reported: reported, truth: truth),
            light: LightScorer().score(reported: reported, truth: truth), geo: GeoScorer(camera: camera).score(reported: reported, truth: truth),
            observations: observations)
    }

    /// Corner error: sqrt(mean over the 4 corners of the squared pixel distance); infinite
    /// when either side has no corners.
    public static func cornerError(_ a: [SIMD2<Double>]?, _ b: [SIMD2<Double>]?) -> Double {
        guard let a, let b, a.count == b.count, !a.isEmpty else { return .infinity }
        var sum = 0.0
        for (p, q) in zip(a, b) { let d = p - q; sum += dot(d, d) }
        return (sum / Double(a.count)).squareRoot()
    }

    /// The anchor's corners as listed, or projected from its pose and extent.
    func corners(of anchor: Anchor, in frame: FrameUpdate) -> [SIMD2<Double>]? {
        if let c = anchor.corners { return c }
        let pose = frame.camera.cameraFrom(anchor.transform)
        let projected = TargetConvention.corners(width: anchor.extent.x, height: anchor.extent.y)
            .compactMap { camera.project(pose.apply(to: $0)) }
        return projected.count == 4 ? projected : nil
    }
}

/// The metrics of one stream against its ground truth.
public struct Score: Codable, Sendable {
    /// Ground-truth frames scored.
    public var frames: Int
    /// Expected (frame, target) observations.
    public var expected: Int
    /// Expected observations that were reported.
    public var reported: Int
    /// Success thresholds (px) and the fraction of expected observations within each.
    public var successThresholds: [Double]
    public var successRates: [Double]
    /// Reported anchors whose target is not expected, or whose corner error exceeds 50 px.
    public var falsePositives: Int
    /// Identity switches, as multi-object tracking counts them: times a true target (one
    /// physical marker or image) was matched, within 50 px, to another reported identifier than
    /// the last one it was matched to. Only possible for marker ids printed more than once (or
    /// a tracker renaming a target); 0 otherwise.
    public var identitySwitches: Int
    /// Corner error of reported expected observations, pixels.
    public var cornerError: Summary?
    /// Rotation error, degrees: the angle of R_gt^T R.
    public var rotationErrorDegrees: Summary?
    /// Translation error, centimetres, and as a percentage of the true camera-to-target distance.
    public var translationErrorCentimetres: Summary?
    public var translationErrorPercent: Summary?
    /// RMS frame-to-frame corner motion where the truth does not move, pixels.
    public var jitterRMS: Double?
    /// Camera trajectory and world-anchor metrics, for streams with world tracking.
    public var world: TrajectoryScore?
    /// Plane metrics (normal and offset errors, extent, false planes), when the ground truth
    /// has planes and the stream reports any.
    public var planes: PlaneScore?
    /// Light-estimate metrics, when the ground truth has the light (rendered sequences) and the
    /// stream estimates it.
    public var light: LightScore?
    /// Geo-anchor metrics, when the ground truth has geo anchors.
    public var geo: GeoScore?
    /// Every expected observation's errors, in frame order (`anchorkit score --per-frame`); nil
    /// when not kept.
    public var observations: [ObservationError]?

    /// The success rate at `threshold` pixels.
    public func successRate(at threshold: Double) -> Double? {
        successThresholds.firstIndex(of: threshold).map { successRates[$0] }
    }

    /// A human-readable table.
    public var table: String {
        var rows: [(String, String)] = [("metric", "value")]
        func row(_ name: String, _ value: String) { rows.append((name, value)) }
        row("frames", "\(frames)")
        row("expected observations", "\(expected)")
        row("reported (of expected)", "\(reported)")
        for (t, r) in zip(successThresholds, successRates) { row("success @ \(Int(t)) px", tableCell(100 * r, 1) + " %") }
        row("false positives", "\(falsePositives)")
        row("identity switches", "\(identitySwitches)")
        row("corner error median / p90 / max (px)", "\(tableCell(cornerError?.median)) / \(tableCell(cornerError?.p90)) / \(tableCell(cornerError?.max))")
        row("rotation error median (deg)", tableCell(rotationErrorDegrees?.median, 3))
        row("rotation error p90 (deg)", tableCell(rotationErrorDegrees?.p90, 3))
        row("rotation error max (deg)", tableCell(rotationErrorDegrees?.max, 3))
        row("translation error median (cm)", tableCell(translationErrorCentimetres?.median, 3))
        row("translation error median (%)", tableCell(translationErrorPercent?.median, 3))
        row("translation error p90 (%)", tableCell(translationErrorPercent?.p90, 3))
        row("translation error max (%)", tableCell(translationErrorPercent?.max, 3))
        row("jitter RMS (px)", tableCell(jitterRMS, 3))
        for (name, value) in world?.rows ?? [] { row(name, value) }
        for (name, value) in planes?.rows ?? [] { row(name, value) }
        for (name, value) in light?.rows ?? [] { row(name, value) }
        for (name, value) in geo?.rows ?? [] { row(name, value) }
        let width = rows.map(\.0.count).max()! + 2
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }
}

/// One expected observation (a target the truth has in view in a frame) and how it was reported.
public struct ObservationError: Codable, Sendable, Equatable {
    /// The frame index.
    public var frame: Int
    /// The true target's identifier.
    public var anchor: String
    /// The reported anchor matched to it; nil when it was missed.
    public var reported: String?
    /// Corner error (RMS over the 4 corners), pixels; nil when missed (or reported without corners).
    public var cornerError: Double?
    /// The pose error relative to the camera: rotation in degrees, translation in centimetres.
    public var rotationDegrees: Double?
    public var translationCentimetres: Double?

    public init(frame: Int, anchor: String, reported: String? = nil, cornerError: Double? = nil,
                rotationDegrees: Double? = nil, translationCentimetres: Double? = nil) {
        self.frame = frame; self.anchor = anchor; self.reported = reported
        self.cornerError = cornerError.flatMap { $0.isFinite ? $0 : nil }
        self.rotationDegrees = rotationDegrees; self.translationCentimetres = translationCentimetres
    }

    /// A line of the per-frame table (``Score/observationTable``).
    var row: String {
        return [String(frame), anchor, reported ?? "missed", tableCell(cornerError, 2), tableCell(rotationDegrees, 3), tableCell(translationCentimetres, 2)]
            .joined(separator: "\t")
    }
}

extension Score {
    /// The per-observation errors as a tab-separated table with a header, in frame order; nil when not kept.
    public var observationTable: String? {
        observations.map { (["frame\tanchor\treported\tcorner_px\trotation_deg\ttranslation_cm"] + $0.map(\.row)).joined(separator: "\n") }
    }
}
