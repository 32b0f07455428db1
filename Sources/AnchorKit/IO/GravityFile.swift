import Foundation

/// Per-frame gravity from `gravity.jsonl`: the gravity vector in that frame's camera space
/// (ARKit convention, m/s^2), as an IMU recording provides.
public enum GravityFile {
    struct Line: Decodable { let frame: Int; let gravity: [Double] }

    /// Reads the file into a map from frame index to gravity vector. Throws a one-line error for
    /// malformed lines, vectors that are not 3 finite numbers, or repeated frames.
    public static func read(contentsOf path: String) throws -> [Int: SIMD3<Double>] {
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError(path, "no such file") }
        var result: [Int: SIMD3<Double>] = [:]
        for (n, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            let parsed: Line
            do { parsed = try JSONDecoder().decode(Line.self, from: Data(line)) } catch let e as DecodingError {
                throw InputError(path, "line \(n + 1): \(JSONProblem.describe(e))")
            }
            guard parsed.gravity.count == 3, parsed.gravity.allSatisfy(\.isFinite) else {
                throw InputError(path, "line \(n + 1): gravity needs 3 finite numbers")
            }
            guard result[parsed.frame] == nil else { throw InputError(path, "line \(n + 1): frame \(parsed.frame) repeated") }
            result[parsed.frame] = SIMD3(parsed.gravity[0], parsed.gravity[1], parsed.gravity[2])
        }
        return result
    }
}
