import AnchorKitCV

/// ORB keypoints and their 32-byte binary descriptors, of one image.
public final class FeatureSet: @unchecked Sendable {
    /// ORB settings: the shim's parameter struct, filled with its defaults (anchorkit_features.h:
    /// 1000 features, scale step 1.2, 8 levels, FAST threshold 20, a 4 x 4 grid).
    public struct Parameters: Sendable, Equatable {
        var native = shimDefaults(ak_orb_params(), ak_orb_params_default)
        /// How many features to keep.
        public var maximumCount: Int {
            get { Int(native.max_features) }
            set { native.max_features = Int32(clamping: newValue) }
        }
        /// Scale step of the pyramid and its number of levels.
        public var scaleFactor: Double {
            get { native.scale_factor }
            set { native.scale_factor = newValue }
        }
        public var levels: Int {
            get { Int(native.levels) }
            set { native.levels = Int32(clamping: newValue) }
        }
        /// FAST corner threshold.
        public var fastThreshold: Int {
            get { Int(native.fast_threshold) }
            set { native.fast_threshold = Int32(clamping: newValue) }
        }
        /// Features are spread over a grid of cells (columns x rows; 0 = no grid).
        public var gridColumns: Int {
            get { Int(native.grid_columns) }
            set { native.grid_columns = Int32(clamping: newValue) }
        }
        public var gridRows: Int {
            get { Int(native.grid_rows) }
            set { native.grid_rows = Int32(clamping: newValue) }
        }
        public init() {}

        public static func == (a: Parameters, b: Parameters) -> Bool {
            (a.maximumCount, a.scaleFactor, a.levels, a.fastThreshold, a.gridColumns, a.gridRows)
                == (b.maximumCount, b.scaleFactor, b.levels, b.fastThreshold, b.gridColumns, b.gridRows)
        }
    }

    let handle: OpaquePointer
    /// The keypoints' positions in pixels (OpenCV's convention), index-aligned with the descriptors.
    public let points: [SIMD2<Float>]
    /// Number of features.
    public var count: Int { points.count }

    private init(taking handle: OpaquePointer) {
        self.handle = handle
        let n = Int(ak_features_count(handle))
        var keypoints = [ak_keypoint](repeating: ak_keypoint(), count: n)
        ak_features_keypoints(handle, &keypoints, Int32(n))
        points = keypoints.map { SIMD2($0.x, $0.y) }
    }

    deinit { ak_features_free(handle) }

    /// Detects features in `image`, optionally only where `mask` (gray, same size) is non-zero.
    public convenience init(image: Image, mask: Image? = nil, parameters: Parameters = Parameters()) throws {
        var p = parameters.native
        var out: OpaquePointer?
        try NativeError.check(ak_features_detect(image.handle, mask?.handle, &p, &out), "features")
        self.init(taking: out!)
    }

    /// The features of `image` as a camera tilted away from it sees it: `rotations` views turned by
    /// 0, 180 / rotations, ... degrees and squeezed by `tilt` (1 / cos of the angle off the
    /// picture's normal) across (ASIFT's affine simulation); keypoints in `image`'s pixels.
    public convenience init(tiltedViewsOf image: Image, tilt: Double, rotations: Int, parameters: Parameters = Parameters()) throws {
        var p = parameters.native
        var out: OpaquePointer?
        try NativeError.check(ak_features_detect_tilted(image.handle, &p, tilt, Int32(clamping: rotations), &out), "tilted features")
        self.init(taking: out!)
    }

    /// One set holding the features of several images of one picture at different scales, with
    /// keypoints mapped to the first image's pixels: `scale` is how many of those pixels one
    /// pixel of the set spans, per axis (pixel centres: `x0 = (x + 0.5) * scale - 0.5`).
    public static func merging(_ sets: [(features: FeatureSet, scale: SIMD2<Double>)]) throws -> FeatureSet {
        var keypoints: [ak_keypoint] = []
        var descriptors: [UInt8] = []
        for (set, scale) in sets where set.count > 0 {
            for var p in set.keypoints {
                p.x = Float((Double(p.x) + 0.5) * scale.x - 0.5)
                p.y = Float((Double(p.y) + 0.5) * scale.y - 0.5)
                p.size *= Float((scale.x + scale.y) / 2)
                keypoints.append(p)
            }
            descriptors += set.descriptors
        }
        return try FeatureSet(keypoints: keypoints, descriptors: descriptors)
    }

