/// Compares a target's single-view depth with the depths of the map points seen on it.
///
/// A marker or image pose gives the depth of the target's plane along every pixel's ray (metres,
/// from one view: its error grows with distance). Map points followed inside the target's
/// outline lie on that plane and carry the map's depth (from many views, in the map's unit).
/// Their ratios tell the map's unit (``ScaleEstimator``) and, once the map is metric, how far the
/// single view misjudged the target's distance.
enum TargetDepth {
    /// Fewest map points on a target for its median ratio to mean something.
    static let minimumPoints = 4

    /// target-plane depth / map depth, one per map point inside the target's corners.
    static func ratios(_ o: TargetObservation, points: [TrackedPoint], camera: CameraIntrinsics) -> [Double] {
        guard let corners = o.corners, corners.count == 4, !points.isEmpty else { return [] }
        // The target's plane in ARKit camera space: normal (the anchor's +y) and offset.
        let normal = o.cameraFromAnchor.rotation * SIMD3(0, 1, 0)
        let offset = dot(normal, o.cameraFromAnchor.translation)
        var out: [Double] = []
        for p in points where p.depth > 0 && ConvexPolygon.contains(corners, p.pixel) {
            // The pixel's ray in ARKit camera space, scaled so that its depth (-z) is 1.
            let ray = camera.unproject(p.pixel, depth: 1)
            let along = dot(normal, ray)
            guard abs(along) > 1e-6 else { continue }
            let depth = offset / along
            if depth > 0 { out.append(depth / p.depth) }
        }
        return out
    }

    /// The observation with its distance made consistent with a metric map: its translation
    /// divided by the median ratio when enough map points lie on it and they roughly agree
    /// (within 10 %); nil otherwise.
    static func corrected(_ o: TargetObservation, points: [TrackedPoint], camera: CameraIntrinsics) -> TargetObservation? {
        let r = ratios(o, points: points, camera: camera)
        guard r.count >= minimumPoints, let median = Summary(r)?.median, abs(median - 1) < 0.1 else { return nil }
        var out = o
        out.cameraFromAnchor = Transform(rotation: o.cameraFromAnchor.rotation, translation: o.cameraFromAnchor.translation / median)
        return out
    }
}
