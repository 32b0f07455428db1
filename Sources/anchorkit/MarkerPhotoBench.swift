import AnchorKit
import AnchorKitCV
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `anchorkit bench marker-photos`: recall, false detections, corner error and time per photo of
/// anchorkit's marker detector beside libapriltag (decimate 1 and 2) and OpenCV's ArUco detector,
/// on real photos with reference corners, in one process. See Benchmarks/README.md.
struct MarkerPhotoBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marker-photos",
        abstract: "Markers in real photos (ViSP's AprilTag sheet, OpenCV's ArUco tutorial photos) at several scales: anchorkit beside libapriltag and OpenCV's detector.",
        discussion: """
            Reads real-apriltag-photo/ and opencv-aruco-photos/ under FOLDER (never copied) and builds the \
            photos in memory: the AprilTag sheet whole and as single-tag crops at scales 1, 1/2, 1/3, 1/4; \
            the ArUco photos with gold corners (diamondmarkers, ids only, is skipped) at 1, 1/2, 1/3. A \
            reference marker is found when a detection has its id and a corner RMS error within \
            min(5 px, a quarter of its side).
            """)

    @Argument(help: "The folder holding real-apriltag-photo/ and opencv-aruco-photos/.")
    var folder: String = "../shared/datasets"

    @Option(help: "Timed runs of every tool on every photo (the median is kept), after one untimed run.")
    var repeats = 5

    @Flag(help: "Print the results as JSON instead of markdown tables.")
    var json = false

    @Flag(help: "Also list every reference marker each tool missed (photo, id, side).")
    var misses = false

    func validate() throws {
        guard (1...1000).contains(repeats) else { throw ValidationError("--repeats must be in 1...1000, got \(repeats)") }
    }

    func run() throws {
        try reportingErrors {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw InputError(folder, "no such folder (expected the shared datasets, with real-apriltag-photo/ and opencv-aruco-photos/)")
            }
            let sets = try MarkerPhotoSets.aprilTag(folder: folder + "/real-apriltag-photo")
                + MarkerPhotoSets.aruco(folder: folder + "/opencv-aruco-photos")
            // anchorkit refines a photo's markers on every core (as `track --stills` does);
            // libapriltag beside it as a new user gets it (one thread).
            let stills = MarkerDetectionParameters().forStills()
            var tools: [MarkerBenchTool] = [MarkerDetectorTool.anchorKit(stills), AprilTagPeerTool(decimation: 1)]
            tools += [AprilTagPeerTool(decimation: 2), MarkerDetectorTool.openCV()]
            let loadBefore = MachineLoad.now()
            let measured = try MarkerPhotoRun.measure(sets, tools: tools, repeats: repeats)
            let report = MarkerPhotoReport(sets: sets, tools: tools, measured: measured, repeats: repeats,
                                           loadBefore: loadBefore, loadAfter: MachineLoad.now())
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(report.markdown(listingMisses: misses))
            }
        }
    }
}

// MARK: - Photos and reference markers

/// A marker printed in a photo: its id and its four corners in pixels, in OpenCV's order (TL, TR,
/// BR, BL of the dictionary's marker image) with pixel centres at integers.
struct ReferenceMarker: Sendable {
    var id: Int
    var corners: [SIMD2<Double>]

    /// The mean length of the four sides, pixels.
    var side: Double { (0..<4).map { length(corners[$0] - corners[($0 + 1) % 4]) }.reduce(0, +) / 4 }

    /// The marker in a copy of its photo resized by `scale` (new / old size, per axis): pixel
    /// centres at integers map as x' = (x + 0.5) * s - 0.5, as cv::resize maps them.
    func scaled(by scale: SIMD2<Double>) -> ReferenceMarker {
        ReferenceMarker(id: id, corners: corners.map { ($0 + 0.5) * scale - 0.5 })
    }

    /// The marker in a crop whose top-left pixel is `origin` (pixels) of its photo.
    func shifted(to origin: SIMD2<Double>) -> ReferenceMarker {
        ReferenceMarker(id: id, corners: corners.map { $0 - origin })
    }
}

/// One photo of the benchmark, built in memory from a data set file.
struct BenchPhoto {
    /// File, crop and scale, e.g. `AprilTag.png tag 8 1/2`.
    var name: String
    var dictionary: MarkerDictionary
    /// Gray, as every tool receives it.
    var image: Image
    /// The markers scored: each is found or missed.
    var markers: [ReferenceMarker]
    /// Other markers in view that count neither way (the neighbours inside a single-tag crop): a
    /// detection of one of them is neither found nor false.
    var context: [ReferenceMarker] = []
}

