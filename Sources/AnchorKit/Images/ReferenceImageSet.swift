import Foundation

/// The reference images a session looks for (ARReferenceImage set), with one search index over
/// all their features so that a frame is matched against every reference at once.
public final class ReferenceImageSet: @unchecked Sendable {
    /// The references, in the order given.
    public let images: [ReferenceImage]
    /// The index over all their descriptors.
    public let index: FeatureIndex

    /// A set from prepared references. Names must be unique. `indexKind` nil picks brute force
    /// for small sets and LSH from ``lshThreshold`` references on.
    public init(_ images: [ReferenceImage], indexKind: FeatureIndex.Kind? = nil) throws {
        var seen = Set<String>()
        for image in images where !seen.insert(image.name).inserted {
            throw ReferenceImageError("two reference images are named \"\(image.name)\"")
        }
        self.images = images
        index = try FeatureIndex(references: images.map(\.features), kind: indexKind ?? (images.count >= Self.lshThreshold ? .lsh : .bruteForce))
    }

    /// From this many references on, the default index is LSH: one picture's descriptors are few
    /// enough for brute force, but with a few the exhaustive search dominates idle frames.
    public static let lshThreshold = 2

    /// Loads the `images` of a sequence description, resolving files against `folder`.
    public convenience init(targets: [SequenceDescription.ImageTarget], folder: String) throws {
        try self.init(targets.map { try ReferenceImage(target: $0, folder: folder) })
    }

    /// Parses the command line's `NAME=PATH:WIDTH_METRES` (e.g. `poster=poster.png:0.4`).
    public static func target(argument: String) throws -> SequenceDescription.ImageTarget {
        guard let eq = argument.firstIndex(of: "="), let colon = argument.lastIndex(of: ":"), eq < colon,
              let width = Double(argument[argument.index(after: colon)...]) else {
            throw ReferenceImageError("image \"\(argument)\": expected NAME=PATH:WIDTH_METRES, e.g. poster=poster.png:0.4")
        }
        return SequenceDescription.ImageTarget(name: String(argument[..<eq]), file: String(argument[argument.index(after: eq)..<colon]),
                                               physicalWidth: width)
    }
}
