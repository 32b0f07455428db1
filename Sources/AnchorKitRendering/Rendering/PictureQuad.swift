import AnchorKit
/// A rectangle in 3D carrying a picture: the geometry shared by the synthesizer's planes and by
/// overlays. Its frame is the anchor frame of ../shared/FORMATS.md: origin at the centre, +x
/// toward the picture's right edge, +z toward its bottom edge, +y out of the face; the picture's
/// top-left corner is at (-width/2, 0, -height/2).
public struct PictureQuad: Sendable {
    /// Width (along x) and height (along z) in metres (world units).
    public var size: SIMD2<Double>
    /// The picture's size in pixels; pixel (u, v) covers [u - 0.5, u + 0.5] x [v - 0.5, v + 0.5],
    /// so the picture spans [-0.5, w - 0.5] x [-0.5, h - 0.5] (OpenCV's pixel centres).
    public var pixels: SIMD2<Int>

    /// What of the quad reaches the image: the homography of its whole plane and, when part of
    /// the quad is behind the near plane, the outline of the part in front.
    public struct Projection {
        /// Picture pixels to image pixels; exact for every point in front of the camera, with
        /// w > 0 there (its third row is the depth).
        public var homography: Matrix3
        /// nil when the whole rectangle is in front of the near plane; otherwise the rectangle
        /// clipped by the near plane, projected (image pixels, convex).
        public var polygon: [SIMD2<Double>]?
    }

    public init(size: SIMD2<Double>, pixels: SIMD2<Int>) {
        self.size = size; self.pixels = pixels
    }

    /// The corners in the quad's frame: top-left, top-right, bottom-right, bottom-left.
    public var corners: [SIMD3<Double>] { TargetConvention.corners(width: size.x, height: size.y) }

    /// The homography of the quad's whole (unbounded) plane from picture pixels to image pixels,
    /// for a camera at `cameraFromQuad` (ARKit camera convention) with pinhole intrinsics
    /// (distortion is ignored: a homography keeps straight edges straight). Its third row gives
    /// each picture point's depth, so points in front of the camera have w > 0.
    public func homography(cameraFromQuad t: Transform, camera: CameraIntrinsics) -> Matrix3 {
        // Picture pixel centre (u, v) lies at x = (u + 0.5) / pw * W - W / 2 (and likewise z).
        let pw = Double(pixels.x), ph = Double(pixels.y)
        let a = size.x / pw, b = 0.5 * a - size.x / 2
        let c = size.y / ph, d = 0.5 * c - size.y / 2
        let r = t.rotation
        // Columns of [R|t] * M, flipped to OpenCV's camera axes, then K.
        let k = camera.matrix
        let c0 = k * CameraConvention.flipped(r.columns.0 * a)
        let c1 = k * CameraConvention.flipped(r.columns.2 * c)
        let c2 = k * CameraConvention.flipped(r.columns.0 * b + r.columns.2 * d + t.translation)
        return Matrix3(columns: (c0, c1, c2))
    }

    /// How the quad is painted for a camera at `cameraFromQuad`: its homography, and the outline
    /// of the part in front of the near plane (`near` metres along the viewing axis) when some of
    /// it is behind. nil when none of it is in front, or it is seen edge-on.
    public func projection(cameraFromQuad t: Transform, camera: CameraIntrinsics, near: Double) -> Projection? {
        let inCamera = corners.map { t.apply(to: $0) }
        if inCamera.allSatisfy({ -$0.z > near }) {
            return Projection(homography: homography(cameraFromQuad: t, camera: camera), polygon: nil)
        }
        guard let outline = Self.projectClipped(inCamera, camera: camera, near: near),
              ConvexPolygon.area(outline) > 1e-6 else { return nil }
        return Projection(homography: homography(cameraFromQuad: t, camera: camera), polygon: outline)
    }

    /// A convex polygon in camera space (ARKit convention) clipped to depth >= `near` (the
    /// camera looks along -z, so depth is -z) and projected to image pixels; nil when fewer than 3
    /// vertices remain in front.
    public static func projectClipped(_ polygon: [SIMD3<Double>], camera: CameraIntrinsics, near: Double) -> [SIMD2<Double>]? {
        let kept = clipped(polygon, near: near)
        let points = kept.compactMap { camera.project($0) }
        return points.count >= 3 && points.count == kept.count ? points : nil
    }

    /// Sutherland–Hodgman: the part of a convex camera-space polygon at depth >= `near`.
    public static func clipped(_ polygon: [SIMD3<Double>], near: Double) -> [SIMD3<Double>] {
        var kept: [SIMD3<Double>] = []
        for (i, p) in polygon.enumerated() {
            let q = polygon[(i + 1) % polygon.count]
            let dp = -p.z - near, dq = -q.z - near
            if dp >= 0 { kept.append(p) }
            if (dp >= 0) != (dq >= 0) { kept.append(p + (q - p) * (dp / (dp - dq))) }
        }
        return kept
    }
}
