import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitMedia

/// Recorded sequences (sequence.json), gravity files and anchor streams (FORMATS.md).
@Suite("Sequences and streams")
struct SequenceTests {
    static let expectedFrames = ["markers-aruco-table": 120, "markers-apriltag-far": 120, "markers-blur": 90]

    // MARK: The committed datasets

    @Test(arguments: Paths.datasetNames)
    func committedDatasetLoads(_ name: String) throws {
        let folder = Paths.dataset(name)
        let sequence = try RecordedSequence(folder: folder)
        let d = sequence.description
        #expect(d.name == name)
        #expect(d.video == "video.mp4")
        #expect(d.frames == nil)
        #expect(d.groundTruth == "groundtruth.jsonl")
        #expect(d.gravity == "gravity.jsonl")
        #expect(d.fps == 30)
        #expect(d.camera.width == 640 && d.camera.height == 480)
        #expect(!(d.markers ?? []).isEmpty)
        #expect(sequence.resolve("video.mp4") == folder + "/video.mp4")
        #expect(sequence.resolve("/abs/path") == "/abs/path")

        let truth = try #require(try sequence.groundTruth())
        #expect(truth.count == Self.expectedFrames[name])
        #expect(truth.map(\.frame) == Array(0..<truth.count))
        // Every ground-truth marker anchor is a marker of the configured families.
        let dictionaries = Set((d.markers ?? []).map(\.dictionary))
        for update in truth {
            for anchor in update.anchors {
                #expect(anchor.kind == .marker)
                let parts = anchor.identifier.split(separator: "/")
                #expect(parts.count == 3 && parts[0] == "marker" && dictionaries.contains(String(parts[1])))
                #expect(String(parts[2]) == anchor.name)
            }
        }

        // Gravity: one vector per frame, of standard magnitude, consistent with the true camera
        // orientation (gravity is world -y seen from the camera).
        let gravity = try GravityFile.read(contentsOf: sequence.resolve(try #require(d.gravity)))
        #expect(gravity.count == truth.count)
        for update in truth {
            let g = try #require(gravity[update.frame])
            #expect(abs(length(g) - 9.80665) < 1e-6)
            let expected = update.camera.transform.rotation.transposed * SIMD3(0, -9.80665, 0)
            #expect(isNear(g, expected, 1e-6), "frame \(update.frame): gravity \(g), expected \(expected)")
        }
    }

    @Test(arguments: Paths.datasetNames)
    func committedDatasetVideoOpens(_ name: String) throws {
        let sequence = try RecordedSequence(folder: Paths.dataset(name))
        let source = try sequence.openFrames()
        #expect(source.framesPerSecond == 30)
        let expected = try #require(Self.expectedFrames[name])
        if let count = source.expectedFrameCount { #expect(abs(count - expected) <= 2) }
        let first = try #require(try source.nextFrame())
        #expect(first.index == 0 && first.time == 0)
        #expect(first.image.width == 640 && first.image.height == 480)
        let second = try #require(try source.nextFrame())
        #expect(second.index == 1 && abs(second.time - 1.0 / 30) < 1e-12)
    }

    // MARK: Videos

    @Test func faststartCopyDecodesEveryFrame() throws {
        // Checks the MP4 rewriting the truncation tests rely on.
        let folder = TemporaryFolder()
        let original = try #require(FileManager.default.contents(atPath: Paths.dataset("markers-blur") + "/video.mp4"))
        let fast = try #require(MP4.faststart(original))
        #expect(fast.count == original.count)
        let path = folder.file("fast.mp4")
        try fast.write(to: URL(fileURLWithPath: path))
        let source = try VideoFileSource(path: path)
        #expect(source.width == 640 && source.height == 480)
        var count = 0
        while try source.nextFrame() != nil { count += 1 }
        #expect(count == 90)
        #expect(try source.nextFrame() == nil, "stays at the end")
    }

    @Test func truncatedVideoIsReported() throws {
        let folder = TemporaryFolder()
        let original = try #require(FileManager.default.contents(atPath: Paths.dataset("markers-blur") + "/video.mp4"))
        let fast = try #require(MP4.faststart(original))
        let path = folder.file("cut.mp4")
        try fast.prefix(fast.count / 2).write(to: URL(fileURLWithPath: path))
        let source = try VideoFileSource(path: path)
        var decoded = 0
        let text = expectOneLineError(containing: [path, "truncated"]) {
            while try source.nextFrame() != nil { decoded += 1 }
        }
        #expect(decoded < 80)
        print("truncated faststart video: \(decoded) frames decoded, then: \(text ?? "no error")")
    }

    @Test func videoWithoutIndexIsRejected() throws {
        // The first half of a file whose index (moov) is at its end.
        let folder = TemporaryFolder()
        let original = try #require(FileManager.default.contents(atPath: Paths.dataset("markers-blur") + "/video.mp4"))
        let path = folder.file("half.mp4")
        try original.prefix(original.count / 2).write(to: URL(fileURLWithPath: path))
        expectOneLineError(containing: [path]) { _ = try VideoFileSource(path: path) }
        let text = try folder.write("text.mp4", "not a video")
        expectOneLineError(containing: [text]) { _ = try VideoFileSource(path: text) }
        let missing = folder.file("missing.mp4")
        expectOneLineError(containing: [missing, "no such file"]) { _ = try VideoFileSource(path: missing) }
    }

    @Test func notASequenceFolder() {
        let folder = TemporaryFolder()
        expectOneLineError(containing: [folder.path + "/sequence.json", "no such file"]) {
            _ = try RecordedSequence(folder: folder.path)
        }
    }

    // MARK: Bad sequence.json

    struct BadSequence: CustomTestStringConvertible, Sendable {
        let name: String
        let json: String
        let mentions: [String]
        var testDescription: String { name }
    }

    static let camera = #""camera": {"width": 640, "height": 480, "fx": 525, "fy": 525, "cx": 319.5, "cy": 239.5}"#

    static let badSequences = [
        BadSequence(name: "both frames and video",
                    json: #"{"name": "x", "fps": 30, "frames": "frames/%06d.png", "video": "video.mp4", \#(camera)}"#,
                    mentions: ["exactly one", "frames", "video"]),
        BadSequence(name: "neither frames nor video", json: #"{"name": "x", "fps": 30, \#(camera)}"#,
                    mentions: ["exactly one"]),
        BadSequence(name: "fps 0", json: #"{"name": "x", "fps": 0, "video": "video.mp4", \#(camera)}"#,
                    mentions: ["fps"]),
        BadSequence(name: "malformed JSON", json: #"{"name": "x", "fps": 30, "video": "#, mentions: ["JSON"]),
        BadSequence(name: "negative marker size",
                    json: #"{"name": "x", "fps": 30, "video": "video.mp4", \#(camera), "markers": [{"dictionary": "DICT_4X4_50", "size": -0.08}]}"#,
                    mentions: ["marker size", "-0.08"]),
        BadSequence(name: "missing camera", json: #"{"name": "x", "fps": 30, "video": "video.mp4"}"#,
                    mentions: ["camera"]),
        BadSequence(name: "bad camera",
                    json: #"{"name": "x", "fps": 30, "video": "video.mp4", "camera": {"width": 640, "height": 480, "fx": -1, "fy": 525, "cx": 319.5, "cy": 239.5}}"#,
                    mentions: ["camera", "focal"]),
        BadSequence(name: "zero image width",
                    json: #"{"name": "x", "fps": 30, "video": "video.mp4", \#(camera), "images": [{"name": "p", "file": "p.png", "physicalWidth": 0}]}"#,
                    mentions: ["physicalWidth"]),
    ]

    @Test(arguments: badSequences)
    func badSequenceJSON(_ bad: BadSequence) throws {
        let folder = TemporaryFolder()
        let path = try folder.write("sequence.json", bad.json)
        let text = expectOneLineError(containing: [path] + bad.mentions) { _ = try RecordedSequence(folder: folder.path) }
        #expect(text?.hasPrefix(path + ": ") == true, "\(text ?? "")")
    }

    @Test func frameSequenceFromPNGFiles() throws {
        let folder = TemporaryFolder()
        try folder.write("sequence.json", #"{"name": "pngs", "fps": 10, "frames": "frames/%06d.png", \#(Self.camera)}"#)
        try FileManager.default.createDirectory(atPath: folder.file("frames"), withIntermediateDirectories: true)
        for i in 0..<3 {
            try Image.filled(width: 640, height: 480, value: UInt8(50 * i)).write(to: folder.file(String(format: "frames/%06d.png", i)))
        }
        let sequence = try RecordedSequence(folder: folder.path)
        let source = try sequence.openFrames()
        #expect(source.expectedFrameCount == 3)
        var frames: [Frame] = []
        while let f = try source.nextFrame() { frames.append(f) }
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(frames.map(\.time) == [0, 0.1, 0.2])
        #expect(frames[2].image.pixel(x: 5, y: 5) == 100)
        #expect(try sequence.groundTruth() == nil)
    }

    // MARK: Gravity files

    @Test func gravityFileParses() throws {
        let folder = TemporaryFolder()
        let path = try folder.write("gravity.jsonl", """
            {"frame": 0, "gravity": [0, -9.8, 0]}
            {"gravity": [0.1, -9.7, -0.5], "frame": 1}

            {"frame": 5, "gravity": [1, 2, 3]}

            """)
        let g = try GravityFile.read(contentsOf: path)
        #expect(g.count == 3)
        #expect(g[0] == SIMD3(0, -9.8, 0))
        #expect(g[1] == SIMD3(0.1, -9.7, -0.5))
        #expect(g[5] == SIMD3(1, 2, 3))
    }

    struct BadGravity: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let mentions: [String]
        var testDescription: String { name }
    }

    static let badGravity = [
        BadGravity(name: "malformed line", text: "{\"frame\": 0, \"gravity\": [0, -9.8, 0]}\n{\"frame\": 1, \"grav\n",
                   mentions: ["line 2"]),
        BadGravity(name: "two numbers", text: "{\"frame\": 0, \"gravity\": [0, -9.8]}\n", mentions: ["line 1", "3"]),
        BadGravity(name: "missing frame", text: "{\"gravity\": [0, -9.8, 0]}\n", mentions: ["line 1", "frame"]),
        BadGravity(name: "repeated frame",
                   text: "{\"frame\": 0, \"gravity\": [0, -9.8, 0]}\n{\"frame\": 0, \"gravity\": [0, -9.8, 0]}\n",
                   mentions: ["line 2", "repeated"]),
        // Line numbers count blank lines too: the bad line is the file's third line.
        BadGravity(name: "after a blank line", text: "{\"frame\": 0, \"gravity\": [0, -9.8, 0]}\n\n{\"frame\": 1}\n",
                   mentions: ["line 3"]),
    ]

    @Test(arguments: badGravity)
    func badGravityFile(_ bad: BadGravity) throws {
        let folder = TemporaryFolder()
        let path = try folder.write("gravity.jsonl", bad.text)
        expectOneLineError(containing: [path] + bad.mentions) { _ = try GravityFile.read(contentsOf: path) }
    }

    @Test func missingGravityFile() {
        let path = TemporaryFolder().file("gravity.jsonl")
        expectOneLineError(containing: [path, "no such file"]) { _ = try GravityFile.read(contentsOf: path) }
    }

    // MARK: Anchor streams

    static func sampleUpdate() throws -> FrameUpdate {
        let pose = Transform(rotation: .rotation(angle: 0.4, axis: SIMD3(0.2, 1, 0.1)), translation: SIMD3(0.05, -0.02, -0.6))
        let world = Transform(rotation: .rotation(angle: 0.1, axis: SIMD3(0, 1, 0)), translation: SIMD3(0.3, 1.4, 0.2))
        let marker = Anchor(identifier: "marker/DICT_4X4_50/7", kind: .marker, name: "7", isTracked: true, transform: pose,
                            extent: SIMD2(0.08, 0.08),
                            corners: [SIMD2(100.25, 200.5), SIMD2(180.125, 201), SIMD2(181, 280.75), SIMD2(99.5, 279)])
        let lost = Anchor(identifier: "marker/DICT_4X4_50/3", kind: .marker, name: "3", isTracked: false,
                          transform: Transform(translation: SIMD3(-0.1, 0, -0.5)), extent: SIMD2(0.08, 0.08))
        return FrameUpdate(frame: 12, time: 0.4, camera: CameraState(transform: world, trackingState: .limited(.excessiveMotion), intrinsics: testCamera),
                           anchors: [marker, lost])
    }

    @Test func anchorStreamRoundTrip() throws {
        let folder = TemporaryFolder()
        let path = folder.file("anchors.jsonl")
        let original = try Self.sampleUpdate()
        var second = original
        second.frame = 13
        second.time = 13.0 / 30
        second.camera = CameraState(intrinsics: testCamera)
        let writer = try AnchorStreamWriter(path: path)
        try writer.write(original)
        try writer.write(second)
        try writer.finish()
        #expect(folder.contents() == ["anchors.jsonl"], "no temporary file left behind")

        // One JSON object per line, with the FORMATS.md keys.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(text.hasSuffix("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["frame"] as? Int == 12)
        let camera = try #require(object["camera"] as? [String: Any])
        #expect(camera["tracking"] as? String == "limited")
        #expect(camera["reason"] as? String == "excessiveMotion")
        let anchors = try #require(object["anchors"] as? [[String: Any]])
        #expect(anchors.count == 2)
        #expect(anchors[0]["id"] as? String == "marker/DICT_4X4_50/7")
        #expect(anchors[0]["type"] as? String == "marker")
        #expect(anchors[0]["tracked"] as? Bool == true)
        #expect((anchors[0]["transform"] as? [Double])?.count == 16)
        #expect((anchors[0]["transform"] as? [Double])?[14] == -0.6, "translation z at index 14")
        #expect(anchors[1]["tracked"] as? Bool == false)
        #expect(anchors[1]["corners"] == nil)

        let read = try AnchorStreamReader.read(contentsOf: path, camera: testCamera)
        #expect(read.count == 2)
        let back = read[0]
        #expect(back.frame == 12 && back.time == 0.4)
        #expect(isNear(back.camera.transform, original.camera.transform, 0))
        #expect(back.camera.trackingState == .limited(.excessiveMotion))
        #expect(back.anchors.count == 2)
        let m = try #require(back.anchor("marker/DICT_4X4_50/7"))
        let o = original.anchors[0]
        #expect(m.kind == .marker && m.name == "7" && m.isTracked)
        #expect(isNear(m.transform, o.transform, 0), "JSON round trip is exact")
        #expect(m.extent == SIMD2(0.08, 0.08))
        #expect(m.corners == o.corners)
        let lost = try #require(back.anchor("marker/DICT_4X4_50/3"))
        #expect(!lost.isTracked)
        #expect(lost.corners == nil)
        #expect(lost.transform.translation == SIMD3(-0.1, 0, -0.5))
        #expect(read[1].frame == 13 && read[1].camera.trackingState == .normal)
        #expect(read[1].camera.transform == .identity)
    }

    @Test func readerAcceptsTheFormatsExample() throws {
        // The example of FORMATS.md, with concrete numbers and a plane anchor.
        let identity = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]"
        let line = """
            {"frame": 12, "time": 0.4, "camera": {"transform": \(identity), "tracking": "normal"}, "anchors": [\
            {"id": "image/poster", "type": "image", "name": "poster", "tracked": true, "transform": \(identity), \
            "extent": [0.40, 0.30], "corners": [[1, 2], [3, 4], [5, 6], [7, 8]]}, \
            {"id": "plane/0", "type": "plane", "alignment": "horizontal", "tracked": true, "transform": \(identity), \
            "extent": [1.2, 0.8], "polygon": [[0, 0], [1, 0], [0, 1]], "coverage": 0.3}]}
            """
        let folder = TemporaryFolder()
        let path = try folder.write("gt.jsonl", line + "\n")
        let read = try AnchorStreamReader.read(contentsOf: path, camera: testCamera)
        #expect(read.count == 1)
        #expect(read[0].anchors.map(\.kind) == [.image, .plane])
        #expect(read[0].anchors[1].polygon?.count == 3)
        #expect(read[0].anchors[1].alignment == .horizontal)
        #expect(read[0].anchors[1].coverage == 0.3)
    }

    @Test func readerNamesTheMalformedLine() throws {
        let folder = TemporaryFolder()
        let good = String(data: try JSONEncoder().encode(try Self.sampleUpdate()), encoding: .utf8)!
        let path = try folder.write("anchors.jsonl", good + "\n" + good + "\n{\"frame\": 3, \"anchors\": [\n" + good + "\n")
        expectOneLineError(containing: [path, "line 3"]) { _ = try AnchorStreamReader.read(contentsOf: path, camera: testCamera) }
    }

    @Test func readerRejectsSchemaViolations() throws {
        let folder = TemporaryFolder()
        let camera = #""camera": {"transform": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1], "tracking": "normal"}"#
        let cases: [(String, String)] = [
            (#"{"frame": 0, \#(camera), "anchors": [{"id": "a", "type": "marker", "tracked": true, "transform": [2,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1], "extent": [1, 1]}]}"#, "rigid"),
            (#"{"frame": 0, \#(camera), "anchors": [{"id": "a", "type": "marker", "tracked": true, "transform": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0], "extent": [1, 1]}]}"#, "16"),
            (#"{"frame": 0, \#(camera), "anchors": [{"id": "a", "type": "marker", "tracked": true, "transform": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1], "extent": [1, 1], "corners": [[0, 0], [1, 0], [1, 1]]}]}"#, "corners"),
            (#"{"frame": 0, "camera": {"transform": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1], "tracking": "great"}, "anchors": []}"#, "tracking"),
            (#"{"frame": 0, \#(camera), "anchors": [{"id": "a", "type": "blob", "tracked": true, "transform": [1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1], "extent": [1, 1]}]}"#, "type"),
        ]
        for (i, (line, mention)) in cases.enumerated() {
            let path = try folder.write("bad\(i).jsonl", "\n" + line + "\n")
            expectOneLineError(containing: [path, "line 2", mention]) { _ = try AnchorStreamReader.read(contentsOf: path, camera: testCamera) }
        }
    }

    @Test func readerOnMissingFile() {
        let path = TemporaryFolder().file("none.jsonl")
        expectOneLineError(containing: [path, "no such file"]) { _ = try AnchorStreamReader.read(contentsOf: path, camera: testCamera) }
    }

    @Test func discardedWriterLeavesNothing() throws {
        let folder = TemporaryFolder()
        let path = folder.file("anchors.jsonl")
        let writer = try AnchorStreamWriter(path: path)
        try writer.write(try Self.sampleUpdate())
        writer.discard()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(folder.contents().isEmpty, "left behind: \(folder.contents())")
    }

    @Test func unfinishedWriterLeavesNothing() throws {
        let folder = TemporaryFolder()
        let path = folder.file("anchors.jsonl")
        do {
            let writer = try AnchorStreamWriter(path: path)
            try writer.write(try Self.sampleUpdate())
            #expect(!FileManager.default.fileExists(atPath: path), "nothing at the destination before finish()")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(folder.contents().isEmpty, "left behind: \(folder.contents())")
    }

    @Test func finishReplacesAnExistingFile() throws {
        let folder = TemporaryFolder()
        let path = try folder.write("anchors.jsonl", "old contents\n")
        let writer = try AnchorStreamWriter(path: path)
        try writer.write(try Self.sampleUpdate())
        // Until finished, the old file is untouched.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old contents\n")
        try writer.finish()
        #expect(try AnchorStreamReader.read(contentsOf: path, camera: testCamera).count == 1)
        #expect(folder.contents() == ["anchors.jsonl"])
    }

    @Test func writerInAMissingFolder() {
        let path = TemporaryFolder().file("missing/anchors.jsonl")
        expectOneLineError(containing: [path, "does not exist"]) { _ = try AnchorStreamWriter(path: path) }
    }
}
