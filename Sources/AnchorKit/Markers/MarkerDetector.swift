import Foundation
import AnchorKitCV

/// One marker found in an image: its id and its four corners in pixels (TL, TR, BR, BL of the
/// dictionary's canonical orientation, OpenCV's order), refined to sub-pixel accuracy.
public struct MarkerDetection: Equatable, Sendable {
    public var id: Int
    public var corners: [SIMD2<Double>]
    /// With `.template` refinement and ``MarkerDetectionParameters/measuresCorrelation``: the
    /// Pearson correlation (-1...1) of the marker's aligned ideal picture with the image; nil
    /// otherwise, or when that alignment failed.
    public var correlation: Double? = nil
}

/// Parameters of the marker detectors (OpenCV's ArUco detector, AprilTag 3) that matter in
/// practice: the shim's parameter structs, filled with its defaults (anchorkit_markers.h,
/// anchorkit_apriltag.h), behind the properties below.
public struct MarkerDetectionParameters: Sendable, Equatable {
    /// How AprilTag 3 (libapriltag) searches an image for the quads of markers (AprilTag and ArUco
    /// dictionaries alike, codes of up to 8x8 bits).
    public struct AprilTag: Sendable, Equatable {
        var native = shimDefaults(ak_apriltag_params(), ak_apriltag_params_default)
        /// Quads are searched for at 1 / `decimation` of the image's resolution (1, 1.5 or a whole number up to 8); corners are
        /// refined at full resolution whatever it is. Default 1: on a real photo of 12 tags shrunk
        /// to 15-18 px sides, 1 finds 11-12, 1.5 finds 1-9 and 2 finds 0-4 (AprilTagTests); 2 costs
        /// a quarter of the time (5 against 21 ms on 640x480 alone; 70 against 35 frames/s for
        /// `anchorkit track Datasets/markers-apriltag-far`).
        public var decimation: Double {
            get { native.quad_decimate }
            set { native.quad_decimate = newValue }
        }
        /// Threads the markers found are refined on (1...64; libapriltag's own search runs on one:
        /// the worker pool of Debian's libapriltag 3.3.0 can crash); nil (the default) chooses: 1
        /// for video, where the tracker's other stages (decoding ahead) already use the other
        /// cores, and every core up to 4 for still photos (``forStills()``), where nothing else
        /// runs beside the detection (figures: Benchmarks/README.md).
        public var threads: Int?
        /// Codes up to this many bits from a valid one are corrected (0...2); nil: OpenCV's rule,
        /// `errorCorrectionRate` times the bits the dictionary can correct, up to 2 (2 for the
        /// 36h11 tags, 0 for DICT_4X4_50).
        public var correctedBits: Int? {
            get { native.max_hamming < 0 ? nil : Int(native.max_hamming) }
            set { native.max_hamming = newValue.map { Int32(clamping: $0) } ?? -1 }
        }
        /// Regions (4 px tiles with their neighbours) whose gray levels span less than this
        /// (0...255) are left out of the quad search, where only flat paper and noise fall; nil
        /// (the default) chooses: libapriltag's own 5 for video, where the tracker builds on every
        /// detection and a higher value moved the rendered walks' streams, and
        /// ``stillContrast`` for still photos (``MarkerDetectionParameters/forStills()``), where
        /// it found the same markers in a fraction of the time (Benchmarks/README.md, marker photos).
        public var minimumContrast: Int?
        /// The contrast ``minimumContrast`` stands for in still photos when not chosen.
        public static let stillContrast = 20
        /// The most bits per side a code can have for AprilTag 3 to decode it (its codes are 64-bit).
        public static let largestCode = 8
        public init() {}

        public static func == (a: AprilTag, b: AprilTag) -> Bool {
            (a.decimation, a.threads, a.correctedBits, a.minimumContrast) == (b.decimation, b.threads, b.correctedBits, b.minimumContrast)
        }
    }

    /// How corners are refined.
    public enum CornerRefinement: Int32, Sendable {
        /// OpenCV's corners as detected (pixel accuracy).
        case none = 0
        /// `cornerSubPix` with a window adapted to the marker's module size.
        case subpixel = 1
        /// OpenCV's contour line fitting.
        case contour = 2
        /// OpenCV's AprilTag-2 refinement.
        case aprilTag = 3
        /// Sub-pixel, then border lines from sub-pixel edges, then the ideal marker, blurred like
        /// those edges, aligned to the image (every bit edge contributes; see
        /// ``MarkerDetector/refineTemplate(id:corners:in:)``). The most accurate: on the committed
        /// sequences median corner error 0.04-0.09 px against 0.25 px for `subpixel`.
        case template = 4
    }

