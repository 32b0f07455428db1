import AnchorKitCV

/// A search structure over the descriptors of many reference images: each query descriptor is
/// matched against all references at once, in sub-linear time with LSH.
public final class FeatureIndex: @unchecked Sendable {
    /// Exact brute force (linear in the total number of reference features) or multi-probe LSH
    /// (approximate, sub-linear).
    public enum Kind: Sendable { case bruteForce, lsh }

    private let handle: OpaquePointer
    private let references: [FeatureSet]
    public let kind: Kind

    public init(references: [FeatureSet], kind: Kind) throws {
        self.references = references
        self.kind = kind
        var handles: [OpaquePointer?] = references.map { $0.handle }
        var out: OpaquePointer?
        try NativeError.check(ak_feature_index_create(&handles, Int32(handles.count),
                                                      kind == .lsh ? AK_INDEX_LSH : AK_INDEX_BRUTE_FORCE, &out), "feature index")
        handle = out!
    }

    deinit { ak_feature_index_free(handle) }

    /// The best match (over every reference) of each of `query`'s descriptors.
    package func match(_ query: FeatureSet) throws -> [FeatureMatch] {
        try withExtendedLifetime(references) {
            try FeatureMatch.collect(capacity: query.count) { ak_feature_index_match(handle, query.handle, &$0, $1, &$2) }
        }
    }
}
