import Foundation

/// Where static markers sit relative to one another, learnt while they are tracked, and where the
/// camera is among them.
///
/// Markers on walls, tables and boards do not move, so every marker in view measures the same
/// camera pose. That pose, from all their corners together, is far better conditioned than a small
/// marker's own (its four corners barely fix its tilt), and a marker's place, refined from many
/// views, is better still: a marker consistent with the layout is reported as the camera's pose
/// in the layout composed with the marker's place. A marker that moves stops being consistent and
/// is reported on its own pose; after a few such frames its place is forgotten and learnt again.
///
/// Frames: the layout frame is the OpenCV camera frame of the frame that founded the layout;
/// places are `layout_from_anchor` (anchor frames as in ``TargetConvention``); camera poses are
/// `opencvCamera_from_layout`. Corners are moved to a distortion-free pinhole camera on the way in.
struct MarkerLayout {
    struct Parameters: Sendable {
        /// A marker's place is refined from its latest this many consistent views. (Their camera
        /// poses were located against the places as they were then: older views agree less with
        /// the places refined since, so a longer memory needs a joint adjustment of both.)
        var viewWindow = 30
        /// A place is trusted (it locates the camera, and its marker is reported through the
        /// layout) once refined from this many views.
        var trustedViews = 5
        /// A marker is consistent with the layout when its place, seen from the camera's pose,
        /// projects within this RMS distance of its detected corners, pixels.
        var consistentRMS = 1.0
        /// A marker inconsistent this many frames in a row loses its place; a layout that locates
        /// no camera this many frames in a row while markers are seen starts again.
        var inconsistentFrames = 3
        /// A place is trusted only when its mirror tilt (see ``MarkerLayout/refine(_:)``) explains
        /// its views this many times worse (RMS), with errors below `noiseFloor` pixels counted
        /// as `noiseFloor`.
        var mirrorErrorRatio = 2.0
        var noiseFloor = 0.1
        /// Trusted markers that must locate the camera together before poses come from the
        /// layout (one marker alone gives its own pose back).
        var minimumMarkers = 2
    }

    /// A marker seen in this frame.
    struct Sighting {
        var identifier: String
        /// Side length, metres.
        var side: Double
        /// The marker's own pose from its corners alone (ARKit camera and anchor frames).
        var cameraFromAnchor: Transform
        /// Its detected corners, pixels.
        var corners: [SIMD2<Double>]
        /// Whether its own pose is unambiguous: only such a pose founds a place.
        var decisive: Bool
    }

    private struct View {
        var opencvCameraFromLayout: Transform
        var pixels: [SIMD2<Float>]
    }

    private struct Place {
        var layoutFromAnchor: Transform
        /// The corners in the anchor frame, metres.
        var corners: [SIMD3<Double>]
        /// The latest consistent views.
        var views: [View]
        var inconsistentFrames = 0
        var trusted = false
    }

    private let parameters: Parameters
    private let camera: CameraIntrinsics
    private let refiner = ViewPoseRefiner()
    /// A trusted place moves little with each new view: a few steps follow it.
    private let follower: ViewPoseRefiner = {
        var r = ViewPoseRefiner()
        r.maxIterations = 3
        return r
    }()
    private var places: [String: Place] = [:]
    /// The camera's pose in the previous frame, when it was located.
    private var lastCamera: Transform?
    private var unlocatedFrames = 0

    init(camera: CameraIntrinsics, parameters: Parameters = Parameters()) {
        self.camera = camera
        self.parameters = parameters
    }

    /// Learns from this frame's markers and returns the poses (`camera_from_anchor`, ARKit
    /// frames) of those reported through the layout, by identifier; the others keep their own.
    mutating func update(with sightings: [Sighting]) throws -> [String: Transform] {
        guard !sightings.isEmpty else {
            lastCamera = nil
            return [:]
        }
        let pixels = sightings.map { $0.corners.map { SIMD2<Float>(camera.pinholePixel($0)) } }
        // `opencvCamera_from_anchor`: the OpenCV camera, the anchor frame kept.
        let own = sightings.map { CameraConvention.flip * $0.cameraFromAnchor }
        var cameraPose: Transform
        var consistent: [Bool]
        if let (pose, flags) = try locate(sightings, pixels: pixels, own: own) {
            (cameraPose, consistent) = (pose, flags)
            unlocatedFrames = 0
        } else if places.isEmpty || unlocatedFrames + 1 >= parameters.inconsistentFrames {
            // Found (again) on this frame's markers.
            places.removeAll()
            (cameraPose, consistent) = (.identity, Array(repeating: false, count: sightings.count))
            unlocatedFrames = 0
        } else {
            unlocatedFrames += 1
            lastCamera = nil
            return [:]
        }
        lastCamera = cameraPose

        var poses: [String: Transform] = [:]
        let reported = sightings.indices.filter { consistent[$0] && places[sightings[$0].identifier]?.trusted == true }
        if reported.count >= parameters.minimumMarkers {
            for i in reported {
                poses[sightings[i].identifier] = CameraConvention.flip * cameraPose * places[sightings[i].identifier]!.layoutFromAnchor
            }
        }
        for (i, s) in sightings.enumerated() {
            let view = View(opencvCameraFromLayout: cameraPose, pixels: pixels[i])
            guard var place = places[s.identifier] else {
                if s.decisive {
                    places[s.identifier] = Place(layoutFromAnchor: cameraPose.inverse * own[i],
                                                 corners: TargetConvention.corners(width: s.side, height: s.side), views: [view])
                }
                continue
            }
            guard consistent[i] else {
                place.inconsistentFrames += 1
                places[s.identifier] = place.inconsistentFrames >= parameters.inconsistentFrames ? nil : place
                continue
            }
            place.inconsistentFrames = 0
            place.views.append(view)
            if place.views.count > parameters.viewWindow { place.views.removeFirst(place.views.count - parameters.viewWindow) }
            try refine(&place)
            places[s.identifier] = place
        }
        return poses
    }

