/// Which physical marker each detection is, when several markers may print the same id.
///
/// Each (dictionary, id) has instances numbered in the order they were first seen. A detection
/// continues the instance of that id whose predicted centre (its last centre moved on at its last
/// velocity) is nearest, within a gate of a few marker sides; the rest start instances, taking the
/// lowest number not seen in the last `memoryFrames` frames (so a single marker that leaves the view
/// and comes back elsewhere keeps instance 0) or a new one.
struct MarkerInstances {
    /// One physical marker.
    struct Key: Hashable, Comparable {
        var dictionary: String
        var id: Int
        var instance: Int

        static func < (a: Key, b: Key) -> Bool {
            (a.dictionary, a.id, a.instance) < (b.dictionary, b.id, b.instance)
        }

        /// The anchor id (`marker/<dictionary>/<id>[/<instance>]`).
        var identifier: String { Anchor.markerIdentifier(dictionary: dictionary, id: id, instance: instance) }
    }

    /// Where an instance was last seen.
    struct Sighting {
        var frame: Int
        /// Corners in pixels (TL, TR, BR, BL).
        var corners: [SIMD2<Double>]
        /// Motion of the centre, pixels per frame (zero until seen twice in a row).
        var velocity: SIMD2<Double>

        var centre: SIMD2<Double> { MarkerInstances.centre(of: corners) }
        /// The longer side of the corners' bounding box, pixels.
        var side: Double {
            let xs = corners.map(\.x), ys = corners.map(\.y)
            return max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
        }

        /// The corners moved on to `frame` at the last velocity (for at most 3 frames: the motion
        /// of a handheld camera does not last).
        func predictedCorners(at frame: Int) -> [SIMD2<Double>] {
            let shift = velocity * Double(min(frame - self.frame, 3))
            return corners.map { $0 + shift }
        }
    }

    /// The mean of a marker's four corners, pixels.
    static func centre(of corners: [SIMD2<Double>]) -> SIMD2<Double> { corners.reduce(.zero, +) / 4 }

    /// After this many frames unseen, an instance's number may go to a newly seen marker.
    let memoryFrames: Int
    private(set) var sightings: [Key: Sighting] = [:]

    init(memoryFrames: Int) { self.memoryFrames = memoryFrames }

    /// The instances of `dictionary` seen within the last `frames` frames before `frame`, in key order.
    func recent(in dictionary: String, before frame: Int, within frames: Int) -> [Key] {
        sightings.filter { $0.key.dictionary == dictionary && frame - $0.value.frame <= frames && $0.value.frame < frame }
            .map(\.key).sorted()
    }

    /// Whether any instance was seen within `frames` frames before `frame`.
    func anyRecent(before frame: Int, within frames: Int) -> Bool {
        sightings.values.contains { frame - $0.frame <= frames && $0.frame < frame }
    }

    /// Whether `corners` lie within the gate of `key`'s predicted position at `frame`.
    func gateDistance(of corners: [SIMD2<Double>], to key: Key, at frame: Int) -> Double? {
        guard let s = sightings[key] else { return nil }
        let d = length(Self.centre(of: corners) - Self.centre(of: s.predictedCorners(at: frame)))
        return d <= Self.gate(side: s.side, velocity: s.velocity) ? d : nil
    }

    /// How far a marker's centre may be from its prediction, pixels: two sides (markers printing
    /// one id are rarely closer) plus its own motion, which the prediction may get wrong.
    static func gate(side: Double, velocity: SIMD2<Double>) -> Double { 2 * side + length(velocity) + 8 }

    /// The instance of each detection of `dictionary` at `frame` (the same order), skipping
    /// instances in `taken`, and whether it starts the instance afresh (no instance of its id was
    /// within the gate). Greedy by distance, which is optimal when markers printing one id are
    /// further apart than they move between frames.
    func assign(_ detections: [MarkerDetection], dictionary: String, frame: Int, taken: Set<Key> = [])
        -> [(key: Key, isNew: Bool)] {
        var pairs: [(distance: Double, detection: Int, key: Key)] = []
        let candidates = sightings.keys.filter { $0.dictionary == dictionary && !taken.contains($0) }.sorted()
        for (i, d) in detections.enumerated() {
            for key in candidates where key.id == d.id && sightings[key]!.frame < frame {
                if let distance = gateDistance(of: d.corners, to: key, at: frame) { pairs.append((distance, i, key)) }
            }
        }
        pairs.sort { ($0.distance, $0.detection, $0.key) < ($1.distance, $1.detection, $1.key) }
        var keys = [Key?](repeating: nil, count: detections.count)
        var used = taken
        var continued = Set<Int>()
        for p in pairs where keys[p.detection] == nil && !used.contains(p.key) {
            keys[p.detection] = p.key
            used.insert(p.key)
            continued.insert(p.detection)
        }
        for (i, d) in detections.enumerated() where keys[i] == nil {
            var n = 0
            while true {
                let key = Key(dictionary: dictionary, id: d.id, instance: n)
                if !used.contains(key), sightings[key].map({ frame - $0.frame > memoryFrames }) ?? true { break }
                n += 1
            }
            keys[i] = Key(dictionary: dictionary, id: d.id, instance: n)
            used.insert(keys[i]!)
        }
        return keys.indices.map { (keys[$0]!, !continued.contains($0)) }
    }

    /// Records that `key` was seen at `frame` with `corners`.
    mutating func record(_ key: Key, corners: [SIMD2<Double>], frame: Int) {
        var velocity = SIMD2<Double>.zero
        if let last = sightings[key], last.frame == frame - 1 {
            velocity = Self.centre(of: corners) - last.centre
        }
        sightings[key] = Sighting(frame: frame, corners: corners, velocity: velocity)
    }

    /// Forgets everything (independent frames).
    mutating func removeAll() { sightings.removeAll() }
}
