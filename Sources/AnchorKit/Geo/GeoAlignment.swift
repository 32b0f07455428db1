import Foundation

/// How the session's world lies on the Earth: a point `w` of the world (metres or the world's
/// units, +y up) is the point `scale · Ry(yaw) · w + translation` of the geo world, ARKit's geo
/// frame at ``origin``: +x east, +y up, +z south, metres (``LocalTangentFrame/geoWorld(fromENU:)``).
///
/// Gravity is shared (both worlds have +y up), so the world turns only about +y; `scale` is 1
/// for a metric world and the world's metres per unit otherwise.
public struct GeoAlignment: Equatable, Sendable {
    /// Where the geo world's origin is.
    public var origin: GeoCoordinate
    /// Radians about +y, from the world's axes to the geo world's.
    public var yaw: Double
    /// Geo metres per world unit.
    public var scale: Double
    /// The world origin in the geo world, metres.
    public var translation: SIMD3<Double>

    public init(origin: GeoCoordinate, yaw: Double, scale: Double = 1, translation: SIMD3<Double>) {
        self.origin = origin; self.yaw = yaw; self.scale = scale; self.translation = translation
    }

    /// `geoWorld_from_world`'s rotation: the world's axes in the geo world.
    public var rotation: Matrix3 { .rotation(angle: yaw, axis: SIMD3(0, 1, 0)) }

    /// The geo-world point (metres) of world point `p`.
    public func geoWorld(fromWorld p: SIMD3<Double>) -> SIMD3<Double> { scale * (rotation * p) + translation }

    /// The world point of geo-world point `g` (metres).
    public func world(fromGeoWorld g: SIMD3<Double>) -> SIMD3<Double> { rotation.transposed * ((g - translation) / scale) }

    /// `world_from_anchor` of a place at geo-world point `g`: at its world point, its axes east (+x),
    /// up (+y) and south (+z) as `ARGeoAnchor`'s are (rigid: a non-metric world moves the origin
    /// only).
    public func worldFromPlace(at g: SIMD3<Double>) -> Transform {
        Transform(rotation: rotation.transposed, translation: world(fromGeoWorld: g))
    }

    /// `world_from_anchor` of a place at geo-world point `g` for a camera at world point `camera`
    /// in a world meant to be metric: the place's offset from the camera in metres, turned into
    /// the world's axes. Where odometry's scale has drifted (``scale`` is not 1) the world's unit
    /// near the camera is no longer a metre, and a place at a fixed world point would sit at the
    /// wrong distance; here it keeps its true distance from the camera (and moves in the world as
    /// the camera does). With ``scale`` 1 this is ``worldFromPlace(at:)``.
    public func worldFromPlace(at g: SIMD3<Double>, seenFrom camera: SIMD3<Double>) -> Transform {
        Transform(rotation: rotation.transposed, translation: camera + rotation.transposed * (g - geoWorld(fromWorld: camera)))
    }

    /// The compass bearing (radians clockwise from true north) of a horizontal world direction
    /// whose azimuth (radians clockwise from the world's -z, seen from above) is `azimuth`.
    public func bearing(ofWorldAzimuth azimuth: Double) -> Double { azimuth - yaw }

    /// The azimuth (radians clockwise from -z, seen from above) of `direction`'s horizontal part,
    /// in the direction's own axes (+y up): 0 along -z, π/2 along +x. With the geo world's axes,
    /// that is the compass bearing (north is -z, east +x).
    public static func azimuth(of direction: SIMD3<Double>) -> Double { atan2(direction.x, -direction.z) }

    /// The azimuth of where a camera with rotation `worldFromCamera` (ARKit convention) looks, its
    /// -z; nil when it looks within 30° of straight up or down, where a compass reads none.
    public static func viewAzimuth(of worldFromCamera: Matrix3) -> Double? {
        let forward = -worldFromCamera.columns.2
        return (forward.x * forward.x + forward.z * forward.z).squareRoot() > 0.5 ? azimuth(of: forward) : nil
    }
}
