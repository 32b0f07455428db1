import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitMedia

/// What `track` and `render` share: the intrinsics, the targets and how they are tracked.
struct TrackingOptions: ParsableArguments {
    @Option(help: "Camera intrinsics: camera.json or an OpenCV calibration YAML (overrides the sequence's).")
    var camera: String?

    @Option(name: .customLong("markers"), parsing: .upToNextOption,
            help: "Marker families DICTIONARY:SIZE_METRES[:ID,ID...], e.g. DICT_4X4_50:0.08; DICTIONARY may be an OpenCV dictionary YAML file (overrides the sequence's).")
    var markers: [String] = []

    @Option(name: .customLong("image"), parsing: .singleValue,
            help: "A reference image NAME=PATH:WIDTH_METRES (repeatable), e.g. poster=poster.png:0.4 (with --markers, replaces the sequence's targets).")
    var images: [String] = []

    @Option(help: "A reference database from `anchorkit reference-db` (replaces the reference images of the sequence and of --image).")
    var references: String?

    @Option(name: .customLong("qr"),
            help: "QR codes (and Micro QR, Data Matrix, Aztec): the printed side of their square in metres, finder patterns included, quiet zone excluded (e.g. 0.05). Codes are anchors of type qr with their payload.")
    var qrSize: Double?

    @Option(name: .customLong("qr-size"), parsing: .singleValue,
            help: "The size of the QR codes whose payload matches a shell pattern, PATTERN=SIZE_METRES (repeatable; the first match wins, then the sequence's qrCodes, then --qr), e.g. 'https://example.org/*=0.05'.")
    var qrSizes: [String] = []

    @Option(help: "How many reference images are followed at once.")
    var maxImages: Int = 4

    @Option(help: "Corner refinement: template (the most accurate), subpixel, contour, apriltag or none (detect-every-frame mode: subpixel).")
    var cornerRefinement: String = "template"

    @Option(help: "What finds marker candidates: apriltag3 (AprilTag 3's quad detection, for ArUco dictionaries of up to 8x8 bits too) or opencv (OpenCV 4.6's ArUco stage).")
    var markerCandidates = "apriltag3"

    @Option(help: "Markers: a full-frame search every N frames (default 6); in between, known markers are followed by their picture (else searched for in regions around them) and the frame is searched at a quarter resolution for large new ones. 1: every frame.")
    var fullSearchInterval: Int?

    @Option(help: "AprilTag 3's quad decimation: quads are searched for at 1/D of the resolution (1, 1.5 or a whole number up to 8; default 1: tags down to ~12 px a side; 2 is faster but loses tags under ~25 px).")
    var apriltagDecimate: Double?

    @Option(help: "Threads the markers found are refined on (1...64; default 1 for video, every core up to 4 for stills). AprilTag 3's own search runs on one.")
    var apriltagThreads: Int?

    @Option(help: "tracking or detect-every-frame: the naive per-frame baseline (OpenCV's ArUco detector, AprilTag dictionaries included, and its sub-pixel corners; no memory between frames) that benchmarks compare against.")
    var mode: String = "tracking"

    @Flag(help: "Every frame is an unrelated photo: all its detections, none carried between frames (automatic for a photo, a folder of photos or a one-frame input).")
    var stills = false

    @Option(help: "Frames per second, for videos without a rate or frame patterns (default 30).")
    var fps: Double?

    @Option(help: "Temporal pose filter: kalman (weights each pose by its own uncertainty) or none (each frame's own estimate).")
    var filter = "kalman"

    @Flag(help: "World tracking: the camera's pose in a fixed world for every frame (monocular visual odometry, or --poses), gravity-aligned when gravity is known; anchors stay put in that world.")
    var world = false

    @Option(help: "Per-frame gravity (gravity.jsonl; default: the sequence's): aligns --world to it, and image targets lying level (on a table, the floor) are searched in a top view from it.")
    var gravity: String?

    @Option(help: "The world's axes: gravity (+y up, -z where the first camera looks) or gravity-and-heading (+y up, +x east, +z south, from the compass: ARKit's geo axes). Default: gravity-and-heading when the location log has compass readings and gravity is known (with visual odometry), else gravity.")
    var worldAlignment: String?

    @Option(help: "An inertial log (imu.jsonl: accelerometer and gyroscope in the camera's axes) for --world (default: the sequence's): makes the map metric without a target of known size, after ~5 s of motion.")
    var imu: String?

    @Option(help: "How high the camera is held above the floor, metres (e.g. 1.5): makes the map metric once the floor is found, without a target or --imu. Needs --planes with horizontal, and gravity.")
    var cameraHeight: Double?

