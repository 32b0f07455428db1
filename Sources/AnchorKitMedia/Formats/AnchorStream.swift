import Foundation
import AnchorKit

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
    /// All lines of a stream of frames taken by `camera` (the stream states poses, not
    /// intrinsics). Throws a one-line error naming the file (and line) for malformed JSON,
    /// schema violations, or a stream without a single frame (scoring one would print a
    /// meaningless table).
    public static func read(contentsOf path: String, camera: CameraIntrinsics) throws -> [FrameUpdate] {
        let updates = try JSONLines.read(FrameUpdate.self, contentsOf: path, userInfo: [.cameraIntrinsics: camera])
        guard !updates.isEmpty else { throw InputError(path, "empty anchor stream: no frame lines") }
        return updates
    }
}
