import AnchorKit
/// A solid box standing in a synthetic scene (a table, a bench, a cabinet): its top and four
/// sides are textured ``ScenePlane``s seen from outside. Static and axis-aligned in the scene's
/// world (+y up, metres).
///
/// Boxes are what a scene of planes painted in a fixed order cannot show: which face hides which
/// depends on where the camera is. ``SyntheticScene/paintOrder(eye:)`` paints, at each instant,
/// only the faces that face the camera (the others are hidden by the box itself) and the boxes
/// back to front.
public struct SceneBox {
    /// A face of a box, named by the world direction its outside faces.
    public enum Face: CaseIterable, Sendable {
        /// The top (+y).
        case top
        /// The side facing +z.
        case front
        /// The side facing +x.
        case right
        /// The side facing -z.
        case back
        /// The side facing -x.
        case left
    }

    /// The top, then the sides (front, right, back, left); each plane's +y points out of the
    /// box. There is no bottom: a box stands on something.
    public var faces: [ScenePlane]
    /// Planes lying on the top (a printed marker, a magazine), painted after the box's faces
    /// whenever the top faces the camera. Lift them ~1 mm above the top.
    public var decals: [ScenePlane]
    /// The box's world-space bounds, metres: the smallest x, y, z of the box...
    public let minimum: SIMD3<Double>
    /// ...and the largest (without the `seam` overlaps of its faces).
    public let maximum: SIMD3<Double>

    /// A box of `size` (x, height, z; metres) whose bottom is centred on `base` (world), with
    /// each face's picture from `texture` (stretched over the face; sides are upright: the
    /// picture's top edge along the box's top). `top` makes the top a detectable surface (its
    /// extent is the box's footprint).
    ///
    /// Faces are drawn `seam` metres larger where a face painted after them meets them: the top
    /// on all four sides, a side at the ends where a later side joins it. Two anti-aliased edges
    /// painted over each other let what is behind show through along the joint (a faint line of
    /// floor along every edge of the box); drawn this way, the earlier face continues under the
    /// later one's edge instead. The overlap is hidden behind the later face as long as the
    /// camera is above the top, as it is for furniture seen by a standing person.
    public init(base: SIMD3<Double>, size: SIMD3<Double>, texture: (Face) throws -> Image,
                top: ScenePlane.Surface? = nil, decals: [ScenePlane] = [], seam: Double = 0.003) rethrows {
        minimum = base - SIMD3(size.x / 2, 0, size.z / 2)
        maximum = base + SIMD3(size.x / 2, size.y, size.z / 2)
        let centre = base + SIMD3(0, size.y / 2, 0)
        // Outward normals of the faces, in ``Face/allCases`` order (which is the painting order).
        let normals: [Face: SIMD3<Double>] = [.top: SIMD3(0, 1, 0), .front: SIMD3(0, 0, 1), .right: SIMD3(1, 0, 0),
                                              .back: SIMD3(0, 0, -1), .left: SIMD3(-1, 0, 0)]
        let order = Face.allCases
        var faces: [ScenePlane] = []
        for (k, face) in order.enumerated() {
            let n = normals[face]!
            let pose: Transform, extent: SIMD2<Double>
            if face == .top {
                let topSurface = top.map { s -> ScenePlane.Surface in
                    var s = s
                    s.extent = s.extent ?? SIMD2(size.x, size.z)
                    return s
                }
                let plane = Transform(rotation: .identity, translation: base + SIMD3(0, size.y, 0))
                faces.append(ScenePlane(texture: try texture(face), size: SIMD2(size.x + 2 * seam, size.z + 2 * seam),
                                        pose: { _ in plane }, surface: topSurface))
                continue
            }
            // A side: its width runs along the plane's +x; each end that meets a side painted
            // later grows by `seam`, and the centre moves by half of it.
            let upright = Self.upright(facing: n, at: centre + n * (abs(dot(n, size)) / 2))
            let along = upright.rotation.columns.0
            var width = abs(dot(along, size)), shift = 0.0
            for end in [1.0, -1.0] {
                let neighbour = order.firstIndex { dot(normals[$0]!, along * end) > 0.99 }!
                if neighbour > k {
                    width += seam
                    shift += end * seam / 2
                }
            }
            pose = Transform(rotation: upright.rotation, translation: upright.translation + along * shift)
            extent = SIMD2(width, size.y)
            faces.append(ScenePlane(texture: try texture(face), size: extent, pose: { _ in pose }))
        }
        self.faces = faces
        self.decals = decals
    }

    /// `world_from_plane` of an upright rectangle centred at `centre` whose printed face looks
    /// along the horizontal `normal`: +y = normal, +z down (the picture's bottom edge toward the
    /// floor), +x = y × z (the viewer's right).
    public static func upright(facing normal: SIMD3<Double>, at centre: SIMD3<Double>) -> Transform {
        let y = normalize(normal), z = SIMD3<Double>(0, -1, 0)
        return Transform(rotation: Matrix3(columns: (cross(y, z), y, z)), translation: centre)
    }

    /// The faces whose outside a camera at `eye` (world) sees, as indices into ``faces``.
    func facesSeen(from eye: SIMD3<Double>) -> [Int] {
        faces.indices.filter { k in
            let pose = faces[k].pose(0)
            return dot(pose.rotation.columns.1, eye - pose.translation) > 0
        }
    }

    /// Whether this box must be painted after `other` (it may hide `other`, and `other` cannot
    /// hide it) for a camera at `eye`; nil when the boxes overlap on every axis.
    ///
    /// Disjoint axis-aligned boxes are separated by a plane across one axis; the box on the
    /// camera's side of that plane is the nearer along every ray that meets both. When several
    /// axes separate them and disagree, neither box can hide the other, so any answer is right.
    func isInFront(of other: SceneBox, eye: SIMD3<Double>) -> Bool? {
        for axis in 0..<3 {
            if maximum[axis] <= other.minimum[axis] {
                return eye[axis] < (maximum[axis] + other.minimum[axis]) / 2
            }
            if other.maximum[axis] <= minimum[axis] {
                return eye[axis] > (other.maximum[axis] + minimum[axis]) / 2
            }
        }
        return nil
    }
}
