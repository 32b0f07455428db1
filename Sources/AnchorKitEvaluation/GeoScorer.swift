import Foundation
import AnchorKit

/// Scores geo anchors (issue 26) against ground truth: where each place is relative to the
/// camera, as content on it would be drawn (FORMATS.md: the world's origin is free).
///
/// - Horizontal error: the distance, in the horizontal plane, between the reported and the true
///   place relative to the camera (metres).
/// - Heading error: the angle between the reported and the true orientation of the place relative
///   to the camera (degrees; for a place's east-up-south axes, the error of the world's yaw and
///   of the camera's orientation together).
/// - Jitter: the frame-to-frame change of the projected error (pixels), for places in front of the
///   camera and inside the image in both frames: how much content wobbles beyond the camera's
///   own motion.
/// Frames count once the stream's geo tracking is `localized`; "settled" figures take the frames
/// after ``settleTime``.
public struct GeoScorer {
    public var camera: CameraIntrinsics
    /// Seconds of video after which errors count as settled (issue 26: after 20 s).
    public var settleTime = 20.0
    /// Seconds per row of ``GeoScore/overTime``.
    public var binSeconds = 10.0

    public init(camera: CameraIntrinsics) { self.camera = camera }

    /// Nil when the truth has no geo anchors.
    public func score(reported: [FrameUpdate], truth: [FrameUpdate]) -> GeoScore? {
        let reportedByFrame = Dictionary(reported.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
        var horizontal: [(time: Double, error: Double)] = [], heading: [(time: Double, error: Double)] = []
        var inView: [(time: Double, error: Double)] = []
        var jitter: [Double] = []
        var previousOffsets: [String: SIMD2<Double>] = [:]
        var frames = 0, localized = 0, firstLocalized: Double?
        var withinStated = 0, stated = 0
        for t in truth {
            let places = t.anchors.filter { $0.kind == .geo }
            guard !places.isEmpty else { continue }
            frames += 1
            var offsets: [String: SIMD2<Double>] = [:]
            defer { previousOffsets = offsets }
            guard let r = reportedByFrame[t.frame], r.geoTracking?.state == .localized else { continue }
            localized += 1
            firstLocalized = firstLocalized ?? t.time
            for truePlace in places {
                guard let place = r.anchor(truePlace.identifier) else { continue }
                let trueRelative = t.camera.cameraFrom(truePlace.transform), relative = r.camera.cameraFrom(place.transform)
                // The error in the true camera's gravity-aligned axes: its horizontal part.
                let error = t.camera.transform.rotation * (relative.translation - trueRelative.translation)
                let e = (error.x * error.x + error.z * error.z).squareRoot()
                horizontal.append((t.time, e))
                heading.append((t.time, (trueRelative.rotation.transposed * relative.rotation).rotationAngle * 180 / .pi))
                if let accuracy = place.geoAccuracy ?? r.geoTracking?.horizontalAccuracy {
                    stated += 1
                    if e <= 3 * accuracy { withinStated += 1 }
                }
                let truePixel = camera.project(trueRelative.translation)
                if let p = truePixel, inImage(p) { inView.append((t.time, e)) }
                if let p = truePixel, let q = camera.project(relative.translation), inImage(p), inImage(q) {
                    offsets[truePlace.identifier] = q - p
                    if let before = previousOffsets[truePlace.identifier] { jitter.append(length(q - p - before)) }
                }
            }
        }
        guard frames > 0 else { return nil }
        let settled = { (samples: [(time: Double, error: Double)]) in Summary(samples.filter { $0.time >= settleTime }.map(\.error)) }
        let bins = Dictionary(grouping: horizontal.indices) { Int(horizontal[$0].time / binSeconds) }
        let overTime = bins.keys.sorted().map { k in
            GeoScore.Bin(start: Double(k) * binSeconds, horizontalMedian: Summary(bins[k]!.map { horizontal[$0].error })!.median,
                         headingMedian: Summary(bins[k]!.map { heading[$0].error })!.median)
        }
        return GeoScore(frames: frames, localizedFrames: localized, firstLocalizedTime: firstLocalized,
                        horizontalErrorMetres: Summary(horizontal.map(\.error)), settledHorizontalErrorMetres: settled(horizontal),
                        inViewHorizontalErrorMetres: Summary(inView.map(\.error)), settledInViewHorizontalErrorMetres: settled(inView),
                        headingErrorDegrees: Summary(heading.map(\.error)), settledHeadingErrorDegrees: settled(heading),
                        jitterPixels: Summary(jitter), jitterRMS: jitter.isEmpty ? nil : (jitter.map { $0 * $0 }.reduce(0, +) / Double(jitter.count)).squareRoot(),
                        withinThreeStatedPercent: stated > 0 ? 100 * Double(withinStated) / Double(stated) : nil, overTime: overTime)
    }

    private func inImage(_ p: SIMD2<Double>) -> Bool {
        p.x >= 0 && p.y >= 0 && p.x <= Double(camera.width - 1) && p.y <= Double(camera.height - 1)
    }
}

/// How well a stream's geo anchors follow their places (see ``GeoScorer``).
public struct GeoScore: Codable, Sendable {
    /// Errors in one stretch of video.
    public struct Bin: Codable, Sendable {
        /// Seconds of video where the stretch starts.
        public var start: Double
        public var horizontalMedian: Double, headingMedian: Double
    }