/// Photos of one source at one scale, scored together.
struct PhotoSet {
    /// The source, e.g. `AprilTag sheet`, `AprilTag crops`, `ArUco photos`.
    var family: String
    /// The photos are the originals shrunk `scale` times (1, 2, 3, 4).
    var scale: Int
    var photos: [BenchPhoto]

    var name: String { "\(family) 1/\(scale)" }
    var markerCount: Int { photos.reduce(0) { $0 + $1.markers.count } }
    /// The sides of the scored markers, pixels.
    var sides: [Double] { photos.flatMap { $0.markers.map(\.side) } }
}

/// The photo sets, from the shared data sets' files.
enum MarkerPhotoSets {
    /// Shrink factors of the AprilTag sheet: down to tags of 10-20 px sides, where detectors part.
    static let aprilTagScales = [1, 2, 3, 4]
    /// Shrink factors of the ArUco photos, whose markers start smaller than the sheet's tags.
    static let arucoScales = [1, 2, 3]

    /// ViSP's sheet of 12 tag36h11 tags (real-apriltag-photo): the whole photo, and one crop per
    /// tag (its bounding box grown by one tag side each way, clipped to the photo), at every
    /// scale of `aprilTagScales`.
    static func aprilTag(folder: String, scales: [Int] = aprilTagScales) throws -> [PhotoSet] {
        let dictionary = try MarkerDictionary(named: "DICT_APRILTAG_36h11")
        let photo = try Image(contentsOf: folder + "/AprilTag.png", channels: 1)
        let tags = try vispCorners(file: folder + "/ground_truth_detection.txt")
        var whole: [PhotoSet] = [], crops: [PhotoSet] = []
        for scale in scales {
            let (image, markers) = try shrunk(photo, markers: tags, by: scale)
            let suffix = " 1/\(scale)"
            whole.append(PhotoSet(family: "AprilTag sheet", scale: scale, photos: [
                BenchPhoto(name: "AprilTag.png" + suffix, dictionary: dictionary, image: image, markers: markers)]))
            var tagPhotos: [BenchPhoto] = []
            for tag in markers {
                let margin = tag.side
                let xs = tag.corners.map(\.x), ys = tag.corners.map(\.y)
                let x0 = max(0, Int((xs.min()! - margin).rounded(.down))), y0 = max(0, Int((ys.min()! - margin).rounded(.down)))
                let x1 = min(image.width - 1, Int((xs.max()! + margin).rounded(.up)))
                let y1 = min(image.height - 1, Int((ys.max()! + margin).rounded(.up)))
                let crop = try image.cropped(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
                let origin = SIMD2(Double(x0), Double(y0))
                tagPhotos.append(BenchPhoto(
                    name: "AprilTag.png tag \(tag.id)" + suffix, dictionary: dictionary, image: crop,
                    markers: [tag.shifted(to: origin)],
                    context: markers.filter { $0.id != tag.id }.map { $0.shifted(to: origin) }))
            }
            crops.append(PhotoSet(family: "AprilTag crops", scale: scale, photos: tagPhotos))
        }
        return whole + crops
    }

    /// ViSP's reference corners (`ground_truth_detection.txt`: per tag `36h11_id:_N`, then 4
    /// (row, column) pairs), in OpenCV's convention. ViSP's detector is libapriltag, and the file
    /// holds its corners p[0...3] as they come: pixel centres at i + 0.5, and p[k] is OpenCV's
    /// corner k ^ 1 (libapriltag's tag frame is OpenCV's marker turned 180 degrees, and its
    /// winding is the reverse). So OpenCV's corner k = (column, row) of point k ^ 1, minus 0.5.
    /// Checked against libapriltag's own detections through the shim, which converts them
    /// independently (MarkerPhotoBenchTests: this mapping fits them, every other turn, winding or
    /// pixel convention is off by more than half a pixel).
    static func vispCorners(file: String) throws -> [ReferenceMarker] {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw InputError(file, FileManager.default.fileExists(atPath: file) ? "cannot be read" : "no such file")
        }
        let words = text.split(whereSeparator: \.isWhitespace)
        var tags: [ReferenceMarker] = []
        var i = 0
        while i < words.count {
            guard words[i].hasPrefix("36h11_id"), let id = words[i].split(separator: "_").last.flatMap({ Int($0) }),
                  i + 8 < words.count else {
                throw InputError(file, "expected `36h11_id:_N` and 8 numbers at word \(i + 1), found \"\(words[i])\"")
            }
            let v = words[(i + 1)...(i + 8)].compactMap { Double($0) }
            guard v.count == 8 else { throw InputError(file, "tag \(id): expected 8 numbers") }
            let apriltag = (0..<4).map { SIMD2(v[2 * $0 + 1], v[2 * $0]) - 0.5 }
            tags.append(ReferenceMarker(id: id, corners: (0..<4).map { apriltag[$0 ^ 1] }))
            i += 9
        }
        guard !tags.isEmpty else { throw InputError(file, "no tags") }
        return tags.sorted { $0.id < $1.id }
    }

