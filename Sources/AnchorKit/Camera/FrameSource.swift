/// A source of camera frames in capture order: a folder of images, a video file, a live feed.
public protocol FrameSource: AnyObject {
    /// Frames per second of the recording.
    var framesPerSecond: Double { get }
    /// How many frames the source expects to deliver, if known (for progress reports).
    var expectedFrameCount: Int? { get }
    /// The next frame, or nil after the last one. Throws for unreadable or truncated input.
    func nextFrame() throws -> Frame?
}

extension FrameSource {
    /// An async sequence of the remaining frames.
    public var frames: AsyncThrowingStream<Frame, Error> {
        AsyncThrowingStream { () async throws -> Frame? in try self.nextFrame() }
    }
}
