import Foundation
import AnchorKit

/// Frames that can be decoded independently and in any order (numbered image files), so that
/// several threads can decode them at once.
public protocol RandomAccessFrameSource: FrameSource {
    /// Frame `index` (0-based), or nil past the last one. Safe to call from several threads at
    /// once; does not move the source's own reading position.
    func frame(at index: Int) throws -> Frame?
}

/// Decodes the frames of another source on background threads, a few frames ahead of the
/// reader, so that decoding (PNG inflation, video decoding) overlaps tracking instead of adding
/// to it. Frames, the end and errors arrive in the order of the wrapped source.
///
/// A ``RandomAccessFrameSource`` is decoded by `workers` threads at once; any other source by
/// one thread, in order. The wrapped source must not be used by anyone else once wrapped.
/// Frames are immutable (`Image` is shareable), so handing them between threads is safe.
public final class PrefetchingFrameSource: FrameSource {
    public let framesPerSecond: Double
    public let expectedFrameCount: Int?
    private let state: State

    /// Starts decoding `source` — a sequential one from its current position, a random-access
    /// one from its first frame — holding at most `depth` decoded frames (at least `workers`)
    /// in memory.
    public init(_ source: FrameSource, depth: Int = 4, workers: Int = 2) {
        framesPerSecond = source.framesPerSecond
        expectedFrameCount = source.expectedFrameCount
        let produce: @Sendable (Int) throws -> Frame?
        var threads = 1
        if let random = source as? RandomAccessFrameSource {
            let box = Box(random)
            produce = { index in try box.value.frame(at: index) }
            threads = max(1, workers)
        } else {
            // One thread only, so the calls come in index order.
            let box = Box(source)
            produce = { _ in try box.value.nextFrame() }
        }
        state = State(capacity: max(depth, threads), workers: threads)
        for n in 0..<threads {
            let thread = Thread { [state] in state.work(produce) }
            thread.name = "AnchorKit decode \(n)"
            thread.start()
        }
    }

    /// Stops the decoding threads and waits for them (at most one frame's decoding each): a
    /// process that exits on an error must not tear down the codecs under a running decoder.
    deinit { state.cancel() }

    /// The next frame in order; after the last one nil (and after an error, that error),
    /// however often it is asked.
    public func nextFrame() throws -> Frame? { try state.take().get() }

    /// Seconds the decoding threads have spent decoding so far, summed over the threads, and
    /// the frames they decoded (ahead of the pipeline, so mostly hidden from its wall time).
    public var decoding: (seconds: Double, frames: Int) { state.decoding }

    /// Lets the producers hold the source without claiming it is shareable in general: a
    /// sequential source is touched by one thread only, a random-access one promises safety.
    private final class Box<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Frame results by index between the decoding threads and the reader. The last result
    /// (the end, or an error) stays once reached.
    private final class State: @unchecked Sendable {
        private let condition = NSCondition()
        private var results: [Int: Result<Frame?, Error>] = [:]
        private var nextToClaim = 0, nextToDeliver = 0
        /// One past the index of the first end or error produced: nothing beyond is decoded.
        private var limit = Int.max
        private var cancelled = false
        private let capacity: Int
        /// Decoding threads that have not returned.
        private var running: Int

        private var decodeSeconds = 0.0, decodedFrames = 0

        init(capacity: Int, workers: Int) { self.capacity = capacity; running = workers }

        var decoding: (seconds: Double, frames: Int) {
            condition.lock(); defer { condition.unlock() }
            return (decodeSeconds, decodedFrames)
        }

        /// A decoding thread's loop: claim the next index while there is room, decode it, post it.
        func work(_ produce: (Int) throws -> Frame?) {
            defer {
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            while true {
                condition.lock()
                while !cancelled && nextToClaim < limit && nextToClaim >= nextToDeliver + capacity { condition.wait() }
                if cancelled || nextToClaim >= limit { condition.unlock(); return }
                let index = nextToClaim
                nextToClaim += 1
                condition.unlock()

                let start = ContinuousClock.now
                let result = Result { try produce(index) }
                let elapsed = (ContinuousClock.now - start).seconds
                condition.lock()
                decodeSeconds += elapsed
                results[index] = result
                if case .success(.some) = result { decodedFrames += 1 } else { limit = min(limit, index + 1) }
                condition.broadcast()
                condition.unlock()
            }
        }

        func take() -> Result<Frame?, Error> {
            condition.lock(); defer { condition.unlock() }
            while results[nextToDeliver] == nil { condition.wait() }
            let result = results[nextToDeliver]!
            if case .success(.some) = result {
                results[nextToDeliver] = nil
                nextToDeliver += 1
                condition.broadcast()
            }
            return result
        }

        /// Stops the workers and returns once none is decoding.
        func cancel() {
            condition.lock(); defer { condition.unlock() }
            cancelled = true
            condition.broadcast()
            while running > 0 { condition.wait() }
        }
    }
}
