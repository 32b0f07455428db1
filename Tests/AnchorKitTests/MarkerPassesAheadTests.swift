import Foundation
import Testing
@testable import AnchorKit
@testable import AnchorKitMedia

/// Whole-frame marker passes run ahead on another core for frames handed to the session early
/// (`Session.anticipate`, as `anchorkit track` does): every update is byte for byte what the
/// session gives without them, on the committed far walk (small markers, several sharing an id).
@Suite("Marker passes ahead")
struct MarkerPassesAheadTests {
    /// The first `count` frames' updates, JSON-encoded, with frames handed ahead or not, and how
    /// many passes ran ahead.
    static func run(_ name: String, frames count: Int, anticipating: Bool) throws -> (updates: [Data], passesAhead: Int) {
        let sequence = try RecordedSequence(folder: Paths.dataset(name))
        let session = try Session(configuration: try Configuration(sequence: sequence))
        let source = try sequence.openFrames()
        var frames: [Frame] = []
        while frames.count < count, let frame = try source.nextFrame() { frames.append(frame) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var updates: [Data] = [], handed = 1
        for (i, frame) in frames.enumerated() {
            // Frames are handed as a reader decoding ahead would: up to the session's depth beyond this one.
            while anticipating && handed < min(frames.count, i + 1 + session.framesWorthAnticipating) {
                session.anticipate(frames[handed])
                handed += 1
            }
            updates.append(try encoder.encode(try session.process(frame)))
        }
        return (updates, session.profile.calls[StageProfile.Stage.markerPassesAhead.rawValue])
    }

    @Test func passesAheadChangeNoUpdate() throws {
        let plain = try Self.run("markers-far-walk", frames: 48, anticipating: false)
        let ahead = try Self.run("markers-far-walk", frames: 48, anticipating: true)
        print("markers-far-walk, 48 frames: \(ahead.passesAhead) passes ahead")
        #expect(plain.passesAhead == 0)
        #expect(ahead.passesAhead >= 32)  // the coarse and full passes of most frames
        #expect(plain.updates.count == ahead.updates.count)
        for (i, (a, b)) in zip(plain.updates, ahead.updates).enumerated() { #expect(a == b, "frame \(i)") }
    }
}
