/// A position fix from a satellite receiver, as Core Location's `CLLocation` gives one
/// (FORMATS.md, `location.jsonl`).
public struct LocationFix: Hashable, Sendable {
    /// Seconds of the video (frame f is at f / fps).
    public var time: Double
    /// Where the receiver was.
    public var coordinate: GeoCoordinate
    /// Horizontal error, metres, 1 σ; negative when unknown.
    public var horizontalAccuracy: Double
    /// Altitude error, metres, 1 σ; negative when unknown.
    public var verticalAccuracy: Double
    /// Direction of travel, degrees clockwise from true north; negative when unknown.
    public var course: Double
    /// Speed over ground, m/s; negative when unknown.
    public var speed: Double

    public init(time: Double, coordinate: GeoCoordinate, horizontalAccuracy: Double = -1, verticalAccuracy: Double = -1,
                course: Double = -1, speed: Double = -1) {
        self.time = time
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
    }
}

/// A compass reading: where the camera looks (its -z axis projected on the horizontal), as
/// Core Location's `CLHeading.trueHeading` gives it for a device held upright.
public struct HeadingReading: Hashable, Sendable {
    /// Seconds of the video.
    public var time: Double
    /// Degrees clockwise from true north, 0..<360.
    public var heading: Double
    /// Error, degrees, 1 σ; negative when unknown.
    public var headingAccuracy: Double

    public init(time: Double, heading: Double, headingAccuracy: Double = -1) {
        self.time = time
        self.heading = heading
        self.headingAccuracy = headingAccuracy
    }
}

/// The fixes and compass readings recorded beside a video, each in time order, times in seconds
/// of the video.
public struct LocationLog: Hashable, Sendable {
    /// Position fixes, in time order.
    public var fixes: [LocationFix]
    /// Compass readings, in time order.
    public var headings: [HeadingReading]

    public init(fixes: [LocationFix] = [], headings: [HeadingReading] = []) {
        self.fixes = fixes
        self.headings = headings
    }

    /// The log with every time moved by `seconds` (a time offset between log and video).
    public func shifted(by seconds: Double) -> LocationLog {
        LocationLog(fixes: fixes.map { var f = $0; f.time += seconds; return f },
                    headings: headings.map { var h = $0; h.time += seconds; return h })
    }
}
