import Foundation
import AnchorKit

/// Per-frame gravity from `gravity.jsonl`: the gravity vector in that frame's camera space
/// (ARKit convention, m/s^2), as an IMU recording provides.
public enum GravityFile {
    struct Line: Decodable { let frame: Int; let gravity: [Double] }

    /// Reads the file into a map from frame index to gravity vector. Throws a one-line error for
    /// malformed lines, vectors that are not 3 finite non-zero numbers, or repeated frames.
    public static func read(contentsOf path: String) throws -> [Int: SIMD3<Double>] {
        var result: [Int: SIMD3<Double>] = [:]
        _ = try JSONLines.read(Line.self, contentsOf: path) { line in
            guard line.gravity.count == 3, line.gravity.allSatisfy(\.isFinite) else {
                throw JSONLines.LineProblem("gravity needs 3 finite numbers")
            }
            let g = SIMD3(line.gravity[0], line.gravity[1], line.gravity[2])
            guard length(g) > 1e-6 else { throw JSONLines.LineProblem("gravity is the zero vector") }
            guard result[line.frame] == nil else { throw JSONLines.LineProblem("frame \(line.frame) repeated") }
            result[line.frame] = g
        }
        return result
    }
}