    /// A set from stored keypoints and descriptors (count x 32 bytes), e.g. a reference database's.
    convenience init(keypoints: [ak_keypoint], descriptors: [UInt8]) throws {
        guard descriptors.count == keypoints.count * 32 else {
            throw ReferenceImageError("\(keypoints.count) keypoints need \(keypoints.count * 32) descriptor bytes, got \(descriptors.count)")
        }
        var out: OpaquePointer?
        try NativeError.check(ak_features_create(keypoints, descriptors, Int32(keypoints.count), &out), "features")
        self.init(taking: out!)
    }

    /// The keypoints as the shim stores them.
    var keypoints: [ak_keypoint] {
        var k = [ak_keypoint](repeating: ak_keypoint(), count: count)
        ak_features_keypoints(handle, &k, Int32(count))
        return k
    }

    /// The raw descriptors (count x 32 bytes), e.g. to store a reference database.
    public var descriptors: [UInt8] {
        guard count > 0, let base = ak_features_descriptors(handle) else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count * 32))
    }

    /// ORB's features of `image` (gray) up to its edges, where ORB describes nothing within
    /// 31 px: found on a copy drawn on a border of its mean gray wide enough for the descriptors
    /// (32 px), only where `image` is (and `mask`, when given, is not 0); keypoints in `image`'s
    /// pixels. A reference's small copy is mostly edge; a poster at the frame's edge is too.
    public convenience init(reachingTheEdgesOf image: Image, mask: Image? = nil, parameters: Parameters = Parameters()) throws {
        let pad = 32, w = image.width + 2 * pad, h = image.height + 2 * pad
        var pixels = [UInt8](repeating: 0, count: w * h), inside = [UInt8](repeating: 0, count: w * h)
        image.withPixels { base, stride in
            var sum = 0
            for y in 0..<image.height { for x in 0..<image.width { sum += Int(base[y * stride + x]) } }
            let mean = UInt8(sum / (image.width * image.height))
            for i in pixels.indices { pixels[i] = mean }
            for y in 0..<image.height {
                for x in 0..<image.width {
                    pixels[(y + pad) * w + x + pad] = base[y * stride + x]
                    inside[(y + pad) * w + x + pad] = 255
                }
            }
        }
        mask?.withPixels { base, stride in
            for y in 0..<image.height { for x in 0..<image.width where base[y * stride + x] == 0 { inside[(y + pad) * w + x + pad] = 0 } }
        }
        let set = try FeatureSet(image: try Image.fromPixels(pixels, width: w, height: h, channels: 1),
                                 mask: try Image.fromPixels(inside, width: w, height: h, channels: 1), parameters: parameters)
        let keypoints = set.keypoints.map { k -> ak_keypoint in
            var k = k
            k.x -= Float(pad)
            k.y -= Float(pad)
            return k
        }
        try self.init(keypoints: keypoints, descriptors: set.descriptors)
    }

    /// Brute-force two-nearest-neighbour matching of these features against `train`.
    package func match(against train: FeatureSet) throws -> [FeatureMatch] {
        try FeatureMatch.collect(capacity: count) { ak_features_match(handle, train.handle, &$0, $1, &$2) }
    }
}

/// The best match of one query feature: which reference and keypoint, and the Hamming distances
/// of the best and second-best candidates (for Lowe's ratio test).
package struct FeatureMatch: Sendable, Equatable {
    public var query: Int
    public var reference: Int
    public var train: Int
    public var distance: Int
    public var secondDistance: Int

    /// Passes Lowe's ratio test: the best is clearly better than the runner-up. LSH sometimes
    /// finds no runner-up (`secondDistance == Int32.max`); such a match must then be close on
    /// its own (at most `absolute` bits of 256 differ), or it lets through mostly wrong matches.
    public func isDistinctive(ratio: Double, absolute: Int = 40) -> Bool {
        secondDistance >= Int(Int32.max) ? distance <= absolute : Double(distance) < ratio * Double(secondDistance)
    }

    static func collect(capacity: Int, _ call: (inout [ak_match], Int32, inout Int32) -> ak_status) throws -> [FeatureMatch] {
        var buffer = [ak_match](repeating: ak_match(), count: max(capacity, 1))
        var count: Int32 = 0
        try NativeError.check(call(&buffer, Int32(buffer.count), &count), "matching")
        if Int(count) > buffer.count {
            buffer = [ak_match](repeating: ak_match(), count: Int(count))
            try NativeError.check(call(&buffer, Int32(buffer.count), &count), "matching")
        }
        return buffer.prefix(Int(count)).map {
            FeatureMatch(query: Int($0.query), reference: Int($0.reference), train: Int($0.train),
                         distance: Int($0.distance), secondDistance: Int($0.second_distance))
        }
    }
}
