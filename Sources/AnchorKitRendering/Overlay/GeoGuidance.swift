import Foundation
import AnchorKit

/// The two guidance overlays of geo tracking's apps (issue 26), drawn over a frame once the world
/// is localised:
/// - an arrow lying level ``arrowAhead`` metres in front of the camera and ``arrowBelowEye``
///   below it, pointing toward a geo anchor, labelled with its name and horizontal distance (a
///   landmark tour's "next landmark");
/// - a route through geo anchors in order, drawn on the ground (``routeBelowEye`` metres below the
///   camera: a phone held at eye height, a dashboard camera) with a turn arrow at each waypoint
///   where the route bends by more than 20° (a navigation aid).
/// Both are in the session's world (metres), projected with the frame's camera; parts behind the
/// camera are cut.
public struct GeoGuidance: Sendable {
    /// The anchor the arrow points to (its name or id), if any.
    public var arrowTarget: String?
    /// The anchors the route passes through, in order (names or ids); empty: no route.
    public var route: [String]
    public var arrowAhead = 4.0, arrowBelowEye = 1.2, arrowLength = 1.2
    /// Metres from the camera down to the ground the route is drawn on.
    public var routeBelowEye = 1.5
    public var color = Color(red: 255, green: 140, blue: 0), routeColor = Color(red: 30, green: 144, blue: 255)

    public init(arrowTarget: String? = nil, route: [String] = []) {
        self.arrowTarget = arrowTarget
        self.route = route
    }

    /// `image` with the arrow and the route of `update` over it (unchanged before localisation).
    public func draw(_ update: FrameUpdate, over image: Image) throws -> Image {
        guard update.geoTracking?.state == .localized else { return image }
        func place(_ name: String) -> Anchor? {
            update.anchors.first { $0.kind == .geo && ($0.name == name || $0.identifier == name) }
        }
        var strokes: [Stroke] = [], labels: [TextLabel] = []
        let camera = update.camera, eye = camera.transform.translation
        let ground = eye.y - routeBelowEye
        let points = route.compactMap(place).map { a in SIMD3(a.transform.translation.x, ground, a.transform.translation.z) }
        if points.count >= 2 {
            // The route as segments of at most 2 m, so that the part behind the camera is cut well.
            var line: [SIMD3<Double>] = []
            for (a, b) in zip(points, points.dropFirst()) {
                let pieces = max(1, Int(length(b - a) / 2))
                line += (0..<pieces).map { a + (b - a) * Double($0) / Double(pieces) }
            }
            line.append(points.last!)
            strokes += visibleRuns(line, camera: camera).map { Stroke(points: $0, color: routeColor, width: 4) }
            for k in points.indices.dropFirst().dropLast() {
                let before = normalize(horizontal(points[k] - points[k - 1])), after = normalize(horizontal(points[k + 1] - points[k]))
                guard acos(max(-1, min(1, dot(before, after)))) > 20 * .pi / 180 else { continue }
                strokes += arrow(at: points[k] + 0.05 * SIMD3(0, 1, 0), along: after, length: 3, camera: camera, color: routeColor)
            }
        }
        if let name = arrowTarget, let target = place(name) {
            let forward = horizontal(-camera.transform.rotation.columns.2)
            if length(forward) > 1e-6 {
                let base = eye + arrowAhead * normalize(forward) - SIMD3(0, arrowBelowEye, 0)
                let toward = horizontal(target.transform.translation - base)
                if length(toward) > 1e-6 {
                    strokes += arrow(at: base, along: normalize(toward), length: arrowLength, camera: camera, color: color)
                    let distance = length(horizontal(target.transform.translation - eye))
                    if let at = camera.project(base) {
                        labels.append(TextLabel("\(target.name ?? name) \(Int(distance.rounded())) m", at: at + SIMD2(-30, 28),
                                                color: color, height: 14))
                    }
                }
            }
        }
        return strokes.isEmpty && labels.isEmpty ? image : try image.drawing(strokes, labels: labels)
    }

    private func horizontal(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(v.x, 0, v.z) }

    /// A flat arrow lying level at `base` (world), pointing along the horizontal unit `direction`.
    private func arrow(at base: SIMD3<Double>, along direction: SIMD3<Double>, length: Double, camera: CameraState,
                       color: Color) -> [Stroke] {
        let side = normalize(cross(direction, SIMD3(0, 1, 0))) * (0.18 * length)
        let tail = base - direction * (0.5 * length), head = base + direction * (0.5 * length), neck = base + direction * (0.1 * length)
        let outline = [tail + side * 0.4, neck + side * 0.4, neck + side, head, neck - side, neck - side * 0.4, tail - side * 0.4]
        let cameraFromWorld = camera.transform.inverse
        guard let drawn = PictureQuad.projectClipped(outline.map { cameraFromWorld.apply(to: $0) }, camera: camera.intrinsics,
                                                     near: DebugView.nearDistance) else { return [] }
        return [Stroke(points: drawn, isClosed: true, color: color, width: 3)]
    }

    /// The runs of `line` (world) in front of the camera, projected.
    private func visibleRuns(_ line: [SIMD3<Double>], camera: CameraState) -> [[SIMD2<Double>]] {
        var runs: [[SIMD2<Double>]] = [], run: [SIMD2<Double>] = []
        let cameraFromWorld = camera.transform.inverse
        for (a, b) in zip(line, line.dropFirst()) {
            if let segment = DebugView.projectedSegment(cameraFromWorld.apply(to: a), cameraFromWorld.apply(to: b), camera: camera.intrinsics) {
                if let last = run.last, length(last - segment[0]) < 0.5 { run.append(segment[1]) } else {
                    if run.count >= 2 { runs.append(run) }
                    run = segment
                }
            } else if run.count >= 2 {
                runs.append(run)
                run = []
            }
        }
        if run.count >= 2 { runs.append(run) }
        return runs
    }
}
