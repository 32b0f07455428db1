/// Places a target in a world that stands on its targets by adjusting it together with the
/// cameras that saw it (marker-based SLAM's idea, as UcoSLAM adjusts markers and keyframes):
/// each camera was located on the targets placed before, and a small or distant one fixes a
/// camera's tilt poorly, so a target placed from those cameras alone inherits their errors.
/// Adjusted jointly, the new target's corners, seen from several cameras, hold those cameras too.
///
/// The joint least squares: the reprojection of every corner, the new target and each camera
/// rigid, the targets placed before held fixed (they fix the world); ``ViewPoseRefiner``'s joint
/// refinement solves it (a few targets, ``adjustedViews`` cameras, once per target placed).
/// Alternating between the cameras and the target instead crawls along the valley a small
/// target's poorly fixed tilt makes.
///
/// Frames (ARKit conventions): views are `world_from_camera`, anchors `world_from_anchor`; the
/// refiner works in OpenCV's camera axes (`CameraConvention.flip`).
struct TargetPlacement {
    /// One located frame: the camera and what it saw.
    struct View {
        var worldFromCamera: Transform
        var observations: [TargetObservation]
    }

    /// Located frames kept, newest last.
    static let memory = 30
    /// Views of the new target adjusted at most, the newest.
    static let adjustedViews = 15
    /// Largest RMS reprojection error of the new target's corners after the adjustment, pixels:
    /// beyond it the adjustment is not kept.
    static let largestError = 2.0

    private var views: [View] = []
    private let camera: CameraIntrinsics
    private let refiner = ViewPoseRefiner()

    init(camera: CameraIntrinsics) { self.camera = camera }

    /// Keeps a located frame.
    mutating func record(_ view: View) {
        views.append(view)
        if views.count > Self.memory { views.removeFirst() }
    }

    /// `world_from_anchor` of target `identifier`, first estimated at `initial`, adjusted with the
    /// cameras of its recent views against the targets already placed (`placed`, nil for the new
    /// target and for those not placed). Nil when no view of it sees a placed target, a corner
    /// falls behind a camera, or the adjustment leaves its corners more than ``largestError`` off.
    func adjusted(_ identifier: String, initial: Transform, placed: (String) -> Transform?) throws -> Transform? {
        let seeing = Array(views.filter { $0.observations.contains { $0.identifier == identifier && $0.corners != nil } }
            .suffix(Self.adjustedViews))
        var own: [ViewPoseRefiner.Sighting] = [], fixed: [ViewPoseRefiner.Sighting] = []
        for (v, view) in seeing.enumerated() {
            for o in view.observations {
                guard let corners = o.corners else { continue }
                let model = TargetConvention.corners(width: o.extent.x, height: o.extent.y)
                let pixels = corners.map { SIMD2<Float>(camera.pinholePixel($0)) }
                if o.identifier == identifier {
                    own += zip(model, pixels).map { .init(viewIndex: v, point: $0, pixel: $1) }
                } else if let worldFromAnchor = placed(o.identifier) {
                    fixed += zip(model, pixels).map { .init(viewIndex: v, point: worldFromAnchor.apply(to: $0), pixel: $1) }
                }
            }
        }
        // Something placed before must share a view with it: that holds the world.
        guard !fixed.isEmpty else { return nil }
        // `opencvCamera_from_world` = F · inverse(world_from_arkitCamera).
        var cameras = seeing.map { CameraConvention.flip * $0.worldFromCamera.inverse }
        let estimate = try refiner.refine(initial, adjusting: &cameras, sightings: own, fixedSightings: fixed, camera: camera)
        return estimate.behindCount == 0 && estimate.rmsError <= Self.largestError ? estimate.middleFromObject : nil
    }
}
