/// Finds the camera against the whole map when tracking lost it (ORB-SLAM's relocalisation):
/// the frame's ORB features matched against the descriptors of map points seen in keyframes,
/// the pose found by PnP with RANSAC.
///
/// Conventions are the map's (``OdometryMap``): poses `opencvCamera_from_world`.
struct Relocaliser {
    private let camera: CameraIntrinsics
    private let parameters: VisualOdometry.Parameters
    private var poseSolver = PointPoseSolver()
    /// The map's descriptors as a matcher's index, and the descriptors' revision it was built at.
    private var index: (revision: Int, features: FeatureSet)?

    init(camera: CameraIntrinsics, parameters: VisualOdometry.Parameters) {
        self.camera = camera
        self.parameters = parameters
        poseSolver.reprojectionThreshold = parameters.reprojectionThreshold
    }

    /// The frame's `opencvCamera_from_world` and, as tracks, the map points matched and found
    /// inliers; nil when too few matched.
    mutating func relocalise(gray: Image, in map: OdometryMap) throws -> (pose: Transform, tracks: [PointTrack])? {
        let described = map.descriptors
        guard !described.isEmpty else { return nil }
        if index?.revision != described.revision {
            index = (described.revision, try FeatureSet(keypoints: described.keypoints, descriptors: described.bytes))
        }
        var p = FeatureSet.Parameters()
        p.maximumCount = 1000
        let features = try FeatureSet(image: gray, parameters: p)
        let matches = try features.match(against: index!.features).filter { $0.isDistinctive(ratio: 0.8) }
        guard matches.count >= parameters.minimumInliers else { return nil }
        guard let solved = try poseSolver.solve(
            worldPoints: matches.map { map.points[described.point[$0.train]] },
            pixels: matches.map { camera.idealPixel(features.points[$0.query]) }, camera: camera),
            solved.inlierCount >= 2 * parameters.minimumInliers else { return nil }
        // Origin keyframe -1: no keyframe holds these positions, so a track whose point is let go
        // is never triangulated against one.
        let tracks = zip(matches, solved.inliers).filter(\.1).map { m, _ in
            PointTrack(position: features.points[m.query], point: described.point[m.train], origin: (-1, features.points[m.query]))
        }
        return (solved.opencvCameraFromWorld, tracks)
    }
}
