/// Finds the unit of a monocular odometry's world from targets of known size.
///
/// A marker or image pose is metric, so the depth of the target's plane along any pixel's ray
/// is known in metres. The odometry's map points seen inside the target's outline lie on that
/// plane (they are features of the printed target), and their depths are known in the map's
/// unit: each such point gives the ratio metres / map unit. The median of many ratios from
/// several frames is the scale, accepted once they agree.
struct ScaleEstimator {
    /// Ratios and frames needed before the scale is trusted.
    var minimumRatios = 40
    var minimumFrames = 8
    /// Largest spread of the ratios (median absolute deviation / median).
    var maximumSpread = 0.03
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
        for o in observations {
            guard let corners = o.corners, corners.count == 4 else { continue }
            let normal = o.cameraFromAnchor.rotation * SIMD3(0, 1, 0)
            let offset = dot(normal, o.cameraFromAnchor.translation)
            for p in points where ConvexPolygon.contains(corners, p.pixel) {
                // The pixel's ray in ARKit camera space, scaled so that its depth (-z) is 1.
                let ray = SIMD3((p.pixel.x - camera.cx) / camera.fx, -(p.pixel.y - camera.cy) / camera.fy, -1)
                let along = dot(normal, ray)
                guard abs(along) > 1e-6, p.depth > 0 else { continue }
                let depth = offset / along
                if depth > 0 { ratios.append(depth / p.depth); added += 1 }
            }
        }
        if added > 0 { frames += 1 }
        guard ratios.count >= minimumRatios, frames >= minimumFrames, let median = Summary(ratios)?.median,
              let mad = Summary(ratios.map { abs($0 - median) })?.median, mad <= maximumSpread * median else { return nil }
        done = true
        return median
    }
}