    /// The gold entries of OpenCV's ArUco tutorial test (`gold_markers.json`).
    struct GoldEntry: Decodable {
        struct Marker: Decodable {
            var id: Int
            var corners: [[Double]]
        }

        var image: String
        var dictionary: String
        /// Absent for diamondmarkers, whose gold is only a multiset of ids.
        var markers: [Marker]?
    }

    /// OpenCV's ArUco tutorial photos with gold corners (opencv-aruco-photos), at every scale of
    /// `arucoScales`. The gold corners are integers within ±1 px, already in OpenCV's order and
    /// pixel convention. diamondmarkers.png is skipped: its gold has ids only, no corners.
    static func aruco(folder: String, scales: [Int] = arucoScales) throws -> [PhotoSet] {
        let goldPath = folder + "/gold_markers.json"
        guard let data = FileManager.default.contents(atPath: goldPath) else {
            throw InputError(goldPath, FileManager.default.fileExists(atPath: goldPath) ? "cannot be read" : "no such file")
        }
        let gold: [String: GoldEntry]
        do { gold = try JSONDecoder().decode([String: GoldEntry].self, from: data) } catch {
            throw InputError(goldPath, "not the expected gold file: \(describe(error))")
        }
        var dictionaries: [String: MarkerDictionary] = [:]
        var originals: [(name: String, dictionary: MarkerDictionary, image: Image, markers: [ReferenceMarker])] = []
        for (key, entry) in gold.sorted(by: { $0.key < $1.key }) {
            guard let markers = entry.markers else { continue }
            // "DICT_6X6_250", or "tutorial_dict.yml (custom dictionary: ...)": a file beside the photos.
            let dictionaryName = String(entry.dictionary.split(separator: " ").first ?? "")
            if dictionaries[dictionaryName] == nil {
                dictionaries[dictionaryName] = dictionaryName.hasSuffix(".yml")
                    ? try MarkerDictionary(contentsOf: folder + "/" + dictionaryName)
                    : try MarkerDictionary(named: dictionaryName)
            }
            let references = try markers.map { m -> ReferenceMarker in
                guard m.corners.count == 4, m.corners.allSatisfy({ $0.count == 2 }) else {
                    throw InputError(goldPath, "\(key): marker \(m.id) needs 4 corners of 2 numbers")
                }
                return ReferenceMarker(id: m.id, corners: m.corners.map { SIMD2($0[0], $0[1]) })
            }
            let image = try Image(contentsOf: folder + "/" + entry.image, channels: 1)
            let file = entry.image.split(separator: "/").last.map(String.init) ?? entry.image
            originals.append((file, dictionaries[dictionaryName]!, image, references))
        }
        guard !originals.isEmpty else { throw InputError(goldPath, "no entry with gold corners") }
        return try scales.map { scale in
            PhotoSet(family: "ArUco photos", scale: scale, photos: try originals.map { o in
                let (image, markers) = try shrunk(o.image, markers: o.markers, by: scale)
                return BenchPhoto(name: o.name + " 1/\(scale)", dictionary: o.dictionary, image: image, markers: markers)
            })
        }
    }

    /// The photo shrunk `factor` times (Image.resized: INTER_AREA, the pixels a camera `factor`
    /// times as far would roughly record) and its markers mapped alike, per axis (213 / 640 is not
    /// exactly 1/3).
    static func shrunk(_ image: Image, markers: [ReferenceMarker], by factor: Int) throws -> (Image, [ReferenceMarker]) {
        guard factor > 1 else { return (image, markers) }
        let width = Int((Double(image.width) / Double(factor)).rounded()), height = Int((Double(image.height) / Double(factor)).rounded())
        let scale = SIMD2(Double(width) / Double(image.width), Double(height) / Double(image.height))
        return (try image.resized(width: width, height: height), markers.map { $0.scaled(by: scale) })
    }
}

