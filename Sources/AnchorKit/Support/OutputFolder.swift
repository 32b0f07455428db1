import Foundation

/// The folder an output file will be written to, checked before anything is written.
package enum OutputFolder {
    private static let partialPrefix = ".partial-"

    /// The folder of `path` (a file's path); throws a one-line error naming `reportedAs` when it
    /// is missing or not a folder, or when `path` is a folder or anything but a regular file
    /// (only a regular file is ever replaced).
    package static func of(_ path: String, reportedAs: String) throws -> String {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw InputError(reportedAs, "cannot write: folder \(folder) does not exist")
        }
        if let existing = FileIdentity(path) {
            guard !existing.isFolder else { throw InputError(path, "is a folder: a folder is never replaced (give a file name)") }
            guard existing.isRegularFile else { throw InputError(path, "is not a regular file: only a regular file is replaced") }
        }
        return folder
    }

    /// Where `path` is written while incomplete: a hidden name beside it (same folder, so the
    /// final rename is atomic) that carries this process's id, so that what a killed run leaves
    /// is recognised and removed by the next run into the folder (done here, once per folder).
    package static func partialPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        PartialFiles.removeStale(in: folder)
        return folder + "/" + partialPrefix + "\(getpid())-" + url.lastPathComponent
    }

    /// The process id in a name made by ``partialPath(for:)``, or nil for any other name.
    static func pid(ofPartial name: String) -> pid_t? {
        guard name.hasPrefix(partialPrefix) else { return nil }
        let digits = name.dropFirst(partialPrefix.count).prefix { $0 != "-" }
        guard name.dropFirst(partialPrefix.count + digits.count).first == "-" else { return nil }
        return pid_t(digits)
    }
}

/// A file's device and inode (symlinks followed): one identity however the file is named.
package struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64
    let mode: UInt32

    package init?(_ path: String) {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        mode = UInt32(s.st_mode)
    }

    package var isFolder: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    package var isRegularFile: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }

    package static func == (a: Self, b: Self) -> Bool { a.device == b.device && a.inode == b.inode }
    package func hash(into hasher: inout Hasher) { hasher.combine(device); hasher.combine(inode) }
}
