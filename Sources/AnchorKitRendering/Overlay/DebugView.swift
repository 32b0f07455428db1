import Foundation
import AnchorKit

/// What `anchorkit render --debug` draws over a frame: each anchor's axes (x red, y green, z blue),
/// a target's corners and id, each plane's boundary polygon and id, and the camera's tracking
/// state in the top-left corner.
public enum DebugView {
    /// Content closer to the camera than this (metres along the viewing axis) is cut away.
    static let nearDistance = 0.01

    /// `image` (BGR) with the debug drawing of `update` over it.
    public static func draw(_ update: FrameUpdate, over image: Image) throws -> Image {
        var strokes: [Stroke] = [], labels: [TextLabel] = []
        let camera = update.camera
        let intrinsics = camera.intrinsics
        for anchor in update.anchors where OverlayScene.isShowable(anchor) {
            let cameraFromAnchor = camera.cameraFrom(anchor.transform)
            let toCamera = { (p: SIMD3<Double>) in cameraFromAnchor.apply(to: p) }
            var labelAt: SIMD2<Double>?
            if anchor.kind == .plane, let polygon = anchor.polygon {
                let outline = polygon.map { toCamera(SIMD3($0.x, 0, $0.y)) }
                if let drawn = PictureQuad.projectClipped(outline, camera: intrinsics, near: nearDistance) {
                    strokes.append(Stroke(points: drawn, isClosed: true, color: .cyan, width: 2))
                }
                labelAt = intrinsics.project(toCamera(.zero))
            } else if anchor.isTracked, let corners = anchor.corners {
                strokes.append(Stroke(points: corners, isClosed: true, color: .yellow, width: 2))
                strokes += corners.map { Stroke(points: [$0], color: .yellow, width: 6) }
                labelAt = corners[0]
            } else {
                // Placed but out of sight this frame: its rectangle where the world holds it.
                let rectangle = TargetConvention.corners(width: anchor.extent.x, height: anchor.extent.y).map(toCamera)
                if let drawn = PictureQuad.projectClipped(rectangle, camera: intrinsics, near: nearDistance) {
                    strokes.append(Stroke(points: drawn, isClosed: true, color: .white, width: 1))
                    labelAt = drawn[0]
                }
            }
            // Half the target's size; planes' capped, so that a floor's axes do not cross the picture.
            let length = min(0.5 * min(anchor.extent.x, anchor.extent.y), anchor.kind == .plane ? 0.25 : .infinity)
            for (axis, color) in [(SIMD3<Double>(1, 0, 0), Color.red), (SIMD3(0, 1, 0), .green), (SIMD3(0, 0, 1), .blue)] {
                if let segment = projectedSegment(toCamera(.zero), toCamera(axis * length), camera: intrinsics) {
                    strokes.append(Stroke(points: segment, color: color, width: 2))
                }
            }
            if let at = labelAt {
                let name: String
                switch anchor.kind {
                case .plane: name = "\(anchor.identifier) \(anchor.alignment?.rawValue ?? "")"
                // A code's id is a digest: what it holds says more (shortened; bytes as base64).
                case .qr: name = anchor.payload.map { p in p.streamValue.count > 28 ? p.streamValue.prefix(25) + "..." : p.streamValue }
                    ?? anchor.identifier
                default: name = anchor.identifier
                }
                labels.append(TextLabel(name, at: at + SIMD2(4, -6), color: anchor.kind == .plane ? .cyan : .yellow, height: 10))
            }
        }
        var state = "frame \(update.frame)  \(camera.trackingState.name)"
        if let reason = camera.trackingState.reason { state += " (\(reason.rawValue))" }
        if let scale = camera.scale { state += "  scale \(scale.rawValue)" }
        labels.append(TextLabel(state, at: SIMD2(8, 20), color: trackingColor(camera.trackingState), height: 12))
        return try image.drawing(strokes, labels: labels)
    }

    private static func trackingColor(_ state: TrackingState) -> Color {
        switch state {
        case .normal: return .green
        case .limited: return .yellow
        case .notAvailable: return .red
        }
    }

    /// A camera-space segment cut to depth >= ``nearDistance`` and projected; nil when it is all
    /// behind.
    static func projectedSegment(_ a: SIMD3<Double>, _ b: SIMD3<Double>, camera: CameraIntrinsics) -> [SIMD2<Double>]? {
        let da = -a.z - nearDistance, db = -b.z - nearDistance
        guard da >= 0 || db >= 0 else { return nil }
        let cut = a + (b - a) * (da / (da - db))
        guard let p = camera.project(da >= 0 ? a : cut), let q = camera.project(db >= 0 ? b : cut) else { return nil }
        return [p, q]
    }
}
