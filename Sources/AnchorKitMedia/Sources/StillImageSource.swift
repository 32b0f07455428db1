import Foundation
import AnchorKit

/// Unrelated still photos as frames, one per file in the order given: frame k is `paths[k]`
/// (time k seconds, a nominal 1 frame/s). Every photo's header is read up front, so a file that
/// is not an image fails before any work; all photos must have one size (one camera).
public final class StillImageSource: FrameSource {
    /// The files, in frame order.
    public let paths: [String]
    public let framesPerSecond = 1.0
    public var expectedFrameCount: Int? { paths.count }
    private var next = 0

    /// The file name endings taken as photos when a folder is listed.
    public static let extensions: Set<String> = ["png", "jpg", "jpeg", "tif", "tiff", "bmp", "webp", "pgm", "ppm", "pnm", "pam", "ras"]

    public init(paths: [String]) throws {
        guard let first = paths.first else { throw InputError("stills", "no photos") }
        let size = try Image.headerSize(of: first)
        if let problem = Plausible.frameSizeProblem(width: size.width, height: size.height) { throw InputError(first, problem) }
        for path in paths.dropFirst() {
            let other = try Image.headerSize(of: path)
            guard other == size else {
                throw InputError(path, "photo is \(other.width)x\(other.height) but \(first) is \(size.width)x\(size.height): stills share one camera, so one size")
            }
        }
        self.paths = paths
    }

    /// The photos of a folder (files with an image ending, by name).
    public convenience init(folder: String) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        guard !names.isEmpty else { throw InputError(folder, "no sequence.json and no photos (\(Self.extensions.sorted().joined(separator: ", ")))") }
        try self.init(paths: names.map { folder + "/" + $0 })
    }

    /// Whether `path` names a photo by its ending.
    public static func isPhoto(_ path: String) -> Bool { extensions.contains((path as NSString).pathExtension.lowercased()) }

    public func nextFrame() throws -> Frame? {
        guard next < paths.count else { return nil }
        let image = try Image(contentsOf: paths[next], channels: 3)
        defer { next += 1 }
        return Frame(index: next, time: Double(next), image: image)
    }
}
