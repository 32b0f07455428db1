import Foundation

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
    public var physicalHeight: Double { physicalWidth * Double(image.height) / Double(image.width) }
    /// The working copy (gray).
    public let image: Image
    /// Its features.
    public let features: FeatureSet
    /// Halvings of the working copy: `pyramid[0]` is `image`, each next one half the size
    /// (rounded down).
    public let pyramid: [Image]

    /// Prepares a reference from pixels. Throws if `physicalWidth` is not positive or the
    /// picture is too small (under 32 pixels a side).
    public init(name: String, image source: Image, physicalWidth: Double, features parameters: FeatureSet.Parameters = FeatureSet.Parameters()) throws {
        guard !name.isEmpty, !name.contains("/") else { throw ReferenceImageError("reference image name \"\(name)\" must be non-empty and contain no \"/\"") }
        guard physicalWidth.isFinite, physicalWidth > 0 else {
            throw ReferenceImageError("reference image \"\(name)\": physicalWidth must be positive metres, got \(physicalWidth)")
        }
        guard min(source.width, source.height) >= 32 else {
            throw ReferenceImageError("reference image \"\(name)\" is too small: \(source.width)x\(source.height) pixels (at least 32 a side)")
        }
        self.name = name
        self.physicalWidth = physicalWidth
        let gray = try source.converted(toChannels: 1)
        let scale = min(1, Double(Self.workingSize) / Double(max(gray.width, gray.height)))
        image = scale < 1
            ? try gray.resized(width: max(1, Int((Double(gray.width) * scale).rounded())), height: max(1, Int((Double(gray.height) * scale).rounded())))
            : gray
        var levels = [image]
        while min(levels.last!.width, levels.last!.height) >= 64 {
            let last = levels.last!
            levels.append(try last.resized(width: last.width / 2, height: last.height / 2))
        }
        pyramid = levels
        // ORB's own pyramid spans ~3.6x in scale; features of the half- and quarter-size copies
        // extend that to ~14x, so that a poster filling 1/6 of a frame is still found.
        var sets: [(features: FeatureSet, scale: SIMD2<Double>)] = []
        for (k, level) in levels.prefix(3).enumerated() where min(level.width, level.height) >= 48 {
            var p = parameters
            p.maximumCount = max(100, parameters.maximumCount >> k)
            // Per-axis scales differ slightly from 2^k where halving rounded an odd size down.
            let scale = SIMD2(Double(image.width) / Double(level.width), Double(image.height) / Double(level.height))
            sets.append((try FeatureSet(image: level, parameters: p), scale))
        }
        features = try FeatureSet.merging(sets)
    }

    /// Loads a reference from an image file.
    public convenience init(name: String, contentsOf path: String, physicalWidth: Double) throws {
        try self.init(name: name, image: try Image(contentsOf: path, channels: 1), physicalWidth: physicalWidth)
    }

    /// The anchor-plane point (x, z in metres) of a working-copy pixel.
    public func planePoint(_ p: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2((p.x + 0.5) / Double(image.width) * physicalWidth - physicalWidth / 2,
              (p.y + 0.5) / Double(image.height) * physicalHeight - physicalHeight / 2)
    }

    /// The picture's outer corners in working-copy pixels: TL, TR, BR, BL.
    public var corners: [SIMD2<Double>] {
        let w = Double(image.width) - 0.5, h = Double(image.height) - 0.5
        return [SIMD2(-0.5, -0.5), SIMD2(w, -0.5), SIMD2(w, h), SIMD2(-0.5, h)]
    }

    /// The anchor identifier.
    public var identifier: String { "image/\(name)" }
}

/// A reference image or set that cannot be used.
public struct ReferenceImageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
