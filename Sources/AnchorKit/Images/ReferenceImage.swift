import Foundation
import AnchorKitCV

/// A picture to find in video (ARReferenceImage): a poster, a card, an exhibit's label.
///
/// The picture is kept in gray at a working resolution (its larger side at most
/// ``workingSize`` pixels), with its ORB features computed once and a pyramid of smaller copies
/// for alignment. Its anchor frame (../shared/FORMATS.md): origin at the centre, +x toward the
/// right edge, +z toward the bottom edge, +y out of the printed face; `physicalWidth` in metres
/// along x, the height following the aspect ratio.
public final class ReferenceImage: @unchecked Sendable {
    /// Larger side of the working copy, pixels.
    public static let workingSize = 640

    /// The name (anchor id `image/<name>`).
    public let name: String
    /// Printed size in metres.
    public let physicalWidth: Double
    /// Printed height in metres: `physicalWidth` times the source picture's aspect ratio. Not the
    /// working copy's, whose sides are rounded to whole pixels: a 0.03 % error in the height
    /// alone tilts a head-on pose by 1.4° (cos 1.4° = 0.9997).
    public let physicalHeight: Double
    /// Size of the working copy, pixels.
    public let width: Int, height: Int
    /// Its features (working-copy pixels).
    public let features: FeatureSet
    /// The image file the picture was read from, if any (a ``ReferenceDatabase`` refers to it).
    public let sourcePath: String?
    private let pixels: LazyPyramid

    /// The working copy (gray). A reference read from a ``ReferenceDatabase`` decodes it on first
    /// use, so that only the references actually seen cost their pixels.
    public var image: Image { get throws { try pixels.levels()[0] } }
    /// Halvings of the working copy: `pyramid[0]` is `image`, each next one half the size
    /// (rounded down) while the smaller side stays at least 32 pixels.
    public var pyramid: [Image] { get throws { try pixels.levels() } }

    /// Prepares a reference from pixels. Throws if `physicalWidth` is not positive or the
    /// picture is too small (under 32 pixels a side).
    public convenience init(name: String, image source: Image, physicalWidth: Double,
                            features parameters: FeatureSet.Parameters = FeatureSet.Parameters()) throws {
        try self.init(name: name, image: source, physicalWidth: physicalWidth, sourcePath: nil, features: parameters)
    }

    /// Loads a reference from an image file.
    public convenience init(name: String, contentsOf path: String, physicalWidth: Double) throws {
        try self.init(name: name, image: try Image(contentsOf: path, channels: 1), physicalWidth: physicalWidth, sourcePath: path,
                      features: FeatureSet.Parameters())
    }

    private init(name: String, image source: Image, physicalWidth: Double, sourcePath: String?,
                 features parameters: FeatureSet.Parameters) throws {
        try Self.validate(name: name, physicalWidth: physicalWidth)
        guard min(source.width, source.height) >= 32 else {
            throw ReferenceImageError("reference image \"\(name)\" is too small: \(source.width)x\(source.height) pixels (at least 32 a side)")
        }
        let levels = try Self.pyramid(of: try Self.workingCopy(of: source))
        // ORB's own pyramid spans ~3.6x in scale; features of the half- and quarter-size copies
        // extend that to ~14x, so that a poster filling 1/6 of a frame is still found.
        var sets: [(features: FeatureSet, scale: SIMD2<Double>)] = []
        // How many working-copy pixels a pixel of `level` spans, per axis: slightly off 2^k where
        // halving rounded an odd size down.
        func scale(of level: Image) -> SIMD2<Double> {
            SIMD2(Double(levels[0].width) / Double(level.width), Double(levels[0].height) / Double(level.height))
        }
        for (k, level) in levels.prefix(3).enumerated() where min(level.width, level.height) >= 48 {
            var p = parameters
            p.maximumCount = max(100, parameters.maximumCount >> k)
            sets.append((try FeatureSet(image: level, parameters: p), scale(of: level)))
        }
        // Small copies once more, on a border of their mean gray: ORB leaves out the 31 px along an
        // image's edges, all but the middle of a copy a hundred pixels wide, and a poster 70-90 px
        // wide in a frame matches only features of a copy that size.
        for level in levels.dropFirst().prefix(Self.paddedLevels) {
            var p = parameters
            p.maximumCount = Self.paddedLevelFeatures
            sets.append((try FeatureSet(reachingTheEdgesOf: level, parameters: p), scale(of: level)))
        }
        // The picture as seen from 60-70 degrees off its normal (ASIFT's affine simulation): ORB's
        // descriptors stop matching a view squeezed by more than ~1.5 across.
        for (tilt, rotations, share) in Self.simulatedViews {
            var p = parameters
            p.maximumCount = max(100, Int((share * Double(parameters.maximumCount)).rounded()))
            sets.append((try FeatureSet(tiltedViewsOf: levels[0], tilt: tilt, rotations: rotations, parameters: p), SIMD2(1, 1)))
        }
        self.name = name
        self.physicalWidth = physicalWidth
        physicalHeight = physicalWidth * Double(source.height) / Double(source.width)
        width = levels[0].width
        height = levels[0].height
        features = try FeatureSet.merging(sets)
        self.sourcePath = sourcePath
        pixels = LazyPyramid(levels: levels)
    }

