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
}
