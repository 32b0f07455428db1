import AnchorKitCV

/// One solution for the pose of a planar square target.
public struct PoseHypothesis: Sendable {
    /// `arkitCamera_from_anchor` (anchor frame of ../shared/FORMATS.md: +y out of the face).
    public var cameraFromAnchor: Transform
    /// RMS reprojection error of the target's corners, pixels.
    public var reprojectionError: Double
}

/// Poses of square targets of known side from their four corners, with OpenCV's IPPE_SQUARE.
///
/// A planar square seen from a distance has two poses that explain its corners almost equally
/// well (the target tilted toward or away from the camera). Both are returned, best first,
/// so that callers can resolve the ambiguity (``MarkerTracker`` does so by error ratio, then by
/// temporal consistency).
public enum SquarePoseSolver {
    /// Both pose hypotheses for each target; `corners` holds four corners (TL, TR, BR, BL) per
    /// target, `side` is the square's side in metres.
    public static func solve(corners: [[SIMD2<Double>]], side: Double, camera: CameraIntrinsics) throws -> [[PoseHypothesis]] {
        guard !corners.isEmpty else { return [] }
        var cam = ak_camera(camera)
        let flat: [Float] = corners.flatMap { $0.flatMap { [Float($0.x), Float($0.y)] } }
        var poses = Array(repeating: ak_square_pose(), count: corners.count)
        try NativeError.check(ak_solve_square_poses(&cam, side, flat, Int32(corners.count), &poses), "square pose")
        return poses.map { p in
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
                                cameraFromAnchor: TargetConvention.cameraFromAnchor(opencvCameraFromTarget: cv),
                                reprojectionError: e[s]))
                        }
                    }
                }
            }
            return result
        }
    }
}

extension ak_camera {
    /// The shim's camera from intrinsics (OpenCV's K and distortion).
    init(_ c: CameraIntrinsics) {
        let d = c.distortion5
        self.init(fx: c.fx, fy: c.fy, cx: c.cx, cy: c.cy, distortion: (d[0], d[1], d[2], d[3], d[4]))
    }
}
