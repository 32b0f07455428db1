import AnchorKit

/// An input's frames in order, each handed to the session (``Session/anticipate(_:)``) as soon
/// as it is read, up to ``Session/framesWorthAnticipating`` frames before it is processed: the
/// markers' full-frame passes then run on another core while earlier frames are tracked. The
/// stream is the same as without it.
final class LookaheadFrames {
    private let source: FrameSource
    private let session: Session?
    private let depth: Int
    /// Frames read and anticipated, not yet returned.
    private var ahead: [Frame] = []
    private var ended = false

    /// The frames of `source` after `first` (already read); anticipated by `session` if given.
    init(first: Frame?, source: FrameSource, session: Session?) {
        self.source = source
        self.session = session
        depth = session?.framesWorthAnticipating ?? 0
        if let first { ahead = [first] } else { ended = true }
    }

    /// The next frame, or nil after the last one. Throws the source's errors when it reaches them.
    func next() throws -> Frame? {
        while !ended && ahead.count <= depth {
            guard let frame = try source.nextFrame() else { ended = true; break }
            session?.anticipate(frame)
            ahead.append(frame)
        }
        return ahead.isEmpty ? nil : ahead.removeFirst()
    }
}
