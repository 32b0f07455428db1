/// The in-plane axes of a plane anchor.
package enum PlaneAxes {
    /// Two unit vectors spanning the plane with unit `normal`: the x and z axes of a plane
    /// anchor whose y is the normal (right-handed: z = x × y).
    package static func spanning(_ normal: SIMD3<Double>) -> (SIMD3<Double>, SIMD3<Double>) {
        let helper = abs(normal.y) < 0.9 ? SIMD3<Double>(0, 1, 0) : SIMD3<Double>(1, 0, 0)
        let x = normalize(cross(helper, normal))
        return (x, cross(x, normal))
    }
}
