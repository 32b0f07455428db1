/// How well the session's world is placed on the Earth (ARKit's `ARGeoTrackingStatus`).
///
/// Stream key `geoTracking` (an object beside `camera`): `state`, `accuracy`, and once localised
/// `horizontalAccuracy` (metres) and `headingAccuracy` (degrees), both 1 σ.
public struct GeoTrackingStatus: Equatable, Sendable, Codable {
    /// Whether the world is placed.
    public enum State: String, Codable, Sendable {
        /// No location input, or none usable yet.
        case notAvailable
        /// Fixes arrive but do not yet place the world (too few, or the yaw is still unknown).
        case initializing
        /// The world is placed: geo anchors have transforms.
        case localized
    }

    /// How well, in ARKit's three steps: `high` within 2 m and 2°, `medium` within 5 m and 5°,
    /// `low` beyond (1 σ).
    public enum Accuracy: String, Codable, Sendable {
        case undetermined, low, medium, high
    }

    /// Why the state is not `localized`.
    public enum Reason: String, Codable, Sendable {
        /// No fix has arrived yet.
        case waitingForLocation
        /// The world tracker has no pose to pair fixes with.
        case worldTrackingUnstable
        /// Fixes so far do not fix the world's yaw: the camera has to move, or a compass is needed.
        case insufficientMotion
        /// The world has no metric scale yet (no target of known size, no inertial scale): the
        /// fixes give it once the path is long enough.
        case worldScaleUnknown
    }

    /// Whether the world is placed.
    public var state: State
    /// How well; `undetermined` until localised.
    public var accuracy: Accuracy
    /// Why it is not localised; nil when it is.
    public var reason: Reason?
    /// Metres, 1 σ, where the world puts the camera on the Earth (horizontally).
    public var horizontalAccuracy: Double?
    /// Degrees, 1 σ, of the world's yaw against true north.
    public var headingAccuracy: Double?

    public init(state: State, accuracy: Accuracy = .undetermined, reason: Reason? = nil,
                horizontalAccuracy: Double? = nil, headingAccuracy: Double? = nil) {
        self.state = state; self.accuracy = accuracy; self.reason = reason
        self.horizontalAccuracy = horizontalAccuracy; self.headingAccuracy = headingAccuracy
    }

    /// The accuracy step of a placement good to `horizontal` metres and `heading` degrees.
    public static func accuracy(horizontal: Double, heading: Double) -> Accuracy {
        if horizontal <= 2 && heading <= 2 { return .high }
        if horizontal <= 5 && heading <= 5 { return .medium }
        return .low
    }
}

/// A place given by coordinate, to put content at (ARKit's `ARGeoAnchor`). In the stream an
/// anchor of type `geo`, id `geo/<name>`, listed once the world is localised.
public struct GeoAnchor: Hashable, Sendable {
    /// The place's name: the anchor's id is `geo/<name>`.
    public var name: String
    /// Where it is on the Earth (its altitude is not used with ``AltitudeSource/ground``).
    public var coordinate: GeoCoordinate
    /// Where its altitude comes from.
    public var altitudeSource: AltitudeSource

    /// Where a place's altitude comes from (ARGeoAnchor's `altitudeSource`).
    public enum AltitudeSource: Sendable {
        /// ``GeoAnchor/coordinate``'s, metres above the WGS84 ellipsoid (ARKit's `userDefined`).
        case userDefined
        /// None was given: the place stands on the ground the camera is on,
        /// ``GeoTracker/Parameters/cameraAboveGround`` below the camera (ARKit takes it from its
        /// maps; a receiver's altitude, σ 5-10 m, would put it metres above or below the street).
        case ground
    }

    /// A place at `coordinate`, its altitude as given.
    public init(name: String, coordinate: GeoCoordinate) {
        self.name = name
        self.coordinate = coordinate
        altitudeSource = .userDefined
    }

    /// A place at a latitude and longitude (degrees, WGS84) and an altitude (metres above the
    /// ellipsoid), or on the ground under the camera where `altitude` is nil (``AltitudeSource/ground``).
    public init(name: String, latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.name = name
        coordinate = GeoCoordinate(latitude: latitude, longitude: longitude, altitude: altitude ?? 0)
        altitudeSource = altitude == nil ? .ground : .userDefined
    }

    /// The stream id, `geo/<name>`.
    public var identifier: String { "geo/\(name)" }
}