// MARK: - Matching

/// A detection as the benchmark scores it: id and corners in pixels (OpenCV's order and convention).
struct FoundMarker: Equatable, Sendable {
    var id: Int
    var corners: [SIMD2<Double>]
}

/// How one tool's detections in one photo compare with its reference markers.
struct PhotoScore {
    /// Corner RMS error (pixels) of each reference marker found.
    var cornerErrors: [Double] = []
    /// The reference markers not found.
    var missed: [ReferenceMarker] = []
    /// Detections matching no reference or context marker: a wrong id, or too far from the marker
    /// with their id (a duplicate of a found marker is false too).
    var falseDetections = 0
    /// Detections of context markers (neither found nor false).
    var contextDetections = 0
}

enum MarkerMatching {
    /// The largest corner RMS error (pixels) at which a detection with the right id finds
    /// `marker`: a quarter of its side, at most 5 px. A corner order off by a turn is a whole side
    /// away, and a quarter side is where a pose from the corners stops being usable; the 5 px cap
    /// keeps the gate of large markers near the usual one. The references are good to ~1 px
    /// (ViSP's corners; the ArUco gold is integer).
    static func gate(for marker: ReferenceMarker) -> Double { min(5, marker.side / 4) }

    /// The root mean square of the four corner distances, pixels.
    static func cornerRMS(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Double {
        (zip(a, b).map { dot($0 - $1, $0 - $1) }.reduce(0, +) / Double(max(a.count, 1))).squareRoot()
    }

    /// Scores `detections` in `photo`: each detection finds at most one marker and each marker is
    /// found at most once, the closest pairs (same id, within the gate) first; detections left over
    /// that match a context marker are set aside, the rest are false.
    static func score(_ detections: [FoundMarker], in photo: BenchPhoto) -> PhotoScore {
        var free = Array(repeating: true, count: detections.count)
        func assign(_ markers: [ReferenceMarker]) -> [Int: Double] {
            var pairs: [(marker: Int, detection: Int, error: Double)] = []
            for (m, marker) in markers.enumerated() {
                for (d, detection) in detections.enumerated() where free[d] && detection.id == marker.id {
                    let error = cornerRMS(detection.corners, marker.corners)
                    if error <= gate(for: marker) { pairs.append((m, d, error)) }
                }
            }
            var found: [Int: Double] = [:]
            for pair in pairs.sorted(by: { $0.error < $1.error }) where free[pair.detection] && found[pair.marker] == nil {
                free[pair.detection] = false
                found[pair.marker] = pair.error
            }
            return found
        }
        let found = assign(photo.markers)
        let context = assign(photo.context)
        var score = PhotoScore()
        for (m, marker) in photo.markers.enumerated() {
            if let error = found[m] { score.cornerErrors.append(error) } else { score.missed.append(marker) }
        }
        score.contextDetections = context.count
        score.falseDetections = free.filter { $0 }.count
        return score
    }
}

// MARK: - Tools

/// One detector under test.
protocol MarkerBenchTool: AnyObject {
    var name: String { get }
    /// Whether the tool can search for `dictionary`'s markers (libapriltag: its own families only).
    func accepts(_ dictionary: MarkerDictionary) -> Bool
    /// Everything the call on `photo` needs that is not detection (the detector for the photo's
    /// dictionary, made once; the input image), done outside the timed region. Returns the call
    /// that is timed.
    func prepare(_ photo: BenchPhoto) throws -> () throws -> [FoundMarker]
    /// The tool's time per stage so far (anchorkit's detectors: ``MarkerDetector/profile``), or
    /// nil for tools without one.
    var profile: StageProfile? { get }
}

extension MarkerBenchTool {
    var profile: StageProfile? { nil }
}

/// The marker stages the benchmark reports for tools with a profile.
let markerStages: [StageProfile.Stage] = [.markerCandidates, .markerCorners, .markerTemplates]

/// AnchorKit's MarkerDetector with given parameters (anchorkit's defaults, or plain OpenCV ArUco).
final class MarkerDetectorTool: MarkerBenchTool {
    let name: String
    private let parameters: MarkerDetectionParameters
    private var detectors: [ObjectIdentifier: MarkerDetector] = [:]

