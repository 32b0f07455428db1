/// A family of printed markers to track: OpenCV's dictionary name, the black square's side in
/// metres, and optionally the only ids expected (others are ignored). Several sets may name
/// the same dictionary with different `ids` and sizes.
public struct MarkerSet: Codable, Sendable, Equatable {
    /// OpenCV's dictionary name, e.g. `DICT_4X4_50` or `DICT_APRILTAG_36h11`.
    public var dictionary: String
    /// Side of the black square, metres.
    public var size: Double
    /// The ids expected; nil accepts every id of the dictionary.
    public var ids: [Int]?

    public init(dictionary: String, size: Double, ids: [Int]? = nil) {
        self.dictionary = dictionary; self.size = size; self.ids = ids
    }

    /// Parses the command line's `DICTIONARY:SIZE[:ID,ID,...]` (e.g. `DICT_4X4_50:0.08`).
    public init(argument: String) throws {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, let size = Double(parts[1]) else {
            throw MarkerError("markers \"\(argument)\": expected DICTIONARY:SIZE_METRES[:ID,ID,...], e.g. DICT_4X4_50:0.08")
        }
        if let problem = Plausible.physicalSizeProblem(size, of: "marker size") { throw MarkerError("markers \"\(argument)\": \(problem)") }
        var ids: [Int]?
        if parts.count == 3 {
            let list = parts[2].split(separator: ",").map { Int($0) }
            guard !list.isEmpty, list.allSatisfy({ $0 != nil }) else { throw MarkerError("markers \"\(argument)\": ids must be integers") }
            ids = list.map { $0! }
        }
        self.init(dictionary: parts[0], size: size, ids: ids)
    }

    /// True if this set accepts marker `id`.
    public func accepts(_ id: Int) -> Bool { ids?.contains(id) ?? true }
}
