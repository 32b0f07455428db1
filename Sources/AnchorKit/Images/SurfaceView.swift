import Foundation

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
        let k = camera.matrix
        // Plane (x, z, 1) -> image, and view pixel (u, v) -> plane: x = (u + 0.5) / ppm - half.x.
        let planeToImage = k * Matrix3(columns: (r.0, r.2, t))
        let s = 1 / pixelsPerMetre
        let viewToPlane = Matrix3(rows: SIMD3(s, 0, 0.5 * s - half.x), SIMD3(0, s, 0.5 * s - half.y), SIMD3(0, 0, 1))
        frameFromView = planeToImage * viewToPlane
        self.width = width
        self.height = height
    }

    /// The top view of whatever lies level below the camera (a table, the floor), from the
    /// frame's gravity alone (`gravity`: ARKit camera axes, any length): a camera turned to look
    /// straight down sees every level surface unforeshortened, whatever its height, so neither a
    /// plane nor a map is needed and the view exists from the first frame. It covers the frame's
    /// pixels whose rays point at most `steepestRay` (radians) off straight down (found on a grid
    /// of the frame); its scale, pixels a metre of a surface proportional to the view's
    /// everywhere, is the frame's own median over those rays (the near part reduced, the far
    /// part enlarged), then reduced to at most `maximumSide` pixels a side. Nil when no such
    /// pixels are seen or the view would be under 16 pixels. View y runs toward the camera along
    /// the ground: what the frame shows far is at the view's top, unmirrored.
    public init?(levelSurfacesSeenWith gravity: SIMD3<Double>, camera: CameraIntrinsics, steepestRay: Double = 66 * .pi / 180,
                 maximumSide: Double = 800) {
        // OpenCV camera axes (+y down, +z forward) from here on.
        guard length(gravity) > 0 else { return nil }
        let down = normalize(CameraConvention.flipped(gravity))
        // Forward along the ground: the optical axis, or the frame's up when looking straight
        // down, with its downward part removed.
        let ahead = SIMD3<Double>(0, -1, 1)
        let level = ahead - dot(ahead, down) * down
        guard length(level) > 1e-6 else { return nil }
        // The view's camera: x right, y toward the camera along the ground, z down.
        let viewY = -normalize(level)
        let viewFromCamera = Matrix3(rows: cross(viewY, down), viewY, down)
        let k = camera.matrix
        guard let rayFromFrame = k.inverse else { return nil }
        var lower = SIMD2<Double>(repeating: .infinity), upper = -lower
        var scales: [Double] = []
        let columns = 32, rows = 24
        for j in 0...rows {
            for i in 0...columns {
                let pixel = SIMD3(Double(i * (camera.width - 1)) / Double(columns), Double(j * (camera.height - 1)) / Double(rows), 1)
                let ray = normalize(rayFromFrame * pixel)
                let downward = dot(ray, down)
                guard downward >= cos(steepestRay), ray.z > 0 else { continue }
                let v = viewFromCamera * ray
                let p = SIMD2(v.x, v.y) / v.z
                lower = pointwiseMin(lower, p)
                upper = pointwiseMax(upper, p)
                // On a surface h below, the frame has fx·(ray·down)/(h·ray.z) pixels a metre and
                // the view s/h: this is the s that matches the frame there.
                scales.append(camera.fx * downward / ray.z)
            }
        }
        guard !scales.isEmpty else { return nil }
        let size = upper - lower
        let scale = min(scales.sorted()[scales.count / 2], maximumSide / max(size.x, size.y))
        let width = Int((size.x * scale).rounded()), height = Int((size.y * scale).rounded())
        guard width >= 16, height >= 16 else { return nil }
        // View pixel (u, v) -> the view camera's ray (u / s + lower.x, v / s + lower.y, 1) -> the
        // frame camera's ray -> frame pixel.
        let viewRayFromView = Matrix3(rows: SIMD3(1 / scale, 0, lower.x), SIMD3(0, 1 / scale, lower.y), SIMD3(0, 0, 1))
        frameFromView = k * viewFromCamera.transposed * viewRayFromView
        self.width = width
        self.height = height
    }
}

/// What an ``ImageTracker`` builds its top views of level surfaces from, given before each frame
/// and turned into views only when the tracker searches them (every few frames of detection):
/// the view from the frame's gravity where it exists, else the views of the level planes found.
public struct SurfaceViewSource: Sendable, Equatable {
    /// The frame's gravity (ARKit camera axes, any length; nil when unknown): one view of every
    /// level surface below the camera (``SurfaceView/init(levelSurfacesSeenWith:camera:steepestRay:maximumSide:)``).
    public var gravity: SIMD3<Double>?
    /// Level plane anchors found so far (their `transform` and `extent`, metres), seen from
    /// ``worldFromCamera``: their top views are used when gravity gives no view.
    public var levelPlanes: [Anchor]
    /// The camera the plane views are built for (ARKit camera axes, world frame): a recent one
    /// is enough, as the view needs only to undo the foreshortening and what it finds is aligned
    /// in the frame. Nil: no plane views.
    public var worldFromCamera: Transform?

    public init(gravity: SIMD3<Double>? = nil, levelPlanes: [Anchor] = [], worldFromCamera: Transform? = nil) {
        self.gravity = gravity
        self.levelPlanes = levelPlanes
        self.worldFromCamera = worldFromCamera
    }

    /// The views to search in a frame taken with `camera`.
    public func views(camera: CameraIntrinsics) -> [SurfaceView] {
        if let gravity, let view = SurfaceView(levelSurfacesSeenWith: gravity, camera: camera) { return [view] }
        guard let worldFromCamera else { return [] }
        return levelPlanes.compactMap {
            SurfaceView(plane: $0.transform, extent: $0.extent, worldFromCamera: worldFromCamera, camera: camera)
        }
    }
}