    init(name: String, parameters: MarkerDetectionParameters) {
        self.name = name
        self.parameters = parameters
    }

    var profile: StageProfile? { detectors.values.reduce(StageProfile()) { $0.merged(with: $1.profile) } }

    /// anchorkit with `parameters`: the library's defaults for still photos, as `anchorkit track
    /// --stills` uses them (AprilTag 3 candidates for the AprilTag dictionaries on every core,
    /// template corner refinement), `MarkerDetectionParameters().forStills()`.
    static func anchorKit(_ parameters: MarkerDetectionParameters) -> MarkerDetectorTool {
        let threads = parameters.aprilTag?.threads ?? 1
        return MarkerDetectorTool(name: threads == 1 ? "anchorkit" : "anchorkit (\(threads) threads)", parameters: parameters)
    }

    /// cv::aruco::detectMarkers with OpenCV 4.6's default parameters and no corner refinement,
    /// for every dictionary (AprilTag ones included).
    static func openCV() -> MarkerDetectorTool {
        var parameters = MarkerDetectionParameters()
        parameters.aprilTag = nil
        parameters.cornerRefinement = .none
        return MarkerDetectorTool(name: "OpenCV 4.6 ArUco", parameters: parameters)
    }

    func accepts(_ dictionary: MarkerDictionary) -> Bool { true }

    func prepare(_ photo: BenchPhoto) throws -> () throws -> [FoundMarker] {
        let key = ObjectIdentifier(photo.dictionary)
        let detector = try detectors[key] ?? MarkerDetector(dictionary: photo.dictionary, parameters: parameters)
        detectors[key] = detector
        // A fresh copy of the same pixels for every call: the shim returns its previous results when
        // called again on the same image (same serial) without detecting.
        let image = try photo.image.cropped(x: 0, y: 0, width: photo.image.width, height: photo.image.height)
        return { try detector.detect(in: image).map { FoundMarker(id: $0.id, corners: $0.corners) } }
    }
}

/// libapriltag's own detections (through the shim's ak_apriltag_detect, converted to OpenCV's
/// convention), set up as a new user of the library gets it: apriltag_detector_create's defaults
/// (refine_edges 1, quad_sigma 0, decode_sharpening 0.25), the family added with
/// apriltag_detector_add_family (up to 2 bits corrected), one thread.
final class AprilTagPeerTool: MarkerBenchTool {
    let name: String
    private let decimation: Double
    private var detectors: [String: OpaquePointer] = [:]
    private var buffer = Array(repeating: ak_apriltag_detection(), count: 64)

    init(decimation: Double) {
        self.decimation = decimation
        name = "libapriltag decimate \(decimation == decimation.rounded() ? String(Int(decimation)) : String(decimation))"
    }

    deinit { detectors.values.forEach { ak_apriltag_detector_free($0) } }

    func accepts(_ dictionary: MarkerDictionary) -> Bool { dictionary.name.hasPrefix("DICT_APRILTAG_") }

    private func detector(for dictionary: MarkerDictionary) throws -> OpaquePointer {
        if let d = detectors[dictionary.name] { return d }
        guard accepts(dictionary), let predefined = MarkerDictionary.predefinedNames.firstIndex(of: dictionary.name) else {
            throw MarkerError("\(name): no libapriltag family for \(dictionary.name)")
        }
        var native: OpaquePointer?
        try check(ak_dictionary_predefined(Int32(predefined), &native), dictionary.name)
        defer { ak_dictionary_free(native) }  // the detector keeps what it needs
        var params = shimDefaults(ak_apriltag_params(), ak_apriltag_params_default)
        params.quad_decimate = decimation
        params.refine_edges = 1
        params.max_hamming = 2  // apriltag_detector_add_family's bits_corrected (the shim's default is 0)
        var created: OpaquePointer?
        try check(ak_apriltag_detector_create(native, &params, &created), "libapriltag detector")
        detectors[dictionary.name] = created!
        return created!
    }

    func prepare(_ photo: BenchPhoto) throws -> () throws -> [FoundMarker] {
        let detector = try detector(for: photo.dictionary)
        let image = try NativeImage(copying: photo.image)
        return { [self] in
            var count: Int32 = 0
            while true {
                try check(ak_apriltag_detect(detector, image.handle, &buffer, Int32(buffer.count), &count), "libapriltag")
                if count <= Int32(buffer.count) { break }
                buffer = Array(repeating: ak_apriltag_detection(), count: Int(count))
            }
            return buffer.prefix(Int(count)).map { d in
                let c = d.corners
                return FoundMarker(id: Int(d.id), corners: [SIMD2(Double(c.0), Double(c.1)), SIMD2(Double(c.2), Double(c.3)),
                                                           SIMD2(Double(c.4), Double(c.5)), SIMD2(Double(c.6), Double(c.7))])
            }
        }
    }