    /// These parameters for still photos: the refinement's threads, when not chosen, on every core
    /// (up to 4), since a photo's detection has no other stage to share the machine with, its
    /// quad search, when not chosen, above ``AprilTag/stillContrast``, and its refinement for
    /// ``stillPhotos``.
    public func forStills() -> MarkerDetectionParameters {
        var p = self
        p.stillPhotos = true
        if p.aprilTag != nil && p.aprilTag?.threads == nil {
            p.aprilTag?.threads = min(4, ProcessInfo.processInfo.activeProcessorCount)
        }
        if p.aprilTag != nil && p.aprilTag?.minimumContrast == nil {
            p.aprilTag?.minimumContrast = AprilTag.stillContrast
        }
        return p
    }

    var native = shimDefaults(ak_marker_params(), ak_marker_params_default)
    /// Default: template alignment.
    public var cornerRefinement: CornerRefinement {
        get { CornerRefinement(rawValue: Int32(native.corner_refinement.rawValue)) ?? .template }
        set { native.corner_refinement = ak_corner_refinement(rawValue: UInt32(newValue.rawValue)) }
    }
    /// Half-size of the sub-pixel refinement window, pixels (default 5).
    public var refinementWindow: Int {
        get { Int(native.refinement_window) }
        set { native.refinement_window = Int32(clamping: newValue) }
    }
    /// Smallest marker perimeter accepted, as a fraction of the image's larger side (default 0.03).
    public var minimumPerimeterRate: Double {
        get { native.min_marker_perimeter_rate }
        set { native.min_marker_perimeter_rate = newValue }
    }
    /// Accuracy of the polygonal approximation of candidate contours, as a fraction of their
    /// perimeter (OpenCV's `polygonalApproxAccuracyRate`; default 0.03).
    public var polygonalApproximationRate: Double {
        get { native.polygonal_approx_accuracy_rate }
        set { native.polygonal_approx_accuracy_rate = newValue }
    }
    /// Fraction of the dictionary's correctable bits that may be corrected (0 accepts exact
    /// codes only; OpenCV's `errorCorrectionRate`; default 0.6).
    public var errorCorrectionRate: Double {
        get { native.error_correction_rate }
        set { native.error_correction_rate = newValue }
    }
    /// AprilTag 3 finds and decodes the markers of every dictionary of up to 8x8 bits (ArUco ones
    /// as families built from OpenCV's codes) and the corner refinement above follows; nil uses
    /// OpenCV's ArUco detector (it misses most markers under ~25 pixels a side). Larger codes always
    /// use OpenCV's.
    public var aprilTag: AprilTag? = AprilTag()
    /// With `.template` refinement, also measure how well each marker's aligned ideal picture
    /// correlates with the image (``MarkerDetection/correlation``; about 0.03 ms a marker).
    public var measuresCorrelation: Bool {
        get { native.template_correlation != 0 }
        set { native.template_correlation = newValue ? 1 : 0 }
    }

    /// Whether the images are unrelated still photos, whose markers are never followed from one
    /// to the next (``forStills()`` sets it): `.template` refinement then starts from AprilTag 3's
    /// corners, which it has already fitted to the edges, and draws a small marker's template with
    /// at least 3 pixels a module instead of 4: a photo's markers are refined in less time, the
    /// smallest a little less accurately (figures: Benchmarks/README.md, "A crop's refinement made
    /// cheaper"). Default false.
    public var stillPhotos: Bool {
        get { native.still_photos != 0 }
        set { native.still_photos = newValue ? 1 : 0 }
    }

    public init() {}

    public static func == (a: MarkerDetectionParameters, b: MarkerDetectionParameters) -> Bool {
        a.cornerRefinement == b.cornerRefinement && a.refinementWindow == b.refinementWindow
            && a.minimumPerimeterRate == b.minimumPerimeterRate && a.polygonalApproximationRate == b.polygonalApproximationRate
            && a.errorCorrectionRate == b.errorCorrectionRate && a.measuresCorrelation == b.measuresCorrelation
            && a.stillPhotos == b.stillPhotos && a.aprilTag == b.aprilTag
    }
}

/// Finds the markers of one dictionary in images (a thin wrapper over AprilTag 3's quad detection
/// and decoding, or OpenCV's ArUco detector, and the corner refinement).
public final class MarkerDetector {
    /// The dictionary searched for.
    public let dictionary: MarkerDictionary
    private let handle: OpaquePointer
    private var buffer: [ak_marker_detection]

    public init(dictionary: MarkerDictionary, parameters: MarkerDetectionParameters = MarkerDetectionParameters()) throws {
        self.dictionary = dictionary
        var p = parameters.native
        var out: OpaquePointer?
        if let aprilTag = parameters.aprilTag, dictionary.bits <= MarkerDetectionParameters.AprilTag.largestCode {
            var a = aprilTag.native
            // nil: the shim's default (one thread, for video; forStills() chooses for photos).
            if let threads = aprilTag.threads { a.threads = Int32(clamping: threads) }
            // nil: the shim's default (libapriltag's, for video; forStills() chooses for photos).
            if let contrast = aprilTag.minimumContrast { a.min_contrast = Int32(clamping: contrast) }
            try NativeError.check(ak_marker_detector_create_apriltag(dictionary.handle, &p, &a, &out), "AprilTag 3 detector")
        } else {
            try NativeError.check(ak_marker_detector_create(dictionary.handle, &p, &out), "marker detector")
        }
        handle = out!
        buffer = Array(repeating: ak_marker_detection(), count: 64)
    }

