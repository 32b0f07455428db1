import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitEvaluation
import AnchorKitMedia

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks on public data.",
        discussion: "Example: anchorkit bench oxford ../shared/datasets/oxford-affine",
        subcommands: [OxfordBench.self, OverlayBench.self, MarkerPhotoBench.self, QRPhotoBench.self])
}

/// Reference-image detection on the Oxford affine-regions pairs: img1 of each sequence is the
/// reference, detected in img2..img6; the corner error is measured against the ground-truth
/// homographies H1toNp.
struct OxfordBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oxford",
        abstract: "Detect img1 in img2..img6 of each Oxford sequence; corner error against H1toNp, ours beside the naive mode.")

    @Argument(help: "The folder holding the sequences (graf, boat, bikes, leuven, ...).")
    var folder: String = "../shared/datasets/oxford-affine"

    @Flag(help: "Print the pairs as JSON: [{sequence, pair, ours, naive}] (corner errors in px; null: not found).")
    var json = false

    /// One pair's result, as --json writes it.
    struct Pair: Encodable { let sequence: String, pair: String, ours: Double?, naive: Double? }

    func run() throws {
        try reportingErrors {
            let sequences = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
                FileManager.default.fileExists(atPath: folder + "/" + $0 + "/img1.png")
            }.sorted()
            guard !sequences.isEmpty else { throw InputError(folder, "no sequence folders with img1.png") }
            if !json {
                print("| sequence | pair | ours corner error (px) | naive corner error (px) |")
                print("|---|---|---|---|")
            }
            var summary: [String] = [], pairs: [Pair] = []
            for name in sequences {
                let dir = folder + "/" + name
                let reference = try ReferenceImage(name: name, contentsOf: dir + "/img1.png", physicalWidth: 1)
                let original = try Image(contentsOf: dir + "/img1.png", channels: 1)
                let w = Double(original.width) - 0.5, h = Double(original.height) - 0.5
                let corners = [SIMD2(-0.5, -0.5), SIMD2(w, -0.5), SIMD2(w, h), SIMD2(-0.5, h)]
                var ours: [Double] = [], naive: [Double] = []
                for n in 2...6 {
                    let truthPath = dir + "/H1to\(n)p"
                    guard FileManager.default.fileExists(atPath: truthPath) else { continue }
                    let numbers = try String(contentsOfFile: truthPath, encoding: .utf8)
                        .split(whereSeparator: { $0.isWhitespace }).compactMap { Double($0) }
                    guard numbers.count == 9 else { throw InputError(truthPath, "expected 9 numbers") }
                    let truth = corners.map { Homography.map(Matrix3(rowMajor: numbers), $0) }
                    let frame = Frame(index: 0, time: 0, image: try Image(contentsOf: dir + "/img\(n).png"))
                    let errors = try [false, true].map { detectEveryFrame -> Double in
                        var parameters = ImageTracker.Parameters()
                        parameters.detectEveryFrame = detectEveryFrame
                        let camera = try CameraIntrinsics(
                            width: frame.image.width, height: frame.image.height, fx: Double(frame.image.width),
                            fy: Double(frame.image.width), cx: Double(frame.image.width - 1) / 2, cy: Double(frame.image.height - 1) / 2)
                        let tracker = ImageTracker(references: try ReferenceImageSet([reference]), camera: camera, parameters: parameters)
                        return Scorer.cornerError(try tracker.observe(frame).first?.corners, truth)
                    }
                    ours.append(errors[0]); naive.append(errors[1])
                    pairs.append(Pair(sequence: name, pair: "1-\(n)", ours: errors[0].isFinite ? errors[0] : nil,
                                      naive: errors[1].isFinite ? errors[1] : nil))
                    if !json { print("| \(name) | 1→\(n) | \(format(errors[0])) | \(format(errors[1])) |") }
                }
                func share(_ e: [Double]) -> String { "\(e.filter { $0 < 5 }.count)/\(e.count)" }
                summary.append("\(name): under 5 px ours \(share(ours)), naive \(share(naive))")
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(pairs), as: UTF8.self))
            } else {
                summary.forEach { print($0) }
            }
        }
    }

    private func format(_ e: Double) -> String { e.isFinite ? String(format: "%.2f", e) : "not found" }
}

/// Where overlays land: tracks each sequence, composites an opaque card over every fully visible
/// target in every frame, measures the card's corners from the composited pixels, and compares
/// them with the ground truth beside the anchor's own corner error.
struct OverlayBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlays",
        abstract: "Overlay corners measured in composited frames against the true target corners, beside each anchor's own corner error.")

    @Argument(help: "Sequence folders with ground truth.")
    var sequences: [String]

    @Flag(help: "Print the results as JSON: [{sequence, samples, overlayError, anchorError, drawingError, withinAnchorError}] (summaries in px).")
    var json = false

    /// One sequence's result, as --json writes it.
    struct Row: Encodable {
        let sequence: String, samples: Int
        let overlayError: Summary?, anchorError: Summary?, drawingError: Summary?
        /// Samples whose overlay is within the anchor's own corner error + 0.1 px.
        let withinAnchorError: Int
    }

    func run() throws {
        try reportingErrors {
            if !json {
                print("| sequence | samples | overlay corner error median / p90 (px) | anchor corner error median / p90 (px) | drawing error median / max (px) | overlay within anchor error + 0.1 px |")
                print("|---|---|---|---|---|---|")
            }
            var rows: [Row] = []
            for path in sequences {
                let sequence = try RecordedSequence(folder: path)
                let samples = try OverlayAccuracy.measure(sequence: sequence)
                let o = Summary(samples.map(\.overlayError)), a = Summary(samples.map(\.anchorError)), d = Summary(samples.map(\.drawingError))
                let within = samples.filter { $0.overlayError <= $0.anchorError + 0.1 }.count
                rows.append(Row(sequence: sequence.description.name, samples: samples.count, overlayError: o, anchorError: a, drawingError: d,
                                withinAnchorError: within))
                if !json {
                    print("| \(sequence.description.name) | \(samples.count) | \(f(o?.median)) / \(f(o?.p90)) | \(f(a?.median)) / \(f(a?.p90)) | \(f(d?.median)) / \(f(d?.max)) | \(within) (\(f(100 * Double(within) / Double(max(samples.count, 1)), 1)) %) |")
                }
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(rows), as: UTF8.self))
            }
        }
    }

    private func f(_ x: Double?, _ digits: Int = 3) -> String { x.map { String(format: "%.\(digits)f", $0) } ?? "-" }
}
