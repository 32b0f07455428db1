import Foundation

/// A number as the metrics tables print it: `digits` decimals, "-" when there is none.
func tableCell(_ x: Double?, _ digits: Int = 2) -> String { x.map { String(format: "%.\(digits)f", $0) } ?? "-" }