    deinit { ak_marker_detector_free(handle) }

    /// Where this detector's time went since it was made: its candidate stage, corner and edge
    /// refinement, template alignment (wall-clock, summed over its calls).
    package var profile: StageProfile {
        var p = ak_marker_profile()
        ak_marker_detector_profile(handle, &p)
        var profile = StageProfile()
        profile.add(.markerCandidates, seconds: p.candidates, calls: Int(p.calls))
        profile.add(.markerCorners, seconds: p.subpixel + p.edges, calls: Int(p.calls))
        profile.add(.markerTemplates, seconds: p.template_alignment, calls: Int(p.calls))
        return profile
    }

    /// The markers in one image (one call across the C boundary per image).
    public func detect(in image: Image) throws -> [MarkerDetection] {
        try collect { ak_marker_detector_detect(handle, image.handle, &$0, $1, &$2) }
    }

    /// The markers inside `region` (pixels, clipped to the image) searched at `scale` times its
    /// resolution (0.125...8): upsampled, it finds markers too small for a full-frame pass where
    /// one is expected; decimated, large markers at a fraction of the cost. Corners are refined at
    /// full resolution and given in the image's pixels.
    public func detect(in image: Image, region: (x: Int, y: Int, width: Int, height: Int), scale: Double) throws -> [MarkerDetection] {
        try collect {
            ak_marker_detector_detect_region(handle, image.handle, Int32(region.x), Int32(region.y), Int32(region.width),
                                             Int32(region.height), scale, &$0, $1, &$2)
        }
    }

    /// Marker `id`'s corners (TL, TR, BR, BL px) refined from `corners` by the last step of
    /// `.template` refinement alone, whatever this detector's setting: its ideal picture, blurred
    /// like the edges along the given sides, aligned to `image`. nil when that alignment does not
    /// converge with every corner within half a module of where it was given.
    public func refineTemplate(id: Int, corners: [SIMD2<Double>], in image: Image) throws -> [SIMD2<Double>]? {
        var flat = try flattened(corners, of: id)
        var refined: Int32 = 0
        try NativeError.check(ak_marker_detector_refine_template(handle, image.handle, Int32(id), &flat, &refined), "template refinement")
        return refined != 0 ? Self.points(flat) : nil
    }

    /// Marker `id` followed into `image` from `predicted` corners (TL, TR, BR, BL px), for a marker
    /// that detection missed (blurred, oblique, partly outside the image): its ideal picture is
    /// aligned from there (reaching about two modules) and refined as `.template` refinement does.
    /// Returns the corners and the Pearson correlation (-1...1) of the aligned picture with the
    /// image under it, for the caller to judge; nil when the alignment fails or less than a third
    /// of the picture is inside the image.
    public func follow(id: Int, from predicted: [SIMD2<Double>], in image: Image) throws -> (corners: [SIMD2<Double>], correlation: Double)? {
        var flat = try flattened(predicted, of: id)
        var correlation = Double.nan
        try NativeError.check(ak_marker_detector_follow(handle, image.handle, Int32(id), &flat, &correlation), "marker following")
        return correlation.isFinite ? (Self.points(flat), correlation) : nil
    }

    private func flattened(_ corners: [SIMD2<Double>], of id: Int) throws -> [Float] {
        guard corners.count == 4 else { throw MarkerError("a marker has 4 corners, got \(corners.count)") }
        guard (0..<dictionary.count).contains(id) else {
            throw MarkerError("marker id \(id) is not in \(dictionary.name) (0..<\(dictionary.count))")
        }
        return corners.flatMap { [Float($0.x), Float($0.y)] }
    }

    private static func points(_ flat: [Float]) -> [SIMD2<Double>] {
        (0..<4).map { SIMD2(Double(flat[2 * $0]), Double(flat[2 * $0 + 1])) }
    }

    /// Calls the shim with room for the detections, growing the buffer if it was too small.
    private func collect(_ call: (inout [ak_marker_detection], Int32, inout Int32) -> ak_status) throws -> [MarkerDetection] {
        var count: Int32 = 0
        while true {
            let capacity = Int32(buffer.count)
            try NativeError.check(call(&buffer, capacity, &count), "marker detection")
            if count <= capacity { break }
            buffer = Array(repeating: ak_marker_detection(), count: Int(count))
        }
        return buffer.prefix(Int(count)).map { d in
            let c = d.corners
            return MarkerDetection(id: Int(d.id), corners: [
                SIMD2(Double(c.0), Double(c.1)), SIMD2(Double(c.2), Double(c.3)),
                SIMD2(Double(c.4), Double(c.5)), SIMD2(Double(c.6), Double(c.7)),
            ], correlation: d.correlation.isNaN ? nil : Double(d.correlation))
        }
    }
}
