import Foundation
import Testing

@testable import AnchorKit

/// The primitives of monocular visual odometry (two-view initialisation, triangulation, PnP,
/// bundle adjustment) on synthetic scenes with known truth: 0.5 px pixel noise and, where a
/// robust estimator is involved, 20 % outliers. Everything is in OpenCV's camera convention.
@Suite("World geometry") struct WorldGeometryTests {
    static let camera = try! CameraIntrinsics(width: 640, height: 480, fx: 500, fy: 500, cx: 319.5, cy: 239.5)
    static let noise = 0.5
    static let outlierRate = 0.2

    /// Deterministic noise: uniform and Gaussian numbers from SplitMix64.
    struct Noise {
        var rng: SplitMix64
        init(seed: UInt64) { rng = SplitMix64(seed: seed) }
        mutating func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * rng.nextUnit()
        }
        /// Box-Muller.
        mutating func gaussian(_ sigma: Double) -> Double {
            let u = max(rng.nextUnit(), 1e-300), v = rng.nextUnit()
            return sigma * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        mutating func direction() -> SIMD3<Double> {
            normalize(SIMD3(gaussian(1), gaussian(1), gaussian(1)))
        }
        mutating func pixel() -> SIMD2<Float> {
            SIMD2(Float(uniform(0...639)), Float(uniform(0...479)))
        }
    }

    /// The exact pixel of a point in OpenCV camera space, or nil outside the image.
    static func project(_ p: SIMD3<Double>) -> SIMD2<Double>? {
        guard p.z > 0.1 else { return nil }
        let u = camera.fx * p.x / p.z + camera.cx, v = camera.fy * p.y / p.z + camera.cy
        guard u >= 0, v >= 0, u <= Double(camera.width - 1), v <= Double(camera.height - 1) else { return nil }
        return SIMD2(u, v)
    }

    static func noisy(_ p: SIMD2<Double>, _ noise: inout Noise) -> SIMD2<Float> {
        SIMD2(Float(p.x + noise.gaussian(Self.noise)), Float(p.y + noise.gaussian(Self.noise)))
    }

    static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    /// Angle between two directions, degrees.
    static func angle(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        degrees(atan2(length(cross(a, b)), dot(a, b)))
    }

    // MARK: Two views

    /// Matches of `points` (camera 1's frame) between camera 1 and camera 2, noisy, with a
    /// share of frame-2 pixels replaced by random ones.
    struct TwoViewCase {
        var pixels1: [SIMD2<Float>] = [], pixels2: [SIMD2<Float>] = []
        var points: [SIMD3<Double>] = []
        var isOutlier: [Bool] = []
        let camera2FromCamera1: Transform
    }

    static func twoViewCase(points: [SIMD3<Double>], camera2FromCamera1 motion: Transform, seed: UInt64,
                            outlierRate: Double = outlierRate) -> TwoViewCase {
        var noise = Noise(seed: seed)
        var c = TwoViewCase(camera2FromCamera1: motion)
        for p in points {
            guard let a = project(p), let b = project(motion.apply(to: p)) else { continue }
            let outlier = noise.uniform(0...1) < outlierRate
            c.pixels1.append(noisy(a, &noise))
            c.pixels2.append(outlier ? noise.pixel() : noisy(b, &noise))
            c.points.append(p)
            c.isOutlier.append(outlier)
        }
        return c
    }

    /// Camera 2 centred at `centre` (camera 1's frame), rotated by `rotation` (camera2_from_camera1).
    static func motion(rotation: Matrix3, centre: SIMD3<Double>) -> Transform {
        Transform(rotation: rotation, translation: -(rotation * centre))
    }

    static let generalMotion = motion(rotation: .rotation(angle: 4 * .pi / 180, axis: SIMD3(0.2, 1, 0.1)),
                                      centre: SIMD3(0.6, 0.1, 0.15))

    /// Points filling a frustum between 3 and 10 m.
    static func generalScene(count: Int, seed: UInt64) -> [SIMD3<Double>] {
        var noise = Noise(seed: seed)
        return (0..<count).map { _ in
            let z = noise.uniform(3...10)
            return SIMD3(noise.uniform(-0.6...0.6) * z, noise.uniform(-0.45...0.45) * z, z)
        }
    }

