import Foundation

/// The folder an output file will be written to, checked before anything is written.
enum OutputFolder {
    /// The folder of `path` (a file's path); throws a one-line error naming `reportedAs` when it
    /// is missing or not a folder.
    static func of(_ path: String, reportedAs: String) throws -> String {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw InputError(reportedAs, "cannot write: folder \(folder) does not exist")
        }
        return folder
    }

    /// Where `path` is written while incomplete: a hidden name beside it (same folder, so the
    /// final rename is atomic), unique to this process.
    static func partialPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().path + "/.partial-\(getpid())-" + url.lastPathComponent
    }
}