    private func check(_ status: ak_status, _ context: String) throws {
        guard status != AK_OK else { return }
        throw MarkerError("\(context): \(String(cString: ak_last_error()))")
    }
}

/// A shim image holding a copy of an Image's pixels, for calling the C API directly.
final class NativeImage {
    let handle: OpaquePointer

    init(copying image: Image) throws {
        var out: OpaquePointer?
        let status = image.withPixels { base, stride in
            ak_image_create(Int32(image.width), Int32(image.height), Int32(image.channels), base, stride, 0, &out)
        }
        guard status == AK_OK, let out else { throw MarkerError("image copy: \(String(cString: ak_last_error()))") }
        handle = out
    }

    deinit { ak_image_free(handle) }
}

// MARK: - Running

/// The detections and times of one tool on one photo.
struct ToolPhotoRun {
    /// The detections of the untimed first run (the scored ones).
    var detections: [FoundMarker]
    /// Wall-clock seconds of each timed run.
    var wall: [Double] = []
    /// Process CPU seconds of each timed run (every thread, so OpenCV's parallel loops count in full).
    var cpu: [Double] = []
    /// Whether a timed run returned other detections than the first (not deterministic).
    var varied = false
    /// Seconds per stage of `markerStages`, summed over the timed runs (tools with a profile).
    var stageSeconds: [Double]?
}

enum MarkerPhotoRun {
    /// Runs every tool on every photo it accepts: one untimed round (its detections are scored),
    /// then `repeats` timed rounds. Each round visits every photo and, per photo, every tool in
    /// turn, the first tool rotating from photo to photo and round to round, so that load from
    /// elsewhere and cache warmth fall on all tools alike. Returns runs by set, photo and tool.
    static func measure(_ sets: [PhotoSet], tools: [MarkerBenchTool], repeats: Int) throws -> [[[ToolPhotoRun?]]] {
        var runs: [[[ToolPhotoRun?]]] = sets.map { $0.photos.map { _ in Array(repeating: nil, count: tools.count) } }
        var visit = 0
        for round in 0...repeats {
            for (s, set) in sets.enumerated() {
                for (p, photo) in set.photos.enumerated() {
                    visit += 1
                    for k in 0..<tools.count {
                        let t = (k + visit) % tools.count
                        guard tools[t].accepts(photo.dictionary) else { continue }
                        let call = try tools[t].prepare(photo)
                        let before = tools[t].profile
                        let wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID)
                        let found = try call()
                        let cpu1 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall1 = seconds(CLOCK_MONOTONIC)
                        if round == 0 {
                            runs[s][p][t] = ToolPhotoRun(detections: found)
                        } else {
                            runs[s][p][t]!.wall.append(wall1 - wall0)
                            runs[s][p][t]!.cpu.append(cpu1 - cpu0)
                            if found != runs[s][p][t]!.detections { runs[s][p][t]!.varied = true }
                            if let before, let after = tools[t].profile {
                                let spent = markerStages.map { after.seconds[$0.rawValue] - before.seconds[$0.rawValue] }
                                runs[s][p][t]!.stageSeconds = zip(runs[s][p][t]!.stageSeconds ?? spent.map { _ in 0 }, spent).map(+)
                            }
                        }
                    }
                }
            }
        }
        return runs
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}

/// The machine's 1-, 5- and 15-minute load averages (/proc/loadavg).
enum MachineLoad {
    static func now() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}

// MARK: - Report

/// The benchmark's results: per set, per tool and set, and per tool over each family's scales.
struct MarkerPhotoReport: Encodable {
    /// One photo set.
    struct SetInfo: Encodable {
        var name: String, family: String, scale: Int, photos: Int, markers: Int
        /// Side lengths of its markers, pixels.
        var sideMedian: Double, sideMin: Double, sideMax: Double
    }

    /// A reference marker a tool missed.
    struct Miss: Encodable {
        var photo: String, id: Int
        /// Its side, pixels.
        var side: Double
    }

