import AnchorKit
import AnchorKitRendering
/// A textured rectangle in a synthetic scene: a poster, a printed marker on its paper, a table
/// top, a floor or wall, or an occluder.
///
/// The plane's frame is the anchor frame of ../shared/FORMATS.md: origin at the centre, +x toward
/// the texture's right edge, +z toward its bottom edge, +y out of the printed face.
public struct ScenePlane {
    /// What the plane carries that a tracker should report.
    public struct Target {
        /// The anchor id (`marker/<dictionary>/<id>[/<instance>]`, `image/<name>`).
        public var identifier: String
        public var kind: Anchor.Kind
        public var name: String
        /// Markers: the instance among markers printing the same id (nil for the first).
        public var instance: Int? = nil
        /// The target's size in metres (a marker's black square; it is centred on the plane).
        public var extent: SIMD2<Double>
        /// Codes: the payload.
        public var payload: CodePayload? = nil
    }

    /// A surface a plane detector should find (a floor, a table top, a wall): ground truth lists
    /// it as a plane anchor whose frame is the plane's own (+y, out of the textured face, is the
    /// normal toward the observed side, as ARKit's plane anchors have it) and whose extent and
    /// polygon are the rectangle's (or `extent`, centred, when the plane is drawn larger than the
    /// surface so that its edge hides under a neighbour's).
    public struct Surface: Sendable {
        /// The anchor id, `plane/<name>`: stable across frames.
        public var identifier: String
        /// Horizontal (a floor, a table top, a ceiling) or vertical (a wall).
        public var alignment: PlaneAlignment
        /// The surface's size along x and z (metres), centred on the plane; nil = the plane's size.
        public var extent: SIMD2<Double>?

        /// A surface named `name` (the id is `plane/<name>`).
        public init(name: String, alignment: PlaneAlignment, extent: SIMD2<Double>? = nil) {
            identifier = "plane/\(name)"; self.alignment = alignment; self.extent = extent
        }
    }

    /// What of a plane reaches the image at one instant: the homography of the whole plane and,
    /// when part of the plane is behind the near plane, the outline of the part in front.
    public typealias Projection = PictureQuad.Projection

    /// Distance in front of the camera (metres, along the viewing axis) where planes are cut:
    /// floors and walls of a room extend behind the camera, and a projection is only defined in
    /// front of it. Nothing that close is ever looked at, so the cut is never seen.
    public static let nearDistance = 0.05

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
    /// The detectable surface this plane is, if any (ground truth lists it as a plane anchor).
    public var surface: Surface?

    public init(texture: Image, size: SIMD2<Double>, pose: @escaping (Double) -> Transform,
                gain: @escaping (Double) -> Double = { _ in 1 }, target: Target? = nil, surface: Surface? = nil) {
        self.texture = texture; self.size = size; self.pose = pose; self.gain = gain; self.target = target
        self.surface = surface
    }

    /// The plane as a picture quad: its size and its texture's pixels.
    private var quad: PictureQuad { PictureQuad(size: size, pixels: SIMD2(texture.width, texture.height)) }

    /// The homography from texture pixels to image pixels, for a camera at `cameraFromPlane`
    /// (ARKit camera convention) with pinhole intrinsics (distortion is not rendered).
    /// Returns nil when any corner of the plane is not in front of the camera (see
    /// ``projection(cameraFromPlane:camera:)`` for planes that extend behind it).
    public func homography(cameraFromPlane t: Transform, camera: CameraIntrinsics) -> Matrix3? {
        for corner in quad.corners {
            guard CameraConvention.flipped(t.apply(to: corner)).z > 0.01 else { return nil }
        }
        return quad.homography(cameraFromQuad: t, camera: camera)
    }

    /// How the plane is painted for a camera at `cameraFromPlane`: its homography, and the outline
    /// of the part in front of the near plane (``nearDistance``) when some of it is behind. nil
    /// when none of it is in front, or it is seen edge-on.
    public func projection(cameraFromPlane t: Transform, camera: CameraIntrinsics) -> Projection? {
        quad.projection(cameraFromQuad: t, camera: camera, near: Self.nearDistance)
    }

    /// The plane's rectangle (or its target's, `ofTarget`) clipped by the near plane
    /// (``nearDistance``) and projected to image pixels: a convex polygon, the corners TL, TR, BR,
    /// BL when nothing is cut. nil when nothing is in front of the near plane.
    public func visibleOutline(cameraFromPlane t: Transform, camera: CameraIntrinsics, ofTarget: Bool) -> [SIMD2<Double>]? {
        let extent = ofTarget ? (target?.extent ?? size) : size
        let corners = TargetConvention.corners(width: extent.x, height: extent.y).map { t.apply(to: $0) }
        return PictureQuad.projectClipped(corners, camera: camera, near: Self.nearDistance)
    }

    /// True when `other` lies on this plane at time t (parallel within ~2.5° and within 1 cm):
    /// a poster on a wall, a marker on a table top. It hides nothing of the surface.
    public func isCoplanar(with other: ScenePlane, at t: Double) -> Bool {
        let a = pose(t), b = other.pose(t)
        let n = a.rotation.columns.1
        return abs(dot(n, b.rotation.columns.1)) > 0.999 && abs(dot(n, b.translation - a.translation)) < 0.01
    }

    /// The projected corners of the plane (or of its target, `ofTarget`), TL, TR, BR, BL.
    public func projectedCorners(cameraFromPlane t: Transform, camera: CameraIntrinsics, ofTarget: Bool) -> [SIMD2<Double>]? {
        let extent = ofTarget ? (target?.extent ?? size) : size
        let points = TargetConvention.corners(width: extent.x, height: extent.y).compactMap { camera.project(t.apply(to: $0)) }
        return points.count == 4 ? points : nil
    }
}
