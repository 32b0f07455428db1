import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitMedia

/// Replays deterministic mutants of the committed input files through their readers: each must
/// either load or throw an ``InputError`` whose one line names the file — never trap, hang or
/// throw something unexplained. A crash takes the test process down, so CI sees it at once; the
/// failing case is reproducible from its seed and number.
@Suite("Fuzzing the input readers")
struct FuzzTests {
    /// Numbers that readers must survive where a number was.
    static let awkwardNumbers = ["1e308", "-1e308", "-0", "NaN", "\"NaN\"", "inf", "1e-320", "-1", "0", "4294967296",
                                 "99999999999999999999", "-9223372036854775808", "0.5", "null", "[]", "\"\""]

    /// One mutation of `bytes`: bit flips, a cut, inserted or deleted bytes, a duplicated run,
    /// a number replaced by an awkward one, or (binary files) a 4- or 8-byte field overwritten.
    static func mutate(_ bytes: [UInt8], binary: Bool, _ g: inout SplitMix64) -> [UInt8] {
        var b = bytes
        guard !b.isEmpty else { return [UInt8](Self.awkwardNumbers.randomElement(using: &g)!.utf8) }
        switch Int.random(in: 0..<(binary ? 7 : 6), using: &g) {
        case 0:
            for _ in 0..<Int.random(in: 1...4, using: &g) { b[Int.random(in: 0..<b.count, using: &g)] ^= 1 << UInt8.random(in: 0...7, using: &g) }
        case 1:
            b.removeLast(Int.random(in: 1...b.count, using: &g))
        case 2:
            let inserted = (0..<Int.random(in: 1...8, using: &g)).map { _ in binary ? UInt8.random(in: 0...255, using: &g) : Array("{}[],:\"0e-.\n ".utf8).randomElement(using: &g)! }
            b.insert(contentsOf: inserted, at: Int.random(in: 0...b.count, using: &g))
        case 3:
            let start = Int.random(in: 0..<b.count, using: &g)
            b.removeSubrange(start..<min(b.count, start + Int.random(in: 1...16, using: &g)))
        case 4:
            let start = Int.random(in: 0..<b.count, using: &g)
            b.insert(contentsOf: b[start..<min(b.count, start + Int.random(in: 1...64, using: &g))], at: start)
        case 5 where !binary:
            let text = String(decoding: b, as: UTF8.self)
            let numbers = text.ranges(of: #/-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/#)
            guard let range = numbers.randomElement(using: &g) else { return b.reversed() }
            var changed = text
            changed.replaceSubrange(range, with: Self.awkwardNumbers.randomElement(using: &g)!)
            b = Array(changed.utf8)
        default:
            let width = Bool.random(using: &g) ? 4 : 8
            guard b.count > width else { return [] }
            let at = Int.random(in: 0...(b.count - width), using: &g)
            let fill: [UInt8] = [[0xFF], [0x00], [0x7F], [0x80]].randomElement(using: &g)!
            for i in 0..<width { b[at + i] = i == width - 1 ? fill[0] : (fill[0] == 0x7F ? 0xFF : fill[0]) }
        }
        return b
    }

    /// Writes `count` mutants of `seed` (followed by `tail`, unchanged) to `name` in `folder` and
    /// loads each with `load`.
    static func replay(_ seed: [UInt8], tail: ArraySlice<UInt8> = [], as name: String, in folder: TemporaryFolder, count: Int,
                       binary: Bool = false, key: UInt64, load: (String) throws -> Void) throws {
        var g = SplitMix64(seed: key)
        let path = folder.file(name)
        for n in 0..<count {
            var mutant = seed
            for _ in 0..<Int.random(in: 1...3, using: &g) { mutant = mutate(mutant, binary: binary, &g) }
            try Data(mutant + tail).write(to: URL(fileURLWithPath: path))
            do {
                try load(path)
            } catch let e as InputError {
                // The file itself, or one it names (a sequence's video, a database's picture).
                #expect(e.path.hasPrefix(folder.path) && !e.problem.isEmpty,
                        "\(name) case \(n) (key \(key)): does not name the file: \(describe(e))")
            } catch {
                Issue.record("\(name) case \(n) (key \(key)): \(type(of: error)) instead of an InputError: \(describe(error))")
            }
        }
    }