    /// One tool on one set (or on all scales of a family).
    struct Row: Encodable {
        var tool: String, set: String, photos: Int, markers: Int, found: Int
        /// found / markers.
        var recall: Double
        var falseDetections: Int, contextDetections: Int
        /// Median corner RMS error of the markers found, pixels (nil if none).
        var cornerErrorMedian: Double?
        /// Mean over the photos of each photo's median wall-clock time, milliseconds.
        var msPerPhoto: Double
        /// The same for process CPU time (all threads), milliseconds.
        var cpuMsPerPhoto: Double
        /// Photos on which a timed run returned other detections than the scored one.
        var variedPhotos: Int
        var missed: [Miss]
        /// Tools with a profile: ms per photo in each stage of `markerStages` (mean over the
        /// timed runs and the photos), keyed by the stage's name.
        var stageMsPerPhoto: [String: Double]?
    }

    var repeats: Int
    var gate = "corner RMS <= min(5 px, side / 4), same id"
    var timing = "per photo the median of the timed runs; ms/photo = mean of those medians over the set's photos"
    var cpus = ProcessInfo.processInfo.activeProcessorCount
    var loadBefore: String, loadAfter: String
    var sets: [SetInfo]
    var rows: [Row]
    var totals: [Row]

    init(sets: [PhotoSet], tools: [MarkerBenchTool], measured: [[[ToolPhotoRun?]]], repeats: Int, loadBefore: String, loadAfter: String) {
        self.repeats = repeats
        self.loadBefore = loadBefore
        self.loadAfter = loadAfter
        self.sets = sets.map { s in
            let sides = s.sides.sorted()
            return SetInfo(name: s.name, family: s.family, scale: s.scale, photos: s.photos.count, markers: s.markerCount,
                           sideMedian: Summary(sides)?.median ?? .nan, sideMin: sides.first ?? .nan, sideMax: sides.last ?? .nan)
        }
        // Per tool and set: the photos the tool ran on, with their scores.
        typealias Scored = (photo: BenchPhoto, run: ToolPhotoRun, score: PhotoScore)
        func row(_ tool: String, _ set: String, _ scored: [Scored]) -> Row {
            let errors = scored.flatMap(\.score.cornerErrors)
            let median = { (v: [Double]) in Summary(v)?.median ?? .nan }
            let markers = scored.reduce(0) { $0 + $1.photo.markers.count }
            return Row(tool: tool, set: set, photos: scored.count, markers: markers, found: errors.count,
                       recall: Double(errors.count) / Double(max(markers, 1)), falseDetections: scored.reduce(0) { $0 + $1.score.falseDetections },
                       contextDetections: scored.reduce(0) { $0 + $1.score.contextDetections },
                       cornerErrorMedian: Summary(errors)?.median,
                       msPerPhoto: 1000 * scored.map { median($0.run.wall) }.reduce(0, +) / Double(max(scored.count, 1)),
                       cpuMsPerPhoto: 1000 * scored.map { median($0.run.cpu) }.reduce(0, +) / Double(max(scored.count, 1)),
                       variedPhotos: scored.filter(\.run.varied).count,
                       missed: scored.flatMap { s in s.score.missed.map { Miss(photo: s.photo.name, id: $0.id, side: $0.side) } },
                       stageMsPerPhoto: stageMilliseconds(scored.map(\.run)))
        }
        func stageMilliseconds(_ runs: [ToolPhotoRun]) -> [String: Double]? {
            let perPhoto = runs.compactMap { r in r.stageSeconds.map { s in s.map { 1000 * $0 / Double(max(r.wall.count, 1)) } } }
            guard !perPhoto.isEmpty else { return nil }
            return Dictionary(uniqueKeysWithValues: markerStages.enumerated().map { i, stage in
                (stage.name.replacingOccurrences(of: "  of which ", with: ""), perPhoto.map { $0[i] }.reduce(0, +) / Double(perPhoto.count))
            })
        }
        var rows: [Row] = [], totals: [Row] = []
        for (t, tool) in tools.enumerated() {
            var byFamily: [(family: String, scored: [Scored])] = []
            for (s, set) in sets.enumerated() {
                let scored: [Scored] = set.photos.enumerated().compactMap { p, photo in
                    measured[s][p][t].map { (photo, $0, MarkerMatching.score($0.detections, in: photo)) }
                }
                guard !scored.isEmpty else { continue }
                rows.append(row(tool.name, set.name, scored))
                if let i = byFamily.firstIndex(where: { $0.family == set.family }) { byFamily[i].scored += scored } else {
                    byFamily.append((set.family, scored))
                }
            }
            totals += byFamily.map { row(tool.name, $0.family + " (all scales)", $0.scored) }
        }
        self.rows = rows
        self.totals = totals
    }

