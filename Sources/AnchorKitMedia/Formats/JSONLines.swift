import Foundation
import AnchorKit

/// Reads JSON Lines files (one JSON object per line; blank lines ignored), the format of anchor
/// streams, gravity and pose files.
enum JSONLines {
    /// Decodes every non-blank line of `path` as `T`, then lets `check` validate it (throwing a
    /// message). `userInfo` is the decoder's. Errors are one line naming the file and the
    /// 1-based line number.
    static func read<T: Decodable>(_ type: T.Type, contentsOf path: String, userInfo: [CodingUserInfoKey: Any] = [:],
                                   check: (T) throws -> Void = { _ in }) throws -> [T] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo
        var values: [T] = []
        for (n, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            do {
                let value = try decoder.decode(T.self, from: Data(line))
                try check(value)
                values.append(value)
            } catch let e as DecodingError {
                throw InputError(path, "line \(n + 1): \(JSONProblem.describe(e))")
            } catch let e as LineProblem {
                throw InputError(path, "line \(n + 1): \(e.message)")
            } catch {
                throw InputError(path, "line \(n + 1): \(describe(error))")
            }
        }
        return values
    }

    /// What `check` throws for a line that decodes but breaks a rule.
    struct LineProblem: Error { let message: String; init(_ message: String) { self.message = message } }
}
