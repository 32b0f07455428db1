/// ARKit's `.gravity` world alignment (../shared/FORMATS.md): +y against gravity, origin at the
/// first camera position, -z along the first camera's viewing direction projected onto the
/// horizontal.
package enum GravityAlignment {
    /// The rotation `world_from_camera` of a camera (ARKit convention: looks along -z) in which
    /// "up" (against gravity) is the direction `up`. Where the camera looks straight up or down
    /// the heading is undefined; the camera's +y (or -y) then gives -z.
    public static func worldFromCamera(up: SIMD3<Double>) -> Matrix3 {
        let y = normalize(up)
        let sideways = SIMD3<Double>(0, dot(y, SIMD3(0, 0, 1)) > 0 ? 1 : -1, 0)
        return axes(up: y, forward: SIMD3(0, 0, -1), fallback: sideways).transposed
    }

    /// The gravity-aligned world's axes expressed in some frame F, as the columns of
    /// `F_from_world` (a rotation): +y is `up` (a unit vector in F), -z is `forward` projected
    /// onto the plane normal to it (`fallback` projected where `forward` is parallel to `up`),
    /// +x completes a right-handed frame.
    package static func axes(up y: SIMD3<Double>, forward: SIMD3<Double>, fallback: SIMD3<Double>) -> Matrix3 {
        var f = forward - y * dot(forward, y)
        if length(f) < 1e-9 { f = fallback - y * dot(fallback, y) }
        let z = -normalize(f)
        return Matrix3(columns: (cross(y, z), y, z))
    }

    /// The same rotation from a gravity vector measured in the camera (m/s^2, pointing down).
    public static func worldFromCamera(gravity: SIMD3<Double>) -> Matrix3 {
        worldFromCamera(up: -gravity)
    }

    /// `worldFromCamera` (ARKit conventions, in a world whose +y is up) moved toward agreeing with
    /// `gravity` measured in the camera (m/s², pointing down) with `gravitySigma` (radians, one
    /// standard deviation of its direction): a Kalman update of the pose, whose covariance is
    /// `covariance` (``PoseUncertainty/worldCovariance(of:worldPoints:camera:pixelSigma:)``), by
    /// the camera's measured up. A pose from a target tilts it where its corners fix the tilt
    /// loosely (a blurred frame) and barely moves it where they fix it well; the centre moves with
    /// the tilt as far as the two are correlated (a camera orbiting the target it sees). Nil when
    /// the update cannot be solved. Also the pose's covariance after the update.
    package static func levelled(_ worldFromCamera: Transform, covariance: DenseMatrix, gravity: SIMD3<Double>,
                                 gravitySigma: Double) -> (pose: Transform, covariance: DenseMatrix)? {
        guard covariance.rows == 6, covariance.columns == 6, length(gravity) > 0 else { return nil }
        let up = worldFromCamera.rotation * normalize(-gravity)  // where the pose puts the measured up
        // The measured up turned by δθ is up + δθ × up = up - [up]× δθ: H = [-[up]×, 0].
        let h = DenseMatrix(rows: 3, columns: 6, values: [0, up.z, -up.y, 0, 0, 0,
                                                          -up.z, 0, up.x, 0, 0, 0,
                                                          up.y, -up.x, 0, 0, 0, 0])
        let innovation = DenseMatrix(vector: [0 - up.x, 1 - up.y, 0 - up.z])
        guard let update = KalmanUpdate(covariance: covariance, measuring: h,
                                        noise: DenseMatrix.identity(3, scale: gravitySigma * gravitySigma)) else { return nil }
        let (gain, updatedCovariance) = update.gainAndCovariance()
        let step = gain * innovation
        guard step.values.allSatisfy(\.isFinite) else { return nil }
        let turn = SIMD3(step.values[0], step.values[1], step.values[2]), shift = SIMD3(step.values[3], step.values[4], step.values[5])
        return (Transform(rotation: (Matrix3.exp(turn) * worldFromCamera.rotation).orthonormalized,
                          translation: worldFromCamera.translation + shift),
                updatedCovariance)
    }
}
