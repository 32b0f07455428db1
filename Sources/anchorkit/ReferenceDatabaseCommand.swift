import AnchorKit
import ArgumentParser
import Foundation
import AnchorKitMedia

/// `anchorkit reference-db`: computes the features of a reference-image set once and saves them,
/// so that `track --references` starts without extracting them again.
struct ReferenceDatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reference-db",
        abstract: "Save a reference-image set (features computed once) for `track --references`.",
        discussion: "Example: anchorkit reference-db --image poster=poster.png:0.6 --image card=card.jpg:0.09 -o refs.akrefs")

    @Argument(help: "A sequence folder whose sequence.json lists the images (optional with --image).")
    var sequence: String?

    @Option(name: .customLong("image"), parsing: .singleValue,
            help: "A reference image NAME=PATH:WIDTH_METRES (repeatable); added to the sequence's.")
    var images: [String] = []

    @Option(name: .shortAndLong, help: "The database file to write (e.g. refs.akrefs).")
    var output: String

    @OptionGroup var overwrite: OverwriteOption

    func run() throws {
        try reportingErrors {
            let imageFiles = images.map { try? ReferenceImageSet.target(argument: $0).file }
            try OutputCheck.check(output, inputs: [sequence] + imageFiles, replacing: !overwrite.noOverwrite)
            let started = Date()
            var targets: [(SequenceDescription.ImageTarget, String)] = []
            if let sequence {
                let recorded = try RecordedSequence(folder: sequence)
                targets += (recorded.description.images ?? []).map { ($0, recorded.folder) }
            }
            targets += try images.map { (try ReferenceImageSet.target(argument: $0), FileManager.default.currentDirectoryPath) }
            guard !targets.isEmpty else { throw ValidationError("no reference images: give a sequence with images or --image NAME=PATH:WIDTH") }
            let set = try ReferenceImageSet(targets.map { try ReferenceImage(target: $0.0, folder: $0.1) })
            try ReferenceDatabase.write(set, to: output)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.intValue ?? 0
            let features = set.images.map(\.features.count).reduce(0, +)
            print(String(format: "reference-db: %d references, %d features, %.1f MB in %.1f s -> %@", set.images.count, features,
                         Double(bytes) / 1e6, Date().timeIntervalSince(started), output))
        }
    }
}
