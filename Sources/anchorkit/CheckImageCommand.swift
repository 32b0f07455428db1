import AnchorKit
import ArgumentParser
import Foundation

struct CheckImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-image",
        abstract: "Rate pictures as reference images (0-100, with reasons) and warn about pairs too alike to tell apart.",
        discussion: "Example: anchorkit check-image poster.png card.jpg")

    @Argument(help: "Image files.")
    var files: [String]

    @Flag(help: "Print the ratings as JSON: {\"images\": [{file, score, reasons, features, spread, repetition, contrast}], \"lookAlikes\": [{a, b, inliers}]}.")
    var json = false

    /// One picture's rating, as --json writes it.
    struct Rating: Encodable {
        let file: String, score: Int, reasons: [String], features: Int, spread: Double, repetition: Double, contrast: Double
    }
    struct LookAlike: Encodable { let a: String, b: String, inliers: Int }
    struct Report: Encodable { let images: [Rating], lookAlikes: [LookAlike] }

    func run() throws {
        try reportingErrors {
            guard !files.isEmpty else { throw ValidationError("give one or more image files") }
            var references: [ReferenceImage] = []
            var ratings: [Rating] = []
            for file in files {
                let original = try Image(contentsOf: file, channels: 1)
                let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                let reference: ReferenceImage
                do { reference = try ReferenceImage(name: name, image: original, physicalWidth: 1) } catch let e as ReferenceImageError {
                    throw InputError(file, e.description)
                }
                let quality = try ImageQuality.evaluate(reference, originalSize: (original.width, original.height))
                ratings.append(Rating(file: file, score: quality.score, reasons: quality.reasons, features: quality.featureCount,
                                      spread: quality.spread, repetition: quality.repetition, contrast: quality.contrast))
                if !json { print("\(file): \(quality.score)/100" + (quality.reasons.isEmpty ? "" : ": " + quality.reasons.joined(separator: "; "))) }
                if !references.contains(where: { $0.name == name }) { references.append(reference) }
            }
            let lookAlikes = try ReferenceImageSet(references).lookAlikes().map { LookAlike(a: $0.0, b: $0.1, inliers: $0.2) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(Report(images: ratings, lookAlikes: lookAlikes)), as: UTF8.self))
                return
            }
            for l in lookAlikes {
                print("warning: \(l.a) and \(l.b) are too alike to tell apart (\(l.inliers) matching features agree on one homography)")
            }
        }
    }
}
