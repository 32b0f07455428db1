/// Order statistics of a sample.
public struct Summary: Codable, Sendable, Equatable {
    public var count: Int
    public var mean: Double
    public var median: Double
    public var p90: Double
    public var max: Double

    /// Summarises finite values (nil when there are none).
    public init?(_ values: [Double]) {
        let v = values.filter(\.isFinite).sorted()
        guard !v.isEmpty else { return nil }
        count = v.count
        mean = v.reduce(0, +) / Double(v.count)
        median = Summary.quantile(v, 0.5)
        p90 = Summary.quantile(v, 0.9)
        max = v.last!
    }

    /// Linear-interpolated quantile of sorted values.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let pos = q * Double(sorted.count - 1)
        let lo = Int(pos.rounded(.down)), hi = Swift.min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - Double(lo))
    }
}
