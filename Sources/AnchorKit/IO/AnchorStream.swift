import Foundation

/// Writes an anchor stream: JSON Lines, one ``FrameUpdate`` per line (../shared/FORMATS.md),
/// to a temporary file that ``finish()`` renames into place.
public final class AnchorStreamWriter {
    private let file: AtomicFile
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    public init(path: String) throws {
        file = try AtomicFile(destination: path)
    }

    /// Appends one frame's line.
    public func write(_ update: FrameUpdate) throws {
        var line = try encoder.encode(update)
        line.append(0x0A)
        try file.write(line)
    }

    /// Completes the file. Without this call nothing is left at the destination.
    public func finish() throws { try file.commit() }

    /// Drops the partial output.
    public func discard() { file.discard() }
}

/// Reads an anchor stream (tracker output or ground truth).
public enum AnchorStreamReader {
    /// All lines of a stream. Throws a one-line error naming the file and line for malformed
    /// JSON or schema violations.
    public static func read(contentsOf path: String) throws -> [FrameUpdate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        let decoder = JSONDecoder()
        var updates: [FrameUpdate] = []
        for (n, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            do {
                updates.append(try decoder.decode(FrameUpdate.self, from: Data(line)))
            } catch let e as DecodingError {
                throw InputError(path, "line \(n + 1): \(JSONProblem.describe(e))")
            } catch {
                throw InputError(path, "line \(n + 1): \(describe(error))")
            }
        }
        return updates
    }
}
