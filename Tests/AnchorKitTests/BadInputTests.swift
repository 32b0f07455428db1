import Foundation
import Testing
@testable import AnchorKit

/// Issue 21's audit of bad input, run through the built `anchorkit`: every case ends with one
/// line `anchorkit: error: <file>: <problem>`, a non-zero exit and no output — never a crash, a
/// hang, library chatter on stderr, or a silently shortened or wrong result.
@Suite("Bad input")
struct BadInputTests {
    typealias CLI = CLITests

    /// `count` copies of a committed 752x600 picture as frames/%06d.png, skipping `missing`.
    static func writeFrames(_ count: Int, missing: Set<Int> = [], in work: TemporaryFolder) throws -> String {
        try FileManager.default.createDirectory(atPath: work.file("frames"), withIntermediateDirectories: true)
        let picture = Paths.dataset("images-still") + "/targets/starry.png"
        for i in 0..<count where !missing.contains(i) {
            try FileManager.default.copyItem(atPath: picture, toPath: work.file(String(format: "frames/%06d.png", i)))
        }
        return try work.write("camera.json", #"{"width": 752, "height": 600, "fx": 600, "fy": 600, "cx": 375.5, "cy": 299.5}"#)
    }

    static func track(_ input: String, camera: String, _ extra: [String] = [], output: TemporaryFolder) async throws -> CLI.Result {
        try await CLI.run(["track", input, "--camera", camera, "--markers", "DICT_4X4_50:0.08", "-o", output.file("a.jsonl"),
                           "--quiet"] + extra, timeout: 30)
    }

    // MARK: Reference databases (point 4)

    /// A database whose untrusted sizes are absurd: one line each, no trap.
    @Test func corruptReferenceDatabase() async throws {
        let work = TemporaryFolder()
        let sequence = Paths.dataset("images-still")
        let db = work.file("refs.akrefs")
        #expect(try await CLI.run(["reference-db", sequence, "-o", db]).status == 0)
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: db)))
        // Offsets after "AKREFDB\n", version and count: name, path, then the image's file size.
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let nameAt = 16, pathAt = nameAt + 4 + u32(nameAt), sizeAt = pathAt + 4 + u32(pathAt)
        let featureCountAt = sizeAt + 8 + 16 + 8
        let cases: [(String, Int, [UInt8], String)] = [
            ("file size 2^64-1", sizeAt, Array(repeating: 0xFF, count: 8), "image size"),
            ("reference count", 12, [0xFF, 0xFF, 0x00, 0x00], "references"),
            ("feature count", featureCountAt, [0x40, 0x42, 0x0F, 0x00], "features"),
            ("physical width 1e300", sizeAt + 8, Array(withUnsafeBytes(of: (1e300).bitPattern.littleEndian, Array.init)), "physicalWidth"),
        ]
        let out = TemporaryFolder()
        for (label, offset, patch, mention) in cases {
            var corrupt = bytes
            corrupt.replaceSubrange(offset..<offset + patch.count, with: patch)
            let path = work.file("corrupt.akrefs")
            try Data(corrupt).write(to: URL(fileURLWithPath: path))
            let r = try await CLI.run(["track", sequence, "--references", path, "-o", out.file("a.jsonl"), "--quiet"])
            CLI.expectCleanFailure(r, mentions: [path, mention], outputFolder: out)
            if r.stderrLines.count != 1 { Issue.record("case \(label)") }
        }
    }

    // MARK: Frame patterns (points 5 and 9)

    @Test func gapInFramePattern() async throws {
        let work = TemporaryFolder()
        let camera = try Self.writeFrames(6, missing: [3], in: work)
        let out = TemporaryFolder()
        let r = try await Self.track(work.file("frames/%06d.png"), camera: camera, output: out)
        CLI.expectCleanFailure(r, mentions: [work.file("frames/000003.png"), "000005.png", "gaps"], outputFolder: out)
    }

    @Test(arguments: ["%0999999999d", "%s%06d", "%06d%d", "%06x"])
    func malformedFramePattern(_ conversion: String) async throws {
        let work = TemporaryFolder()
        let camera = try Self.writeFrames(1, in: work)
        let out = TemporaryFolder()
        let pattern = work.file("frames/\(conversion).png")
        // Within track's timeout (a %0999999999d once ran 140 s and printed a 1 GB line).
        let r = try await Self.track(pattern, camera: camera, output: out)
        CLI.expectCleanFailure(r, mentions: [pattern, "frame pattern"], outputFolder: out)
        #expect(r.stderr.utf8.count < 1000)
    }

    @Test func frameOfAnotherSizeMidway() async throws {
        let work = TemporaryFolder()
        let camera = try Self.writeFrames(3, in: work)
        try FileManager.default.removeItem(atPath: work.file("frames/000002.png"))
        try Image.filled(width: 640, height: 480, value: 90).write(to: work.file("frames/000002.png"))
        let out = TemporaryFolder()
        let r = try await Self.track(work.file("frames/%06d.png"), camera: camera, output: out)
        CLI.expectCleanFailure(r, mentions: [work.file("frames/000002.png"), "640x480", "752x600"], outputFolder: out)
    }

    @Test func framesTooSmall() async throws {
        let work = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: work.file("frames"), withIntermediateDirectories: true)
        try Image.filled(width: 16, height: 16, value: 90).write(to: work.file("frames/000000.png"))
        let camera = try work.write("camera.json", #"{"width": 16, "height": 16, "fx": 20, "fy": 20, "cx": 7.5, "cy": 7.5}"#)
        let out = TemporaryFolder()
        let r = try await Self.track(work.file("frames/%06d.png"), camera: camera, ["--world"], output: out)
        CLI.expectCleanFailure(r, mentions: [work.file("frames/000000.png"), "16x16", "too small"], outputFolder: out)
    }

    @Test(arguments: ["1e-320", "0", "-30", "1e300", "nan"])
    func implausibleFrameRate(_ fps: String) async throws {
        let work = TemporaryFolder()
        let camera = try Self.writeFrames(2, in: work)
        let out = TemporaryFolder()
        let pattern = work.file("frames/%06d.png")
        let r = try await Self.track(pattern, camera: camera, ["--fps=\(fps)"], output: out)
        CLI.expectCleanFailure(r, mentions: [pattern, "frames per second"], outputFolder: out)
    }

    // MARK: Images (points 6, 8 and 9)

    /// A valid 20000x20000 8-bit gray TIFF of 180 kB: every strip (one row each) points at the
    /// same row of zeros, so OpenCV would decode it into 1.2 GB.
    static func enormousTIFF() -> Data {
        let side: UInt32 = 20_000
        var d = Data("II*\0".utf8)
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        let entries: UInt32 = 9
        let rowAt = 8 + 2 + entries * 12 + 4, offsetsAt = rowAt + side, countsAt = offsetsAt + 4 * side
        u32(8)
        u16(UInt16(entries))
        for (tag, type, count, value) in [(256, 4, 1, side), (257, 4, 1, side), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
                                          (273, 4, side, offsetsAt), (277, 3, 1, 1), (278, 4, 1, 1), (279, 4, side, countsAt)]
            as [(UInt16, UInt16, UInt32, UInt32)] {
            u16(tag); u16(type); u32(count); u32(value)
        }
        u32(0)
        d.append(Data(count: Int(side)))
        for _ in 0..<side { u32(rowAt) }
        for _ in 0..<side { u32(side) }
        return d
    }

    /// The peak resident memory (kB) of `anchorkit arguments`, from /usr/bin/time -v.
    static func peakMemory(_ arguments: [String]) async throws -> (kilobytes: Int, result: CLI.Result) {
        let binary = try #require(CLI.binary)
        let work = TemporaryFolder()
        let report = work.file("time.txt")
        let r = try await CLI.run(arguments, timeout: 300, wrapper: ["/usr/bin/time", "-v", "-o", report, binary])
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.contains("Maximum resident set size") })
        return (try #require(Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))), r)
    }

    /// Refused from its header: the peak memory stays within 100 MB of the process's own
    /// (about 130 MB of shared libraries: OpenCV and everything it links), where decoding took 2.4 GB.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func enormousTIFFIsRefusedInLittleMemory() async throws {
        let work = TemporaryFolder()
        let tiff = work.file("huge.tif")
        try Self.enormousTIFF().write(to: URL(fileURLWithPath: tiff))
        let (peak, r) = try await Self.peakMemory(["check-image", tiff])
        CLI.expectCleanFailure(r, mentions: [tiff, "20000x20000", "too large"])
        let (baseline, _) = try await Self.peakMemory(["check-image", work.file("missing.png")])
        print("enormous TIFF: peak \(peak / 1024) MB, a run that reads no image \(baseline / 1024) MB")
        #expect(peak - baseline < 100 * 1024, "peak \(peak) kB against \(baseline) kB")
    }

    /// A committed picture as JPEG, and copies of it (or of the PNG) cut short or corrupted.
    static func damagedImages(in work: TemporaryFolder) throws -> [(path: String, mention: String)] {
        let png = Paths.dataset("images-still") + "/targets/starry.png"
        let jpeg = work.file("starry.jpg")
        try Image(contentsOf: png).write(to: jpeg)
        func damaged(_ source: String, _ name: String, _ change: (inout [UInt8]) -> Void) throws -> String {
            var bytes = [UInt8](try #require(FileManager.default.contents(atPath: source)))
            change(&bytes)
            let path = work.file(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        return [
            (try damaged(jpeg, "cut.jpg") { $0.removeLast($0.count / 3) }, "truncated JPEG"),
            // Flipped bits in the last entropy-coded bytes (no 0xFF made): libjpeg warns, decodes anyway.
            (try damaged(jpeg, "flipped.jpg") { b in for i in (b.count - 10)..<(b.count - 2) { b[i] ^= 0x55 } }, "corrupt JPEG"),
            (try damaged(png, "cut.png") { $0.removeLast($0.count / 2) }, "truncated PNG"),
            (try damaged(png, "flipped.png") { $0[$0.count / 2] ^= 0x01 }, "corrupt PNG"),
        ]
    }

    @Test func damagedImagesAreRefused() async throws {
        let work = TemporaryFolder()
        let good = work.file("good.jpg")
        try Image(contentsOf: Paths.dataset("images-still") + "/targets/starry.png").write(to: good)
        let ok = try await CLI.run(["check-image", good])
        #expect(ok.status == 0 && ok.stderr.isEmpty, "stderr: \(ok.stderr)")
        for (path, mention) in try Self.damagedImages(in: work) {
            let r = try await CLI.run(["check-image", path])
            CLI.expectCleanFailure(r, mentions: [path, mention])
        }
    }

    @Test func damagedReferenceAndOverlayAreRefused() async throws {
        let work = TemporaryFolder()
        let damaged = try Self.damagedImages(in: work)
        let out = TemporaryFolder()
        let sequence = Paths.dataset("images-still")
        let cut = damaged[0].path
        let reference = try await CLI.run(["track", sequence, "--image", "poster=\(cut):0.4", "-o", out.file("a.jsonl"), "--quiet"])
        CLI.expectCleanFailure(reference, mentions: [cut, "truncated JPEG"], outputFolder: out)
        let overlay = try await CLI.run(["render", sequence, "--overlay", "starry=\(damaged[1].path)", "-o", out.file("o.mp4"), "--quiet"])
        CLI.expectCleanFailure(overlay, mentions: [damaged[1].path, "corrupt JPEG"], outputFolder: out)
    }

    // MARK: Silently wrong numbers (point 10)

    @Test(arguments: [
        (#""size" : 0.1"#, #""size" : 1e300"#, "marker size"),
        (#""fps" : 30"#, #""fps" : 1e-300"#, "fps"),
        (#""fx" : 525"#, #""fx" : 1e-300"#, "focal lengths"),
    ])
    func implausibleSequenceNumbers(_ original: String, _ replacement: String, _ mention: String) async throws {
        let work = TemporaryFolder()
        let source = Paths.dataset("markers-blur")
        let text = try String(contentsOfFile: source + "/sequence.json", encoding: .utf8)
        #expect(text.contains(original), "sequence.json has no \(original)")
        let path = try work.write("sequence.json", text.replacingOccurrences(of: original, with: replacement))
        try FileManager.default.createSymbolicLink(atPath: work.file("video.mp4"), withDestinationPath: source + "/video.mp4")
        let out = TemporaryFolder()
        let r = try await CLI.run(["track", work.path, "-o", out.file("a.jsonl"), "--quiet"])
        CLI.expectCleanFailure(r, mentions: [path, mention], outputFolder: out)
    }

    /// Geo input (issue 26): a location log that is empty, holds an impossible coordinate or is
    /// not a log at all, and places given badly, each refused in one line before any output.
    @Test(arguments: [
        ("log.jsonl", "", ["log.jsonl", "empty"], [String]()),
        ("log.jsonl", #"{"time": 0, "latitude": 91, "longitude": 18}"# + "\n", ["log.jsonl", "line 1", "latitude"], []),
        ("log.gpx", "<gpx><trk><trkseg><trkpt lat=\"45\" lon=\"18\"><time>2026-01-01T00:00:00Z</time></trkpt>\n", ["log.gpx", "malformed XML"], []),
        ("log.nmea", "not a sentence\n", ["log.nmea", "not a location log"], []),
        ("log.nmea", "$GPRMC,123519,V,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W\n", ["log.nmea", "no location fix"], []),
        ("log.jsonl", #"{"time": 0, "latitude": 45, "longitude": 18}"# + "\n", ["--geo-anchor", "NAME=LAT,LON"], ["--geo-anchor", "fountain"]),
        ("log.jsonl", #"{"time": 0, "latitude": 45, "longitude": 18}"# + "\n", ["--geo-anchor", "latitude"], ["--geo-anchor", "fountain=95,18"]),
        ("log.jsonl", #"{"time": 0, "latitude": 45, "longitude": 18}"# + "\n", ["--world-alignment", "gravity-and-heading", "north"], ["--world-alignment", "north"]),
    ])
    func badGeoInput(_ name: String, _ contents: String, _ mentions: [String], _ extra: [String]) async throws {
        let work = TemporaryFolder()
        let log = try work.write(name, contents)
        let out = TemporaryFolder()
        let r = try await CLI.run(["track", Paths.dataset("markers-blur"), "--location", log, "-o", out.file("a.jsonl"), "--quiet"] + extra)
        CLI.expectCleanFailure(r, mentions: mentions, outputFolder: out)
    }

    @Test func implausibleImageWidth() async throws {
        let out = TemporaryFolder()
        let picture = Paths.dataset("images-still") + "/targets/starry.png"
        let r = try await CLI.run(["track", Paths.dataset("images-still"), "--image", "poster=\(picture):1e-300",
                                   "-o", out.file("a.jsonl"), "--quiet"])
        CLI.expectCleanFailure(r, mentions: ["physicalWidth", "1e-300"], outputFolder: out)
    }

    @Test func intrinsicsForOtherFramesNameTheFiles() async throws {
        let work = TemporaryFolder()
        let source = Paths.dataset("markers-blur")
        let text = try String(contentsOfFile: source + "/sequence.json", encoding: .utf8)
        let path = try work.write("sequence.json", text.replacingOccurrences(of: #""width" : 640"#, with: #""width" : 800"#)
            .replacingOccurrences(of: #""height" : 480"#, with: #""height" : 600"#))
        try FileManager.default.createSymbolicLink(atPath: work.file("video.mp4"), withDestinationPath: source + "/video.mp4")
        let out = TemporaryFolder()
        let r = try await CLI.run(["track", work.path, "-o", out.file("a.jsonl"), "--quiet"])
        CLI.expectCleanFailure(r, mentions: [path, "800x600", "640x480", "video.mp4"], outputFolder: out)
    }

    @Test func scoreAnEmptyStreamOrTruth() async throws {
        let work = TemporaryFolder()
        let sequence = Paths.dataset("markers-blur")
        let empty = try work.write("anchors.jsonl", "\n")
        let r = try await CLI.run(["score", sequence, empty])
        CLI.expectCleanFailure(r, mentions: [empty, "empty"])
        #expect(r.stdout.isEmpty)

        let copy = TemporaryFolder()
        try FileManager.default.copyItem(atPath: sequence + "/sequence.json", toPath: copy.file("sequence.json"))
        let truth = try copy.write("groundtruth.jsonl", "")
        let t = try await CLI.run(["score", copy.path, sequence + "/groundtruth.jsonl"])
        CLI.expectCleanFailure(t, mentions: [truth, "empty"])
    }

    /// A broken composition-offset table (ctts): the decoder drops 2 of 90 frames, which the
    /// old tolerance let through as a complete run.
    @Test func videoShortOfItsFrameCount() async throws {
        let work = TemporaryFolder()
        let original = Paths.dataset("markers-blur")
        for name in ["sequence.json", "groundtruth.jsonl", "gravity.jsonl"] {
            try FileManager.default.copyItem(atPath: original + "/" + name, toPath: work.file(name))
        }
        var video = [UInt8](try #require(FileManager.default.contents(atPath: original + "/video.mp4")))
        let ctts = try #require(video.indices.dropLast(4).first { video[$0..<$0 + 4].elementsEqual("ctts".utf8) })
        video.replaceSubrange(ctts + 16..<ctts + 20, with: [0x7F, 0xFF, 0xFF, 0xFF])  // entry 0's offset
        try Data(video).write(to: URL(fileURLWithPath: work.file("video.mp4")))
        let out = TemporaryFolder()
        let r = try await CLI.run(["track", work.path, "-o", out.file("a.jsonl"), "--quiet"])
        CLI.expectCleanFailure(r, mentions: [work.file("video.mp4"), "of 90 frames"], outputFolder: out)
    }
}
