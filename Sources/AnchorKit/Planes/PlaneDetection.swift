import Foundation

/// Which planes a session looks for (ARWorldTrackingConfiguration.planeDetection), and how.
///
/// Orientations are relative to the world's +y: against gravity when gravity is known, else
/// the first camera's up (then "horizontal" means level with the first camera).
public struct PlaneDetection: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Planes whose normal is along +y or -y: floors, table tops, ceilings.
    public static let horizontal = PlaneDetection(rawValue: 1)
    /// Planes whose normal is perpendicular to +y: walls, doors, cabinet sides.
    public static let vertical = PlaneDetection(rawValue: 2)
    /// Planes of any other orientation (ramps, slanted boards).
    public static let arbitrary = PlaneDetection(rawValue: 4)

    /// Parses a comma-separated list of `horizontal`, `vertical`, `arbitrary` (or `any`, all
    /// three). Returns nil for an unknown word.
    public init?(list: String) {
        var set: PlaneDetection = []
        for word in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            switch word {
            case "horizontal": set.insert(.horizontal)
            case "vertical": set.insert(.vertical)
            case "arbitrary": set.insert(.arbitrary)
            case "any", "all": set.formUnion([.horizontal, .vertical, .arbitrary])
            default: return nil
            }
        }
        guard !set.isEmpty else { return nil }
        self = set
    }

    /// How planes are found in the map's points. Lengths are metres once the world is metric;
    /// before, they are scaled by the map's estimated unit (`PlaneFinder`).
    public struct Parameters: Sendable {
        /// Largest distance of a point from its plane, metres.
        public var inlierDistance = 0.025
        /// Grid cell of the connectivity test that splits one geometric plane into surfaces
        /// (two tables at the same height are two planes), metres. Map points are sparse (a
        /// few per square decimetre on textured surfaces), so gaps of about a cell are bridged.
        public var cellSize = 0.25
        /// Largest gap between two detections of one surface that merges them, metres.
        public var mergeGap = 0.5
        /// Fewest map points on a plane.
        public var minimumPoints = 30
        /// Smallest spread (standard deviation) of a plane's points along each of its two
        /// in-plane directions, metres: rejects lines of points (a wall's slice at one height
        /// is not a floor).
        public var minimumSpread = 0.06
        /// Least width of an upright surface's points along the floor (from the 10th to the 90th
        /// percentile), metres: the plane's direction is fitted across that width, and a narrower
        /// cluster (points along a box's edge, with a stray point) would turn it at random.
        public var minimumWidth = 0.2
        /// Largest angle between the normals of one plane's detections, radians.
        public var mergeAngle = 10 * Double.pi / 180
        /// Tilt from exactly horizontal or vertical still accepted for `arbitrary` planes to be
        /// reported as such (smaller tilts are left to horizontal / vertical), radians.
        public var arbitraryMinimumTilt = 10 * Double.pi / 180
        /// Least ratio of a grid cell's points within ``inlierDistance`` of a plane to its points
        /// a little farther off (up to 4 inlier distances, either side): where a surface lies,
        /// points crowd at its plane; a slice through walls at one height, or a line across a
        /// floor in the top view, has as many points just beside it as in it. Cells below the
        /// ratio are not part of the plane.
        public var minimumContrast = 1.5
        /// Most lines of sight (`FreeSpace`) through a surface, per map point on it: more, and
        /// the surface is a chance alignment of points the camera saw other things through.
        public var maximumSightLines = 0.2
        /// Least distance of a line of sight's ends from a surface, and of its crossing from the
        /// surface's boundary, for the line to count against the surface, metres: the map's depth
        /// errors put points of a surface a few centimetres behind it.
        public var sightLineMargin = 0.1
        /// RANSAC hypotheses per vertical or arbitrary plane.
        public var iterations = 300
        /// Upright planes also from their foot on the floor (a plain wall has too few map points
        /// for a plane of points): a straight edge that views at least `edgeBaseline` metres
        /// apart lay on one line of the floor, with shades differing by `minimumEdgeContrast`
        /// gray levels (of 255) across it. Needs vertical planes looked for and a floor found.
        public var wallsFromFloorEdges = true
        public var edgeBaseline = 0.15
        public var minimumEdgeContrast = 12.0
        /// A camera walking along a wall sees its foot from views that are not `edgeBaseline`
        /// apart across it: there, two views that lay it on one line suffice when the floor is a
        /// plane of points and three of its points or more, spread over 30 % of the foot's
        /// length, lie within `footFloorBand` metres in front of it (the floor is seen up to
        /// the edge, where an edge above the floor would hide it), or, with a floor found and
        /// views half `edgeBaseline` apart across it, when the shade on its near side reaches the
        /// frame's bottom edge unbroken (a plain floor seen from the foot to the camera's feet).
        public var footFloorBand = 0.3
        /// A plain floor gives no points, but things standing on it do along their foot, where
        /// their texture meets it: while no floor is found, the lowest row of at least
        /// `restingRowPoints` map points within two inlier distances of one height, stretching
        /// `restingRowLength` metres or more, 0.8 m or more below the camera, counts as four of
        /// the five pairs of views whose agreement on an edge's height gives the floor's (see
        /// `wallsFromFloorEdges`).
        public var restingRowPoints = 12
        public var restingRowLength = 0.5
        /// Rooms as boxes (a Manhattan world): the walls found from the floor's edges are turned
        /// parallel or perpendicular to the first upright plane found when within 10° of it.
        public var manhattanWorld = false

        public init() {}
    }
}
