import AnchorKitCV
import AnchorKitSolvers

/// One solution for the pose of a planar target.
package struct PoseHypothesis: Sendable {
    /// `arkitCamera_from_anchor` (anchor frame of ../shared/FORMATS.md: +y out of the face).
    public var cameraFromAnchor: Transform
    /// RMS reprojection error of the points the pose was solved from, pixels.
    public var reprojectionError: Double
}

/// Poses of planar targets: square markers of known side from their four corners (OpenCV's
/// IPPE_SQUARE), and reference images from point correspondences (IPPE), each solution refined
/// to the least squared pixel error through the camera's distortion.
///
/// A plane seen from a distance has two poses that explain its points almost equally well (the
/// target tilted toward or away from the camera). Both are returned, best first, so that callers
/// can resolve the ambiguity (``MarkerTracker`` does so with `MarkerPoseTrack`).
package enum PlanarPoseSolver {
    /// Both pose hypotheses for each target; `corners` holds four corners (TL, TR, BR, BL) per
    /// target, `side` is the square's side in metres.
    public static func solveSquares(corners: [[SIMD2<Double>]], side: Double, camera: CameraIntrinsics) throws -> [[PoseHypothesis]] {
        guard !corners.isEmpty else { return [] }
        var cam = ak_camera(camera)
        let flat: [Float] = corners.flatMap { $0.flatMap { [Float($0.x), Float($0.y)] } }
        var poses = Array(repeating: ak_square_pose(), count: corners.count)
        try NativeError.check(ak_solve_square_poses(&cam, side, flat, Int32(corners.count), &poses), "square pose")
        return poses.map { hypotheses(of: $0, opencvTargetFromAnchor: TargetConvention.opencvFromAnchor) }
    }

    /// The hypotheses of one shim pose pair, converted to `arkitCamera_from_anchor`.
    static func hypotheses(of p: ak_square_pose, opencvTargetFromAnchor: Transform) -> [PoseHypothesis] {
        var result: [PoseHypothesis] = []
        withUnsafeBytes(of: p.rotation) { rot in
            let r = rot.bindMemory(to: Double.self)
            withUnsafeBytes(of: p.translation) { tr in
                let t = tr.bindMemory(to: Double.self)
                withUnsafeBytes(of: p.error) { er in
                    let e = er.bindMemory(to: Double.self)
                    for s in 0..<Int(p.solutions) {
                        // OpenCV gives opencvCamera_from_opencvTarget; convert both frames.
                        let cv = Transform(rotation: Matrix3(rowMajor: r[(s * 9)..<(s * 9 + 9)]),
                                           translation: SIMD3(t[s * 3], t[s * 3 + 1], t[s * 3 + 2]))
                        result.append(PoseHypothesis(
                            cameraFromAnchor: TargetConvention.cameraFromAnchor(opencvCameraFromTarget: cv,
                                                                                targetFromAnchor: opencvTargetFromAnchor),
                            reprojectionError: e[s]))
                    }
                }
            }
        }
        return result
    }

    /// Both pose hypotheses of a planar target (a reference image) from point correspondences:
    /// `targetPoints` in the anchor's x-z plane (metres; x right, z toward the bottom edge) and
    /// their pixels. Uses OpenCV's IPPE; at least 4 points.
    public static func solve(targetPoints: [SIMD2<Double>], pixels: [SIMD2<Double>], camera: CameraIntrinsics) throws -> [PoseHypothesis] {
        precondition(targetPoints.count == pixels.count)
        guard targetPoints.count >= 4 else { return [] }
        var cam = ak_camera(camera)
        // OpenCV's image-target frame: +x right, +y down the image (anchor +z), +z into the target.
        let object: [Float] = targetPoints.flatMap { [Float($0.x), Float($0.y)] }
        let image: [Float] = pixels.flatMap { [Float($0.x), Float($0.y)] }
        var pose = ak_square_pose()
        try NativeError.check(ak_solve_planar_pose(&cam, object, image, Int32(targetPoints.count), &pose), "planar pose")
        return hypotheses(of: pose, opencvTargetFromAnchor: TargetConvention.opencvImageFromAnchor)
    }
}

extension ak_camera {
    /// The shim's camera from intrinsics (OpenCV's K and distortion).
    init(_ c: CameraIntrinsics) {
        let d = c.distortion5
        self.init(fx: c.fx, fy: c.fy, cx: c.cx, cy: c.cy, distortion: (d[0], d[1], d[2], d[3], d[4]))
    }
}
