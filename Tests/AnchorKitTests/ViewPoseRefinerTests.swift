import Testing
@testable import AnchorKit

/// `ViewPoseRefiner` (view_pose.cpp): one rigid transform refined from points seen through fixed
/// cameras, on exactly projected points, so the true transform is known.
@Suite("View pose refinement")
struct ViewPoseRefinerTests {
    static let camera = try! CameraIntrinsics(width: 640, height: 480, fx: 525, fy: 520, cx: 319.5, cy: 239.5)

    /// The pixel of `p` (OpenCV camera space), pinhole.
    static func pixel(_ p: SIMD3<Double>) -> SIMD2<Float> {
        SIMD2(Float(camera.fx * p.x / p.z + camera.cx), Float(camera.fy * p.y / p.z + camera.cy))
    }

    static func angleDegrees(_ a: Transform, _ b: Transform) -> Double {
        (a.rotation.transposed * b.rotation).rotationAngle * 180 / .pi
    }

    /// A small turn and shift of `pose`: about 4° and 4 cm.
    static func perturbed(_ pose: Transform) -> Transform {
        Transform(rotation: .rotation(angle: 0.07, axis: SIMD3(0.3, -1, 0.5)), translation: SIMD3(0.03, -0.02, 0.02)) * pose
    }

    /// The known case of the conventions: one view, the identity, points 1 m ahead project to
    /// (cx + fx x, cy + fy y); the pose is then `camera_from_map` itself.
    @Test func cameraPoseFromMapPoints() throws {
        let map: [SIMD3<Double>] = [SIMD3(-0.3, -0.2, 1.5), SIMD3(0.25, -0.25, 2), SIMD3(0.3, 0.2, 1.2), SIMD3(-0.2, 0.3, 1.8),
                                    SIMD3(0, 0, 2.5), SIMD3(0.1, -0.1, 1)]
        let truth = Transform(rotation: .rotation(angle: 0.2, axis: SIMD3(0, 1, 0.2)), translation: SIMD3(0.1, -0.05, 0.3))
        let sightings = map.map { ViewPoseRefiner.Sighting(viewIndex: 0, point: $0, pixel: Self.pixel(truth.apply(to: $0))) }
        let known: SIMD2<Float> = Self.pixel(SIMD3(0.1, -0.1, 1))
        #expect(known == SIMD2<Float>(372, 187.5))
        let estimate = try ViewPoseRefiner().refine(Self.perturbed(truth), views: [.identity], sightings: sightings, camera: Self.camera)
        #expect(Self.angleDegrees(estimate.middleFromObject, truth) < 1e-3)
        #expect(length(estimate.middleFromObject.translation - truth.translation) < 1e-5)
        #expect(estimate.rmsError < 1e-3 && estimate.behindCount == 0)
    }

    /// A 10 cm square's place in a map from five camera poses of that map.
    @Test func objectPoseFromSeveralViews() throws {
        let square = TargetConvention.corners(width: 0.1, height: 0.1)
        let place = Transform(rotation: .rotation(angle: 1.2, axis: SIMD3(1, 0.2, 0)), translation: SIMD3(0.05, 0.1, 0.9))
        let views: [Transform] = (-2...2).map { (k: Int) -> Transform in
            let u = Double(k)
            let turn = Matrix3.rotation(angle: 0.05 * u, axis: SIMD3<Double>(0, 1, 0))
            return Transform(rotation: turn, translation: SIMD3<Double>(0.04 * u, 0.01 * u, 0))
        }
        var sightings: [ViewPoseRefiner.Sighting] = []
        for (v, view) in views.enumerated() {
            for corner in square {
                sightings.append(.init(viewIndex: v, point: corner, pixel: Self.pixel((view * place).apply(to: corner))))
            }
        }
        let estimate = try ViewPoseRefiner().refine(Self.perturbed(place), views: views, sightings: sightings, camera: Self.camera)
        #expect(Self.angleDegrees(estimate.middleFromObject, place) < 1e-3)
        #expect(length(estimate.middleFromObject.translation - place.translation) < 1e-5)
        #expect(estimate.rmsError < 1e-3)
    }

    /// A view index out of range and non-finite pixels are one-line argument errors.
    @Test func badArgumentsAreErrors() throws {
        let refiner = ViewPoseRefiner()
        let point = ViewPoseRefiner.Sighting(viewIndex: 1, point: SIMD3(0, 0, 1), pixel: SIMD2(300, 200))
        #expect(throws: NativeError.self) { try refiner.refine(.identity, views: [.identity], sightings: [point], camera: Self.camera) }
        var nan = point
        nan.viewIndex = 0
        nan.pixel = SIMD2(.nan, 0)
        do {
            _ = try refiner.refine(.identity, views: [.identity], sightings: [nan], camera: Self.camera)
            Issue.record("a NaN pixel was accepted")
        } catch let error as NativeError {
            #expect(error.kind == .invalidArgument && !error.message.contains("\n"))
        }
    }
}
