import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitMedia
import AnchorKitRendering

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Track a recorded sequence or video and composite overlays on its anchors (and a debug view) into a video or pictures.",
        discussion: """
            Examples:
              anchorkit render Datasets/images-approach --overlay "poster=logo.png" -o out.mp4
              anchorkit render Datasets/room-walk --planes horizontal,vertical \\
                  --overlay "home=#1e90ffcc:label=Home:width=0.3:layout=right" --tap "150@320,400=#ff8800:label=Here" --debug -o out.mp4
            """)

    @Argument(help: "A sequence folder (with sequence.json), a video file, or a frame pattern such as frames/%06d.png.")
    var input: String

    @OptionGroup var tracking: TrackingOptions

    @Option(name: .customLong("overlay"), parsing: .singleValue,
            help: ArgumentHelp("Content on every anchor named NAME (an anchor's name or id: poster, 7, marker/DICT_4X4_50/7, plane/0), as NAME=CONTENT[:OPTION=VALUE...] (repeatable).",
                               discussion: OverlayArgument.help))
    var overlays: [String] = []

    @Option(name: .customLong("tap"), parsing: .singleValue,
            help: "Content placed where a tap at pixel X,Y of frame FRAME hits a plane or a target, then world-locked: FRAME@X,Y=CONTENT[:OPTION=VALUE...] (repeatable; turns on --planes horizontal,vertical unless --planes is given).")
    var taps: [String] = []

    @Option(help: "Draw from a recorded anchor stream (.jsonl from `anchorkit track`) instead of tracking (taps then hit its planes and targets only).")
    var anchors: String?

    @Flag(help: "Also draw each anchor's axes, corners and id, plane polygons, and the tracking state.")
    var debug = false

    @Option(help: "Geo tracking: an arrow 4 m ahead pointing toward the geo anchor NAME, with its distance (a tour's next landmark).")
    var geoArrow: String?

    @Option(help: "Geo tracking: a route through the geo anchors NAME,NAME,... in order, drawn on the ground with turn arrows.")
    var geoRoute: String?

    @Flag(help: "Light overlays as the scene is lit: dimmed or brightened with each frame's light estimate (ambient intensity / 1000).")
    var matchLight = false

    @Option(help: "Render only frame N (tracking runs up to it) and write it as one picture (-o still.png).")
    var still: Int?

    @Option(name: .shortAndLong, help: "Where to write: a video (.mp4), a frame pattern (frames/%06d.png), or a picture with --still.")
    var output: String

    @Option(help: "Video codec: h264 (small files, costly to encode) or mpeg4 (MPEG-4 part 2: several times faster to encode, larger files).")
    var codec = "h264"

    @OptionGroup var overwrite: OverwriteOption

    @Flag(help: "No progress line.")
    var quiet = false

    func run() throws {
        try reportingErrors {
            let pictures = (overlays + taps).map(OverlayArgument.picture(in:))
            try OutputCheck.check(output, isPattern: still == nil && output.contains("%"),
                                  inputs: [input, anchors] + tracking.inputFiles + pictures, replacing: !overwrite.noOverwrite)
            let started = Date()
            let placements = try overlays.map(OverlayArgument.anchored) + taps.map(OverlayArgument.tap)
            var guidance = GeoGuidance(arrowTarget: geoArrow, route: geoRoute.map { $0.split(separator: ",").map(String.init) } ?? [])
            guidance.routeBelowEye = tracking.cameraAboveGround
            guard guidance.route.count != 1 else { throw ValidationError("--geo-route needs at least two geo anchors, NAME,NAME,...") }
            let guiding = guidance.arrowTarget != nil || !guidance.route.isEmpty
            guard !placements.isEmpty || debug || guiding else {
                throw ValidationError("nothing to draw: give --overlay NAME=CONTENT, --tap, --geo-arrow, --geo-route or --debug")
            }
            if guiding, tracking.location == nil, anchors == nil, (try? RecordedSequence(folder: input))?.description.location == nil {
                throw ValidationError("--geo-arrow and --geo-route need a location log: give --location FILE")
            }
            if let still, still < 0 { throw ValidationError("--still must be a frame index (>= 0)") }
            var tracking = self.tracking
            if !taps.isEmpty && tracking.planes == nil && anchors == nil && tracking.poses == nil { tracking.planes = "horizontal,vertical" }

            // The frames and, unless a recorded stream is given, the session that tracks them.
            let input: FrameInput, session: Session?
            var recorded: [Int: FrameUpdate] = [:]
            if let anchors {
                input = try FrameInput(input: self.input, cameraPath: tracking.camera, markerArguments: [], imageArguments: [], fps: tracking.fps)
                session = nil
                for update in try AnchorStreamReader.read(contentsOf: anchors, camera: input.camera) { recorded[update.frame] = update }
            } else {
                (input, session) = try tracking.makeSession(input: self.input)
            }
            guard let first = input.firstFrame else { throw InputError(self.input, "no frames") }
            let sink = try makeSink(width: first.image.width, height: first.image.height, fps: input.source.framesPerSecond)
            defer { sink.discard() }  // a no-op once finished
            let startUp = Date().timeIntervalSince(started)

            var scene = OverlayScene(placements)
            let warned = warnAboutUnmatchable(scene, configuration: session?.configuration, recorded: recorded)
            let compositor = OverlayCompositor()
            let progress = ProgressLine("render", quiet: quiet)
            var frames = 0, drawn = 0, lastFrame = -1, warnedHeading = false
            let lookahead = LookaheadFrames(first: first, source: input.source, session: session)
            var next = try lookahead.next()
            while let frame = next {
                if let after = tracking.freezePlanesAfter, frame.time >= after { session?.isRefiningPlanes = false }
                var update: FrameUpdate
                if let session {
                    update = try session.process(frame)
                    TrackingOptions.warnIfMissingWorldHeading(session, progress: progress, warned: &warnedHeading)
                } else {
                    update = recorded[frame.index] ?? FrameUpdate(
                        frame: frame.index, time: frame.time, camera: CameraState(trackingState: .notAvailable, intrinsics: input.camera),
                        anchors: [])
                }
                let instances = scene.instances(for: update, featurePoints: session?.featurePoints ?? [])
                lastFrame = frame.index
                if still == nil || still == frame.index {
                    var picture = try compositor.composite(instances, of: scene, over: frame.image, camera: update.camera,
                                                           light: matchLight ? update.lightEstimate : nil)
                    if guiding { picture = try guidance.draw(update, over: picture) }
                    if debug { picture = try DebugView.draw(update, over: picture) }
                    try sink.write(picture)
                    if !instances.isEmpty || (guiding && update.geoTracking?.state == .localized) { drawn += 1 }
                }
                frames += 1
                progress.update(done: frames, total: still.map { $0 + 1 } ?? input.source.expectedFrameCount)
                if let still, frame.index >= still { break }
                next = try lookahead.next()
            }
            if let still, lastFrame < still { throw InputError(self.input, "--still \(still): the input has only \(lastFrame + 1) frames") }
            try sink.finish()
            progress.finish()
            let rate = Double(frames) / max(progress.elapsed, 1e-9)
            print("render: \(frames) frames, overlays in \(drawn) of them, "
                  + String(format: "%.1f frames/s (start-up %.2f s)", rate, startUp) + " -> \(output)")
            for (i, hit) in scene.tapHits.sorted(by: { $0.key < $1.key }) {
                print("render: overlay \(i + 1) tapped onto \(hit.surface) " + String(format: "%.2f", hit.distance)
                      + " away (world units) and locked there")
            }
            warnAboutUnshown(scene, besides: warned)
        }
    }

    /// The writer for -o: a picture (with --still), a frame pattern, or a video.
    private func makeSink(width: Int, height: Int, fps: Double) throws -> FrameSink {
        if still != nil {
            guard !output.contains("%") else { throw ValidationError("--still writes one picture: give -o still.png, not a pattern") }
            return try ImageSequenceWriter(picture: output)
        }
        if output.contains("%") { return try ImageSequenceWriter(pattern: output) }
        let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
        guard ["mp4", "mov", "mkv", "avi", "m4v"].contains(ext) else {
            throw ValidationError("-o \(output): give a video (.mp4), a frame pattern (frames/%06d.png), or --still N with a picture")
        }
        let fourcc: [String: String] = ["h264": "avc1", "mpeg4": "mp4v"]
        guard let code = fourcc[codec] else { throw ValidationError("--codec must be h264 or mpeg4") }
        return try VideoFileWriter(path: output, width: width, height: height, framesPerSecond: fps, codec: code)
    }

    /// Before the work, one stderr warning per overlay on an anchor name that nothing of this run can
    /// carry: no reference image, marker id of a listed family, or plane (with planes on) of the
    /// session's configuration, or no anchor of the recorded stream.
    /// Returns the overlays warned about.
    private func warnAboutUnmatchable(_ scene: OverlayScene, configuration: Configuration?, recorded: [Int: FrameUpdate]) -> Set<Int> {
        let recordedNames = Set(recorded.values.flatMap { $0.anchors.flatMap { [$0.identifier] + ($0.name.map { [$0] } ?? []) } })
        func canCarry(_ name: String) -> Bool {
            guard let configuration else { return recordedNames.contains(name) }
            let images = configuration.referenceImages?.images.map(\.name) ?? []
            if images.contains(name) || images.contains(where: { "image/" + $0 == name }) { return true }
            if name.hasPrefix("plane/") { return !configuration.planeDetection.isEmpty }
            // QR anchors' ids digest payloads no one can list ahead (any code read may carry one).
            if name.hasPrefix("qr/") { return configuration.qrCodes != nil }
            // An anchor's name is its marker id; its identifier names the dictionary as anchors do
            // (MarkerDictionary's resolved name, whatever the set was given as).
            let code = Anchor.markerCode(of: name)
            guard let id = code?.id ?? Int(name) else { return false }
            return configuration.markers.contains { set in
                set.accepts(id) && (code == nil || (try? MarkerDictionary.resolve(set.dictionary).name) == code!.dictionary)
            }
        }
        var warned = Set<Int>()
        for (i, placed) in scene.placements.enumerated() {
            guard case .anchor(let name) = placed.attachment, !canCarry(name) else { continue }
            warned.insert(i)
            let source = configuration == nil ? "the recorded stream has no anchor of that name or id"
                : "no reference image, listed marker, QR code or plane of this run has that name or id"
            FileHandle.standardError.write(Data("anchorkit: warning: overlay \(i + 1) on \"\(name)\": \(source); it will not be drawn\n".utf8))
        }
        return warned
    }

    /// One stderr warning per overlay that never showed (but those of `warned`): an anchor name
    /// that never appeared, a tap that hit nothing (or whose frame never came).
    private func warnAboutUnshown(_ scene: OverlayScene, besides warned: Set<Int>) {
        for (i, placed) in scene.placements.enumerated() where !scene.wasShown[i] && !warned.contains(i) {
            let why: String
            switch placed.attachment {
            case .anchor(let name): why = "no anchor named \"\(name)\" was shown in any frame"
            case .tap(let frame, let pixel):
                why = scene.tapMissed[i] ? "the tap at frame \(frame), pixel \(pixel.x),\(pixel.y) hit no plane or target"
                                         : "frame \(frame) of the tap was not reached"
            case .world: why = "it was never in view"
            }
            FileHandle.standardError.write(Data("anchorkit: warning: overlay \(i + 1) not drawn: \(why)\n".utf8))
        }
    }
}
