import AnchorKit
extension FrameUpdate {
    /// The nearest of this line's plane anchors under `pixel` of its camera (lens distortion
    /// removed), and where the ray meets it in this camera's frame (ARKit camera axes, world
    /// units): what a ground truth says a tap should hit. Nil when the ray meets no plane
    /// inside its boundary.
    public func plane(under pixel: SIMD2<Double>) -> (identifier: String, inCamera: SIMD3<Double>)? {
        let query = camera.raycastQuery(from: pixel, target: .existingPlaneGeometry, alignment: .any)
        guard let hit = Raycaster.cast(query, planes: anchors.filter { $0.kind == .plane }).first,
              let identifier = hit.anchorIdentifier else { return nil }
        return (identifier, camera.cameraFrom(hit.worldTransform).translation)
    }
}
