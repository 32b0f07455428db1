/// A level surface targets may lie on, seen from straight above: a picture lying on a table,
/// seen 60° off its normal, is squeezed in the frame beyond what its features survive, and
/// undoing that foreshortening makes it findable again (Benchmarks/README.md, "Posters lying on
/// a table, searched in a top view of the table").
public struct SurfaceView: Sendable, Equatable {
    /// The homography from the view's pixels to the frame's (pixel centres at integers).
    public var frameFromView: Matrix3
    /// The view's size, pixels.
    public var width: Int
    public var height: Int

    /// The top view of a level plane (`worldFromPlane`: ARKit's plane anchor, normal along +y,
    /// `extent` metres along its x and z) from a camera at `worldFromCamera` (ARKit camera axes),
    /// at the frame's own scale at the plane's centre (`camera.fx` over its depth, pixels a
    /// metre), at most `maximumSide` pixels a side. Nil when the camera is not above the plane or
    /// a corner of the plane lies behind it. View x runs along the plane's x, view y along its z:
    /// from above, a picture on the plane is seen unmirrored.
    public init?(plane worldFromPlane: Transform, extent: SIMD2<Double>, worldFromCamera: Transform,
                 camera: CameraIntrinsics, maximumSide: Double = 800) {
        // OpenCV's camera axes: opencvCamera_from_plane = F · inverse(world_from_arkitCamera) · world_from_plane.
        let cameraFromPlane = CameraConvention.flip * worldFromCamera.inverse * worldFromPlane
        guard worldFromPlane.inverse.apply(to: worldFromCamera.translation).y > 0 else { return nil }
        let half = extent / 2
        for corner in [SIMD3(-half.x, 0, -half.y), SIMD3(half.x, 0, -half.y), SIMD3(half.x, 0, half.y), SIMD3(-half.x, 0, half.y)] {
            guard cameraFromPlane.apply(to: corner).z > 0.1 else { return nil }
        }
        let depth = cameraFromPlane.translation.z
        let pixelsPerMetre = min(camera.fx / depth, maximumSide / max(extent.x, extent.y))
        let width = Int((extent.x * pixelsPerMetre).rounded()), height = Int((extent.y * pixelsPerMetre).rounded())
        guard width >= 16, height >= 16 else { return nil }
        let r = cameraFromPlane.rotation.columns, t = cameraFromPlane.translation
        let k = Matrix3(rows: SIMD3(camera.fx, 0, camera.cx), SIMD3(0, camera.fy, camera.cy), SIMD3(0, 0, 1))
        // Plane (x, z, 1) -> image, and view pixel (u, v) -> plane: x = (u + 0.5) / ppm - half.x.
        let planeToImage = k * Matrix3(columns: (r.0, r.2, t))
        let s = 1 / pixelsPerMetre
        let viewToPlane = Matrix3(rows: SIMD3(s, 0, 0.5 * s - half.x), SIMD3(0, s, 0.5 * s - half.y), SIMD3(0, 0, 1))
        frameFromView = planeToImage * viewToPlane
        self.width = width
        self.height = height
    }
}
