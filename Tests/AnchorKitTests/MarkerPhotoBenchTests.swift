import Foundation
import Testing
@testable import AnchorKit
@testable import anchorkit

/// `anchorkit bench marker-photos`: its reference corners, scaling, crops and matching on the real
/// AprilTag sheet (../shared/datasets/real-apriltag-photo), checked against libapriltag's own
/// detections, which the shim converts to OpenCV's convention independently of the bench.
@Suite("Marker photo benchmark")
struct MarkerPhotoBenchTests {
    static let aprilTagFolder = Paths.shared + "/datasets/real-apriltag-photo"

    static func photo(_ sets: [PhotoSet], family: String, scale: Int) throws -> [BenchPhoto] {
        try #require(sets.first { $0.family == family && $0.scale == scale }).photos
    }

    /// The bench's reading of ViSP's file (OpenCV corner k = point k ^ 1, (column, row) - 0.5) is
    /// the one correspondence that fits libapriltag's detections: every other turn or winding of
    /// the corners is a side away, the other pixel convention 0.7 px away.
    @Test func referenceCornersFitLibapriltagsDetections() throws {
        let sets = try MarkerPhotoSets.aprilTag(folder: Self.aprilTagFolder, scales: [1])
        let sheet = try #require(try Self.photo(sets, family: "AprilTag sheet", scale: 1).first)
        #expect(sheet.markers.map(\.id) == Array(8...19))
        let detections = try AprilTagPeerTool(decimation: 1).prepare(sheet)()
        let reference = Dictionary(uniqueKeysWithValues: sheet.markers.map { ($0.id, $0.corners) })
        // The 8 orders of a square's corners (4 turns, 2 windings), each with both pixel conventions.
        var medians: [String: Double] = [:]
        for turn in 0..<4 {
            for reversed in [false, true] {
                for offset in [0.0, 0.5] {
                    let errors = detections.compactMap { d in
                        reference[d.id].map { r in
                            MarkerMatching.cornerRMS(d.corners, (0..<4).map { k in r[(reversed ? turn - k + 4 : turn + k) % 4] + offset })
                        }
                    }
                    medians["turn \(turn)\(reversed ? " reversed" : "") offset \(offset)"] = Summary(errors)?.median
                }
            }
        }
        let bench = try #require(medians["turn 0 offset 0.0"])
        print("libapriltag against the bench's reference corners: median RMS " + String(format: "%.3f px", bench))
        #expect(bench < 0.25, "the bench's reading is \(bench) px from libapriltag's corners")
        for (name, median) in medians where name != "turn 0 offset 0.0" {
            #expect(median > 0.5, "\(name) fits libapriltag as well (\(median) px)")
        }
    }

