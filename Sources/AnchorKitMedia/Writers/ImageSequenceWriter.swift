import Foundation
import AnchorKit

/// Writes frames as numbered pictures following a printf pattern (`out/%06d.png`; frames are
/// numbered from 0, the format follows the extension), or one picture. Each picture is written
/// under a hidden temporary name and all are renamed into place by ``finish()``, so a failed run
/// leaves none.
public final class ImageSequenceWriter: FrameSink {
    /// The pattern, e.g. `frames/%06d.png`, or the one picture's path.
    public let pattern: String
    private let isSingle: Bool
    private var written: [(temporary: String, final: String)] = []
    private var finished = false

    /// Checks that the pattern has one integer conversion and that its folder exists.
    public convenience init(pattern: String) throws {
        guard ImageFolderSource.isPattern(pattern) else {
            throw InputError(pattern, "an output pattern needs one integer conversion such as %06d")
        }
        try self.init(path: pattern, single: false)
    }

    /// A writer of one picture at `path` (`still.png`).
    public convenience init(picture path: String) throws {
        try self.init(path: path, single: true)
    }

    private init(path pattern: String, single: Bool) throws {
        isSingle = single
        let folder = try OutputFolder.of(single ? pattern : ImageFolderSource.path(pattern, 0), reportedAs: pattern)
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw InputError(pattern, "cannot write: folder \(folder) is not writable")
        }
        self.pattern = pattern
    }

    deinit { if !finished { discard() } }

    public func write(_ image: Image) throws {
        guard !isSingle || written.isEmpty else { throw InputError(pattern, "one picture only") }
        let final = isSingle ? pattern : ImageFolderSource.path(pattern, written.count)
        let temporary = OutputFolder.partialPath(for: final)
        try PartialFiles.create(temporary) { try image.write(to: temporary) }
        written.append((temporary, final))
    }

    public func finish() throws {
        guard !written.isEmpty else { throw InputError(pattern, "no frame was written") }
        finished = true
        do { try PartialFiles.commit(written.map { ($0.temporary, $0.final) }) } catch {
            discard()
            throw error
        }
    }

    public func discard() {
        finished = true
        PartialFiles.remove(written.map(\.temporary))
        written.removeAll()
    }
}
