import Foundation
import AnchorKit

/// Real photographs used as scene textures: the sample images Debian's `opencv-doc` package
/// installs (`/usr/share/doc/opencv-doc/examples/data`).
public enum PhotoLibrary {
    /// Folders searched, in order; `ANCHORKIT_PHOTOS` overrides.
    public static var folders: [String] {
        var list = ["/usr/share/doc/opencv-doc/examples/data"]
        if let custom = ProcessInfo.processInfo.environment["ANCHORKIT_PHOTOS"] { list.insert(custom, at: 0) }
        return list
    }

    /// Loads a photograph by file name (e.g. `fruits.jpg`).
    public static func photo(_ name: String) throws -> Image {
        for folder in folders where FileManager.default.fileExists(atPath: folder + "/" + name) {
            return try Image(contentsOf: folder + "/" + name, channels: 3)
        }
        throw InputError(name, "photo not found in \(folders.joined(separator: ", ")) (install Debian's opencv-doc package)")
    }
}