    /// Points on one tilted plane about 5 m away.
    static func planarScene(count: Int, seed: UInt64) -> [SIMD3<Double>] {
        var noise = Noise(seed: seed)
        let n = normalize(SIMD3(0.25, -0.35, -1.0))
        let u = normalize(cross(n, SIMD3(0, 1, 0))), v = cross(n, u)
        return (0..<count).map { _ in SIMD3(0, 0, 5) + noise.uniform(-3...3) * u + noise.uniform(-2.2...2.2) * v }
    }

    /// Checks a successful reconstruction against the truth: pose, inliers and points.
    static func expectReconstruction(_ r: TwoViewReconstruction, matches c: TwoViewCase,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
        let rotationError = rotationErrorDegrees(r.opencvCamera2FromCamera1, c.camera2FromCamera1)
        let directionError = angle(r.opencvCamera2FromCamera1.translation, c.camera2FromCamera1.translation)
        #expect(rotationError < 0.5, "rotation error \(rotationError)°", sourceLocation: sourceLocation)
        #expect(directionError < 2, "translation direction error \(directionError)°", sourceLocation: sourceLocation)
        #expect(abs(length(r.opencvCamera2FromCamera1.translation) - 1) < 1e-9, sourceLocation: sourceLocation)

        // Outliers are rejected and most inliers kept.
        let acceptedOutliers = zip(r.inliers, c.isOutlier).filter { $0 && $1 }.count
        let keptInliers = zip(r.inliers, c.isOutlier).filter { $0 && !$1 }.count
        let inlierCount = c.isOutlier.filter { !$0 }.count
        #expect(acceptedOutliers <= c.isOutlier.count / 100 + 1, "\(acceptedOutliers) outliers accepted",
                sourceLocation: sourceLocation)
        #expect(Double(keptInliers) > 0.9 * Double(inlierCount), "\(keptInliers) of \(inlierCount) inliers kept",
                sourceLocation: sourceLocation)
        #expect(r.triangulatedCount == r.points.compactMap { $0 }.count, sourceLocation: sourceLocation)
        #expect(r.triangulatedCount > inlierCount / 2, sourceLocation: sourceLocation)

        // Points match the truth once scaled by the true baseline (the map's unit is the baseline).
        let baseline = length(c.camera2FromCamera1.translation)
        var relative: [Double] = []
        for (p, truth) in zip(r.points, c.points) {
            guard let p else { continue }
            relative.append(length(p * baseline - truth) / length(truth))
        }
        let median = relative.isEmpty ? .infinity : relative.sorted()[relative.count / 2]
        #expect(median < 0.03, "median relative point error \(median)", sourceLocation: sourceLocation)
    }

    @Test func generalSceneChoosesTheEssentialMatrix() throws {
        let c = Self.twoViewCase(points: Self.generalScene(count: 300, seed: 1), camera2FromCamera1: Self.generalMotion, seed: 2)
        let r = try TwoViewInitialiser().reconstruct(pixels1: c.pixels1, pixels2: c.pixels2, camera: Self.camera)
        #expect(r.failure == nil)
        #expect(r.model == .essentialMatrix, "R_H = \(r.homographyScoreRatio)")
        #expect(r.homographyScoreRatio < 0.45)
        #expect(r.medianParallax > 2 && r.medianParallax < 10, "median parallax \(r.medianParallax)°")
        Self.expectReconstruction(r, matches: c)
    }

    @Test func planarSceneChoosesTheHomography() throws {
        let c = Self.twoViewCase(points: Self.planarScene(count: 300, seed: 3), camera2FromCamera1: Self.generalMotion, seed: 4)
        let r = try TwoViewInitialiser().reconstruct(pixels1: c.pixels1, pixels2: c.pixels2, camera: Self.camera)
        #expect(r.failure == nil)
        #expect(r.model == .homography, "R_H = \(r.homographyScoreRatio)")
        #expect(r.homographyScoreRatio > 0.45)
        Self.expectReconstruction(r, matches: c)
    }

    @Test(arguments: [("pure rotation", SIMD3<Double>(0, 0, 0)), ("2 mm baseline", SIMD3<Double>(0.002, 0, 0))])
    func noBaselineIsTooLittleParallax(_ name: String, _ centre: SIMD3<Double>) throws {
        let motion = Self.motion(rotation: .rotation(angle: 5 * .pi / 180, axis: SIMD3(0.1, 1, 0)), centre: centre)
        let c = Self.twoViewCase(points: Self.generalScene(count: 300, seed: 5), camera2FromCamera1: motion, seed: 6)
        let r = try TwoViewInitialiser().reconstruct(pixels1: c.pixels1, pixels2: c.pixels2, camera: Self.camera)
        #expect(r.failure == .tooLittleParallax, "\(name): \(String(describing: r.failure)), R_H \(r.homographyScoreRatio)")
        #expect(r.model == nil && !r.isInitialised)
        #expect(r.medianParallax < 1, "\(name): median parallax \(r.medianParallax)°")
        #expect(r.points.allSatisfy { $0 == nil } && r.inliers.allSatisfy { !$0 } && r.triangulatedCount == 0)
        #expect(r.opencvCamera2FromCamera1 == .identity)
    }

    @Test func fewMatchesAreTooFewPoints() throws {
        let c = Self.twoViewCase(points: Self.generalScene(count: 30, seed: 7), camera2FromCamera1: Self.generalMotion, seed: 8,
                                 outlierRate: 0)
        let initialiser = TwoViewInitialiser()
        #expect(try initialiser.reconstruct(pixels1: c.pixels1, pixels2: c.pixels2, camera: Self.camera).failure == .tooFewPoints)
        let none = try initialiser.reconstruct(pixels1: [], pixels2: [], camera: Self.camera)
        #expect(none.failure == .tooFewPoints && none.points.isEmpty)
        // With a lower bar the same matches initialise.
        var lenient = initialiser
        lenient.minTriangulatedCount = 10
        #expect(try lenient.reconstruct(pixels1: c.pixels1, pixels2: c.pixels2, camera: Self.camera).model == .essentialMatrix)
    }

    // MARK: Triangulation

    @Test func triangulationChecksEachPoint() throws {
        let c1 = Transform.identity
        let c2 = Self.motion(rotation: .rotation(angle: 3 * .pi / 180, axis: SIMD3(0, 1, 0)), centre: SIMD3(0.5, 0, 0))
        var noise = Noise(seed: 9)
        var truth = Self.generalScene(count: 100, seed: 10).filter { Self.project($0) != nil && Self.project(c2.apply(to: $0)) != nil }
        var pixels1 = truth.map { Self.noisy(Self.project($0)!, &noise) }
        var pixels2 = truth.map { Self.noisy(Self.project(c2.apply(to: $0))!, &noise) }
        let clean = truth.count
        // A far point (parallax ≈ 0.03°), a mismatch and a pair whose rays meet behind the cameras.
        let far = SIMD3(0.0, 0.0, 1000.0)
        truth.append(far)
        // Exact pixels: with noise, rays this close can as well meet behind the cameras.
        pixels1.append(SIMD2<Float>(Self.project(far)!))
        pixels2.append(SIMD2<Float>(Self.project(c2.apply(to: far))!))
        pixels1.append(pixels1[0])
        pixels2.append(pixels2[0] + SIMD2(0, 25))
        pixels1.append(SIMD2(300, 240))
        pixels2.append(SIMD2(360, 240))  // moves right while camera 2 moved right: behind

        let result = try Triangulator().triangulate(pixels1: pixels1, pixels2: pixels2, opencvCamera1FromWorld: c1,
                                                    opencvCamera2FromWorld: c2, camera: Self.camera)
        #expect(result.count == clean + 3)
        for (p, t) in zip(result.prefix(clean), truth) {
            guard let position = p.position else {
                Issue.record("a clean point was rejected: \(String(describing: p.rejection)), parallax \(p.parallax)°")
                continue
            }
            #expect(length(position - t) < 0.02 * length(t) * length(t), "error \(length(position - t)) m at \(t.z) m")
            #expect(p.reprojectionError < 2 && p.parallax > 1)
        }
        #expect(result[clean].rejection == .lowParallax && result[clean].position == nil && result[clean].parallax < 0.1)
        #expect(result[clean + 1].rejection == .reprojectionError && result[clean + 1].reprojectionError > 2)
        #expect(result[clean + 2].rejection == .behindCamera)
    }

    // MARK: PnP

    /// 200 points within a 2 m cube seen from about 3 m, with 20 % outliers.
    static func pnpCase(seed: UInt64) -> (points: [SIMD3<Double>], pixels: [SIMD2<Float>], isOutlier: [Bool], pose: Transform) {
        var noise = Noise(seed: seed)
        let pose = Self.motion(rotation: .rotation(angle: 12 * .pi / 180, axis: SIMD3(0.3, -1, 0.2)),
                               centre: SIMD3(-0.4, 0.3, -3))
        var points: [SIMD3<Double>] = [], pixels: [SIMD2<Float>] = [], outliers: [Bool] = []
        while points.count < 200 {
            let p = SIMD3(noise.uniform(-1...1), noise.uniform(-1...1), noise.uniform(-1...1))
            guard let px = Self.project(pose.apply(to: p)) else { continue }
            let outlier = noise.uniform(0...1) < Self.outlierRate
            points.append(p)
            pixels.append(outlier ? noise.pixel() : Self.noisy(px, &noise))
            outliers.append(outlier)
        }
        return (points, pixels, outliers, pose)
    }

    @Test(arguments: [PointPoseSolver.Method.epnp, .sqpnp])
    func pnpRecoversThePose(_ method: PointPoseSolver.Method) throws {
        let c = Self.pnpCase(seed: 11)
        var solver = PointPoseSolver()
        solver.method = method
        let estimate = try #require(try solver.solve(worldPoints: c.points, pixels: c.pixels, camera: Self.camera))
        let pose = estimate.opencvCameraFromWorld
        // Compare camera centres: the translation of camera_from_world mixes in the rotation.
        let centreError = length(pose.inverse.translation - c.pose.inverse.translation)
        #expect(rotationErrorDegrees(pose, c.pose) < 0.2, "rotation error \(rotationErrorDegrees(pose, c.pose))°")
        #expect(centreError < 0.01, "position error \(centreError) m")
        let accepted = zip(estimate.inliers, c.isOutlier).filter { $0 && $1 }.count
        let clean = c.isOutlier.filter { !$0 }.count
        #expect(accepted <= 2, "\(accepted) outliers accepted")
        #expect(Double(estimate.inlierCount) > 0.95 * Double(clean))
        #expect(estimate.inlierCount == estimate.inliers.filter { $0 }.count)
        #expect(estimate.rmsError > 0.3 && estimate.rmsError < 1, "RMS \(estimate.rmsError) px")
    }

    @Test func pnpUsesAGuess() throws {
        let c = Self.pnpCase(seed: 12)
        let guess = Transform(rotation: .rotation(angle: 2 * .pi / 180, axis: SIMD3(1, 0, 0)), translation: SIMD3(0.05, 0, 0))
            * c.pose
        let estimate = try #require(try PointPoseSolver().solve(worldPoints: c.points, pixels: c.pixels, camera: Self.camera,
                                                               opencvCameraFromWorldGuess: guess))
        #expect(rotationErrorDegrees(estimate.opencvCameraFromWorld, c.pose) < 0.2)
        #expect(length(estimate.opencvCameraFromWorld.inverse.translation - c.pose.inverse.translation) < 0.01)
    }

    @Test func pnpWithoutEnoughPointsFindsNothing() throws {
        let c = Self.pnpCase(seed: 13)
        #expect(try PointPoseSolver().solve(worldPoints: Array(c.points.prefix(5)), pixels: Array(c.pixels.prefix(5)),
                                            camera: Self.camera) == nil)
        // Pixels unrelated to the points: no pose has enough inliers.
        var noise = Noise(seed: 14)
        let random = c.points.map { _ in noise.pixel() }
        #expect(try PointPoseSolver().solve(worldPoints: c.points, pixels: random, camera: Self.camera) == nil)
    }

    // MARK: Bundle adjustment

    /// `poseCount` cameras side by side looking at `pointCount` points 4-9 m away; every point
    /// observed by every camera that sees it, with 0.5 px noise.
    struct BundleCase {
        var poses: [Transform] = []
        var points: [SIMD3<Double>] = []
        var observations: [BundleAdjuster.Observation] = []
    }

    static func bundleCase(poseCount: Int, pointCount: Int, seed: UInt64) -> BundleCase {
        var noise = Noise(seed: seed)
        var c = BundleCase()
        for k in 0..<poseCount {
            let r = Matrix3.rotation(angle: noise.uniform(-0.05...0.05), axis: noise.direction())
            c.poses.append(Self.motion(rotation: r, centre: SIMD3(0.25 * Double(k), noise.uniform(-0.1...0.1), 0)))
        }
        while c.points.count < pointCount {
            let z = noise.uniform(4...9)
            let p = SIMD3(noise.uniform(-0.5...0.5) * z + 0.125 * Double(poseCount), noise.uniform(-0.4...0.4) * z, z)
            let seen = c.poses.indices.compactMap { k in Self.project(c.poses[k].apply(to: p)).map { (k, $0) } }
            guard seen.count >= 2 else { continue }
            for (k, px) in seen {
                c.observations.append(.init(poseIndex: k, pointIndex: c.points.count, pixel: Self.noisy(px, &noise)))
            }
            c.points.append(p)
        }
        return c
    }

    /// Perturbs the poses not in `fixed` by `angle` degrees about a random axis and `distance`
    /// metres, and every point by `pointDistance` metres, in random directions.
    static func perturbed(_ c: BundleCase, fixed: Set<Int>, seed: UInt64) -> (poses: [Transform], points: [SIMD3<Double>]) {
        var noise = Noise(seed: seed)
        let poses = c.poses.enumerated().map { k, pose -> Transform in
            guard !fixed.contains(k) else { return pose }
            let delta = Transform(rotation: .rotation(angle: 2 * .pi / 180, axis: noise.direction()),
                                  translation: 0.05 * noise.direction())
            return delta * pose
        }
        return (poses, c.points.map { $0 + 0.05 * noise.direction() })
    }

    @Test func bundleAdjustmentConvergesToTheNoiseLevel() throws {
        let c = Self.bundleCase(poseCount: 8, pointCount: 400, seed: 15)
        let fixed: Set<Int> = [0, 1]  // two poses: position, orientation and scale are all pinned
        var (poses, points) = Self.perturbed(c, fixed: fixed, seed: 16)
        let report = try BundleAdjuster().adjust(opencvCamerasFromWorld: &poses, fixedPoses: fixed, points: &points,
                                                 observations: c.observations, camera: Self.camera)
        #expect(report.initialRMSError > 10, "initial RMS \(report.initialRMSError) px")
        #expect(report.finalRMSError < 0.8, "final RMS \(report.finalRMSError) px after \(report.iterations) steps")
        #expect(report.inlierCount == c.observations.count && report.inliers.allSatisfy { $0 })
        #expect(report.acceptedIterations > 0 && report.iterations <= 2 * BundleAdjuster().maxIterations)
        for k in c.poses.indices {
            let angle = rotationErrorDegrees(poses[k], c.poses[k])
            let distance = length(poses[k].inverse.translation - c.poses[k].inverse.translation)
            #expect(angle < 0.2 && distance < 0.01, "pose \(k): \(angle)°, \(distance) m")
        }
        #expect(poses[0] == c.poses[0] && poses[1] == c.poses[1], "fixed poses are untouched")
        let pointErrors = zip(points, c.points).map { length($0 - $1) }.sorted()
        #expect(pointErrors[pointErrors.count / 2] < 0.02, "median point error \(pointErrors[pointErrors.count / 2]) m")
    }

    @Test func bundleAdjustmentDiscountsOutliers() throws {
        var c = Self.bundleCase(poseCount: 5, pointCount: 250, seed: 17)
        var noise = Noise(seed: 18)
        var corrupted = Set<Int>()
        for k in c.observations.indices where noise.uniform(0...1) < 0.05 {
            // Mismatched tracks: 10-40 px off in any direction.
            let angle = noise.uniform(0...(2 * .pi)), distance = noise.uniform(10...40)
            c.observations[k].pixel += SIMD2(Float(distance * cos(angle)), Float(distance * sin(angle)))
            corrupted.insert(k)
        }
        let fixed: Set<Int> = [0, 1]
        var (poses, points) = Self.perturbed(c, fixed: fixed, seed: 19)
        let fixedPoints: Set<Int> = [0, 1, 2]
        for i in fixedPoints { points[i] = c.points[i] }
        let report = try BundleAdjuster().adjust(opencvCamerasFromWorld: &poses, fixedPoses: fixed, points: &points,
                                                 fixedPoints: fixedPoints, observations: c.observations, camera: Self.camera)
        #expect(report.inlierRMSError < 0.8, "inlier RMS \(report.inlierRMSError) px")
        let flagged = corrupted.filter { !report.inliers[$0] }.count
        #expect(flagged == corrupted.count, "\(flagged) of \(corrupted.count) outliers flagged")
        #expect(report.inlierCount >= c.observations.count - corrupted.count - 10)
        for k in c.poses.indices {
            #expect(rotationErrorDegrees(poses[k], c.poses[k]) < 0.2)
            #expect(length(poses[k].inverse.translation - c.poses[k].inverse.translation) < 0.01)
        }
        #expect(fixedPoints.allSatisfy { points[$0] == c.points[$0] })
    }

    // MARK: Bad input

    @Test func badInputThrowsOneClearError() throws {
        let c = Self.twoViewCase(points: Self.generalScene(count: 60, seed: 20), camera2FromCamera1: Self.generalMotion, seed: 21)
        expectOneLineError(containing: ["two-view", "counts differ"]) {
            _ = try TwoViewInitialiser().reconstruct(pixels1: c.pixels1, pixels2: Array(c.pixels2.dropLast()), camera: Self.camera)
        }
        var nan = c.pixels2
        nan[3].y = .nan
        expectOneLineError(containing: ["pixels2", "finite", "point 3"]) {
            _ = try TwoViewInitialiser().reconstruct(pixels1: c.pixels1, pixels2: nan, camera: Self.camera)
        }
        expectOneLineError(containing: ["triangulation", "finite"]) {
            _ = try Triangulator().triangulate(pixels1: c.pixels1, pixels2: nan, opencvCamera1FromWorld: .identity,
                                               opencvCamera2FromWorld: Self.generalMotion, camera: Self.camera)
        }
        let p = Self.pnpCase(seed: 22)
        expectOneLineError(containing: ["PnP", "counts differ"]) {
            _ = try PointPoseSolver().solve(worldPoints: p.points, pixels: Array(p.pixels.dropFirst()), camera: Self.camera)
        }
        var badPoints = p.points
        badPoints[7].z = .infinity
        expectOneLineError(containing: ["PnP", "finite", "point 7"]) {
            _ = try PointPoseSolver().solve(worldPoints: badPoints, pixels: p.pixels, camera: Self.camera)
        }

        let b = Self.bundleCase(poseCount: 3, pointCount: 20, seed: 23)
        var poses = b.poses, points = b.points
        let adjuster = BundleAdjuster()
        expectOneLineError(containing: ["bundle adjustment", "no pose and no point is fixed"]) {
            try adjuster.adjust(opencvCamerasFromWorld: &poses, fixedPoses: [], points: &points,
                                observations: b.observations, camera: Self.camera)
        }
        var outOfRange = b.observations
        outOfRange[4].pointIndex = 20
        expectOneLineError(containing: ["bundle adjustment", "observation 4", "point index 20"]) {
            try adjuster.adjust(opencvCamerasFromWorld: &poses, fixedPoses: [0], points: &points,
                                observations: outOfRange, camera: Self.camera)
        }
        var nanPoints = points
        nanPoints[2].x = .nan
        expectOneLineError(containing: ["bundle adjustment", "point 2", "finite"]) {
            try adjuster.adjust(opencvCamerasFromWorld: &poses, fixedPoses: [0], points: &nanPoints,
                                observations: b.observations, camera: Self.camera)
        }
        // Failures leave the inputs untouched.
        #expect(poses == b.poses && points == b.points)
    }
}
