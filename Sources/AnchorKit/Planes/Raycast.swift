import Foundation

/// What a raycast may hit (ARRaycastQuery.Target).
public enum RaycastTarget: String, Codable, Sendable, CaseIterable {
    /// A detected plane, inside its boundary polygon.
    case existingPlaneGeometry
    /// A detected plane extended without bound.
    case existingPlaneInfinite
    /// A surface estimated from the map's feature points around the ray (no plane needed).
    case estimatedPlane
}

/// A ray in the session's world to intersect with its surfaces (ARRaycastQuery).
public struct RaycastQuery: Equatable, Sendable {
    /// Where the ray starts (the camera centre for a screen tap), world units.
    public var origin: SIMD3<Double>
    /// Unit direction.
    public var direction: SIMD3<Double>
    public var target: RaycastTarget
    public var alignment: PlaneAlignment

    /// A query along `direction` (normalised here) from `origin`.
    public init(origin: SIMD3<Double>, direction: SIMD3<Double>, target: RaycastTarget, alignment: PlaneAlignment) {
        self.origin = origin; self.direction = normalize(direction); self.target = target; self.alignment = alignment
    }
}

/// Where a ray met a surface (ARRaycastResult).
public struct RaycastResult: Equatable, Sendable {
    /// `world_from_hit`: translation at the hit; +y along the surface's normal (toward the
    /// ray's side), x and z in the surface (for a plane, its anchor's axes).
    public var worldTransform: Transform
    /// Distance from the ray's origin along the ray, world units (metres when the world is
    /// metric).
    public var distance: Double
    /// The kind of surface hit.
    public var target: RaycastTarget
    /// The plane anchor hit, for the two plane targets.
    public var anchorIdentifier: String?
}

extension CameraState {
    /// The query for a tap at `pixel` of this camera's frame (the image's pixel convention;
    /// lens distortion is removed): from the camera centre through the pixel.
    public func raycastQuery(from pixel: SIMD2<Double>, target: RaycastTarget, alignment: PlaneAlignment) -> RaycastQuery {
        let inCamera = intrinsics.unproject(pixel, depth: 1)  // ARKit camera axes
        return RaycastQuery(origin: transform.translation, direction: transform.rotation * inCamera,
                            target: target, alignment: alignment)
    }
}

/// Intersects rays with plane anchors and with surfaces estimated from feature points (what
/// ``Session/raycast(_:)`` does with the session's planes; usable on any planes, e.g. a
/// ground truth's).
public enum Raycaster {
    /// How far around the ray feature points are looked for (estimated planes), radians.
    static let pointAngle = 1.5 * Double.pi / 180
    /// Points used to estimate a surface around the first one the ray meets.
    static let neighbourhood = 24
    /// How far from horizontal / vertical an estimated surface may be for those alignments.
    static let alignmentSlack = 15 * Double.pi / 180

    /// The hits of `query`, nearest first: on `planes` (the plane targets) or on a surface
    /// fitted to `points` (world feature points; `.estimatedPlane`).
    public static func cast(_ query: RaycastQuery, planes: [Anchor], points: [SIMD3<Double>] = []) -> [RaycastResult] {
        var results: [RaycastResult] = []
        switch query.target {
        case .existingPlaneGeometry, .existingPlaneInfinite:
            for plane in planes where plane.kind == .plane && accepts(plane.alignment, query.alignment) {
                guard let crossing = crossing(query, plane: plane.transform) else { continue }
                if query.target == .existingPlaneGeometry {
                    guard let polygon = plane.polygon, polygon.count >= 3,
                          ConvexPolygon.contains(polygon, SIMD2(crossing.local.x, crossing.local.z)) else { continue }
                }
                results.append(RaycastResult(worldTransform: Transform(rotation: plane.transform.rotation, translation: crossing.point),
                                             distance: crossing.distance, target: query.target, anchorIdentifier: plane.identifier))
            }
        case .estimatedPlane:
            if let hit = estimated(query, points: points) { results.append(hit) }
        }
        return results.sorted { $0.distance < $1.distance }
    }

