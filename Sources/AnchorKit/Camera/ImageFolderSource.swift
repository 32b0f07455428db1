import Foundation

/// Frames stored as numbered image files, named by a printf pattern with one integer
/// conversion (e.g. `frames/%06d.png`), numbered from 0 without gaps.
public final class ImageFolderSource: RandomAccessFrameSource {
    /// The pattern, resolved against the sequence folder.
    public let pattern: String
    public let framesPerSecond: Double
    public let expectedFrameCount: Int?
    private var next = 0

    /// Opens a pattern; fails if frame 0 does not exist.
    public init(pattern: String, framesPerSecond: Double) throws {
        guard framesPerSecond.isFinite, framesPerSecond > 0 else {
            throw InputError(pattern, "frames per second must be positive, got \(framesPerSecond)")
        }
        guard Self.isPattern(pattern) else {
            throw InputError(pattern, "frame pattern needs one integer conversion such as %06d")
        }
        self.pattern = pattern
        self.framesPerSecond = framesPerSecond
        let count = Self.frames(of: pattern).count
        guard count > 0 else { throw InputError(Self.path(pattern, 0), "no such file (the sequence's first frame)") }
        expectedFrameCount = count
    }

    /// Whether `pattern` has exactly one integer conversion (`%d`, `%06d`), so that frame numbers
    /// give distinct names.
    static func isPattern(_ pattern: String) -> Bool {
        let conversions = pattern.replacingOccurrences(of: "%%", with: "")
        return conversions.range(of: "%[0-9]*d", options: .regularExpression) != nil && path(pattern, 0) != path(pattern, 1)
    }

    /// The frame files of `pattern` that exist, numbered from 0 without gaps.
    static func frames(of pattern: String) -> [String] {
        var files: [String] = []
        while FileManager.default.fileExists(atPath: path(pattern, files.count)) { files.append(path(pattern, files.count)) }
        return files
    }

    static func path(_ pattern: String, _ index: Int) -> String {
        let conversions = pattern.replacingOccurrences(of: "%%", with: "").filter { $0 == "%" }.count
        guard conversions == 1 else { return pattern }
        return String(format: pattern, index)
    }

    public func nextFrame() throws -> Frame? {
        guard let frame = try frame(at: next) else { return nil }
        next += 1
        return frame
    }

    public func frame(at index: Int) throws -> Frame? {
        guard index >= 0, index < expectedFrameCount! else { return nil }
        let image = try Image(contentsOf: Self.path(pattern, index), channels: 3)
        return Frame(index: index, time: Double(index) / framesPerSecond, image: image)
    }
}
