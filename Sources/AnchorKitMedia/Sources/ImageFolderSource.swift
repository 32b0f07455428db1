import Foundation
import AnchorKit

/// Frames stored as numbered image files, named by a printf pattern with one integer
/// conversion (e.g. `frames/%06d.png`), numbered from 0 without gaps.
public final class ImageFolderSource: RandomAccessFrameSource {
    /// The pattern, resolved against the sequence folder.
    public let pattern: String
    public let framesPerSecond: Double
    public let expectedFrameCount: Int?
    /// The size of every frame: frame 0's, from its header.
    public let width: Int, height: Int
    private let names: FramePattern
    private var next = 0

    /// Opens a pattern. Fails if frame 0 does not exist, if a later frame exists beyond a missing
    /// one (naming the first missing file: a gap would silently end the input there), or if
    /// frame 0 is not an image of a usable size.
    public init(pattern: String, framesPerSecond: Double) throws {
        if let problem = Plausible.frameRateProblem(framesPerSecond) { throw InputError(pattern, problem) }
        names = try FramePattern(pattern)
        self.pattern = pattern
        self.framesPerSecond = framesPerSecond
        let count = Self.frames(of: pattern).count
        guard count > 0 else { throw InputError(names.path(0), "no such file (the sequence's first frame)") }
        if let later = names.numbersPresent().filter({ $0 > count }).max() {
            throw InputError(names.path(count), "no such file, but frames up to \(later) (\(names.path(later))) exist: frames must be numbered from 0 without gaps")
        }
        expectedFrameCount = count
        (width, height) = try Image.headerSize(of: names.path(0))
        if let problem = Plausible.frameSizeProblem(width: width, height: height) { throw InputError(names.path(0), problem) }
    }

    /// Whether `pattern` is a frame pattern (see ``FramePattern``).
    package static func isPattern(_ pattern: String) -> Bool { (try? FramePattern(pattern)) != nil }

    /// The frame files of `pattern` that exist, numbered from 0 without gaps.
    package static func frames(of pattern: String) -> [String] {
        guard let names = try? FramePattern(pattern) else { return [pattern] }
        var files: [String] = []
        while FileManager.default.fileExists(atPath: names.path(files.count)) { files.append(names.path(files.count)) }
        return files
    }

    /// The file name of frame `index` of `pattern` (the pattern itself when it is none).
    static func path(_ pattern: String, _ index: Int) -> String { (try? FramePattern(pattern))?.path(index) ?? pattern }

    public func nextFrame() throws -> Frame? {
        guard let frame = try frame(at: next) else { return nil }
        next += 1
        return frame
    }

    public func frame(at index: Int) throws -> Frame? {
        guard index >= 0, index < expectedFrameCount! else { return nil }
        let path = names.path(index)
        let image = try Image(contentsOf: path, channels: 3)
        guard image.width == width, image.height == height else {
            throw InputError(path, "frame is \(image.width)x\(image.height) but frame 0 is \(width)x\(height): all frames must have one size")
        }
        return Frame(index: index, time: Double(index) / framesPerSecond, image: image)
    }
}

/// A frame-file pattern: literal text (`%%` for a percent sign) around exactly one integer
/// conversion `%d`, `%Nd` or `%0Nd`. Formatted here rather than by `String(format:)`, which
/// would accept any conversion (and `%s` reads memory it was never given).
struct FramePattern {
    /// At most this many digits: more than any frame number needs, and a `%0999999999d` would
    /// otherwise spend minutes writing gigabyte names.
    static let maximumWidth = 20

    let prefix: String, suffix: String
    let width: Int
    let zeroPadded: Bool

    /// Parses `pattern`; throws a one-line error naming it when it is not a frame pattern.
    init(_ pattern: String) throws {
        func fail(_ why: String) -> InputError { InputError(pattern, "frame pattern \(why)") }
        var literal = ["", ""], conversions = 0
        var width = 0, zeroPadded = false
        var chars = pattern.makeIterator()
        while let c = chars.next() {
            guard c == "%" else { literal[min(conversions, 1)].append(c); continue }
            var spec = ""
            var end = chars.next()
            while let d = end, d.isASCII, d.isNumber { spec.append(d); end = chars.next() }
            if end == "%" && spec.isEmpty { literal[min(conversions, 1)].append("%"); continue }
            guard end == "d" else { throw fail("may only hold one %d, %6d or %06d conversion (and %% for a percent sign)") }
            conversions += 1
            zeroPadded = spec.hasPrefix("0")
            guard spec.count <= 3, let w = spec.isEmpty ? 0 : Int(spec), w <= Self.maximumWidth else {
                throw fail("width %\(spec.prefix(12))\(spec.count > 12 ? "..." : "")d is too large (at most \(Self.maximumWidth) digits)")
            }
            width = w
        }
        guard conversions == 1 else { throw fail("needs one integer conversion such as %06d, found \(conversions)") }
        (prefix, suffix, self.width, self.zeroPadded) = (literal[0], literal[1], width, zeroPadded)
    }

    /// The file name of frame `index` (>= 0).
    func path(_ index: Int) -> String {
        let digits = String(index)
        let padding = String(repeating: zeroPadded ? "0" : " ", count: max(0, width - digits.count))
        return prefix + padding + digits + suffix
    }

    /// The numbers of the frame files present in the pattern's folder (empty when the number is
    /// part of a folder name). A file counts only if its name is exactly what ``path(_:)`` gives.
    func numbersPresent() -> [Int] {
        guard !suffix.contains("/") else { return [] }
        let slash = prefix.lastIndex(of: "/")
        let folder = slash.map { String(prefix[...$0]) } ?? ""
        let head = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        return names.compactMap { name in
            guard name.count > head.count + suffix.count, name.hasPrefix(head), name.hasSuffix(suffix) else { return nil }
            let middle = name.dropFirst(head.count).dropLast(suffix.count)
            guard let n = Int(middle.trimmingCharacters(in: .whitespaces)), n >= 0, path(n) == folder + name else { return nil }
            return n
        }
    }
}
