import AnchorKit
import ArgumentParser
import Foundation

struct CheckImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-image",
        abstract: "Rate pictures as reference images (0-100, with reasons) and warn about pairs too alike to tell apart.")

    @Argument(help: "Image files.")
    var files: [String]

    func run() throws {
        try reportingErrors {
            guard !files.isEmpty else { throw ValidationError("give one or more image files") }
            var references: [ReferenceImage] = []
            for file in files {
                let original = try Image(contentsOf: file, channels: 1)
                let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                let reference: ReferenceImage
                do { reference = try ReferenceImage(name: name, image: original, physicalWidth: 1) } catch let e as ReferenceImageError {
                    throw InputError(file, e.description)
                }
                let quality = try ImageQuality.evaluate(reference, originalSize: (original.width, original.height))
                print("\(file): \(quality.score)/100" + (quality.reasons.isEmpty ? "" : ": " + quality.reasons.joined(separator: "; ")))
                if !references.contains(where: { $0.name == name }) { references.append(reference) }
            }
            for (a, b, inliers) in try ReferenceImageSet(references).lookAlikes() {
                print("warning: \(a) and \(b) are too alike to tell apart (\(inliers) matching features agree on one homography)")
            }
        }
    }
}