    /// The markdown tables: sets, rows by set, totals by family; then the machine line.
    func markdown(listingMisses: Bool) -> String {
        let photos = sets.reduce(0) { $0 + $1.photos }
        let families = sets.reduce(into: [(String, Int)]()) { acc, s in
            if let i = acc.firstIndex(where: { $0.0 == s.family }) { acc[i].1 += s.photos } else { acc.append((s.family, s.photos)) }
        }
        var lines: [String] = []
        lines.append("Real-photo marker benchmark: \(photos) photos (" + families.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                     + "); found = same id and \(gate.replacingOccurrences(of: ", same id", with: ""))")
        lines.append("")
        lines += table(["set", "photos", "markers", "side px median (range)"], sets.map {
            [$0.name, "\($0.photos)", "\($0.markers)", String(format: "%.1f (%.1f-%.1f)", $0.sideMedian, $0.sideMin, $0.sideMax)]
        })
        lines.append("")
        let head = ["tool", "set", "tags", "found", "recall", "false", "corner err median px", "ms/photo", "CPU ms/photo"]
        func cells(_ r: Row) -> [String] {
            [r.tool, r.set, "\(r.markers)", "\(r.found)", String(format: "%.1f %%", 100 * r.recall), "\(r.falseDetections)",
             r.cornerErrorMedian.map { String(format: "%.3f", $0) } ?? "-", String(format: "%.2f", r.msPerPhoto),
             String(format: "%.2f", r.cpuMsPerPhoto)]
        }
        // Grouped by set (in the order of the sets), tools in a fixed order within each.
        func grouped(_ rows: [Row]) -> [Row] {
            var groups: [String] = []
            for r in rows where !groups.contains(r.set) { groups.append(r.set) }
            let setOrder = sets.map(\.name) + sets.map { $0.family + " (all scales)" }
            groups.sort { (setOrder.firstIndex(of: $0) ?? .max) < (setOrder.firstIndex(of: $1) ?? .max) }
            return groups.flatMap { g in rows.filter { $0.set == g } }
        }
        lines += table(head, grouped(rows).map(cells))
        lines.append("")
        lines += table(head, grouped(totals).map(cells))
        lines.append("")
        let profiled = grouped(rows + totals).filter { $0.stageMsPerPhoto != nil }
        if !profiled.isEmpty {
            let names = markerStages.map { $0.name.replacingOccurrences(of: "  of which ", with: "") }
            lines.append("Stage profile (ms/photo, mean over the timed runs and the photos):")
            lines += table(["tool", "set"] + names, profiled.map { r in
                [r.tool, r.set] + names.map { String(format: "%.3f", r.stageMsPerPhoto?[$0] ?? 0) }
            })
            lines.append("")
        }
        lines.append("\(repeats) timed runs per tool and photo after 1 untimed (scored) run, round-robin over tools; "
                     + "ms/photo: mean over the set's photos of each photo's median wall time (decode excluded); "
                     + "CPU ms: process CPU time, all threads")
        lines.append("machine: \(cpus) CPUs; load average before \(loadBefore), after \(loadAfter)")
        let varied = (rows.map(\.variedPhotos)).reduce(0, +)
        if varied > 0 { lines.append("note: \(varied) tool-photo pairs gave other detections in a timed run than in the scored one") }
        let context = totals.filter { $0.contextDetections > 0 }
        if !context.isEmpty {
            lines.append("neighbouring tags detected in the crops, set aside (neither found nor false): "
                         + context.map { "\($0.tool) \($0.contextDetections)" }.joined(separator: ", "))
        }
        if listingMisses {
            lines.append("")
            for r in rows where !r.missed.isEmpty {
                lines.append("missed by \(r.tool) in \(r.set): "
                             + r.missed.map { "\($0.photo.components(separatedBy: " 1/").first ?? $0.photo) id \($0.id) (\(String(format: "%.1f", $0.side)) px)" }
                                 .joined(separator: ", "))
            }
        }
        return lines.joined(separator: "\n")
    }

    private func table(_ head: [String], _ rows: [[String]]) -> [String] {
        let widths = head.indices.map { i in ([head] + rows).map { $0[i].count }.max()! }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
        }
        return [line(head), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"] + rows.map(line)
    }
}
