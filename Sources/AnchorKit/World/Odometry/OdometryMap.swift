import AnchorKitCV

/// The map that visual odometry tracks against (ORB-SLAM's `Map`): 3D points, the keyframes
/// that observed them, and the ORB descriptors that find them again.
///
/// Conventions are OpenCV's throughout: points in the world of the origin keyframe's OpenCV
/// camera (+x right, +y down, +z forward), in the map's unit (a baseline until the world is
/// rescaled); poses `opencvCamera_from_world`; pixels as the frames show them. Only
/// ``VisualOdometry`` converts to ARKit's axes, at its boundary.
struct OdometryMap {
    /// A frame kept for the map: its pose and the map points it saw.
    struct Keyframe {
        let frame: Int
        /// `opencvCamera_from_world`.
        var pose: Transform
        /// The map points seen in this keyframe and where (pixels as the frame shows them).
        var observations: [(point: Int, position: SIMD2<Float>)]
        /// Landmarks seen in this keyframe that hold the map (``Landmark/holdsMap``): OpenCV
        /// world axes, ideal pixels. Fixed points of the bundle adjustment.
        var landmarks: [(position: SIMD3<Double>, pixel: SIMD2<Float>)] = []
        /// When the frame was taken (seconds; nil when not known): the gyroscope's turns between keyframes.
        var time: Double?

        /// A keyframe's ORB features: they describe the map points it follows, and find lost ones.
        static func features(of gray: Image) throws -> FeatureSet {
            var p = FeatureSet.Parameters()
            p.maximumCount = 800
            return try FeatureSet(image: gray, parameters: p)
        }
    }

    /// The points, OpenCV world axes, map unit.
    var points: [SIMD3<Double>] = []
    /// The keyframes that observed each point, oldest first (a few may have dropped it since):
    /// the local bundle adjustment finds the keyframes to hold from its points, not by scanning
    /// every keyframe, which would grow with the length of the video.
    var observers: [[Int]] = []
    var keyframes: [Keyframe] = []
    var descriptors = MapDescriptors()
    /// Changes whenever the points may have changed (see ``WorldTracker/mapRevision``).
    var revision = 0

    /// Adds a point seen by keyframes `observers`; returns its index.
    mutating func add(_ point: SIMD3<Double>, observedBy observers: [Int]) -> Int {
        points.append(point)
        self.observers.append(observers)
        return points.count - 1
    }

    /// Turns the world's axes: every point and pose re-expressed in a world whose frame is
    /// `newWorld_from_oldWorld` (a rotation about the origin) applied to the old one.
    mutating func rotate(by newFromOld: Matrix3) {
        points = points.map { newFromOld * $0 }
        let oldFromNew = Transform(rotation: newFromOld.transposed, translation: .zero)
        for k in keyframes.indices {
            keyframes[k].pose = keyframes[k].pose * oldFromNew
            keyframes[k].landmarks = keyframes[k].landmarks.map { (newFromOld * $0.position, $0.pixel) }
        }
        revision += 1
    }

    /// Multiplies every length by `factor` (the world became metric).
    mutating func rescale(by factor: Double) {
        points = points.map { $0 * factor }
        for k in keyframes.indices {
            keyframes[k].pose = keyframes[k].pose.translationScaled(by: factor)
            keyframes[k].landmarks = keyframes[k].landmarks.map { ($0.position * factor, $0.pixel) }
        }
        revision += 1
    }

    /// The points' indices in the order the map's users list them: those seen from at least two
    /// keyframes (nil for the others).
    var pointsSeenTwice: [Int?] {
        var views = [UInt8](repeating: 0, count: points.count)
        for k in keyframes { for o in k.observations where views[o.point] < 2 { views[o.point] += 1 } }
        return points.indices.map { views[$0] >= 2 ? $0 : nil }
    }

    /// How many keyframes see each point.
    var viewCounts: [Int32] {
        var views = [Int32](repeating: 0, count: points.count)
        for k in keyframes { for o in k.observations { views[o.point] += 1 } }
        return views
    }

