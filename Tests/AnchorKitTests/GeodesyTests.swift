import Testing
@testable import AnchorKit

/// `Geodesic` and `LocalTangentFrame` (GeographicLib through anchorkit_geodesy.h) on cases whose
/// answers are published or follow from the ellipsoid's radii.
@Suite("Geodesy")
struct GeodesyTests {
    /// GeographicLib's own example (example-Geodesic.cpp): JFK and LHR airports.
    static let jfk = GeoCoordinate(latitude: 40.6, longitude: -73.8)
    static let lhr = GeoCoordinate(latitude: 51.6, longitude: -0.5)

    /// The example's published 5551.76 km, to the metre; the azimuth is GeographicLib 2.1.2's
    /// 51.19888°, north-east (GeographicLib's range is -180...180, so no 0..<360 form to choose).
    @Test func jfkToLHR() throws {
        let (distance, azimuth) = try Geodesic.inverse(from: Self.jfk, to: Self.lhr)
        #expect(abs(distance - 5_551_759.4) <= 1)
        #expect(abs(azimuth - 51.198_882_8) <= 1e-6)
        // The way back leaves LHR heading west-north-west: negative, not 0..<360.
        let back = try Geodesic.inverse(from: Self.lhr, to: Self.jfk)
        #expect(abs(back.distance - distance) <= 1e-6)
        #expect(abs(back.azimuth - -72.178_223_3) <= 1e-6)
        // The airports' own reference points (40.64, -73.78) -> (51.47, -0.45), not the example's
        // rounded ones: 3.6 km more.
        let airports = try Geodesic.inverse(from: GeoCoordinate(latitude: 40.64, longitude: -73.78),
                                           to: GeoCoordinate(latitude: 51.47, longitude: -0.45))
        #expect(abs(airports.distance - 5_555_408.66) <= 0.01)
        #expect(abs(airports.azimuth - 51.379_232_8) <= 1e-6)
    }

    /// Leaving JFK at the inverse's azimuth for its distance lands on LHR, altitude carried over.
    @Test func destinationUndoesInverse() throws {
        let (distance, azimuth) = try Geodesic.inverse(from: Self.jfk, to: Self.lhr)
        var start = Self.jfk
        start.altitude = 4
        let end = try Geodesic.destination(from: start, azimuth: azimuth, distance: distance)
        #expect(try Geodesic.inverse(from: end, to: Self.lhr).distance <= 1e-3)
        #expect(end.altitude == 4)
    }

    /// 0.001° north of an origin at 45°: north is the meridian arc, 111.1317872 m (the meridian
    /// radius of curvature there, a(1 - e²) / (1 - e² sin²φ)^1.5 = 6367382 m, times 1.745e-5 rad),
    /// and the ellipsoid has dropped below the tangent plane by north² / 2M = 0.97 mm.
    @Test func pointJustNorthOfTheOrigin() throws {
        let frame = LocalTangentFrame(origin: GeoCoordinate(latitude: 45, longitude: 0))
        let enu = try frame.enu(of: GeoCoordinate(latitude: 45.001, longitude: 0))
        #expect(isNear(enu, SIMD3(0, 111.131_787_2, -0.000_969_8), 1e-6), "\(enu)")
        // ARKit's geo world: north is -z.
        #expect(isNear(LocalTangentFrame.geoWorld(fromENU: enu), SIMD3(0, -0.000_969_8, -111.131_787_2), 1e-6))
    }

    /// ENU -> coordinates -> ENU over points 10 km away in several directions and heights.
    @Test func roundTripTenKilometresAway() throws {
        let frame = LocalTangentFrame(origin: GeoCoordinate(latitude: 45.5552699, longitude: 18.6955832, altitude: 103.2))
        let points: [SIMD3<Double>] = [
            SIMD3(10_000, 0, 0), SIMD3(0, -10_000, 50), SIMD3(7071.07, 7071.07, -20), SIMD3(-6000, 8000, 300),
            SIMD3(-8000, -6000, 1500),
        ]
        let coordinates = try frame.coordinates(of: points)
        let back = try frame.enu(of: coordinates)
        for (p, q) in zip(points, back) { #expect(isNear(p, q, 1e-6), "\(p) -> \(q)") }
        // The single-point forms agree with the array forms.
        #expect(try frame.coordinate(of: points[3]) == coordinates[3])
        #expect(try frame.enu(of: coordinates[3]) == back[3])
        // 10 km east in the tangent plane is 10 km along the ellipsoid less 17 cm, and 7.83 m above it
        // (east² / 2N, N the prime vertical radius of curvature, 6389 km there).
        #expect(abs(try Geodesic.inverse(from: frame.origin, to: coordinates[0]).distance - 9999.83) < 0.01)
        #expect(abs(coordinates[0].altitude - 103.2 - 7.826) < 0.001)
    }

    @Test func geoWorldAxesAreEastUpSouth() {
        let enu = SIMD3<Double>(1, 2, 3)
        #expect(LocalTangentFrame.geoWorld(fromENU: enu) == SIMD3(1, 3, -2))
        #expect(LocalTangentFrame.enu(fromGeoWorld: LocalTangentFrame.geoWorld(fromENU: enu)) == enu)
    }

    /// A latitude beyond ±90° (GeographicLib itself answers NaN) is a one-line argument error that
    /// names it, wherever it is.
    @Test func latitudeBeyondNinetyThrows() throws {
        let pole = GeoCoordinate(latitude: 91, longitude: 0)
        let cases: [(String, () throws -> Void)] = [
            ("origin latitude 91", { _ = try LocalTangentFrame(origin: pole).enu(of: Self.jfk) }),
            ("point 1 latitude 91", { _ = try LocalTangentFrame(origin: Self.jfk).enu(of: [Self.lhr, pole]) }),
            ("origin latitude 91", { _ = try LocalTangentFrame(origin: pole).coordinate(of: .zero) }),
            ("end latitude 91", { _ = try Geodesic.inverse(from: Self.jfk, to: pole) }),
            ("start latitude 91", { _ = try Geodesic.destination(from: pole, azimuth: 0, distance: 1) }),
        ]
        for (expected, call) in cases {
            let error = #expect(throws: NativeError.self) { try call() }
            #expect(error?.kind == .invalidArgument)
            #expect(error?.description == "\(expected) is outside [-90, 90] degrees", "\(String(describing: error))")
        }
        let nan = #expect(throws: NativeError.self) { try Geodesic.destination(from: Self.jfk, azimuth: .nan, distance: 1) }
        #expect(nan?.description == "azimuth nan is not finite")
    }
}
