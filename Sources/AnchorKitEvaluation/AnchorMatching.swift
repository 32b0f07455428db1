import AnchorKit
/// Which reported anchor stands for which true one in a frame, for scoring.
///
/// Reports are compared with the truth target by target. An image anchor's id names its target,
/// but a marker id may be printed on several physical markers (`marker/<dictionary>/<id>` for
/// the first, `.../<id>/<instance>` for the others), and a tracker numbers those instances in
/// its own order (of first sighting), which need not be the truth's. So anchors are matched
/// within groups of the same target: the same (dictionary, id) for markers, whatever the
/// instance; the same identifier otherwise. Within a group, reports and truths are paired by an
/// optimal assignment (the least total cost, e.g. corner error). A group of one report and one
/// truth — every target printed once — is simply that pair, as matching by identifier gives.
public enum AnchorMatching {
    /// One reported anchor paired with one true anchor.
    public struct Pair: Equatable, Sendable {
        /// Indices into the reported and the true anchors given to ``pairs(reported:truth:cost:)``.
        public var reported: Int, truth: Int
        /// The pair's cost as `cost` gave it (may be infinite).
        public var cost: Double
    }

    /// The group an anchor is matched within: a marker's identifier without its instance
    /// (`marker/<dictionary>/<id>`), a QR code's payload (ids of codes are each toolkit's own), any
    /// other anchor's identifier.
    public static func group(of anchor: Anchor) -> String {
        if anchor.kind == .qr, let payload = anchor.payload { return "qr:" + (payload.streamEncoding ?? "") + ":" + payload.streamValue }
        guard let code = anchor.markerCode else { return anchor.identifier }
        return Anchor.markerIdentifier(dictionary: code.dictionary, id: code.id)
    }

    /// Pairs `reported` with `truth` anchors of the same group (``group(of:)``), each anchor in
    /// at most one pair. Within a group of r reports and t truths, min(r, t) pairs are made, of
    /// the least total `cost(reported, truth)`; infinite costs (no corners to compare) count as
    /// larger than any finite one. Sorted by truth index.
    public static func pairs(reported: [Anchor], truth: [Anchor], cost: (Anchor, Anchor) -> Double) -> [Pair] {
        var truthByGroup: [String: [Int]] = [:]
        for (i, t) in truth.enumerated() { truthByGroup[group(of: t), default: []].append(i) }
        var reportedByGroup: [String: [Int]] = [:]
        for (i, r) in reported.enumerated() where truthByGroup[group(of: r)] != nil {
            reportedByGroup[group(of: r), default: []].append(i)
        }
        var result: [Pair] = []
        for (key, rs) in reportedByGroup {
            let ts = truthByGroup[key]!
            let costs = rs.map { r in ts.map { t in cost(reported[r], truth[t]) } }
            for (row, column) in assignment(costs).enumerated() {
                guard let column else { continue }
                result.append(Pair(reported: rs[row], truth: ts[column], cost: costs[row][column]))
            }
        }
        return result.sorted { $0.truth < $1.truth }
    }

    /// An optimal assignment of rows to columns of `cost` (rows x columns, rectangular allowed):
    /// for each row, its column, or nil for rows left over when there are more rows than
    /// columns; min(rows, columns) pairs of the least total cost. Non-finite costs are taken as
    /// one large finite cost (above the sum of all finite ones), so they are avoided where
    /// possible but never make the sum undefined.
    ///
    /// The Hungarian method with potentials (Kuhn–Munkres, O(n² m)): groups are a handful of
    /// anchors, but a scene may print one id many times, where trying all permutations would not do.
    public static func assignment(_ cost: [[Double]]) -> [Int?] {
        let rows = cost.count, columns = cost.first?.count ?? 0
        guard rows > 0, columns > 0 else { return Array(repeating: nil, count: rows) }
        precondition(cost.allSatisfy { $0.count == columns }, "a cost matrix needs rows of equal length")
        let finite = cost.joined().filter(\.isFinite)
        let large = 1 + 2 * finite.map(abs).reduce(0, +) * Double(max(rows, columns))
        // The method assigns every row of a matrix with no more rows than columns: transpose if needed.
        let transposed = rows > columns
        let n = min(rows, columns), m = max(rows, columns)
        func c(_ i: Int, _ j: Int) -> Double {
            let v = transposed ? cost[j][i] : cost[i][j]
            return v.isFinite ? v : large
        }
        // 1-based, as in the classic formulation: column 0 is a virtual start.
        var u = [Double](repeating: 0, count: n + 1), v = [Double](repeating: 0, count: m + 1)
        var rowOfColumn = [Int](repeating: 0, count: m + 1), way = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            rowOfColumn[0] = i
            var j0 = 0
            var minimum = [Double](repeating: .infinity, count: m + 1), used = [Bool](repeating: false, count: m + 1)
            repeat {
                used[j0] = true
                let i0 = rowOfColumn[j0]
                var delta = Double.infinity, j1 = 0
                for j in 1...m where !used[j] {
                    let reduced = c(i0 - 1, j - 1) - u[i0] - v[j]
                    if reduced < minimum[j] { minimum[j] = reduced; way[j] = j0 }
                    if minimum[j] < delta { delta = minimum[j]; j1 = j }
                }
                for j in 0...m {
                    if used[j] { u[rowOfColumn[j]] += delta; v[j] -= delta } else { minimum[j] -= delta }
                }
                j0 = j1
            } while rowOfColumn[j0] != 0
            repeat {
                let j1 = way[j0]
                rowOfColumn[j0] = rowOfColumn[j1]
                j0 = j1
            } while j0 != 0
        }
        var result = [Int?](repeating: nil, count: rows)
        for j in 1...m where rowOfColumn[j] != 0 {
            let (i, k) = (rowOfColumn[j] - 1, j - 1)
            if transposed { result[k] = i } else { result[i] = k }
        }
        return result
    }
}
