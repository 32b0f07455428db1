import Foundation
import AnchorKit

/// Where a synthetic scene lies on the Earth, and the places of it given by coordinate.
public struct SceneGeoreference: Sendable {
    /// The coordinate of the scene's origin (its ground at y = 0).
    public var origin: GeoCoordinate
    /// The compass bearing of the scene's -z axis, degrees clockwise from true north.
    public var bearing: Double
    /// Places of the scene given by coordinate (`geoAnchors`): name and scene point (metres).
    public var places: [(name: String, point: SIMD3<Double>)] = []
    /// The receiver and compass that log the walk.
    public var sensor = LocationSensor()
    /// Seed of the log's errors; nil: one derived from the scene's seed.
    public var logSeed: UInt64?

    public init(origin: GeoCoordinate, bearing: Double) {
        self.origin = origin
        self.bearing = bearing
    }

    /// `geoWorld_from_scene`: the scene turned so that -z points along ``bearing`` in the geo
    /// world (+x east, +y up, +z south, origin at ``origin``).
    public var geoWorldFromScene: Transform {
        Transform(rotation: .rotation(angle: -bearing * .pi / 180, axis: SIMD3(0, 1, 0)), translation: .zero)
    }

    /// The coordinate of scene point `p`.
    public func coordinate(of p: SIMD3<Double>) throws -> GeoCoordinate {
        try LocalTangentFrame(origin: origin).coordinate(of: LocalTangentFrame.enu(fromGeoWorld: geoWorldFromScene.apply(to: p)))
    }
}

/// A phone's satellite receiver and compass as the generator simulates them (issue 26): fixes at
/// 1 Hz whose error is white noise plus a bias that drifts slowly (a first-order Gauss-Markov
/// process, as multipath and atmosphere make it), the altitude worse; compass readings at 10 Hz
/// with white noise, a drifting bias and magnetic disturbances near steel (places where the
/// reading swings by up to ``disturbance`` degrees).
public struct LocationSensor: Sendable {
    /// Fixes per second.
    public var fixRate = 1.0
    /// Per horizontal axis, metres: the white part and the drifting bias (1 σ), and the bias's
    /// correlation time, seconds. The stated `horizontalAccuracy` is their total horizontal σ.
    public var whiteNoise = 3.4, bias = 1.0, biasTime = 300.0
    /// The vertical error's white part and bias, metres (receivers are worse in altitude).
    public var verticalWhiteNoise = 6.0, verticalBias = 3.0
    /// The error of the velocity a receiver measures from Doppler shifts, m/s per horizontal axis:
    /// fixes carry the course and speed from it (course unknown under 0.3 m/s).
    public var velocityNoise = 0.1
    /// Compass readings per second, their white noise and drifting bias (degrees, 1 σ) and the
    /// bias's correlation time (seconds); the stated `headingAccuracy`.
    public var headingRate = 10.0, headingNoise = 5.0, headingBias = 3.0, headingBiasTime = 30.0, statedHeadingAccuracy = 10.0
    /// Magnetic disturbances: scene points (metres) near which the compass swings, by up to this
    /// many degrees within ``disturbanceRadius`` metres.
    public var disturbances: [SIMD3<Double>] = [], disturbance = 15.0, disturbanceRadius = 6.0
    public init() {}

    /// The stated horizontal accuracy of every fix, metres (total σ of both axes).
    public var horizontalAccuracy: Double { (2 * (whiteNoise * whiteNoise + bias * bias)).squareRoot() }

    /// The log of a camera moving along `path` from time 0 to `end` (seconds) in a scene placed
    /// by `georeference`: fixes of the camera's centre, readings of where it looks.
    public func recording(along path: CameraPath, until end: Double, georeference: SceneGeoreference, seed: UInt64) throws -> LocationLog {
        var rng = SplitMix64(seed: seed)
        func gaussian() -> Double { rng.nextGaussian() }
        let frame = LocalTangentFrame(origin: georeference.origin), toGeo = georeference.geoWorldFromScene
        // A stationary Gauss-Markov process stepped by dt: x' = a x + sqrt(1 - a²) σ n.
        func drift(_ x: Double, sigma: Double, time: Double, dt: Double) -> Double {
            let a = exp(-dt / time)
            return a * x + (1 - a * a).squareRoot() * sigma * gaussian()
        }
        var fixes: [LocationFix] = []
        var b = SIMD3(gaussian() * bias, gaussian() * bias, gaussian() * verticalBias)
        var k = 0
        while Double(k) / fixRate <= end + 1e-9 {
            let t = Double(k) / fixRate
            if k > 0 {
                b = SIMD3(drift(b.x, sigma: bias, time: biasTime, dt: 1 / fixRate), drift(b.y, sigma: bias, time: biasTime, dt: 1 / fixRate),
                          drift(b.z, sigma: verticalBias, time: biasTime, dt: 1 / fixRate))
            }
            let enu = LocalTangentFrame.enu(fromGeoWorld: toGeo.apply(to: path.pose(at: t).translation))
            let error = b + SIMD3(gaussian() * whiteNoise, gaussian() * whiteNoise, gaussian() * verticalWhiteNoise)
            let h = 0.01, ahead = LocalTangentFrame.enu(fromGeoWorld: toGeo.apply(to: path.pose(at: t + h).translation)),
                behind = LocalTangentFrame.enu(fromGeoWorld: toGeo.apply(to: path.pose(at: t - h).translation))
            let velocity = SIMD2(ahead.x - behind.x, ahead.y - behind.y) / (2 * h) + SIMD2(gaussian(), gaussian()) * velocityNoise
            let speed = length(velocity)
            let course = speed < 0.3 ? -1 : (atan2(velocity.x, velocity.y) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360)
            fixes.append(LocationFix(time: t, coordinate: try frame.coordinate(of: enu + error), horizontalAccuracy: horizontalAccuracy,
                                     verticalAccuracy: (verticalWhiteNoise * verticalWhiteNoise + verticalBias * verticalBias).squareRoot(),
                                     course: course, speed: speed))
            k += 1
        }
        var headings: [HeadingReading] = []
        var headingError = gaussian() * headingBias
        k = 0
        while Double(k) / headingRate <= end + 1e-9 {
            let t = Double(k) / headingRate
            if k > 0 { headingError = drift(headingError, sigma: headingBias, time: headingBiasTime, dt: 1 / headingRate) }
            let pose = path.pose(at: t)
            let forward = toGeo.rotation * -pose.rotation.columns.2
            let near = disturbances.map { length(SIMD2($0.x - pose.translation.x, $0.z - pose.translation.z)) }.min() ?? .infinity
            let swing = disturbance * max(0, 1 - near / disturbanceRadius)
            let bearing = GeoAlignment.azimuth(of: forward) * 180 / .pi + headingError + swing + gaussian() * headingNoise
            headings.append(HeadingReading(time: t, heading: (bearing.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360),
                                           headingAccuracy: statedHeadingAccuracy))
            k += 1
        }
        return LocationLog(fixes: fixes, headings: headings)
    }
}
