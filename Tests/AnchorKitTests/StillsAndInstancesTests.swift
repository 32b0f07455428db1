import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitEvaluation
@testable import AnchorKitMedia

/// Markers where people film them (issue 22), through the built `anchorkit` and the library on
/// real and rendered data: single photos report everything at once, markers printing one id are
/// told apart and keep their identifiers, listed targets that never show up are named, and bad
/// marker input is one line.
@Suite("Stills and marker instances")
struct StillsAndInstancesTests {
    typealias CLI = CLITests

    static let photo = Paths.shared + "/datasets/real-apriltag-photo/AprilTag.png"
    /// The photo's camera (its README).
    static let photoCamera = #"{"width": 640, "height": 480, "fx": 615.1674805, "fy": 615.1675415, "cx": 312.1889954, "cy": 243.4373779}"#

    static func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    static func trackedIds(_ line: [String: Any]) -> [String] {
        ((line["anchors"] as? [[String: Any]]) ?? []).filter { $0["tracked"] as? Bool == true }.compactMap { $0["id"] as? String }
    }

    /// One photo: all 12 tags of the real photo in its one line, with no second frame to confirm
    /// them, unlisted ids included; the line names the photo.
    @Test func aPhotoReportsEveryTagAtOnce() async throws {
        let work = TemporaryFolder()
        let camera = try work.write("camera.json", Self.photoCamera)
        let r = try await CLI.run(["track", Self.photo, "--camera", camera, "--markers", "DICT_APRILTAG_36h11:0.053",
                                   "-o", work.file("a.jsonl"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try Self.lines(work.file("a.jsonl"))
        #expect(lines.count == 1)
        #expect(Set(Self.trackedIds(lines[0])) == Set((8...19).map { "marker/DICT_APRILTAG_36h11/\($0)" }))
        #expect((lines[0]["image"] as? String)?.hasSuffix("AprilTag.png") == true)
    }

    /// A folder of unrelated photos: each line lists only what its own photo shows (nothing is
    /// carried over as "not tracked"), and listed ids never found are named in the summary.
    @Test func aFolderOfPhotosAndWhatWasNeverFound() async throws {
        let work = TemporaryFolder()
        let camera = try work.write("camera.json", Self.photoCamera)
        try FileManager.default.createDirectory(atPath: work.file("photos"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.photo, toPath: work.file("photos/a.png"))
        try Image.filled(width: 640, height: 480, channels: 1, value: 200).write(to: work.file("photos/b.png"))
        let r = try await CLI.run(["track", work.file("photos"), "--camera", camera,
                                   "--markers", "DICT_APRILTAG_36h11:0.053:8,9,99", "-o", work.file("a.jsonl")])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try Self.lines(work.file("a.jsonl"))
        #expect(lines.count == 2)
        #expect(Self.trackedIds(lines[0]).sorted() == ["marker/DICT_APRILTAG_36h11/8", "marker/DICT_APRILTAG_36h11/9"])
        #expect((lines[1]["anchors"] as? [Any])?.isEmpty == true, "the blank photo lists nothing")
        #expect(r.stdout.contains("never found: marker DICT_APRILTAG_36h11 99"), "\(r.stdout)")
    }

    /// A size that is not positive, an unknown family, a photo that cannot be decoded: one line,
    /// a non-zero exit, no output file.
    @Test func badMarkerInputIsOneLine() async throws {
        let work = TemporaryFolder()
        let camera = try work.write("camera.json", Self.photoCamera)
        let broken = try work.write("broken.png", "not a picture")
        let cases: [([String], [String])] = [
            ([Self.photo, "--markers", "DICT_APRILTAG_36h11:0"], ["marker size"]),
            ([Self.photo, "--markers", "DICT_APRILTAG_36h11:-0.05"], ["marker size"]),
            ([Self.photo, "--markers", "DICT_9X9_7:0.05"], ["DICT_9X9_7"]),
            ([broken, "--markers", "DICT_APRILTAG_36h11:0.05"], ["broken.png"]),
        ]
        for (arguments, mentions) in cases {
            let out = TemporaryFolder()
            let r = try await CLI.run(["track"] + arguments + ["--camera", camera, "-o", out.file("a.jsonl"), "--quiet"])
            CLI.expectCleanFailure(r, mentions: mentions, outputFolder: out)
        }
    }

    /// Several tags printing one id (markers-far-walk: id 3 three times, id 8 twice, far and
    /// oblique): every instance is reported, and each reported identifier stays with one physical
    /// tag over the walk (scored: no identity switch).
    @Test func everyInstanceKeepsItsIdentifier() throws {
        let sequence = try RecordedSequence(folder: Paths.dataset("markers-far-walk"))
        let session = try Session(configuration: try Configuration(sequence: sequence))
        let source = try sequence.openFrames()
        var updates: [FrameUpdate] = []
        while let frame = try source.nextFrame(), frame.index < 120 { updates.append(try session.process(frame)) }
        let truth = try #require(try sequence.groundTruth()).filter { $0.frame < 120 }
        let score = Scorer(camera: sequence.description.camera).score(reported: updates, truth: truth)
        let reported = Set(updates.flatMap { $0.anchors.filter(\.isTracked).map(\.identifier) })
        for id in ["3", "3/1", "3/2", "8", "8/1", "14"] {
            #expect(reported.contains("marker/DICT_APRILTAG_36h11/\(id)"), "instance \(id) never reported")
        }
        print("markers-far-walk, first 120 frames: success at 5 px \(score.successRate(at: 5) ?? 0), identity switches \(score.identitySwitches)")
        #expect(score.identitySwitches == 0)
        #expect(score.falsePositives == 0)
        #expect((score.successRate(at: 5) ?? 0) > 0.9)
    }
}