    /// Where `query` meets the x-z plane of `frame` (`world_from_frame`, +y the normal) ahead
    /// of its origin: the distance along the ray, the world point, and the point in the frame's
    /// coordinates. Nil for a ray parallel to the plane or pointing away from it.
    package static func crossing(_ query: RaycastQuery, plane frame: Transform) -> (distance: Double, point: SIMD3<Double>, local: SIMD3<Double>)? {
        let normal = frame.rotation.columns.1
        let along = dot(query.direction, normal)
        guard abs(along) > 1e-9 else { return nil }
        let t = dot(frame.translation - query.origin, normal) / along
        guard t > 0 else { return nil }
        let point = query.origin + t * query.direction
        return (t, point, frame.inverse.apply(to: point))
    }

    private static func accepts(_ planeAlignment: PlaneAlignment?, _ wanted: PlaneAlignment) -> Bool {
        wanted == .any || planeAlignment == wanted
    }

    /// The ray's hit on the surface through the first feature points it passes (within
    /// ``pointAngle``): a plane fitted to their neighbourhood, snapped level or upright for
    /// those alignments. Nil when no point is near the ray or they are not planar.
    private static func estimated(_ query: RaycastQuery, points: [SIMD3<Double>]) -> RaycastResult? {
        let cosine = cos(pointAngle)
        var first: (point: SIMD3<Double>, depth: Double)?
        for p in points {
            let d = p - query.origin, depth = dot(d, query.direction)
            guard depth > 0, depth >= cosine * length(d), depth < (first?.depth ?? .infinity) else { continue }
            first = (p, depth)
        }
        guard let seed = first else { return nil }
        let near = points.sorted { length($0 - seed.point) < length($1 - seed.point) }.prefix(neighbourhood)
        guard near.count >= 6 else { return nil }
        var (centroid, values, vectors) = SymmetricEigen.of(Array(near))
        // Flat: the thickness (σ along the normal) is small beside the patch's size.
        guard values[0].squareRoot() < 0.2 * values[1].squareRoot() else { return nil }
        var normal = vectors[0]
        switch query.alignment {
        case .horizontal:
            guard abs(normal.y) >= cos(alignmentSlack) else { return nil }
            normal = SIMD3(0, 1, 0)
        case .vertical:
            guard abs(normal.y) <= sin(alignmentSlack) else { return nil }
            normal = normalize(SIMD3(normal.x, 0, normal.z))
        case .any: break
        }
        if dot(normal, query.direction) > 0 { normal = -normal }
        if query.alignment == .horizontal { centroid.y = near.map(\.y).reduce(0, +) / Double(near.count) }
        let along = dot(query.direction, normal)
        guard abs(along) > 1e-9 else { return nil }
        let t = dot(centroid - query.origin, normal) / along
        guard t > 0 else { return nil }
        let x = PlaneAxes.spanning(normal).0
        return RaycastResult(worldTransform: Transform(rotation: Matrix3(columns: (x, normal, cross(x, normal))),
                                                       translation: query.origin + t * query.direction),
                             distance: t, target: .estimatedPlane, anchorIdentifier: nil)
    }
}

/// A raycast the session repeats on every frame, so that its result follows the planes as they
/// are refined (ARTrackedRaycast). Stop it with ``stopTracking()``.
public final class TrackedRaycast: @unchecked Sendable {
    /// The ray.
    public let query: RaycastQuery
    /// The latest results, nearest first.
    public private(set) var results: [RaycastResult] = []
    /// False once stopped.
    public private(set) var isTracking = true
    private let handler: ([RaycastResult]) -> Void

    init(query: RaycastQuery, handler: @escaping ([RaycastResult]) -> Void) {
        self.query = query; self.handler = handler
    }

    /// Stops the updates; the session forgets the raycast.
    public func stopTracking() { isTracking = false }

    /// Sets new results, telling the handler when they changed.
    func update(_ new: [RaycastResult]) {
        guard isTracking, new != results else { return }
        results = new
        handler(new)
    }
}