    /// Drops keyframes `removed` and the points that neither `views` (keyframes seeing each
    /// point, after the removal) nor `followed` keep, and renumbers what refers to either.
    /// Returns the new numbers of the old keyframes and points (nil for those removed).
    mutating func compact(removing removed: Set<Int>, views: [Int32], followed: [Bool])
        -> (keyframes: [Int?], points: [Int?]) {
        var keyframeIndex = [Int?](repeating: nil, count: keyframes.count), pointIndex = [Int?](repeating: nil, count: points.count)
        var kept = 0
        for k in keyframes.indices where !removed.contains(k) { keyframeIndex[k] = kept; kept += 1 }
        kept = 0
        for p in points.indices where views[p] > 0 || followed[p] { pointIndex[p] = kept; kept += 1 }

        points = points.indices.compactMap { pointIndex[$0] == nil ? nil : points[$0] }
        observers = observers.indices.compactMap { p in pointIndex[p] == nil ? nil : observers[p].compactMap { keyframeIndex[$0] } }
        keyframes = keyframes.indices.compactMap { k in
            guard keyframeIndex[k] != nil else { return nil }
            var keyframe = keyframes[k]
            keyframe.observations = keyframe.observations.compactMap { o in pointIndex[o.point].map { ($0, o.position) } }
            return keyframe
        }
        descriptors.renumber(points: pointIndex, keyframes: keyframeIndex)
        return (keyframeIndex, pointIndex)
    }
}

/// ORB descriptors of map points seen in keyframes, one per point and keyframe: for
/// relocalisation, and (the latest of each point) for finding lost points.
struct MapDescriptors {
    private(set) var keypoints: [ak_keypoint] = []
    /// 32 bytes per slot.
    private(set) var bytes: [UInt8] = []
    /// The point and the keyframe of each slot.
    private(set) var point: [Int] = [], keyframe: [Int] = []
    /// Where each described point's latest descriptor is: its view nearest the frames to come.
    private(set) var latest: [Int: Int] = [:]
    /// Changes whenever the slots change (users cache an index over them).
    private(set) var revision = 0

    var isEmpty: Bool { point.isEmpty }

    /// Stores the descriptors of the map points followed in keyframe `k`: the keypoint of
    /// `features` (the keyframe's) nearest each track, within 2 px.
    mutating func describe(_ features: FeatureSet, keyframe k: Int, tracks: [PointTrack]) {
        var byCell: [SIMD2<Int32>: Int] = [:]
        for t in tracks { if let id = t.point { byCell[SIMD2(Int32(t.position.x / 2), Int32(t.position.y / 2))] = id } }
        let all = features.descriptors, found = features.keypoints
        for (i, q) in features.points.enumerated() {
            guard let id = byCell[SIMD2(Int32(q.x / 2), Int32(q.y / 2))] else { continue }
            latest[id] = point.count
            keypoints.append(found[i])
            bytes.append(contentsOf: all[(32 * i)..<(32 * i + 32)])
            point.append(id)
            keyframe.append(k)
        }
        revision += 1
    }

    /// Follows the map's renumbering (`points`, `keyframes`: new numbers, nil once removed);
    /// drops the slots of removed points or keyframes.
    mutating func renumber(points pointIndex: [Int?], keyframes keyframeIndex: [Int?]) {
        var kept = MapDescriptors()
        for slot in point.indices {
            guard let p = pointIndex[point[slot]], let k = keyframeIndex[keyframe[slot]] else { continue }
            kept.latest[p] = kept.point.count   // the last kept slot of a point is its latest view
            kept.keypoints.append(keypoints[slot])
            kept.bytes.append(contentsOf: bytes[(32 * slot)..<(32 * slot + 32)])
            kept.point.append(p)
            kept.keyframe.append(k)
        }
        kept.revision = revision + 1
        self = kept
    }

    /// Bits that differ between slot `slot`'s descriptor and the `i`-th of `descriptors`
    /// (32 bytes each).
    func distance(slot: Int, to descriptors: [UInt8], _ i: Int) -> Int {
        var d = 0
        for n in 0..<32 { d += (bytes[32 * slot + n] ^ descriptors[32 * i + n]).nonzeroBitCount }
        return d
    }
}