    /// Truth frames with geo anchors, and those the stream was localised in.
    public var frames: Int, localizedFrames: Int
    /// Seconds of video of the first localised frame.
    public var firstLocalizedTime: Double?
    /// Metres: all localised frames, and those after the settle time.
    public var horizontalErrorMetres: Summary?, settledHorizontalErrorMetres: Summary?
    /// Metres, for places in the image (where content on them is drawn).
    public var inViewHorizontalErrorMetres: Summary?, settledInViewHorizontalErrorMetres: Summary?
    /// Degrees.
    public var headingErrorDegrees: Summary?, settledHeadingErrorDegrees: Summary?
    /// Frame-to-frame change of the projected error, pixels.
    public var jitterPixels: Summary?
    public var jitterRMS: Double?
    /// Share of (frame, place) whose horizontal error is within 3 of the stated accuracies.
    public var withinThreeStatedPercent: Double?
    public var overTime: [Bin]

    /// Table rows, in the layout of ``Score/table``.
    public var rows: [(String, String)] {
        var rows = [
            ("geo: frames localised", "\(localizedFrames) of \(frames) (from \(tableCell(firstLocalizedTime, 1)) s)"),
            ("geo: horizontal error median / p90 (m)", "\(tableCell(horizontalErrorMetres?.median)) / \(tableCell(horizontalErrorMetres?.p90))"),
            ("geo: after 20 s, median / p90 (m)", "\(tableCell(settledHorizontalErrorMetres?.median)) / \(tableCell(settledHorizontalErrorMetres?.p90))"),
            ("geo: in view, median / p90 (m)", "\(tableCell(inViewHorizontalErrorMetres?.median)) / \(tableCell(inViewHorizontalErrorMetres?.p90))"),
            ("geo: in view after 20 s, median / p90 (m)",
             "\(tableCell(settledInViewHorizontalErrorMetres?.median)) / \(tableCell(settledInViewHorizontalErrorMetres?.p90))"),
            ("geo: heading error median / p90 (deg)", "\(tableCell(headingErrorDegrees?.median)) / \(tableCell(headingErrorDegrees?.p90))"),
            ("geo: after 20 s, median / p90 (deg)", "\(tableCell(settledHeadingErrorDegrees?.median)) / \(tableCell(settledHeadingErrorDegrees?.p90))"),
            ("geo: jitter RMS / p90 (px)", "\(tableCell(jitterRMS)) / \(tableCell(jitterPixels?.p90))"),
            ("geo: within 3 stated sigmas (%)", tableCell(withinThreeStatedPercent, 1)),
        ]
        for bin in overTime {
            rows.append(("geo: \(Int(bin.start))-\(Int(bin.start + 10)) s, median (m / deg)", "\(tableCell(bin.horizontalMedian)) / \(tableCell(bin.headingMedian))"))
        }
        return rows
    }
}
