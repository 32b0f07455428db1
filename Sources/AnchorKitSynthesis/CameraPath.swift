import Foundation
import AnchorKit

/// A smooth handheld camera path: a planned motion (the `eye` and `lookAt` curves) plus
/// hand shake (a few seeded sinusoids of 1–9 Hz on position and orientation).
public struct CameraPath {
    /// Camera centre in world coordinates at time t (metres).
    public var eye: (Double) -> SIMD3<Double>
    /// The world point the camera aims at, at time t.
    public var lookAt: (Double) -> SIMD3<Double>
    /// Roll about the viewing axis at time t (radians).
    public var roll: (Double) -> Double = { _ in 0 }
    /// Shake amplitude: position (metres) and rotation (radians).
    public var shakePosition = 0.004
    public var shakeRotation = 0.004
    private var phases: [Double]
    private let frequencies: [Double] = [1.3, 2.1, 3.7, 5.3, 8.9]

    public init(seed: UInt64, eye: @escaping (Double) -> SIMD3<Double>, lookAt: @escaping (Double) -> SIMD3<Double>) {
        var rng = SplitMix64(seed: seed)
        phases = (0..<30).map { _ in rng.nextUnit() * 2 * .pi }
        self.eye = eye
        self.lookAt = lookAt
    }

    /// `world_from_camera` at time t (ARKit camera convention: looks along -z, +y up; world +y up).
    public func pose(at t: Double) -> Transform {
        func shake(_ k: Int) -> Double {
            frequencies.enumerated().map { i, f in sin(2 * .pi * f * t + phases[k * 5 + i]) / Double(i + 1) }.reduce(0, +) / 2.3
        }
        let position = eye(t) + SIMD3(shake(0), shake(1), shake(2)) * shakePosition
        let forward = normalize(lookAt(t) - eye(t))
        let z = -forward
        var x = cross(SIMD3(0, 1, 0), z)
        if length(x) < 1e-6 { x = SIMD3(1, 0, 0) }
        x = normalize(x)
        let y = cross(z, x)
        var r = Matrix3(columns: (x, y, z))
        r = r * Matrix3.rotation(angle: roll(t) + shake(3) * shakeRotation, axis: SIMD3(0, 0, 1))
        r = r * Matrix3.rotation(angle: shake(4) * shakeRotation, axis: SIMD3(1, 0, 0))
        r = r * Matrix3.rotation(angle: shake(5) * shakeRotation, axis: SIMD3(0, 1, 0))
        return Transform(rotation: r, translation: position)
    }
}

/// Smooth interpolation helpers for planned motions.
public enum Ease {
    /// 0 at t <= 0, 1 at t >= 1, smooth (zero velocity) at both ends.
    public static func smooth(_ t: Double) -> Double {
        let u = min(max(t, 0), 1)
        return u * u * (3 - 2 * u)
    }
}