    @Option(help: "Recorded camera poses (poses.jsonl: world_from_camera per frame) for --world; odometry is then skipped.")
    var poses: String?

    @Option(help: "Plane detection: a comma-separated list of horizontal, vertical, arbitrary (or any). Implies --world (planes are found in the odometry's map).")
    var planes: String?

    @Option(help: "Stop refining planes after this many seconds of video (they then stay as they are).")
    var freezePlanesAfter: Double?

    @Option(help: "Upright planes from where they meet the floor (a plain wall's foot), found from straight edges seen from several places: on or off. (default: on)")
    var wallEdges = "on"

    @Flag(help: "Rooms as boxes (a Manhattan world): walls found from their foot are turned parallel or perpendicular to the first upright plane when within 10° of it.")
    var manhattan = false

    @Option(help: "A location log beside the video: JSON Lines (FORMATS.md's location.jsonl), GPX or NMEA 0183 (RMC, GGA, GST, HDT), told apart by their content (default: the sequence's). Turns on geo tracking, and with it --world.")
    var location: String?

    @Option(help: "Seconds added to the location log's times (default 0). GPX and NMEA times count from the log's first record, so this is the video time of that record; JSON Lines times are already video times.")
    var locationOffset = 0.0

    @Option(name: .customLong("geo-anchor"), parsing: .singleValue,
            help: "A place given by coordinate, NAME=LAT,LON[,ALT] (degrees WGS84, metres above the ellipsoid; e.g. fountain=45.5553,18.6953,130; without ALT on the ground, --camera-above-ground below the camera); repeatable, added to the sequence's geoAnchors.")
    var geoAnchors: [String] = []

    @Option(help: "A JSON file of places: a list of {\"name\", \"latitude\", \"longitude\", \"altitude\"} as sequence.json's geoAnchors.")
    var geoAnchorFile: String?

    @Option(help: "Geo tracking: how high the camera is above the ground, metres (default 1.5: a phone at eye height): places given without an altitude stand on the ground this far below it, and render's route is drawn there.")
    var cameraAboveGround = 1.5

    @Option(help: "Geo tracking: fused (the log fitted to the world tracker's trajectory) or newest-fix (the naive baseline: every frame placed from the newest fix and compass reading alone).")
    var geoMode = "fused"

    /// The files these options read (as given; some may not exist), which an output must not replace.
    var inputFiles: [String?] {
        [camera, references, gravity, imu, poses, location, geoAnchorFile] + images.map { try? ReferenceImageSet.target(argument: $0).file }
            + markers.map { try? MarkerSet(argument: $0).dictionary }
    }

    /// One stderr line when a per-frame file misses frames of the input (the first few listed).
    private func warnAboutGaps(in covered: Set<Int>, of path: String, frames: Int?) {
        guard let frames else { return }
        let missing = (0..<frames).filter { !covered.contains($0) }
        guard !missing.isEmpty else { return }
        let shown = missing.prefix(5).map(String.init).joined(separator: ", ") + (missing.count > 5 ? ", ..." : "")
        FileHandle.standardError.write(Data("anchorkit: warning: \(path): no line for \(missing.count) of \(frames) frames (\(shown))\n".utf8))
    }

    /// `--world-alignment`'s value.
    static func worldAlignment(argument: String) throws -> Configuration.WorldAlignment {
        switch argument {
        case "gravity": return .gravity
        case "gravity-and-heading": return .gravityAndHeading
        default: throw ValidationError("--world-alignment must be gravity or gravity-and-heading, not \"\(argument)\"")
        }
    }

    /// `requested`, or by default gravity and heading where they can be had: odometry, gravity,
    /// and a location log with compass readings.
    private static func worldAlignment(_ requested: Configuration.WorldAlignment?, for configuration: Configuration) throws
        -> Configuration.WorldAlignment {
        let odometry: Bool
        if case .visualOdometry = configuration.worldTracking { odometry = true } else { odometry = false }
        let gravity = !(configuration.gravity?.isEmpty ?? true)
        guard let requested else {
            return odometry && gravity && !(configuration.location?.headings.isEmpty ?? true) ? .gravityAndHeading : .gravity
        }
        if requested == .gravityAndHeading {
            guard odometry else { throw ValidationError("--world-alignment gravity-and-heading needs --world with visual odometry (not --poses) and --location") }
            guard gravity else { throw ValidationError("--world-alignment gravity-and-heading needs gravity: give --gravity FILE") }
            guard configuration.location != nil else { throw ValidationError("--world-alignment gravity-and-heading needs a location log with compass readings: give --location FILE") }
        }
        return requested
    }

