import Foundation
import Testing
@testable import AnchorKit

/// `GeoAlignmentFit` and `GeoAlignment`: the world placed on the Earth from fixes and compass
/// readings, on trajectories whose true placement is known.
@Suite("Geo alignment")
struct GeoAlignmentFitTests {
    /// An L-shaped walk: 60 m along the world's -z, then 30 m along +x, one point a second.
    static let walk: [SIMD3<Double>] = (0..<90).map { k in
        k < 60 ? SIMD3(0, 0.1 * sin(Double(k)), -Double(k)) : SIMD3(Double(k - 60), 0, -60)
    }
    static let truth = GeoAlignment(origin: GeoCoordinate(latitude: 45, longitude: 18), yaw: 0.6, scale: 1.2,
                                    translation: SIMD3(30, 5, -12))

    /// The convention: a camera looking along the world's -z in a world not turned looks north;
    /// turned by yaw, the bearing is the world azimuth less the yaw; a point 1 m along the world's
    /// +x is at (cos yaw, 0, -sin yaw) · scale + t in the geo world (+x east, +z south).
    @Test func conventions() {
        #expect(GeoAlignment.azimuth(of: SIMD3(0, 0, -1)) == 0)
        #expect(abs(GeoAlignment.azimuth(of: SIMD3(1, 0, 0)) - .pi / 2) < 1e-12)
        let a = Self.truth
        #expect(abs(a.bearing(ofWorldAzimuth: 0.6) - 0) < 1e-12)
        let g = a.geoWorld(fromWorld: SIMD3(1, 0, 0))
        #expect(length(g - (1.2 * SIMD3(cos(0.6), 0, -sin(0.6)) + a.translation)) < 1e-12)
        #expect(length(a.world(fromGeoWorld: g) - SIMD3(1, 0, 0)) < 1e-12)
        // The bearing of the world's -z, through the alignment's rotation itself.
        let north = a.rotation * SIMD3(0, 0, -1)
        #expect(abs(remainder(GeoAlignment.azimuth(of: north) - a.bearing(ofWorldAzimuth: 0), 2 * .pi)) < 1e-12)
    }

    @Test func exactFixesGiveTheAlignment() throws {
        let positions = Self.walk.map { GeoAlignmentFit.Position(world: $0, geoWorld: Self.truth.geoWorld(fromWorld: $0),
                                                                 horizontalSigma: 5, verticalSigma: 10) }
        let fit = try #require(GeoAlignmentFit().fit(positions: positions, headings: [], scalePrior: nil))
        #expect(abs(fit.yaw - 0.6) < 1e-9)
        #expect(abs(fit.scale - 1.2) < 1e-9)
        #expect(length(fit.translation - Self.truth.translation) < 1e-6)
    }

    /// σ 5 m fixes, one 80 m off (multipath), readings σ 10°: the yaw within 2°, the camera's
    /// place within 2 m, the outlier set aside.
    @Test func noisyFixesAndReadings() throws {
        var rng = SplitMix64(seed: 7)
        func gaussian() -> Double { rng.nextGaussian() }
        var positions = Self.walk.map { w in
            GeoAlignmentFit.Position(world: w, geoWorld: Self.truth.geoWorld(fromWorld: w) + SIMD3(gaussian(), gaussian(), gaussian()) * 3.5,
                                     horizontalSigma: 5, verticalSigma: 10)
        }
        positions[40].geoWorld += SIMD3(80, 0, 0)
        let headings = stride(from: 0, to: 90, by: 3).map { k in
            GeoAlignmentFit.Heading(worldAzimuth: 0.3, bearing: 0.3 - 0.6 + gaussian() * 0.17, sigma: 0.17)
        }
        let fit = try #require(GeoAlignmentFit().fit(positions: positions, headings: headings, scalePrior: (1.2, 0.03)))
        #expect(abs(fit.yaw - 0.6) * 180 / .pi < 2)
        let end = Self.walk.last!
        let placed = fit.scale * (Matrix3.rotation(angle: fit.yaw, axis: SIMD3(0, 1, 0)) * end) + fit.translation
        let truePlace = Self.truth.geoWorld(fromWorld: end)
        #expect(length(SIMD2(placed.x - truePlace.x, placed.z - truePlace.z)) < 2)
        #expect(fit.inliers < positions.count && fit.inliers >= positions.count - 4)  // the outlier, and 2 % of a Rayleigh tail
        #expect(fit.yawSigma * 180 / .pi < 2)
    }