    /// The camera's pose from the placed markers in view, and which markers are consistent with it:
    /// the hypothesis (the previous frame's pose, or one per placed marker from its own pose) that
    /// most placed markers agree with, refined on all of their corners. Nil when none agrees.
    private func locate(_ sightings: [Sighting], pixels: [[SIMD2<Float>]], own: [Transform]) throws -> (Transform, [Bool])? {
        let placed = sightings.indices.filter { places[sightings[$0].identifier] != nil }
        guard !placed.isEmpty else { return nil }
        func consistency(_ pose: Transform) -> [Bool] {
            sightings.indices.map { i in
                guard let place = places[sightings[i].identifier] else { return false }
                return rmsError(of: place, seenFrom: pose, at: pixels[i]) <= parameters.consistentRMS
            }
        }
        var hypotheses = placed.map { own[$0] * places[sightings[$0].identifier]!.layoutFromAnchor.inverse }
        if let lastCamera { hypotheses.insert(lastCamera, at: 0) }
        var best: (pose: Transform, flags: [Bool], count: Int)?
        for pose in hypotheses {
            let flags = consistency(pose)
            let count = flags.filter { $0 }.count
            if count > (best?.count ?? 0) { best = (pose, flags, count) }
        }
        guard let best else { return nil }
        var points: [ViewPoseRefiner.Sighting] = []
        for i in sightings.indices where best.flags[i] {
            let place = places[sightings[i].identifier]!
            for (corner, pixel) in zip(place.corners, pixels[i]) {
                points.append(.init(viewIndex: 0, point: place.layoutFromAnchor.apply(to: corner), pixel: pixel))
            }
        }
        let refined = try refiner.refine(best.pose, views: [.identity], sightings: points, camera: camera).middleFromObject
        let flags = consistency(refined)
        return flags.contains(true) ? (refined, flags) : nil
    }

    /// Refines `place` from its views. A small or distant square looks nearly the same tilted
    /// either way about the line of sight (the planar pose ambiguity), so the mirror tilt seen
    /// from the latest view is refined too and the better of the two is kept; the place is
    /// trusted once enough views agree with it and clearly less with its mirror.
    private func refine(_ place: inout Place) throws {
        var points: [ViewPoseRefiner.Sighting] = []
        for (v, view) in place.views.enumerated() {
            for (corner, pixel) in zip(place.corners, view.pixels) {
                points.append(.init(viewIndex: v, point: corner, pixel: pixel))
            }
        }
        let views = place.views.map(\.opencvCameraFromLayout)
        let estimate = try (place.trusted ? follower : refiner).refine(place.layoutFromAnchor, views: views, sightings: points, camera: camera)
        var best = estimate, other: ViewPoseRefiner.Estimate?
        // Once trusted, the mirror has been ruled out: it is looked at again only if the place stops fitting.
        if !place.trusted, let mirror = Self.mirrored(place.layoutFromAnchor, seenFrom: views.last!) {
            let alternative = try refiner.refine(mirror, views: views, sightings: points, camera: camera)
            if alternative.behindCount == 0, alternative.rmsError < estimate.rmsError || estimate.behindCount > 0 {
                (best, other) = (alternative, estimate)
            } else {
                other = alternative
            }
        }
        guard best.behindCount == 0, best.rmsError <= parameters.consistentRMS else {
            place.trusted = false
            return
        }
        place.layoutFromAnchor = best.middleFromObject
        let distinct = other.map { $0.behindCount > 0 || $0.rmsError >= parameters.mirrorErrorRatio * max(best.rmsError, parameters.noiseFloor) } ?? true
        place.trusted = place.views.count >= parameters.trustedViews && distinct
    }

    /// `layoutFromAnchor` with its tilt mirrored about the line of sight from `opencvCameraFromLayout`
    /// (the other planar solution, to first order); nil when the marker faces the camera squarely.
    private static func mirrored(_ layoutFromAnchor: Transform, seenFrom opencvCameraFromLayout: Transform) -> Transform? {
        let cameraFromAnchor = opencvCameraFromLayout * layoutFromAnchor
        let sight = normalize(cameraFromAnchor.translation)
        let normal = cameraFromAnchor.rotation.columns.1
        let mirror = 2 * dot(sight, normal) * sight - normal
        let axis = cross(normal, mirror)
        guard length(axis) > 1e-6 else { return nil }
        let turn = Matrix3.rotation(angle: atan2(length(axis), dot(normal, mirror)), axis: axis)
        return opencvCameraFromLayout.inverse * Transform(rotation: turn * cameraFromAnchor.rotation,
                                                          translation: cameraFromAnchor.translation)
    }

    /// RMS distance between `place`'s corners seen from `opencvCameraFromLayout` and `pixels`;
    /// infinite when a corner is not in front of the camera.
    private func rmsError(of place: Place, seenFrom opencvCameraFromLayout: Transform, at pixels: [SIMD2<Float>]) -> Double {
        let cameraFromAnchor = opencvCameraFromLayout * place.layoutFromAnchor
        var sum = 0.0
        for (corner, pixel) in zip(place.corners, pixels) {
            let p = cameraFromAnchor.apply(to: corner)
            guard p.z > 1e-9 else { return .infinity }
            let d = SIMD2(camera.fx * p.x / p.z + camera.cx, camera.fy * p.y / p.z + camera.cy) - SIMD2<Double>(pixel)
            sum += dot(d, d)
        }
        return (sum / Double(place.corners.count)).squareRoot()
    }
}