    /// One stderr line once a session asked for gravity and heading fixed its world without them.
    static func warnIfMissingWorldHeading(_ session: Session?, progress: ProgressLine, warned: inout Bool) {
        guard !warned, session?.isMissingWorldHeading == true else { return }
        warned = true
        progress.warn("no compass reading within 1 s of the world's origin frame: the world is aligned to gravity only (as --world-alignment gravity)")
    }

    /// Parses `NAME=LAT,LON[,ALT]`.
    static func geoAnchor(argument: String) throws -> GeoAnchor {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        let numbers = parts.count == 2 ? parts[1].split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) } : []
        guard parts.count == 2, !parts[0].isEmpty, (2...3).contains(numbers.count), numbers.allSatisfy({ $0 != nil }) else {
            throw ValidationError("--geo-anchor \"\(argument)\": expected NAME=LAT,LON[,ALT], e.g. fountain=45.5553,18.6953,130")
        }
        let anchor = GeoAnchor(name: parts[0], latitude: numbers[0]!, longitude: numbers[1]!, altitude: numbers.count == 3 ? numbers[2]! : nil)
        if let problem = anchor.coordinate.problem { throw ValidationError("--geo-anchor \"\(argument)\": \(problem)") }
        return anchor
    }

    /// Reads the input (first frame decoded) and sets up the session these options describe.
    func makeSession(input: String) throws -> (FrameInput, Session) {
        let input = try FrameInput(input: input, cameraPath: camera, markerArguments: markers, imageArguments: images, fps: fps)
        let photos = stills || input.photos != nil
        guard !(photos && (world || planes != nil)) else {
            throw ValidationError("--world and --planes need a video or a sequence, not still photos")
        }
        let planeDetection = try planes.map { list in
            guard let set = PlaneDetection(list: list) else {
                throw ValidationError("--planes takes a list of horizontal, vertical, arbitrary (or any), not \"\(list)\"")
            }
            return set
        }
        guard planeDetection == nil || poses == nil else { throw ValidationError("--planes needs visual odometry: it cannot be used with --poses") }
        guard freezePlanesAfter == nil || planeDetection != nil else { throw ValidationError("--freeze-planes-after needs --planes") }
        guard wallEdges == "on" || wallEdges == "off" else { throw ValidationError("--wall-edges must be on or off, not \"\(wallEdges)\"") }
        guard !manhattan || planeDetection?.contains(.vertical) == true else { throw ValidationError("--manhattan needs --planes with vertical") }
        let places = try input.geoAnchors + geoAnchors.map(Self.geoAnchor(argument:)) + (geoAnchorFile.map(SequenceDescription.GeoAnchorDescription.read(contentsOf:)) ?? [])
        guard Set(places.map(\.name)).count == places.count else { throw ValidationError("geo anchors: each name once") }
        let locationFile = location ?? input.locationPath
        guard locationFile != nil || places.isEmpty else { throw ValidationError("geo anchors need a location log: give --location FILE") }
        guard let geoMode = GeoTracker.Mode(rawValue: geoMode == "newest-fix" ? "newestFix" : geoMode) else {
            throw ValidationError("--geo-mode must be fused or newest-fix, not \"\(self.geoMode)\"")
        }
        let requestedAlignment = try worldAlignment.map(Self.worldAlignment(argument:))
        guard locationFile == nil || !photos else { throw ValidationError("--location needs a video or a sequence, not still photos") }
        let world = self.world || planeDetection != nil || locationFile != nil
        guard cameraAboveGround.isFinite, cameraAboveGround > 0 else { throw ValidationError("--camera-above-ground must be a positive number of metres") }
        guard world || (poses == nil && imu == nil) else { throw ValidationError("--imu and --poses need --world") }
        let imagesGiven = !input.images.isEmpty || references != nil
        guard world || imagesGiven || gravity == nil else { throw ValidationError("--gravity needs --world or reference images") }
        guard cameraHeight == nil || planeDetection?.contains(.horizontal) == true else {
            throw ValidationError("--camera-height needs --planes with horizontal (the floor is found as a plane)")
        }
        let sizes = try qrSizes.map(QRCodeSet.PayloadSize.init(argument:)) + input.qrCodes.compactMap(\.payloadSize)
        if let qrSize, let problem = Plausible.physicalSizeProblem(qrSize, of: "--qr") { throw ValidationError(problem) }
        let codes = qrSize == nil && sizes.isEmpty ? nil : QRCodeSet(defaultSize: qrSize, sizes: sizes)
        guard world || !input.markers.isEmpty || imagesGiven || codes != nil else {
            throw ValidationError("nothing to track: give --world, --markers DICTIONARY:SIZE, --image NAME=PATH:WIDTH, --qr SIZE, or a sequence.json with targets")
        }
        guard maxImages >= 1 else { throw ValidationError("--max-images must be at least 1") }
        let refinements: [String: MarkerDetectionParameters.CornerRefinement] = [
            "template": .template, "subpixel": .subpixel, "contour": .contour, "apriltag": .aprilTag, "none": .none]
        guard let refinement = refinements[cornerRefinement] else {
            throw ValidationError("--corner-refinement must be one of template, subpixel, contour, apriltag, none")
        }
        // After the cheap checks: a large set takes seconds to load.
        let referenceSet = try references.map(ReferenceDatabase.read(contentsOf:))
            ?? (input.images.isEmpty ? nil : try ReferenceImageSet(targets: input.images, folder: input.imageFolder))
        var configuration = Configuration(camera: input.camera, markers: input.markers, referenceImages: referenceSet)
        configuration.qrCodes = codes
        configuration.independentFrames = photos || (input.isOneFrame && !world && planes == nil)
        configuration.imageTracking.maximumTracked = maxImages
        // Gaps in a per-frame file are not errors (those frames are not aligned, or not located),
        // but say so.
        let frames = input.source.expectedFrameCount
        // Gravity aligns the world, and shows image targets lying level in a top view: read only
        // for those (a marker-only run needs no gravity file).
        let gravityFile = world || imagesGiven ? gravity ?? input.gravityPath : nil
        configuration.gravity = try gravityFile.map(GravityFile.read(contentsOf:))
        if let gravityFile, let g = configuration.gravity { warnAboutGaps(in: Set(g.keys), of: gravityFile, frames: frames) }
        if world {
            let recorded = try poses.map(PoseFile.read(contentsOf:))
            configuration.worldTracking = recorded.map { .externalPoses($0) } ?? .visualOdometry(VisualOdometry.Parameters())
            if recorded == nil { configuration.inertial = try (imu ?? input.inertialPath).map(InertialLog.read(contentsOf:)) }
            if let poses, let recorded { warnAboutGaps(in: Set(recorded.keys), of: poses, frames: frames) }
            configuration.planeDetection = planeDetection ?? []
            configuration.planeFinding.wallsFromFloorEdges = wallEdges == "on"
            configuration.planeFinding.manhattanWorld = manhattan
            configuration.cameraHeight = cameraHeight
        }
        if let locationFile {
            let contents = try LocationLogFile.read(contentsOf: locationFile, offset: locationOffset)
            let duration = input.source.expectedFrameCount.map { Double($0) / input.source.framesPerSecond }
            for warning in contents.warnings + (duration.map { contents.warnings(forVideoDuration: $0) } ?? []) {
                FileHandle.standardError.write(Data("anchorkit: warning: \(warning)\n".utf8))  // warnings name the file
            }
            configuration.location = contents.log
            configuration.geoAnchors = places
            configuration.geoTracking.mode = geoMode
            configuration.geoTracking.cameraAboveGround = cameraAboveGround
        }
        configuration.worldAlignment = try Self.worldAlignment(requestedAlignment, for: configuration)
        configuration.markerDetection.cornerRefinement = refinement
        switch markerCandidates {
        case "apriltag3": break
        case "opencv": configuration.markerDetection.aprilTag = nil
        default: throw ValidationError("--marker-candidates must be apriltag3 or opencv")
        }
        if let fullSearchInterval {
            guard fullSearchInterval >= 1 else { throw ValidationError("--full-search-interval must be at least 1") }
            configuration.markerTracking.fullSearchInterval = fullSearchInterval
        }
        if let apriltagDecimate { configuration.markerDetection.aprilTag?.decimation = apriltagDecimate }
        if let apriltagThreads { configuration.markerDetection.aprilTag?.threads = apriltagThreads }
        switch filter {
        case "kalman": break
        case "none":
            configuration.markerTracking.filter = nil
            configuration.imageTracking.filter = nil
            configuration.qrTracking.filter = nil
        default: throw ValidationError("--filter must be kalman or none")
        }
        switch mode {
        case "tracking": break
        case "detect-every-frame":
            configuration.markerTracking = .detectEveryFrame
            configuration.qrTracking = .readEveryFrame
            configuration.imageTracking.detectEveryFrame = true
            configuration.imageTracking.filter = nil
            if cornerRefinement == "template" { configuration.markerDetection.cornerRefinement = .subpixel }
            configuration.markerDetection.aprilTag = nil
        default: throw ValidationError("--mode must be tracking or detect-every-frame")
        }
        return (input, try Session(configuration: configuration))
    }
}