    /// Exact fixes, and ground speeds as means over the unit of path before each, along a straight
    /// walk of `n` units down the world's -z (the camera at its end) whose metres from `p` units
    /// back to the camera are `metres(p)`, in a geo world turned by `yaw`; with the camera's true
    /// geo place.
    static func straightWalk(n: Int, yaw: Double, metres: (Double) -> Double)
        -> (positions: [GeoAlignmentFit.Position], speeds: [GeoAlignmentFit.Speed], camera: SIMD3<Double>) {
        let rotation = Matrix3.rotation(angle: yaw, axis: SIMD3(0, 1, 0)), origin = SIMD3<Double>(30, 0, -12)
        let total = metres(Double(n))
        var positions: [GeoAlignmentFit.Position] = [], speeds: [GeoAlignmentFit.Speed] = []
        for k in 0...n {
            let since = Double(n - k)
            positions.append(.init(world: SIMD3(0, 0, -Double(k)), geoWorld: origin + rotation * SIMD3(0, 0, -(total - metres(since))),
                                   horizontalSigma: 5, verticalSigma: 10, pathSince: since))
            if k > 0 { speeds.append(.init(worldSpeed: 1, speed: metres(since + 1) - metres(since), logSigma: 0.02, pathSince: since)) }
        }
        return (positions, speeds, origin + rotation * SIMD3(0, 0, -total))
    }

    /// How far (metres, horizontally) `result` places the world point `world` from `truth`.
    static func horizontalError(of result: GeoAlignmentFit.Result, placing world: SIMD3<Double>, truth: SIMD3<Double>) -> Double {
        let placed = result.scale * (Matrix3.rotation(angle: result.yaw, axis: SIMD3(0, 1, 0)) * world) + result.translation
        return length(SIMD2(placed.x - truth.x, placed.z - truth.z))
    }

    /// Odometry whose unit grows 30 % shorter over a 100-unit path (metres per unit 1.5 now,
    /// 1.5 · (1 - 0.003 · path since) before): exact fixes and ground speeds along it give today's
    /// scale and the camera's place but for the pull of the profile's prior, which wants the
    /// log-scale to change evenly (measured 0.09 %, under a centimetre).
    @Test func speedsAndFixesGiveTheScaleAndItsDrift() throws {
        let (scale, drift, yaw, n) = (1.5, 0.003, 0.6, 100)
        let walk = Self.straightWalk(n: n, yaw: yaw) { p in scale * (p - drift * p * p / 2) }
        let fit = GeoAlignmentFit(current: SIMD3(0, 0, -Double(n)))
        let result = try #require(fit.fit(positions: walk.positions, headings: [], speeds: walk.speeds, scalePrior: nil))
        #expect(abs(result.scale - scale) < 2e-3)
        #expect(abs(result.yaw - yaw) < 1e-6)
        #expect(Self.horizontalError(of: result, placing: fit.current!, truth: walk.camera) < 0.01)
    }

    /// Odometry whose scale held for 60 units of path and then changed by half a per cent a unit
    /// (metres per unit 1.5 now, 1.5 over the last 60 units, 1.2 a 100-unit path back): exact
    /// fixes and ground speeds along it give the camera's place with the scale's profile (measured
    /// 0.5 mm off), where a scale drifting linearly along the path leaves it 1.7 m off.
    @Test func theScaleProfileFollowsUnevenDrift() throws {
        let n = 100
        let walk = Self.straightWalk(n: n, yaw: 0.6) { p in 1.5 * (p <= 60 ? p : 60 + (p - 60) - 0.0025 * (p - 60) * (p - 60)) }
        func placeError(walk scaleWalk: Double) throws -> Double {
            var fit = GeoAlignmentFit(current: SIMD3(0, 0, -Double(n)))
            fit.scaleWalkSigma = scaleWalk
            let result = try #require(fit.fit(positions: walk.positions, headings: [], speeds: walk.speeds, scalePrior: nil))
            return Self.horizontalError(of: result, placing: fit.current!, truth: walk.camera)
        }
        let profiled = try placeError(walk: 5e-3), linear = try placeError(walk: 1e-6)
        #expect(profiled < 0.01)
        #expect(linear > 1)
    }

