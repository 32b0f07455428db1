import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitSynthesis

struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Render a synthetic recorded sequence with exact ground truth (deterministic).",
        discussion: "Example: anchorkit synth images-light -o Generated/images-light   (anchorkit synth --list names the scenes)")

    @Argument(help: "The scene to render (see --list).")
    var scene: String?

    @Option(name: .shortAndLong, help: "The sequence folder to write (an existing folder is replaced only if it is empty or an earlier output of the same scene).")
    var output: String?

    @OptionGroup var overwrite: OverwriteOption

    @Option(help: "How to store frames: images (PNG), video (mp4) or both.")
    var storage: String = "images"

    @Option(help: "Number of frames (default: the scene's).")
    var frames: Int?

    @Option(help: "Frame width (default 640; the height follows 4:3 unless given). The focal length scales with the width: the horizontal field of view stays the scene's.")
    var width: Int?

    @Option(help: "Frame height (default: 3/4 of the width).")
    var height: Int?

    @Option(help: "Distractor references listed with image scenes (images-multi has 50 by default).")
    var distractors: Int?

    @Flag(help: "Also write imu.jsonl: the camera's accelerometer and gyroscope at 200 Hz with a phone's noise and biases (FORMATS' imu), listed in sequence.json.")
    var imu = false

    @Option(help: "Seed of the location log's errors (outdoor scenes; default: the scene's): the same video with another draw of the receiver's and the compass's errors.")
    var locationSeed: UInt64?

    @Flag(help: "List the scenes.")
    var list = false

    @Flag(help: "No progress line.")
    var quiet = false

    func run() throws {
        try reportingErrors {
            if list {
                (MarkerScenes.names + CodeScenes.names + ImageScenes.names + RoomScenes.names + OutdoorScenes.names).forEach { print($0) }
                return
            }
            guard let scene, let output else { throw ValidationError("give a scene name and -o FOLDER (or --list)") }
            try SequenceSynthesizer.checkDestination(output, sceneName: scene, replacing: !overwrite.noOverwrite)
            guard let storage = SequenceSynthesizer.FrameStorage(rawValue: storage) else {
                throw ValidationError("--storage must be images, video or both")
            }
            if let frames, frames <= 0 || frames > 100_000 { throw ValidationError("--frames must be 1...100000") }
            let width = self.width ?? 640, height = self.height ?? width * 3 / 4
            guard (32...7680).contains(width) && (32...4320).contains(height) else {
                throw ValidationError("--width must be 32...7680 and --height 32...4320")
            }
            var description: SyntheticScene
            if MarkerScenes.names.contains(scene) {
                description = try MarkerScenes.scene(named: scene, frameCount: frames)
            } else if CodeScenes.names.contains(scene) {
                description = try CodeScenes.scene(named: scene, frameCount: frames)
            } else if RoomScenes.names.contains(scene) {
                description = try RoomScenes.scene(named: scene, frameCount: frames)
            } else if OutdoorScenes.names.contains(scene) {
                description = try OutdoorScenes.scene(named: scene, frameCount: frames)
            } else {
                description = try ImageScenes.scene(named: scene, frameCount: frames, width: width, height: height)
            }
            if self.width != nil || self.height != nil {
                description.camera = MarkerScenes.standardCamera(width: width, height: height)
            }
            if let distractors {
                guard (0...2000).contains(distractors) else { throw ValidationError("--distractors must be 0...2000") }
                description.distractors = try ImageScenes.distractors(count: distractors)
            }
            if imu { description.inertialSensor = InertialSensor() }
            if let locationSeed {
                guard description.georeference != nil else { throw ValidationError("--location-seed needs an outdoor scene (street-walk, street-drive)") }
                description.georeference?.logSeed = locationSeed
            }
            let progress = ProgressLine("synth \(scene)", quiet: quiet)
            try SequenceSynthesizer(storage: storage).write(description, to: output, replacing: !overwrite.noOverwrite) { done, total in
                progress.update(done: done, total: total)
            }
            progress.finish()
            print("synth: \(description.frameCount) frames of \(scene) -> \(output)")
        }
    }
}
