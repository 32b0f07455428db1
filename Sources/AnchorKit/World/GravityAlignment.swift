/// ARKit's `.gravity` world alignment (../shared/FORMATS.md): +y against gravity, origin at the
/// first camera position, -z along the first camera's viewing direction projected onto the
/// horizontal.
public enum GravityAlignment {
    /// The rotation `world_from_camera` of a camera (ARKit convention: looks along -z) in which
    /// "up" (against gravity) is the direction `up`. Where the camera looks straight up or down
    /// the heading is undefined; the camera's +y (or -y) then gives -z.
    public static func worldFromCamera(up: SIMD3<Double>) -> Matrix3 {
        let y = normalize(up)
        let forward = SIMD3<Double>(0, 0, -1)
        var f = forward - y * dot(forward, y)
        if length(f) < 1e-9 { f = SIMD3(0, dot(y, SIMD3(0, 0, 1)) > 0 ? 1 : -1, 0) - y * dot(SIMD3(0, 1, 0), y) }
        let z = -normalize(f)
        // Columns are the world axes in camera coordinates: camera_from_world; invert.
        return Matrix3(columns: (cross(y, z), y, z)).transposed
    }

    /// The same rotation from a gravity vector measured in the camera (m/s^2, pointing down).
    public static func worldFromCamera(gravity: SIMD3<Double>) -> Matrix3 {
        worldFromCamera(up: -gravity)
    }
}
