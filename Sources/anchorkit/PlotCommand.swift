import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitEvaluation
import AnchorKitMedia

struct PlotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw a scored anchor stream as SVG pictures: each target's corner error over time, with world tracking the camera path from above beside the true one, and with planes each plane's coverage over time.",
        discussion: "Example: anchorkit plot Datasets/room-walk walk.jsonl -o plots   (writes plots/errors.svg, plots/trajectory.svg and, for a stream with planes, plots/planes.svg)")

    @OptionGroup var scored: ScoredStream

    @Option(name: .shortAndLong, help: "The folder to write the pictures into (made if missing).")
    var output: String

    @Option(help: "Corner errors above this many pixels are drawn at the top of the error picture.")
    var ceiling = 5.0

    func run() throws {
        try reportingErrors {
            guard ceiling > 0 && ceiling.isFinite else { throw ValidationError("--ceiling must be a positive number of pixels, got \(ceiling)") }
            let (recorded, truth, reported) = try scored.load(for: "plot")
            let score = Scorer(camera: recorded.description.camera).score(reported: reported, truth: truth)
            let name = recorded.description.name
            var pictures: [(file: String, chart: SVGChart)] = []
            if let chart = ResultPlots.errors(score, truth: truth, name: name, ceiling: ceiling) { pictures.append(("errors.svg", chart)) }
            if let chart = ResultPlots.trajectory(reported: reported, truth: truth, name: name) { pictures.append(("trajectory.svg", chart)) }
            if let chart = ResultPlots.planeCoverage(reported: reported, truth: truth, camera: recorded.description.camera, name: name) {
                pictures.append(("planes.svg", chart))
            }
            guard !pictures.isEmpty else { throw InputError(scored.anchors, "nothing to draw: the truth expects no target and the stream has no world tracking") }
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for (file, chart) in pictures {
                let path = output + "/" + file
                let atomic = try AtomicFile(destination: path)
                try atomic.write(Data(chart.svg().utf8))
                try atomic.commit()
                print("plot: \(path)")
            }
        }
    }
}
