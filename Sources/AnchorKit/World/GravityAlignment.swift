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
}