    /// Odometry whose world turns 2e-4 radians per unit of path (0.6 now, 0.62 a 100-unit path
    /// back): compass readings along it, each seeing the yaw of its place, and fixes give today's
    /// yaw and the camera's place (the mean turn over a path stands for its arc: 2 mm here).
    @Test func readingsAndFixesFollowTheYawDrift() throws {
        let (yaw, turn, n) = (0.6, 2e-4, 100)
        let origin = SIMD3<Double>(30, 0, -12)
        // The camera's geo place after k units, walked along the world's -z as the yaw turned.
        func walked(_ k: Int) -> SIMD3<Double> {
            (0..<k * 10).reduce(origin) { place, step in
                let since = Double(n) - (Double(step) + 0.5) / 10
                return place + 0.1 * (Matrix3.rotation(angle: yaw + turn * since, axis: SIMD3(0, 1, 0)) * SIMD3(0, 0, -1))
            }
        }
        var positions: [GeoAlignmentFit.Position] = [], headings: [GeoAlignmentFit.Heading] = []
        for k in 0...n {
            let since = Double(n - k)
            positions.append(.init(world: SIMD3(0, 0, -Double(k)), geoWorld: walked(k), horizontalSigma: 5, verticalSigma: 10, pathSince: since))
            headings.append(.init(worldAzimuth: 0.2, bearing: 0.2 - (yaw + turn * since), sigma: 0.01, pathSince: since))
        }
        var fit = GeoAlignmentFit(current: SIMD3(0, 0, -Double(n)))
        fit.yawDriftSigma = 1e-2  // a prior loose enough not to pull (at 1e-4 it holds the drift 12 % short)
        let result = try #require(fit.fit(positions: positions, headings: headings, scalePrior: (1, 0.01)))
        #expect(abs(result.yaw - yaw) < 1e-4)
        #expect(Self.horizontalError(of: result, placing: fit.current!, truth: walked(n)) < 0.01)
    }

    /// A receiver that states 5 m but scatters its fixes by 15 m per axis: the fit's stated
    /// uncertainty grows with the fixes' scatter (the a-posteriori variance factor), so that the
    /// camera's place is within 3 stated σ (measured: 4.8 m off, σ 2.8 m; 0.93 m with fixes as
    /// scattered as stated, which is what the stated accuracy alone gives either way).
    @Test func uncertaintyFollowsTheFixesScatter() throws {
        var rng = SplitMix64(seed: 11)
        func fit(scatter: Double) throws -> (error: Double, sigma: Double) {
            let positions = Self.walk.map { w in
                GeoAlignmentFit.Position(world: w, geoWorld: Self.truth.geoWorld(fromWorld: w) + SIMD3(rng.nextGaussian(), 0, rng.nextGaussian()) * scatter,
                                         horizontalSigma: 5, verticalSigma: 10)
            }
            let result = try #require(GeoAlignmentFit().fit(positions: positions, headings: [], scalePrior: (1.2, 0.03)))
            let end = Self.walk.last!
            return (Self.horizontalError(of: result, placing: end, truth: Self.truth.geoWorld(fromWorld: end)), result.horizontalSigma(at: end))
        }
        let honest = try fit(scatter: 3.5), overstated = try fit(scatter: 15)
        #expect(overstated.error > 3 * honest.sigma)  // beyond the σ the stated accuracy alone gives
        #expect(overstated.sigma > 2 * honest.sigma)
        #expect(overstated.error < 3 * overstated.sigma)
    }

    /// A camera that stays put and no compass: the yaw is unknown, and no alignment is given.
    @Test func noSpreadAndNoCompassGivesNothing() {
        let positions = (0..<10).map { k in
            GeoAlignmentFit.Position(world: SIMD3(0.01 * Double(k), 0, 0), geoWorld: SIMD3(Double(k % 3), 0, Double(k % 2)),
                                     horizontalSigma: 5, verticalSigma: 10)
        }
        #expect(GeoAlignmentFit().fit(positions: positions, headings: [], scalePrior: (1, 0.03)) == nil)
    }
}
