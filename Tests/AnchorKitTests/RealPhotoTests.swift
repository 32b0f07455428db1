import Foundation
import Testing
@testable import AnchorKit

/// Real photographs: OpenCV's ArUco tutorial images with the gold corners of OpenCV's own test
/// (../shared/datasets/opencv-aruco-photos/gold_markers.json).
@Suite("Real photos")
struct RealPhotoTests {
    struct GoldMarker: Decodable, Sendable {
        let id: Int
        let corners: [[Double]]
    }

    struct GoldEntry: Decodable, Sendable {
        let image: String
        let num_markers: Int
        let dictionary: String
        let markers: [GoldMarker]?
        let expected_ids_multiset: [Int]?
        let tolerance_px: Double?
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let entry: GoldEntry
        var testDescription: String { name }
    }

    static let gold: [String: GoldEntry] = {
        let path = Paths.arucoPhotos + "/gold_markers.json"
        guard let data = FileManager.default.contents(atPath: path),
              let gold = try? JSONDecoder().decode([String: GoldEntry].self, from: data) else { return [:] }
        return gold
    }()

    static let markerCases: [Case] = gold.filter { $0.value.markers != nil }.sorted { $0.key < $1.key }
        .map { Case(name: $0.key, entry: $0.value) }

    static func dictionary(for entry: GoldEntry) throws -> MarkerDictionary {
        if entry.dictionary.hasPrefix("DICT_") { return try MarkerDictionary(named: entry.dictionary) }
        #expect(entry.dictionary.hasPrefix("tutorial_dict.yml"))
        return try MarkerDictionary(contentsOf: Paths.arucoPhotos + "/tutorial_dict.yml")
    }

