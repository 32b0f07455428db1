import Foundation
import Testing

@testable import AnchorKit
@testable import AnchorKitMedia

/// Decoding ahead on background threads must not change what a reader sees: the same frames in
/// the same order, the end, and errors at the frame they belong to.
@Suite struct PrefetchingFrameSourceTests {
    /// A cheap fingerprint of a frame's pixels.
    private func checksum(_ image: Image) -> UInt64 {
        image.withPixels { first, rowStride in
            var sum: UInt64 = 1469598103934665603
            for y in 0..<image.height {
                for i in stride(from: y * rowStride, to: y * rowStride + image.width * image.channels, by: 5) {
                    sum = (sum ^ UInt64(first[i])) &* 1099511628211
                }
            }
            return sum
        }
    }

    private func drain(_ source: FrameSource) throws -> [(index: Int, time: Double, sum: UInt64)] {
        var frames: [(Int, Double, UInt64)] = []
        while let frame = try source.nextFrame() { frames.append((frame.index, frame.time, checksum(frame.image))) }
        return frames
    }

    @Test func videoFramesArriveUnchangedAndInOrder() throws {
        let path = Paths.dataset("markers-blur") + "/video.mp4"
        let direct = try drain(try VideoFileSource(path: path))
        let prefetched = PrefetchingFrameSource(try VideoFileSource(path: path))
        let ahead = try drain(prefetched)
        #expect(ahead.count == direct.count && direct.count > 30)
        #expect(zip(ahead, direct).allSatisfy { $0.index == $1.index && $0.time == $1.time && $0.sum == $1.sum })
        #expect(try prefetched.nextFrame() == nil, "the end stays the end")
    }

    /// Numbered files are decoded by two threads at once; a broken file in the middle is reported
    /// after the frames before it, and again on every later call.
    @Test func folderFramesDecodedInParallelKeepOrderAndErrors() throws {
        let folder = TemporaryFolder()
        let video = try VideoFileSource(path: Paths.dataset("images-still") + "/video.mp4")
        for n in 0..<12 {
            let frame = try #require(try video.nextFrame())
            try frame.image.write(to: folder.file(String(format: "%03d.png", n)))
        }
        let pattern = folder.file("%03d.png")
        let direct = try drain(try ImageFolderSource(pattern: pattern, framesPerSecond: 30))
        let ahead = try drain(PrefetchingFrameSource(try ImageFolderSource(pattern: pattern, framesPerSecond: 30), workers: 2))
        #expect(ahead.count == 12)
        #expect(zip(ahead, direct).allSatisfy { $0.index == $1.index && $0.sum == $1.sum })

        try Data("not a PNG".utf8).write(to: URL(fileURLWithPath: folder.file("007.png")))
        let broken = PrefetchingFrameSource(try ImageFolderSource(pattern: pattern, framesPerSecond: 30), workers: 2)
        for n in 0..<7 { #expect(try broken.nextFrame()?.index == n) }
        for _ in 0..<2 {
            expectOneLineError(containing: ["007.png"]) { _ = try broken.nextFrame() }
        }
    }

    @Test func abandonedReaderReleasesTheSource() throws {
        // Dropping the source mid-way cancels the decoders (they hold the queue, not the source).
        weak var escaped: PrefetchingFrameSource?
        do {
            let source = PrefetchingFrameSource(try VideoFileSource(path: Paths.dataset("markers-blur") + "/video.mp4"), depth: 2)
            _ = try source.nextFrame()
            escaped = source
        }
        #expect(escaped == nil)
    }
}
