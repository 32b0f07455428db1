import Foundation
import AnchorKit

/// The overlays of a video, frame after frame: matches them to the frame's anchors, places taps
/// when their frame comes (then keeps them world-locked), and remembers what never matched.
public struct OverlayScene: Sendable {
    /// The overlays, in drawing order of equal depth.
    public private(set) var placements: [PlacedOverlay]
    /// Per placement: whether it has been drawn on some frame (an anchor name that never appears,
    /// or a tap that hit nothing, stays false).
    public private(set) var wasShown: [Bool]
    /// Per placement: for taps, false once the tap's frame has passed without a hit.
    public private(set) var tapMissed: [Bool]
    /// Per tap placed: what it hit (`plane/3`, `image/home`, or `estimated surface`) and how far
    /// from the camera (world units).
    public private(set) var tapHits: [Int: (surface: String, distance: Double)] = [:]

    public init(_ placements: [PlacedOverlay]) {
        self.placements = placements
        wasShown = Array(repeating: false, count: placements.count)
        tapMissed = Array(repeating: false, count: placements.count)
    }

    /// Whether an anchor can carry content in this frame: planes while they exist, targets while
    /// seen or, with world tracking, once placed (their world pose then stays valid out of view).
    static func isShowable(_ anchor: Anchor) -> Bool {
        anchor.kind == .plane || anchor.isTracked || anchor.isPlaced == true
    }

    /// The overlays to draw on `update`'s frame, far to near (so that nearer content is painted
    /// over farther). Taps of this frame are cast first, against the frame's planes and targets
    /// and, failing those, `featurePoints` (world).
    /// `featurePoints` is evaluated only when a tap falls on this frame (a session's map costs
    /// work to gather).
    public mutating func instances(for update: FrameUpdate, featurePoints: @autoclosure () -> [SIMD3<Double>] = []) -> [OverlayInstance] {
        for i in placements.indices {
            guard case .tap(let frame, let pixel) = placements[i].attachment, frame == update.frame else { continue }
            if let hit = Self.tapHit(update, pixel: pixel, featurePoints: featurePoints()) {
                placements[i].attachment = .world(hit.pose)
                tapHits[i] = (hit.surface, hit.distance)
            } else {
                tapMissed[i] = true
            }
        }
        var out: [OverlayInstance] = []
        for (i, placed) in placements.enumerated() {
            switch placed.attachment {
            case .anchor(let name):
                for anchor in update.anchors where (anchor.identifier == name || anchor.name == name) && Self.isShowable(anchor) {
                    let size = placed.overlay.size(onAnchorOf: anchor.kind, extent: anchor.extent)
                    let pose = anchor.transform * placed.overlay.anchorFromContent(size: size, extent: anchor.extent)
                    out.append(OverlayInstance(placement: i, worldFromContent: pose, size: size, anchorIdentifier: anchor.identifier))
                }
            case .world(let worldFromContent):
                let size = placed.overlay.size(onAnchorOf: nil, extent: nil)
                let pose = worldFromContent * placed.overlay.anchorFromContent(size: size, extent: .zero)
                out.append(OverlayInstance(placement: i, worldFromContent: pose, size: size, anchorIdentifier: nil))
            case .tap:
                continue
            }
        }
        for instance in out { wasShown[instance.placement] = true }
        let eye = update.camera.transform.translation
        return out.enumerated().sorted { a, b in
            let da = length(a.element.worldFromContent.translation - eye), db = length(b.element.worldFromContent.translation - eye)
            return da != db ? da > db : a.offset < b.offset
        }.map(\.element)
    }

    /// `world_from_content` for content placed by a tap at `pixel`: at the nearest hit on a
    /// plane (inside its boundary) or a shown target's face, else on a surface estimated from
    /// `featurePoints`; nil when the ray meets nothing. The content lies on the surface (+y its
    /// normal toward the camera) standing upright for the camera: on a floor or table its
    /// bottom edge faces the camera; on a wall or slope its top edge points up the surface.
    static func tapHit(_ update: FrameUpdate, pixel: SIMD2<Double>, featurePoints: [SIMD3<Double>])
        -> (pose: Transform, surface: String, distance: Double)? {
        let camera = update.camera
        let query = camera.raycastQuery(from: pixel, target: .existingPlaneGeometry, alignment: .any)
        var hits = Raycaster.cast(query, planes: update.anchors).map { ($0.distance, $0.worldTransform, $0.anchorIdentifier ?? "plane") }
        for anchor in update.anchors where anchor.kind != .plane && Self.isShowable(anchor) {
            if let hit = faceHit(query, anchor: anchor) { hits.append((hit.0, hit.1, anchor.identifier)) }
        }
        if hits.isEmpty {
            var estimated = query
            estimated.target = .estimatedPlane
            hits = Raycaster.cast(estimated, planes: [], points: featurePoints).map { ($0.distance, $0.worldTransform, "estimated surface") }
        }
        guard let nearest = hits.min(by: { $0.0 < $1.0 }) else { return nil }
        let pose = upright(at: nearest.1.translation, normal: nearest.1.rotation.columns.1, camera: camera.transform.translation)
        return (pose, nearest.2, nearest.0)
    }

    /// Where `query` crosses a target's face (its rectangle in the anchor's x-z plane).
    private static func faceHit(_ query: RaycastQuery, anchor: Anchor) -> (Double, Transform)? {
        guard let crossing = Raycaster.crossing(query, plane: anchor.transform),
              abs(crossing.local.x) <= anchor.extent.x / 2, abs(crossing.local.z) <= anchor.extent.y / 2 else { return nil }
        return (crossing.distance, Transform(rotation: anchor.transform.rotation, translation: crossing.point))
    }

    /// A frame at `point` with +y = `normal` (turned toward `camera`) and +z, the content's
    /// bottom edge, toward the camera on level surfaces and down the surface on steep ones.
    static func upright(at point: SIMD3<Double>, normal n: SIMD3<Double>, camera: SIMD3<Double>) -> Transform {
        let y = dot(n, camera - point) < 0 ? -n : n
        let up = SIMD3<Double>(0, 1, 0)
        // Level (within ~45°): the bottom edge faces the camera; else it points down the slope.
        var z = abs(dot(y, up)) > 0.7 ? camera - point : -up
        z -= dot(z, y) * y
        if length(z) < 1e-9 { z = PlaneAxes.spanning(y).1 }
        z = normalize(z)
        return Transform(rotation: Matrix3(columns: (cross(y, z), y, z)), translation: point)
    }
}
