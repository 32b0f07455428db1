import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitMedia

struct TrackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Track markers and reference images in a recorded sequence or video and write the anchor stream (JSON Lines).",
        discussion: "Example: anchorkit track clip.mp4 --camera camera.json --markers DICT_4X4_50:0.08 --image poster=poster.png:0.6 -o anchors.jsonl")

    @Argument(help: "A sequence folder (with sequence.json), a video file, or a frame pattern such as frames/%06d.png.")
    var input: String

    @OptionGroup var tracking: TrackingOptions

    @Option(name: .shortAndLong, help: "Where to write the anchor stream (.jsonl).")
    var output: String

    @OptionGroup var overwrite: OverwriteOption

    @Flag(help: "No progress line.")
    var quiet = false

    @Flag(help: "After the run, print where its time went: seconds, ms a frame and frames/s of every stage.")
    var profile = false

    /// Frames after which a marker dictionary that found nothing is reported (on stderr, at once).
    static let framesBeforeDictionaryWarning = 60

    func run() throws {
        try reportingErrors {
            try OutputCheck.check(output, inputs: [input] + tracking.inputFiles, replacing: !overwrite.noOverwrite)
            let started = Date()
            let (input, session) = try tracking.makeSession(input: self.input)
            let world = session.configuration.worldTracking != nil
            let planesOn = !session.configuration.planeDetection.isEmpty
            let startUp = Date().timeIntervalSince(started)
            let writer = try AnchorStreamWriter(path: output)
            let progress = ProgressLine("track", quiet: quiet)
            var frames = 0, observations = 0, anchors = 0, normal = 0, planesFound = 0
            var warnedUnsized = false, warnedHeading = false
            var scale: WorldScale?
            var neverFound = NeverFound(markers: session.configuration.markers,
                                        imageNames: session.configuration.referenceImages?.images.map(\.name) ?? [],
                                        codes: input.qrCodes.compactMap(\.codePayload))
            var stages = StageProfile()
            let lookahead = LookaheadFrames(first: input.firstFrame, source: input.source, session: session)
            var next = try lookahead.next()
            while let frame = next {
                if let after = tracking.freezePlanesAfter, frame.time >= after { session.isRefiningPlanes = false }
                var update = try session.process(frame)
                update.imageFile = input.photos?[frame.index]
                let writing = StageProfile.now()
                try writer.write(update)
                stages.add(.writing, since: writing)
                neverFound.record(update)
                TrackingOptions.warnIfMissingWorldHeading(session, progress: progress, warned: &warnedHeading)
                if !warnedUnsized, let unsized = session.codesWithoutSize.first {
                    // Told when first read, not at the end: the run's QR anchors will lack it.
                    progress.warn("a QR code holding \"\(unsized.streamValue)\" has no size, so no anchor: give --qr SIZE_METRES or --qr-size PATTERN=SIZE_METRES")
                    warnedUnsized = true
                }
                frames += 1
                if frames == Self.framesBeforeDictionaryWarning, !neverFound.dictionariesNotSeen.isEmpty, !input.isOneFrame {
                    progress.warn("no \(neverFound.dictionariesNotSeen.joined(separator: " or ")) marker in the first \(frames) frames: "
                                  + "is the dictionary right (--markers DICTIONARY:SIZE)?")
                }
                anchors = update.anchors.count
                planesFound = update.anchors.filter { $0.kind == .plane }.count
                observations += update.anchors.filter { $0.isTracked && $0.kind != .plane }.count
                if update.camera.trackingState == .normal { normal += 1 }
                scale = update.camera.scale
                progress.update(done: frames, total: input.source.expectedFrameCount)
                let waiting = StageProfile.now()
                next = try lookahead.next()
                stages.add(.frames, since: waiting)
            }
            guard frames > 0 else { throw InputError(self.input, "no frames") }
            try writer.finish()
            progress.finish()
            let rate = Double(frames) / max(progress.elapsed, 1e-9)
            let camera = world ? "camera normal in \(normal) frames (scale \(scale?.rawValue ?? "-")), " : ""
            let planeCount = planesOn ? "\(planesFound) planes, " : ""
            print("track: \(frames) frames, \(camera)\(planeCount)\(anchors - planesFound) anchors, \(observations) tracked observations, "
                  + String(format: "%.1f frames/s (start-up %.2f s)", rate, startUp) + " -> \(output)")
            if let missing = neverFound.summary { print("track: never found: \(missing)") }

            if profile {
                let wall = progress.elapsed
                if let decoding = (input.source as? PrefetchingFrameSource)?.decoding {
                    stages.add(.decode, seconds: decoding.seconds, calls: decoding.frames)
                }
                print(String(format: "track: stage profile over %d frames, %.3f s after start-up", frames, wall))
                print(stages.merged(with: session.profile).table(frames: frames, wallSeconds: wall))
            }
        }
    }
}