    /// libapriltag at decimate 1 finds all 12 tags in the whole sheet and in each single-tag crop,
    /// with no false detection, and each within 2 px of its reference.
    @Test func libapriltagFindsEveryTagAtFullSize() throws {
        let sets = try MarkerPhotoSets.aprilTag(folder: Self.aprilTagFolder, scales: [1])
        let tool = AprilTagPeerTool(decimation: 1)
        for photo in try Self.photo(sets, family: "AprilTag sheet", scale: 1) + Self.photo(sets, family: "AprilTag crops", scale: 1) {
            let score = MarkerMatching.score(try tool.prepare(photo)(), in: photo)
            #expect(score.missed.isEmpty && score.falseDetections == 0,
                    "\(photo.name): missed \(score.missed.map(\.id)), \(score.falseDetections) false")
            #expect(score.cornerErrors.allSatisfy { $0 < 2 }, "\(photo.name): \(score.cornerErrors)")
        }
    }

    /// Shrunk sheets and crops: the references mapped with pixel centres at integers,
    /// x' = (x + 0.5) s - 0.5, stay within 2 px of libapriltag's detections, 0.25 px in the median;
    /// mapping x' = x s instead would be 0.35 px off at 1/2 and 0.47 px at 1/3 before any noise.
    @Test(arguments: [2, 3])
    func scaledReferencesFollowThePixels(_ scale: Int) throws {
        let sets = try MarkerPhotoSets.aprilTag(folder: Self.aprilTagFolder, scales: [scale])
        let tool = AprilTagPeerTool(decimation: 1)
        var errors: [Double] = []
        for photo in try Self.photo(sets, family: "AprilTag sheet", scale: scale) + Self.photo(sets, family: "AprilTag crops", scale: scale) {
            // The scored tags only: a crop's neighbours may be cut by its border.
            let reference = Dictionary(uniqueKeysWithValues: photo.markers.map { ($0.id, $0.corners) })
            for d in try tool.prepare(photo)() {
                guard let r = reference[d.id] else { continue }
                errors.append(MarkerMatching.cornerRMS(d.corners, r))
            }
        }
        let summary = try #require(Summary(errors))
        print("libapriltag at 1/\(scale): \(errors.count) detections, corner RMS from the scaled references median "
              + String(format: "%.3f px, max %.3f px", summary.median, summary.max))
        #expect(summary.max < 2)
        #expect(summary.median < 0.25)
    }

    /// The matching rules, on the sheet's own reference corners: the reference itself is found
    /// with no error; the same corners one turn off, a wrong id, and a second copy of a found tag
    /// are false; a neighbour in a crop is set aside.
    @Test func matchingRules() throws {
        let sets = try MarkerPhotoSets.aprilTag(folder: Self.aprilTagFolder, scales: [1])
        let crop = try #require(try Self.photo(sets, family: "AprilTag crops", scale: 1).first { $0.markers.first?.id == 12 })
        let tag = try #require(crop.markers.first)
        let neighbour = try #require(crop.context.first { $0.id == 9 })
        let exact = FoundMarker(id: tag.id, corners: tag.corners)
        let turned = FoundMarker(id: tag.id, corners: (0..<4).map { tag.corners[($0 + 1) % 4] })
        let wrongID = FoundMarker(id: 30, corners: tag.corners)
        let shifted = FoundMarker(id: tag.id, corners: tag.corners.map { $0 + SIMD2(1, 0) })

        let found = MarkerMatching.score([exact], in: crop)
        #expect(found.cornerErrors == [0] && found.falseDetections == 0 && found.missed.isEmpty)
        let wrong = MarkerMatching.score([turned, wrongID], in: crop)
        #expect(wrong.cornerErrors.isEmpty && wrong.falseDetections == 2 && wrong.missed.map(\.id) == [tag.id])
        let twice = MarkerMatching.score([shifted, exact], in: crop)
        #expect(twice.cornerErrors == [0] && twice.falseDetections == 1, "the closer copy is the match")
        let context = MarkerMatching.score([FoundMarker(id: neighbour.id, corners: neighbour.corners)], in: crop)
        #expect(context.contextDetections == 1 && context.falseDetections == 0 && context.missed.count == 1)
        // The gate: a quarter of the side, at most 5 px.
        #expect(MarkerMatching.gate(for: tag) == min(5, tag.side / 4))
        #expect(MarkerMatching.score([FoundMarker(id: tag.id, corners: tag.corners.map { $0 + SIMD2(5.1, 0) })], in: crop)
                    .falseDetections == 1)
    }

    /// Still photos' refinement (``MarkerDetectionParameters/stillPhotos``: AprilTag 3's corners
    /// without cornerSubPix, templates of at least 3 pixels a module) finds every tag video's
    /// refinement finds in the real sheet and its crops at the four scales (tags of 11-76 px), with
    /// no false detection, and as close to the reference corners (libapriltag's own) in the median.
    @Test func stillPhotosRefinementFindsAsManyAsClosely() throws {
        let sets = try MarkerPhotoSets.aprilTag(folder: Self.aprilTagFolder, scales: [1, 2, 3, 4])
        var video = MarkerDetectionParameters().forStills()
        video.stillPhotos = false
        let tools = [MarkerDetectorTool.anchorKit(MarkerDetectionParameters().forStills()), MarkerDetectorTool.anchorKit(video)]
        var found = [0, 0], errors: [[Double]] = [[], []]
        for photo in sets.flatMap(\.photos) {
            for (t, tool) in tools.enumerated() {
                let score = MarkerMatching.score(try tool.prepare(photo)(), in: photo)
                #expect(score.falseDetections == 0, "\(photo.name): \(score.falseDetections) false")
                found[t] += photo.markers.count - score.missed.count
                errors[t] += score.cornerErrors
            }
        }
        let still = try #require(Summary(errors[0])).median, moving = try #require(Summary(errors[1])).median
        print("real AprilTag sheet and crops, still photos' refinement against video's: found \(found[0]) / \(found[1]), "
              + String(format: "corner RMS median %.3f / %.3f px", still, moving))
        #expect(found[0] == found[1] && found[0] >= 84)
        #expect(still <= moving + 0.01)
    }

    /// Every tool runs on every photo it accepts, once untimed and `repeats` times timed;
    /// libapriltag is not run on ArUco dictionaries.
    @Test func runsEveryAcceptedToolRepeatedly() throws {
        let sets = try MarkerPhotoSets.aprilTag(folder: Self.aprilTagFolder, scales: [4]).filter { $0.family == "AprilTag sheet" }
            + MarkerPhotoSets.aruco(folder: Paths.arucoPhotos, scales: [3])
        let runs = try MarkerPhotoRun.measure(sets, tools: [AprilTagPeerTool(decimation: 1)], repeats: 2)
        for (s, set) in sets.enumerated() {
            for (p, photo) in set.photos.enumerated() {
                if photo.dictionary.name.hasPrefix("DICT_APRILTAG_") {
                    let run = try #require(runs[s][p][0])
                    #expect(run.wall.count == 2 && run.cpu.count == 2 && !run.varied)
                } else {
                    #expect(runs[s][p][0] == nil)
                }
            }
        }
    }

    @Test func missingDataIsOneLine() async throws {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("real-apriltag-photo"), withIntermediateDirectories: true)
        let missing = try await CLITests.run(["bench", "marker-photos", folder.file("none")])
        CLITests.expectCleanFailure(missing, mentions: [folder.file("none")])
        let empty = try await CLITests.run(["bench", "marker-photos", folder.path])
        CLITests.expectCleanFailure(empty, mentions: ["AprilTag.png"])
    }
}
