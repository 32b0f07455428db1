/// A place on the Earth: WGS84 latitude and longitude (degrees) and height above the WGS84
/// ellipsoid (metres), the coordinate of Core Location and `ARGeoAnchor`.
public struct GeoCoordinate: Hashable, Sendable, Codable {
    /// Degrees north of the equator, -90...90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public var longitude: Double
    /// Metres above the WGS84 ellipsoid.
    public var altitude: Double

    public init(latitude: Double, longitude: Double, altitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Whether the latitude is within ±90°, the longitude within ±180° (and both and the altitude
    /// finite): what a receiver can report.
    public var isValid: Bool { problem == nil }

    /// What makes the coordinate impossible, in one line ("latitude 91.0 is beyond ±90°"); nil
    /// when it is valid.
    public var problem: String? {
        if !latitude.isFinite || abs(latitude) > 90 { return "latitude \(latitude) is beyond ±90°" }
        if !longitude.isFinite || abs(longitude) > 180 { return "longitude \(longitude) is beyond ±180°" }
        if !altitude.isFinite { return "altitude \(altitude) is not finite" }
        return nil
    }
}
