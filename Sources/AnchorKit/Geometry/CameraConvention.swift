/// Conversions between OpenCV's camera convention and ARKit's.
///
/// - OpenCV camera space: +x right, +y **down**, +z **forward** (the camera looks along +z).
/// - ARKit camera space (the anchor stream's): +x right, +y **up**, the camera looks along **-z**.
///
/// The two differ by `F = diag(1, -1, -1)`, which is its own inverse, so
/// `arkit_from_opencv = opencv_from_arkit = F`.
package enum CameraConvention {
    /// `diag(1, -1, -1)` as a rigid transform: maps OpenCV camera points to ARKit camera points
    /// and back.
    public static let flip = Transform(rotation: .diagonal(SIMD3(1, -1, -1)), translation: .zero)

    /// Converts a pose `opencvCamera_from_X` into `arkitCamera_from_X`.
    public static func arkitCamera(fromOpenCV opencvCameraFromX: Transform) -> Transform {
        flip * opencvCameraFromX
    }

    /// Converts a point from OpenCV camera space to ARKit camera space (and back: same map).
    public static func flipped(_ p: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(p.x, -p.y, -p.z)
    }
}

/// Conversions between OpenCV's planar-target frame and the ARKit image/marker anchor frame.
///
/// - OpenCV's marker frame (what `solvePnP` with IPPE_SQUARE returns): origin at the centre,
///   +x toward the right edge, +y toward the **top** edge, +z **out of** the printed face.
/// - The anchor frame of ../shared/FORMATS.md (ARKit's image anchors): +x toward the right edge,
///   +y out of the printed face, +z toward the **bottom** edge; the target lies in x-z.
///
/// `opencvTarget_from_anchor` maps anchor x to x, anchor y to z, anchor z to -y.
package enum TargetConvention {
    /// `opencvTarget_from_anchor`.
    public static let opencvFromAnchor = Transform(
        rotation: Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 0, -1), SIMD3(0, 1, 0)), translation: .zero)

    /// `opencvImageTarget_from_anchor` for planar reference images, whose OpenCV frame has +x
    /// right, +y **down** the image and +z **into** the target (so that image coordinates and
    /// object coordinates agree): anchor x to x, anchor y (out of the face) to -z, anchor z
    /// (toward the bottom edge) to y.
    public static let opencvImageFromAnchor = Transform(
        rotation: Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, -1, 0)), translation: .zero)

    /// `arkitCamera_from_anchor` from OpenCV's `opencvCamera_from_opencvTarget`.
    /// `targetFromAnchor` is the OpenCV target frame's convention: ``opencvFromAnchor`` for
    /// markers (IPPE_SQUARE), ``opencvImageFromAnchor`` for reference images.
    public static func cameraFromAnchor(opencvCameraFromTarget: Transform, targetFromAnchor: Transform = opencvFromAnchor) -> Transform {
        CameraConvention.flip * opencvCameraFromTarget * targetFromAnchor
    }

    /// The four corners of a `width` x `height` (metres) target in its anchor frame, listed
    /// top-left, top-right, bottom-right, bottom-left as seen in the reference image.
    public static func corners(width: Double, height: Double) -> [SIMD3<Double>] {
        let w = width / 2, h = height / 2
        return [SIMD3(-w, 0, -h), SIMD3(w, 0, -h), SIMD3(w, 0, h), SIMD3(-w, 0, h)]
    }
}
