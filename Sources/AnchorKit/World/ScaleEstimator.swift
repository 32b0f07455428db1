import Foundation

/// Finds the unit of a monocular odometry's world from targets of known size: every map point
/// seen on a target gives the ratio metres / map unit (``TargetDepth``); the median of many
/// ratios from several frames is the scale, accepted once they agree.
struct ScaleEstimator {
    /// Ratios and frames needed before the scale is trusted.
    var minimumRatios = 40
    var minimumFrames = 8
    /// Largest spread of the ratios (median absolute deviation / median).
    var maximumSpread = 0.03
    /// Views farther than this off a target's normal (radians) give no ratios: seen at a grazing
    /// angle, a target's single-view distance is biased, its tilt and depth trading off
    /// (room-walk's marker lying on the table, seen 76° off its normal from 3 m, comes out 5 %
    /// too far).
    var maximumObliquity = Double.pi / 3
    private var ratios: [Double] = []
    private var frames = 0
    private var done = false

    /// True once the scale was found (the tracker's world is metric from then on).
    var isMetric: Bool { done }

    /// Adds this frame's observations (metric `camera_from_anchor`, ARKit camera convention)
    /// with the tracker's followed points (pixel, depth in the map's unit). Returns the factor
    /// that makes the map metric the first time it is known, nil otherwise.
    mutating func add(_ observations: [TargetObservation], points: [TrackedPoint], camera: CameraIntrinsics) -> Double? {
        guard !done, !points.isEmpty else { return nil }
        var added = 0
        for o in observations where Self.obliquity(of: o) <= maximumObliquity {
            let r = TargetDepth.ratios(o, points: points, camera: camera)
            ratios += r
            added += r.count
        }
        if added > 0 { frames += 1 }
        guard ratios.count >= minimumRatios, frames >= minimumFrames, let median = Summary(ratios)?.median,
              let mad = Summary(ratios.map { abs($0 - median) })?.median, mad <= maximumSpread * median else { return nil }
        done = true
        return median
    }

    /// The angle between the target's normal (its anchor's +y) and the line of sight to its
    /// centre, radians (0 when seen square on).
    static func obliquity(of o: TargetObservation) -> Double {
        let normal = o.cameraFromAnchor.rotation * SIMD3<Double>(0, 1, 0), centre = o.cameraFromAnchor.translation
        guard length(centre) > 0 else { return 0 }
        return acos(min(1, abs(dot(normal, centre)) / length(centre)))
    }
}