    static func contents(_ path: String) throws -> [UInt8] { [UInt8](try #require(FileManager.default.contents(atPath: path))) }

    /// The first `lines` lines of a committed file.
    static func head(_ path: String, lines: Int) throws -> [UInt8] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return Array((text.split(separator: "\n").prefix(lines).joined(separator: "\n") + "\n").utf8)
    }

    static let datasets = ["markers-blur", "images-still", "room-walk", "markers-apriltag-far"]

    @Test func sequenceDescriptions() throws {
        for (i, name) in Self.datasets.enumerated() {
            let folder = TemporaryFolder()
            // The mutants' frame sources exist, so that those that parse are opened too.
            try FileManager.default.createSymbolicLink(atPath: folder.file("video.mp4"), withDestinationPath: Paths.dataset(name) + "/video.mp4")
            try Self.replay(Self.contents(Paths.dataset(name) + "/sequence.json"), as: "sequence.json", in: folder, count: 40,
                            key: 100 + UInt64(i)) { _ in
                let sequence = try RecordedSequence(folder: folder.path)
                _ = try sequence.openFrames().nextFrame()
            }
        }
    }

    /// A sequence of numbered frames (the committed ones are videos): mutants reach the frame
    /// pattern's parser and the folder scan.
    @Test func framePatternSequences() throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("frames"), withIntermediateDirectories: true)
        for i in [0, 1, 3] { try Image.filled(width: 640, height: 480, value: 100).write(to: folder.file(String(format: "frames/%06d.png", i))) }
        let text = try String(contentsOfFile: Paths.dataset("markers-blur") + "/sequence.json", encoding: .utf8)
            .replacingOccurrences(of: #""video" : "video.mp4""#, with: #""frames" : "frames/%06d.png""#)
        #expect(text.contains("%06d"))
        try Self.replay(Array(text.utf8), as: "sequence.json", in: folder, count: 60, key: 110) { _ in
            _ = try RecordedSequence(folder: folder.path).openFrames().nextFrame()
        }
        // The pattern alone, with % and digits thrown in.
        var g = SplitMix64(seed: 111)
        for n in 0..<200 {
            var pattern = Array("frames/%06d.png".utf8)
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                pattern.insert(Array("%%0123456789dsx*.-".utf8).randomElement(using: &g)!, at: Int.random(in: 0...pattern.count, using: &g))
            }
            let path = folder.file(String(decoding: pattern, as: UTF8.self))
            do { _ = try ImageFolderSource(pattern: path, framesPerSecond: 30) } catch let e as InputError {
                #expect(e.path.hasPrefix(folder.path) && e.description.utf8.count < 500, "pattern case \(n): \(describe(e))")
            } catch {
                Issue.record("pattern case \(n): \(type(of: error)) instead of an InputError: \(describe(error))")
            }
        }
    }

    @Test func anchorStreamsAndPerFrameFiles() throws {
        let folder = TemporaryFolder()
        for (i, name) in Self.datasets.enumerated() {
            try Self.replay(Self.head(Paths.dataset(name) + "/groundtruth.jsonl", lines: 3), as: "anchors.jsonl", in: folder,
                            count: 40, key: 200 + UInt64(i)) { _ = try AnchorStreamReader.read(contentsOf: $0, camera: testCamera) }
        }
        try Self.replay(Self.head(Paths.dataset("markers-blur") + "/gravity.jsonl", lines: 4), as: "gravity.jsonl", in: folder,
                        count: 30, key: 300) { _ = try GravityFile.read(contentsOf: $0) }
        try Self.replay(Self.head(Paths.dataset("markers-blur") + "/groundtruth.jsonl", lines: 2), as: "poses.jsonl", in: folder,
                        count: 30, key: 301) { _ = try PoseFile.read(contentsOf: $0) }
    }

    @Test func calibrationFiles() throws {
        let folder = TemporaryFolder()
        let camera = try JSONEncoder().encode(RecordedSequence(folder: Paths.dataset("markers-blur")).description.camera)
        try Self.replay([UInt8](camera), as: "camera.json", in: folder, count: 80, key: 400) {
            _ = try CameraIntrinsics.load(contentsOf: $0)
        }
        let distorted = #"{"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240, "distortion": [-0.2, 0.05, 0.001, -0.001, 0.01]}"#
        try Self.replay(Array(distorted.utf8), as: "distorted.json", in: folder, count: 60, key: 401) {
            _ = try CameraIntrinsics.load(contentsOf: $0)
        }
        try Self.replay(Array(IntrinsicsTests.calibrationYAML(extra: [0.3, 0, 0]).utf8), as: "calib.yml", in: folder, count: 80,
                        key: 402) { _ = try CameraIntrinsics.load(contentsOf: $0, imageSize: (640, 480)) }
    }

    @Test func referenceDatabases() throws {
        let folder = TemporaryFolder()
        let picture = folder.file("starry.png")
        try FileManager.default.copyItem(atPath: Paths.dataset("images-still") + "/targets/starry.png", toPath: picture)
        let built = folder.file("built.akrefs")
        try ReferenceDatabase.write(ReferenceImageSet([ReferenceImage(name: "starry", contentsOf: picture, physicalWidth: 0.5)]), to: built)
        let seed = try Self.contents(built)
        // Mutants of the first bytes alone hit the header and the sizes; whole-file ones mostly features.
        try Self.replay(Array(seed.prefix(120)), tail: seed.dropFirst(120), as: "head.akrefs", in: folder, count: 80,
                        binary: true, key: 500) { _ = try ReferenceDatabase.read(contentsOf: $0) }
        try Self.replay(seed, as: "refs.akrefs", in: folder, count: 120, binary: true, key: 501) {
            _ = try ReferenceDatabase.read(contentsOf: $0)
        }
    }
}
