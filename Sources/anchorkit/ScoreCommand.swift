import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitEvaluation
import AnchorKitMedia

struct ScoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score an anchor stream against a sequence's ground truth (metrics of FORMATS.md).",
        discussion: "Example: anchorkit score Datasets/room-walk world.jsonl --per-frame   (a stream of another sequence is refused)")

    @OptionGroup var scored: ScoredStream

    @Flag(help: "Print the metrics as JSON.")
    var json = false

    @Flag(help: "Also list every expected observation: frame, target, the anchor matched to it (or missed), corner, rotation and translation errors (a tab-separated table, or \"observations\" in --json).")
    var perFrame = false

    func run() throws {
        try reportingErrors {
            let (recorded, truth, reported) = try scored.load(for: "score")
            var score = Scorer(camera: recorded.description.camera).score(reported: reported, truth: truth)
            if !perFrame { score.observations = nil }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(score), as: UTF8.self))
            } else {
                print("sequence: \(recorded.description.name)")
                print(score.table)
                if let table = score.observationTable { print("\n" + table) }
            }
        }
    }
}
