/// A textured rectangle in a synthetic scene: a poster, a printed marker on its paper, a table
/// top, or an occluder.
///
/// The plane's frame is the anchor frame of ../shared/FORMATS.md: origin at the centre, +x toward
/// the texture's right edge, +z toward its bottom edge, +y out of the printed face.
public struct ScenePlane {
    /// What the plane carries that a tracker should report.
    public struct Target {
        /// The anchor id (`marker/<dictionary>/<id>`, `image/<name>`).
        public var identifier: String
        public var kind: Anchor.Kind
        public var name: String
        /// The target's size in metres (a marker's black square; it is centred on the plane).
        public var extent: SIMD2<Double>
    }

    /// The picture, stretched over the whole rectangle.
    public var texture: Image
    /// Width (along x) and height (along z) in metres.
    public var size: SIMD2<Double>
    /// `world_from_plane` at time t (seconds); constant for static planes.
    public var pose: (Double) -> Transform
    /// Brightness factor of this surface at time t (1 = as printed).
    public var gain: (Double) -> Double
    /// The target on this plane, if any.
    public var target: Target?

    public init(texture: Image, size: SIMD2<Double>, pose: @escaping (Double) -> Transform,
                gain: @escaping (Double) -> Double = { _ in 1 }, target: Target? = nil) {
        self.texture = texture; self.size = size; self.pose = pose; self.gain = gain; self.target = target
    }

    /// The homography from texture pixels to image pixels, for a camera at `cameraFromPlane`
    /// (ARKit camera convention) with pinhole intrinsics (distortion is not rendered).
    /// Returns nil when any corner of the plane is not in front of the camera.
    public func homography(cameraFromPlane t: Transform, camera: CameraIntrinsics) -> Matrix3? {
        // Texture pixel centre (u, v) lies at x = (u + 0.5) / tw * W - W / 2 (and likewise z).
        let tw = Double(texture.width), th = Double(texture.height)
        let a = size.x / tw, b = 0.5 * a - size.x / 2
        let c = size.y / th, d = 0.5 * c - size.y / 2
        let r = t.rotation
        for corner in TargetConvention.corners(width: size.x, height: size.y) {
            guard CameraConvention.flipped(t.apply(to: corner)).z > 0.01 else { return nil }
        }
        // Columns of [R|t] * M, flipped to OpenCV's camera axes, then K.
        let k = camera.matrix
        let c0 = k * CameraConvention.flipped(r.columns.0 * a)
        let c1 = k * CameraConvention.flipped(r.columns.2 * c)
        let c2 = k * CameraConvention.flipped(r.columns.0 * b + r.columns.2 * d + t.translation)
        return Matrix3(columns: (c0, c1, c2))
    }

    /// The projected corners of the plane (or of its target, `ofTarget`), TL, TR, BR, BL.
    public func projectedCorners(cameraFromPlane t: Transform, camera: CameraIntrinsics, ofTarget: Bool) -> [SIMD2<Double>]? {
        let extent = ofTarget ? (target?.extent ?? size) : size
        let points = TargetConvention.corners(width: extent.x, height: extent.y).compactMap { camera.project(t.apply(to: $0)) }
        return points.count == 4 ? points : nil
    }
}
