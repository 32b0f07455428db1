import AnchorKitGeodesy

/// The local tangent frame at a place on the Earth, in east-north-up (ENU) metres: +x east,
/// +y north, +z up along the WGS84 ellipsoid's normal at `origin`, with `origin` (its altitude
/// included) at (0, 0, 0).
///
/// The conversions are exact (GeographicLib's `LocalCartesian`, through Earth-centred
/// coordinates), not a flat-Earth approximation: the ground 10 km away lies about 7.8 m below
/// the frame's horizontal plane.
public struct LocalTangentFrame: Hashable, Sendable {
    /// The place at the frame's origin.
    public var origin: GeoCoordinate

    /// The frame tangent to the WGS84 ellipsoid at `origin`.
    public init(origin: GeoCoordinate) {
        self.origin = origin
    }

    /// East, north and up metres of each coordinate, in order.
    ///
    /// - Throws: `NativeError` (`.invalidArgument`) when the origin's or a coordinate's latitude
    ///   is beyond ±90° or a value is not finite; the message names it. Longitudes beyond ±180°
    ///   are taken modulo 360°.
    public func enu(of coordinates: [GeoCoordinate]) throws -> [SIMD3<Double>] {
        let lla = Self.flattened(coordinates.map { SIMD3($0.latitude, $0.longitude, $0.altitude) })
        var enu = [Double](repeating: 0, count: lla.count)
        try checkGeodesy(ak_enu_from_geodetic(origin.latitude, origin.longitude, origin.altitude, lla,
                                              try pointCount(coordinates.count), &enu))
        return Self.triples(enu)
    }

    /// East, north and up metres of `coordinate`; throws as `enu(of:)` of an array.
    public func enu(of coordinate: GeoCoordinate) throws -> SIMD3<Double> {
        try enu(of: [coordinate])[0]
    }

    /// The places at east-north-up positions `enu` (metres), in order; their longitudes are within
    /// -180...180 and their altitudes are above the ellipsoid.
    ///
    /// - Throws: `NativeError` (`.invalidArgument`) when the origin's latitude is beyond ±90° or
    ///   a value is not finite; the message names it.
    public func coordinates(of enu: [SIMD3<Double>]) throws -> [GeoCoordinate] {
        let flat = Self.flattened(enu)
        var lla = [Double](repeating: 0, count: flat.count)
        try checkGeodesy(ak_geodetic_from_enu(origin.latitude, origin.longitude, origin.altitude, flat,
                                              try pointCount(enu.count), &lla))
        return Self.triples(lla).map { GeoCoordinate(latitude: $0.x, longitude: $0.y, altitude: $0.z) }
    }

    /// Triples as the C API takes them: x0, y0, z0, x1, ...
    private static func flattened(_ triples: [SIMD3<Double>]) -> [Double] { triples.flatMap { [$0.x, $0.y, $0.z] } }

    /// The C API's flat triples back.
    private static func triples(_ flat: [Double]) -> [SIMD3<Double>] {
        stride(from: 0, to: flat.count, by: 3).map { SIMD3(flat[$0], flat[$0 + 1], flat[$0 + 2]) }
    }

    /// The place at east-north-up position `enu` (metres); throws as `coordinates(of:)`.
    public func coordinate(of enu: SIMD3<Double>) throws -> GeoCoordinate {
        try coordinates(of: [enu])[0]
    }

    /// A position in ARKit's geo-tracking world axes from the same position in ENU.
    ///
    /// ARKit's geo-tracking world (`ARGeoTrackingConfiguration`, `ARGeoAnchor`; FORMATS.md,
    /// `geoAnchors`) has +x east, +y up and +z south, so (east, north, up) maps to
    /// (east, up, -north). Same origin, metres; the mapping is a rotation, so it applies to
    /// directions as well.
    public static func geoWorld(fromENU enu: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(enu.x, enu.z, -enu.y)
    }

    /// A position in ENU (metres) from the same position in ARKit's geo-tracking world axes
    /// (+x east, +y up, +z south): the inverse of `geoWorld(fromENU:)`.
    public static func enu(fromGeoWorld point: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(point.x, -point.z, point.y)
    }
}

/// `count` as the shim's `int`: no array that fits in memory comes near the limit, but a trap
/// would be worse than an error.
private func pointCount(_ count: Int) throws -> Int32 {
    guard let n = Int32(exactly: count), n <= Int32.max / 3 else {
        throw NativeError(kind: .invalidArgument, message: "\(count) points are more than one call can convert")
    }
    return n
}