    /// The tilted views a reference's features also come from (ASIFT's affine simulation): the
    /// tilt (1 / cos of the angle off the picture's normal: 60 and 69 degrees), rotations spread
    /// over 180 degrees, and the share of the features' `maximumCount` each view keeps (figures:
    /// Benchmarks/README.md, Oxford).
    static let simulatedViews: [(tilt: Double, rotations: Int, share: Double)] = [(2, 5, 0.4), (2 * 2.squareRoot(), 6, 0.3)]

    /// The halved copies whose features are also taken up to their edges (see
    /// ``FeatureSet/init(reachingTheEdgesOf:mask:parameters:)``),
    /// and the features each keeps.
    static let paddedLevels = 3, paddedLevelFeatures = 300

    /// A reference whose features were computed before (a ``ReferenceDatabase``): the working
    /// copy is read from `sourcePath` and resized to `width` x `height` on first use.
    init(name: String, physicalWidth: Double, physicalHeight: Double, width: Int, height: Int, features: FeatureSet,
         sourcePath: String) throws {
        try Self.validate(name: name, physicalWidth: physicalWidth)
        guard Plausible.physicalSize.contains(physicalHeight), width >= 32, height >= 32, max(width, height) <= Self.workingSize else {
            throw ReferenceImageError("reference image \"\(name)\": stored sizes are not valid")
        }
        self.name = name
        self.physicalWidth = physicalWidth
        self.physicalHeight = physicalHeight
        self.width = width
        self.height = height
        self.features = features
        self.sourcePath = sourcePath
        pixels = LazyPyramid {
            let copy = try Self.workingCopy(of: try Image(contentsOf: sourcePath, channels: 1))
            guard copy.width == width, copy.height == height else {
                throw InputError(sourcePath, "the picture is \(copy.width)x\(copy.height) at working size, the reference database says \(width)x\(height): rebuild the database")
            }
            return try Self.pyramid(of: copy)
        }
    }

    private static func validate(name: String, physicalWidth: Double) throws {
        guard !name.isEmpty, !name.contains("/") else { throw ReferenceImageError("reference image name \"\(name)\" must be non-empty and contain no \"/\"") }
        if let problem = Plausible.physicalSizeProblem(physicalWidth, of: "reference image \"\(name)\": physicalWidth") {
            throw ReferenceImageError(problem)
        }
    }

    /// Gray, larger side at most ``workingSize`` (each side rounded to whole pixels).
    static func workingCopy(of source: Image) throws -> Image {
        let gray = try source.converted(toChannels: 1)
        let scale = min(1, Double(Self.workingSize) / Double(max(gray.width, gray.height)))
        guard scale < 1 else { return gray }
        return try gray.resized(width: max(1, Int((Double(gray.width) * scale).rounded())),
                                height: max(1, Int((Double(gray.height) * scale).rounded())))
    }

    static func pyramid(of image: Image) throws -> [Image] {
        var levels = [image]
        while min(levels.last!.width, levels.last!.height) >= 64 {
            let last = levels.last!
            levels.append(try last.resized(width: last.width / 2, height: last.height / 2))
        }
        return levels
    }

    /// The picture's outer corners in working-copy pixels: TL, TR, BR, BL.
    public var corners: [SIMD2<Double>] {
        let w = Double(width) - 0.5, h = Double(height) - 0.5
        return [SIMD2(-0.5, -0.5), SIMD2(w, -0.5), SIMD2(w, h), SIMD2(-0.5, h)]
    }

    /// The anchor identifier.
    public var identifier: String { "image/\(name)" }
}

/// A reference's pyramid, made on first use when it is not given (thread-safe).
private final class LazyPyramid: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [Image]?
    private let make: () throws -> [Image]

    init(levels: [Image]) { made = levels; make = { levels } }
    init(_ make: @escaping () throws -> [Image]) { self.make = make }

    func levels() throws -> [Image] {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let levels = try make()
        made = levels
        return levels
    }
}

/// A reference image or set that cannot be used.
public struct ReferenceImageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
