import AnchorKit
/// Where rendered frames go: a video file or numbered pictures. Nothing appears at the
/// destination until ``finish()`` succeeds, so a failed run leaves no partial output.
public protocol FrameSink: AnyObject {
    /// Appends a frame.
    func write(_ image: Image) throws
    /// Completes the output and moves it into place.
    func finish() throws
    /// Drops everything written so far.
    func discard()
}

extension VideoFileWriter: FrameSink {}
