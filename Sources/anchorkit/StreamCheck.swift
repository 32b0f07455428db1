import AnchorKit
import AnchorKitMedia
import ArgumentParser
import Foundation

/// The arguments of the commands that read a stream against a sequence's ground truth (`score`, `plot`).
struct ScoredStream: ParsableArguments {
    @Argument(help: "The sequence folder (its sequence.json names the ground truth).")
    var sequence: String

    @Argument(help: "The anchor stream (.jsonl from `anchorkit track`).")
    var anchors: String

    /// The sequence, its ground truth and the stream, checked (``StreamCheck/load(_:of:for:)``).
    func load(for command: String) throws -> (sequence: RecordedSequence, truth: [FrameUpdate], reported: [FrameUpdate]) {
        try StreamCheck.load(anchors, of: sequence, for: command)
    }
}

/// Mistakes caught before scoring or plotting a stream: one of another sequence (its frames or
/// its image names are not the sequence's) is an error; a stream that reports no target where the
/// truth has some (a world-only run) gets a warning, since its target metrics would all be misses.
enum StreamCheck {
    /// The sequence at `folder`, its ground truth and the stream at `path`, checked (``check``):
    /// warnings go to stderr under `command`'s name.
    static func load(_ path: String, of folder: String, for command: String)
        throws -> (sequence: RecordedSequence, truth: [FrameUpdate], reported: [FrameUpdate]) {
        let sequence = try RecordedSequence(folder: folder)
        guard let truth = try sequence.groundTruth() else { throw InputError(folder + "/sequence.json", "names no groundTruth file") }
        let reported = try AnchorStreamReader.read(contentsOf: path, camera: sequence.description.camera)
        for warning in try check(reported, from: path, against: truth, of: sequence) {
            FileHandle.standardError.write(Data("\(command): warning: \(warning)\n".utf8))
        }
        return (sequence, truth, reported)
    }

    /// Throws when `reported` (read from `path`) cannot be a run over `sequence`; returns the
    /// warnings to print.
    static func check(_ reported: [FrameUpdate], from path: String, against truth: [FrameUpdate],
                      of sequence: RecordedSequence) throws -> [String] {
        let name = sequence.description.name
        let frames = Set(reported.map(\.frame)), truthFrames = Set(truth.map(\.frame))
        if frames != truthFrames {
            let beyond = frames.subtracting(truthFrames).count, missing = truthFrames.subtracting(frames).count
            throw InputError(path, "its \(frames.count) frames are not \(name)'s \(truthFrames.count)"
                + (beyond > 0 ? " (\(beyond) beyond them)" : "") + (missing > 0 ? " (\(missing) of them missing)" : "")
                + ": a stream of another sequence, or of part of this one?")
        }
        let images = Set((sequence.description.images ?? []).map(\.name))
            .union(truth.flatMap { $0.anchors.filter { $0.kind == .image }.compactMap(\.name) })
        let strangers = Set(reported.flatMap { $0.anchors.filter { $0.kind == .image }.compactMap(\.name) }).subtracting(images)
        if !strangers.isEmpty {
            throw InputError(path, "reports reference images that \(name) does not have (\(strangers.sorted().joined(separator: ", "))): "
                + "a stream of another sequence?")
        }
        var warnings: [String] = []
        let expectsTargets = truth.contains { $0.anchors.contains { $0.kind != .plane && $0.kind != .geo && $0.isTracked } }
        let reportsTargets = reported.contains { $0.anchors.contains { $0.kind != .plane && $0.kind != .geo } }
        if expectsTargets && !reportsTargets {
            warnings.append("\(path) reports no marker or image while \(name) has some in view: every target counts as missed"
                + (reported.contains { $0.camera.scale != nil } ? " (a world-only run?)" : ""))
        }
        return warnings
    }
}
