import Foundation
import Testing
@testable import AnchorKit

/// The scale estimator leaves out views that see a target at a grazing angle.
@Suite("Scale estimator") struct ScaleEstimatorTests {
    /// A 15 cm target in ARKit camera space (+x right, +y up, looking along -z).
    func target(rotation: Matrix3, at centre: SIMD3<Double>) -> TargetObservation {
        TargetObservation(identifier: "marker/DICT_4X4_50/23", kind: .marker, name: nil,
                          cameraFromAnchor: Transform(rotation: rotation, translation: centre),
                          extent: SIMD2(0.15, 0.15), corners: nil)
    }

    @Test func obliquityOfKnownViews() {
        // Turned +90° about x, the anchor's +y (its normal) points along the camera's +z: back
        // at the camera, square on, wherever it lies on the optical axis.
        let facing = Matrix3.exp(SIMD3(Double.pi / 2, 0, 0))
        #expect(abs(ScaleEstimator.obliquity(of: target(rotation: facing, at: SIMD3(0, 0, -2)))) < 1e-9)
        // Off the axis by 45° to the right, the same target is seen 45° off its normal.
        #expect(abs(ScaleEstimator.obliquity(of: target(rotation: facing, at: SIMD3(2, 0, -2))) - .pi / 4) < 1e-9)
        // Lying flat (normal up, the camera's +y), 0.75 m below the camera and 3 m ahead:
        // room-walk's table marker, atan(3 / 0.75) ≈ 76° off its normal; the estimator skips it.
        let flat = target(rotation: .identity, at: SIMD3(0, -0.75, -3))
        #expect(abs(ScaleEstimator.obliquity(of: flat) - atan(3 / 0.75)) < 1e-9)
        #expect(ScaleEstimator.obliquity(of: flat) > ScaleEstimator().maximumObliquity)
        // The side it is seen from does not matter.
        let below = target(rotation: .identity, at: SIMD3(0, 0.75, -3))
        #expect(abs(ScaleEstimator.obliquity(of: below) - atan(3 / 0.75)) < 1e-9)
    }
}
