import Foundation

/// A file written under a temporary name beside its destination and renamed into place only
/// when complete, so that a failed run never leaves a half-written output behind.
package final class AtomicFile {
    /// Where the file ends up.
    public let destination: String
    /// Where it is written meanwhile (same folder, so the rename is atomic).
    public let temporaryPath: String
    private let handle: FileHandle
    private var buffer = Data()
    private var finished = false

    /// Creates the temporary file. Fails with a one-line error if the folder is not writable or
    /// the destination is a folder or not a regular file.
    public init(destination: String) throws {
        _ = try OutputFolder.of(destination, reportedAs: destination)
        self.destination = destination
        let temporaryPath = OutputFolder.partialPath(for: destination)
        self.temporaryPath = temporaryPath
        handle = try PartialFiles.create(temporaryPath) {
            guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
                  let h = FileHandle(forWritingAtPath: temporaryPath) else {
                throw InputError(destination, "cannot write: permission denied or read-only folder")
            }
            return h
        }
    }

    deinit { if !finished { discard() } }

    /// Appends bytes (buffered).
    public func write(_ data: Data) throws {
        buffer.append(data)
        if buffer.count > 1 << 20 { try flush() }
    }

    private func flush() throws {
        do { try handle.write(contentsOf: buffer) } catch {
            throw InputError(destination, "write failed: \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and renames the file into place (replacing a regular file,
    /// never a folder).
    public func commit() throws {
        try flush()
        try? handle.close()
        finished = true
        do { try PartialFiles.commit([(temporaryPath, destination)]) } catch {
            PartialFiles.remove([temporaryPath])
            throw error
        }
    }

    /// Deletes the temporary file (also done automatically when not committed).
    public func discard() {
        finished = true
        try? handle.close()
        PartialFiles.remove([temporaryPath])
    }
}
