import AnchorKit
extension FrameUpdate {
    /// The nearest of this line's plane anchors under `pixel` of its camera (frames with
    /// `intrinsics`; lens distortion removed), and where the ray meets it in this camera's frame
    /// (ARKit camera axes, world units): what a ground truth says a tap should hit. Nil when the
    /// ray meets no plane inside its boundary.
    public func plane(under pixel: SIMD2<Double>, intrinsics: CameraIntrinsics) -> (identifier: String, inCamera: SIMD3<Double>)? {
        var cameraState = camera
        cameraState.intrinsics = intrinsics
        guard let query = cameraState.raycastQuery(from: pixel, target: .existingPlaneGeometry, alignment: .any),
              let hit = Raycaster.cast(query, planes: anchors.filter { $0.kind == .plane }).first,
              let identifier = hit.anchorIdentifier else { return nil }
        return (identifier, camera.cameraFrom(hit.worldTransform).translation)
    }
}