    @Test func goldFileIsComplete() {
        #expect(Self.gold.count == 5)
        #expect(Set(Self.markerCases.map(\.name))
                    == ["can_find_singlemarkersoriginal", "can_find_gboriginal", "can_find_choriginal", "can_find_chocclusion"])
        #expect(Self.gold["can_find_diamondmarkers"]?.expected_ids_multiset?.count == 12)
    }

    @Test func customDictionaryLoads() throws {
        let d = try MarkerDictionary(contentsOf: Paths.arucoPhotos + "/tutorial_dict.yml")
        #expect(d.count == 35)
        #expect(d.bits == 6)
        #expect(d.name == "tutorial_dict")
    }

    @Test func badDictionaryFiles() throws {
        let folder = TemporaryFolder()
        let missing = folder.file("none.yml")
        expectOneLineError(containing: [missing]) { _ = try MarkerDictionary(contentsOf: missing) }
        let garbage = try folder.write("garbage.yml", "%YAML:1.0\nnmarkers: 2\nmarkersize: 6\nmarker_0: \"10\"\n")
        expectOneLineError(containing: [garbage]) { _ = try MarkerDictionary(contentsOf: garbage) }
        expectOneLineError(containing: ["DICT_9X9_1"]) { _ = try MarkerDictionary(named: "DICT_9X9_1") }
    }

    /// The gold corners are OpenCV's own unrefined detections, integers "within ±1 px" of the
    /// truth. Refined corners are more accurate than that: against the chessboard saddle points of
    /// the ChArUco photos (an independent reference, Benchmarks/real-photos) the default refinement
    /// is 0.25–0.43 px RMS and the gold about 1.0 px. So refined corners must agree with gold
    /// within its stated ±1 px on average and never by more than 2 px, and unrefined ones
    /// (OpenCV 4.6 here, 5.0 for the gold) must reproduce it within 1.5 px.
    @Test(arguments: markerCases)
    func detectsTheGoldMarkers(_ c: Case) throws {
        let entry = c.entry
        let gold = try #require(entry.markers)
        let image = try Image(contentsOf: Paths.arucoPhotos + "/" + entry.image)
        #expect(image.width == 640 && image.height == 480)
        for refinement in [MarkerDetectionParameters.CornerRefinement.template, .none] {
            var parameters = MarkerDetectionParameters()
            parameters.cornerRefinement = refinement
            let detector = try MarkerDetector(dictionary: try Self.dictionary(for: entry), parameters: parameters)
            let found = try detector.detect(in: image)

            let foundIds = found.map(\.id)
            #expect(foundIds.count == Set(foundIds).count, "\(c.name): duplicate ids \(foundIds.sorted())")
            #expect(Set(foundIds) == Set(gold.map(\.id)),
                    "\(c.name): missing \(Set(gold.map(\.id)).subtracting(foundIds).sorted()), extra \(Set(foundIds).subtracting(gold.map(\.id)).sorted())")
            #expect(gold.count == entry.num_markers)

            var distances: [Double] = []
            for g in gold {
                guard let d = found.first(where: { $0.id == g.id }) else { continue }
                for (k, corner) in g.corners.enumerated() {
                    distances.append(length(d.corners[k] - SIMD2(corner[0], corner[1])))
                }
            }
            let mean = distances.reduce(0, +) / Double(max(1, distances.count)), worst = distances.max() ?? 0
            print("real photo \(c.name) [\(refinement)]: \(found.count) found of \(gold.count) gold, corner distance to gold mean "
                  + String(format: "%.3f", mean) + " px, worst " + String(format: "%.3f", worst) + " px")
            if refinement == .none {
                #expect(worst <= 1.5, "\(c.name): unrefined corners \(worst) px from gold")
            } else {
                #expect(mean <= 1.0 && worst <= 2.0, "\(c.name): refined corners mean \(mean) px, worst \(worst) px from gold")
            }
        }
    }

    @Test func diamondMarkersIdMultiset() throws {
        let entry = try #require(Self.gold["can_find_diamondmarkers"])
        let expected = try #require(entry.expected_ids_multiset).sorted()
        let image = try Image(contentsOf: Paths.arucoPhotos + "/" + entry.image)
        let dictionary = try Self.dictionary(for: entry)
        var results: [String: [Int]] = [:]
        for refinement in [MarkerDetectionParameters.CornerRefinement.subpixel, .aprilTag, .none] {
            var parameters = MarkerDetectionParameters()
            parameters.cornerRefinement = refinement
            let ids = try MarkerDetector(dictionary: dictionary, parameters: parameters).detect(in: image).map(\.id).sorted()
            results["\(refinement)"] = ids
            print("real photo diamondmarkers [\(refinement) refinement]: ids \(ids) (expected \(expected))")
        }
        // OpenCV 5 finds all 12; OpenCV 4.6's detector misses one 10 and one 11 whatever the
        // refinement or thresholds (measured): at least 10, and none that is not there.
        for ids in results.values {
            #expect(ids.count >= 10, "found \(ids)")
            var remaining = expected
            for id in ids {
                guard let i = remaining.firstIndex(of: id) else { Issue.record("extra id \(id) in \(ids)"); continue }
                remaining.remove(at: i)
            }
        }
    }

    @Test func grayAndColourGiveTheSameDetections() throws {
        let path = Paths.arucoPhotos + "/images/singlemarkersoriginal.jpg"
        let detector = try MarkerDetector(dictionary: try MarkerDictionary(named: "DICT_6X6_250"))
        let colour = try detector.detect(in: try Image(contentsOf: path))
        let gray = try detector.detect(in: try Image(contentsOf: path, channels: 1))
        #expect(colour.map(\.id).sorted() == gray.map(\.id).sorted())
    }

    @Test func unreadableImages() throws {
        let folder = TemporaryFolder()
        let empty = try folder.write("empty.png", "")
        expectOneLineError(containing: [empty]) { _ = try Image(contentsOf: empty) }
        let text = try folder.write("text.jpg", "not a jpeg")
        expectOneLineError(containing: [text]) { _ = try Image(contentsOf: text) }
        let missing = folder.file("missing.png")
        expectOneLineError(containing: [missing]) { _ = try Image(contentsOf: missing) }
    }

    @Test func enormousImageIsRejected() throws {
        // 12000x12000 (144 megapixels) is beyond the library's image limit: a one-line error, not
        // a 432 MB decode that the tracker then grinds through.
        let path = Paths.fixtures + "/enormous.png"
        #expect(FileManager.default.fileExists(atPath: path))
        expectOneLineError(containing: [path, "large"]) { _ = try Image(contentsOf: path, channels: 1) }
    }
}
