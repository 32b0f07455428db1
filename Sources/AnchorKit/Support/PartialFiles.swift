import Foundation

/// The partial files and folders (hidden `.partial-<pid>-` names) this process has on disk,
/// so that an interrupted run removes them before it exits.
///
/// Creating a partial file, moving finished files into place and removing everything at an
/// interruption each happen under one lock: an interruption never races a file into existence
/// after the clean-up, nor cuts a multi-file output half-way through being moved into place.
package enum PartialFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var live: Set<String> = []
    nonisolated(unsafe) private static var cleanedFolders: Set<String> = []

    /// Registers `path` and runs `create`, which makes it, and returns what `create` returns; if
    /// `create` throws, whatever it left at `path` is removed.
    package static func create<T>(_ path: String, _ create: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        live.insert(path)
        do { return try create() } catch {
            live.remove(path)
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }

    /// Runs `prepare`, then renames each partial file over its destination (atomically replacing
    /// a file; rename(2) refuses to replace a folder). All or nothing with respect to an
    /// interruption; on failure the error names the destination and the remaining partial files
    /// are left to the caller.
    package static func commit(_ moves: [(partial: String, destination: String)], prepare: () throws -> Void = {}) throws {
        lock.lock()
        defer { lock.unlock() }
        try prepare()
        for (partial, destination) in moves {
            guard rename(partial, destination) == 0 else {
                let reason = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST
                    ? "is a folder: a folder is never replaced" : String(cString: strerror(errno))
                throw InputError(destination, "cannot move the finished output into place: \(reason)")
            }
            live.remove(partial)
        }
    }

    /// Deletes partial files (or folders) and forgets them.
    package static func remove(_ paths: [String]) {
        lock.lock()
        defer { lock.unlock() }
        for path in paths where live.remove(path) != nil { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Deletes every partial file and folder of this process, for a process about to exit on a
    /// signal. The registry stays locked, so nothing new is created or moved into place before
    /// the exit. Call it from an ordinary thread (it is not async-signal-safe).
    public static func removeAllBeforeExit() {
        lock.lock()
        for path in live { try? FileManager.default.removeItem(atPath: path) }
        live.removeAll()
    }

    /// Removes, once per folder and process, the partial files that killed runs left in
    /// `folder`: their names carry the pid of a process that no longer exists.
    package static func removeStale(in folder: String) {
        lock.lock()
        let first = cleanedFolders.insert(folder).inserted
        lock.unlock()
        guard first, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names {
            guard let pid = OutputFolder.pid(ofPartial: name), pid != getpid(),
                  kill(pid, 0) == -1, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}
