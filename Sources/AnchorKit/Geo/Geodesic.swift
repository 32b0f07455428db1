import AnchorKitGeodesy

/// Shortest paths on the WGS84 ellipsoid (GeographicLib's `Geodesic::WGS84()`, accurate to
/// nanometres at any distance). Altitudes play no part: paths run on the ellipsoid's surface.
public enum Geodesic {
    /// The length of the shortest path from `start` to `end`, in metres, and its initial azimuth
    /// at `start`, in degrees clockwise from true north, within -180...180 as GeographicLib gives
    /// it (add 360 to a negative azimuth for a 0..<360 compass bearing).
    ///
    /// - Throws: `NativeError` (`.invalidArgument`) when a latitude is beyond ±90° or a value is
    ///   not finite; the message names the value.
    public static func inverse(from start: GeoCoordinate, to end: GeoCoordinate) throws -> (distance: Double, azimuth: Double) {
        var distance = 0.0, azimuth = 0.0, arrival = 0.0
        try checkGeodesy(ak_geodesic_inverse(start.latitude, start.longitude, end.latitude, end.longitude, &distance, &azimuth,
                                             &arrival))
        return (distance, azimuth)
    }

    /// Where the shortest path leaving `start` at `azimuth` (degrees clockwise from true north)
    /// arrives after `distance` metres (negative: backwards). The result's longitude is within
    /// -180...180; its altitude is `start`'s.
    ///
    /// - Throws: `NativeError` (`.invalidArgument`) when `start`'s latitude is beyond ±90° or a
    ///   value is not finite; the message names the value.
    public static func destination(from start: GeoCoordinate, azimuth: Double, distance: Double) throws -> GeoCoordinate {
        var latitude = 0.0, longitude = 0.0, arrival = 0.0
        try checkGeodesy(ak_geodesic_direct(start.latitude, start.longitude, azimuth, distance, &latitude, &longitude, &arrival))
        return GeoCoordinate(latitude: latitude, longitude: longitude, altitude: start.altitude)
    }
}

/// Throws the geodesy shim's one-line message as a `NativeError` unless `status` is
/// `AK_GEODESY_OK`. The shim has its own codes (anchorkit_geodesy.h), hence not `NativeError.check`.
func checkGeodesy(_ status: Int32) throws {
    guard status != AK_GEODESY_OK else { return }
    // As NativeError.check: the shim's "ak_function: " prefix is noise in a user's error line.
    var detail = String(cString: ak_geodesy_last_error())
    if detail.hasPrefix("ak_"), let colon = detail.range(of: ": ") { detail = String(detail[colon.upperBound...]) }
    throw NativeError(kind: status == AK_GEODESY_ERR_ARGUMENT ? .invalidArgument : .internalError, message: detail)
}
