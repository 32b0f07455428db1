/// Keeps world-locked anchors still: each new world pose of a target is averaged with the
/// earlier ones (rotation on the manifold, translation arithmetically), so noise in single
/// observations does not shake content placed on the anchor. A pose far from the average
/// (the target was moved) starts a new average.
struct AnchorFusion {
    /// Beyond these a new observation restarts the average: metres and radians.
    var resetDistance = 0.10
    var resetAngle = 5.0 * Double.pi / 180
    /// The average weighs at most this many observations, so it can follow slow drift.
    var memory = 60
    private var fused: [String: (pose: Transform, count: Int)] = [:]

    /// Observations before a fused pose is trusted as a landmark.
    var settledCount = 10

    /// The fused `world_from_anchor` of an anchor seen at least ``settledCount`` times in a row
    /// without moving, or nil.
    func settled(_ identifier: String) -> Transform? {
        guard let (pose, count) = fused[identifier], count >= settledCount else { return nil }
        return pose
    }

    /// The fused `world_from_anchor` after adding `worldFromAnchor`.
    mutating func fuse(_ identifier: String, _ worldFromAnchor: Transform) -> Transform {
        guard let (current, count) = fused[identifier],
              length(worldFromAnchor.translation - current.translation) <= resetDistance,
              (current.rotation.transposed * worldFromAnchor.rotation).rotationAngle <= resetAngle else {
            fused[identifier] = (worldFromAnchor, 1)
            return worldFromAnchor
        }
        let n = Double(min(count + 1, memory))
        let delta = (current.rotation.transposed * worldFromAnchor.rotation).log / n
        let rotation = (current.rotation * Matrix3.exp(delta)).orthonormalized
        let translation = current.translation + (worldFromAnchor.translation - current.translation) / n
        let pose = Transform(rotation: rotation, translation: translation)
        fused[identifier] = (pose, count + 1)
        return pose
    }
}
