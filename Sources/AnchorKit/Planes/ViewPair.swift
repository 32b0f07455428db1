import AnchorKitCV
import AnchorKitSolvers
import Foundation

/// Two posed views of a static scene, for asking how well a plane explains them: the plane's
/// homography carries one view onto the other exactly where the plane is what both show.
///
/// Conventions: cameras `world_from_arkitCamera`; a plane is given in the ARKit camera frame of
/// `reference` as `m · X = 1/s` (unit normal `m`, inverse offset `s`, so that all planes through
/// the camera's far field stay finite). Pixel x ↔ ARKit camera ray F K⁻¹ x, F = diag(1, -1, -1).
/// With X_other = R_rel X_ref + t_rel, a point of the plane maps as X_other = (R_rel + s t_rel mᵀ) X_ref,
/// so H = K F (R_rel + s t_rel mᵀ) F K⁻¹ (reference px → other px). Pinhole: no distortion.
struct ViewPair {
    let reference: LevelSweep.View
    let other: LevelSweep.View
    let camera: CameraIntrinsics
    private let rRel: Matrix3, tRel: SIMD3<Double>, k: Matrix3, kInverse: Matrix3
    private static let flip = Matrix3.diagonal(SIMD3(1, -1, -1))

    init(reference: LevelSweep.View, other: LevelSweep.View, camera: CameraIntrinsics) {
        self.reference = reference
        self.other = other
        self.camera = camera
        rRel = other.transform.rotation.transposed * reference.transform.rotation
        tRel = other.transform.rotation.transposed * (reference.transform.translation - other.transform.translation)
        k = camera.matrix
        kInverse = Matrix3(rows: SIMD3(1 / camera.fx, 0, -camera.cx / camera.fx),
                           SIMD3(0, 1 / camera.fy, -camera.cy / camera.fy), SIMD3(0, 0, 1))
    }

    /// Distance between the two cameras (world units).
    var baseline: Double { length(tRel) }

    /// The homography of the plane `m · X = 1/s` (reference camera frame).
    func homography(normal m: SIMD3<Double>, inverseOffset s: Double) -> Matrix3 {
        let a = Matrix3(columns: (rRel.columns.0 + (s * m.x) * tRel, rRel.columns.1 + (s * m.y) * tRel,
                                  rRel.columns.2 + (s * m.z) * tRel))
        return k * Self.flip * a * Self.flip * kInverse
    }

    /// The ray of a reference pixel in its ARKit camera frame, scaled to depth 1 (z = -1).
    func ray(_ pixel: SIMD2<Double>) -> SIMD3<Double> { Self.flip * (kInverse * SIMD3(pixel.x, pixel.y, 1)) }

    /// A world plane (unit `normal`, through `point`) as `m · X = 1/s` in the reference camera frame.
    func plane(normal: SIMD3<Double>, through point: SIMD3<Double>) -> (normal: SIMD3<Double>, inverseOffset: Double) {
        let m = reference.transform.rotation.transposed * normal
        let d = dot(m, reference.transform.inverse.apply(to: point))
        return (m, 1 / d)
    }

    /// Correlation of the reference's `patch`-pixel blocks with the other view under each of
    /// `homographies`: scores[h * blocks + b] over the tiling of the reference (ak_plane_sweep).
    func sweep(_ homographies: [Matrix3], patch: Int, minimumTexture: Double) throws -> [Float] {
        let blocks = (reference.image.width / patch) * (reference.image.height / patch)
        var scores = [Float](repeating: .nan, count: homographies.count * blocks)
        try NativeError.check(ak_plane_sweep(reference.image.handle, other.image.handle, homographies.flatMap(\.rowMajor),
                                             Int32(homographies.count), Int32(patch), minimumTexture, &scores), "plane sweep")
        return scores
    }

    /// Correlation of single blocks (top-left pixel `corner`), each under its own homography
    /// (ak_block_scores); NaN where a block is flat or leaves the other view.
    func scores(_ blocks: [(corner: SIMD2<Int>, homography: Matrix3)], patch: Int, minimumTexture: Double) throws -> [Float] {
        var out = [Float](repeating: .nan, count: blocks.count)
        let corners = blocks.flatMap { [Int32($0.corner.x), Int32($0.corner.y)] }
        try NativeError.check(ak_block_scores(reference.image.handle, other.image.handle, corners,
                                              blocks.flatMap(\.homography.rowMajor), Int32(blocks.count), Int32(patch),
                                              minimumTexture, &out), "block scores")
        return out
    }
}
